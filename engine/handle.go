package engine

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"io"
	"sync"
)

// A receipt handle is a version byte, the queue's id, the message's
// sequence number and its delivery token: it names its queue, so that it
// works without one, and is bound to one delivery. The token is a random
// nonce and a MAC of queue, sequence number and nonce under a key kept in
// the store, so a handle minisqs never issued is told from a stale one it
// did issue: the first is ReceiptHandleIsInvalid, the second behaves as SQS
// documents for old handles. The version byte also makes every handle start
// with "A", never with "-", which a command line would read as a flag.
//
// The MAC is AES in CBC-MAC over the token's input, two blocks long, under a
// key derived from the stored one.
const (
	receiptHandleVersion = 2
	receiptHandleLen     = 1 + 16 + 8 + tokenLen
	tokenLen             = nonceLen + macLen
	nonceLen             = 8
	macLen               = 8 // 64 bits: forging one takes 2^63 tries on average
	handleKeyLen         = 32
)

// handleKeyKey holds the store's receipt-handle key, in hex.
const handleKeyKey = "c:handlekey"

// handleSigner makes and checks delivery tokens under one key.
type handleSigner struct {
	block cipher.Block // AES under the key derived from the stored one
	mu    sync.Mutex   // guards idle
	// idle holds scratch space for MACs not in use; unlike a sync.Pool's,
	// it survives garbage collections.
	idle []*tokenMAC
}

// tokenMAC is room for a token's MAC input and its sums.
type tokenMAC struct {
	in  [16 + 8 + nonceLen]byte
	out [aes.BlockSize]byte
}

// maxIdleMACs bounds the scratch kept, a few for each goroutine that may be
// receiving at once.
const maxIdleMACs = 64

// tokenAESKeyLabel derives the AES key from the stored one, so that no key
// serves two algorithms.
const tokenAESKeyLabel = "minisqs receipt token AES-256 key"

// loadHandleSigner reads the store's key, or makes one and stores it.
func loadHandleSigner(s *store, random io.Reader) (*handleSigner, error) {
	var key []byte
	err := s.view(func(tx recordTx) error {
		v, ok, err := tx.get(handleKeyKey)
		if !ok || err != nil {
			return err
		}
		key, err = hex.DecodeString(v)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(key) != handleKeyLen {
		key = make([]byte, handleKeyLen)
		if _, err := io.ReadFull(random, key); err != nil {
			return nil, err
		}
		err := s.update(func(tx recordTx) error {
			return tx.set(handleKeyKey, hex.EncodeToString(key))
		})
		if err != nil {
			return nil, err
		}
	}
	return newHandleSigner(key)
}

func newHandleSigner(key []byte) (*handleSigner, error) {
	derive := hmac.New(sha256.New, key)
	derive.Write([]byte(tokenAESKeyLabel))
	block, err := aes.NewCipher(derive.Sum(nil))
	if err != nil {
		return nil, err
	}
	return &handleSigner{block: block}, nil
}

// scratch lends a tokenMAC holding the input for message seq of queue qid
// under nonce; done gives it back.
func (h *handleSigner) scratch(qid [16]byte, seq uint64, nonce []byte) *tokenMAC {
	h.mu.Lock()
	var t *tokenMAC
	if n := len(h.idle); n > 0 {
		t, h.idle = h.idle[n-1], h.idle[:n-1]
	}
	h.mu.Unlock()
	if t == nil {
		t = new(tokenMAC)
	}
	copy(t.in[:16], qid[:])
	binary.BigEndian.PutUint64(t.in[16:24], seq)
	copy(t.in[24:], nonce)
	return t
}

func (h *handleSigner) done(t *tokenMAC) {
	h.mu.Lock()
	if len(h.idle) < maxIdleMACs {
		h.idle = append(h.idle, t)
	}
	h.mu.Unlock()
}

// mac is the CBC-MAC of t's input: its two blocks of a fixed length, for
// which CBC-MAC is a secure MAC.
func (h *handleSigner) mac(t *tokenMAC) [macLen]byte {
	h.block.Encrypt(t.out[:], t.in[:aes.BlockSize])
	subtle.XORBytes(t.out[:], t.out[:], t.in[aes.BlockSize:])
	h.block.Encrypt(t.out[:], t.out[:])
	return [macLen]byte(t.out[:macLen])
}

// newToken returns a fresh delivery token for message seq of queue qid.
// The nonce is read into the lent scratch, not into token, which a read
// through an io.Reader would move to the heap.
func (h *handleSigner) newToken(random io.Reader, qid [16]byte, seq uint64) (token [tokenLen]byte, err error) {
	t := h.scratch(qid, seq, nil)
	defer h.done(t)
	nonce := t.in[len(t.in)-nonceLen:]
	if _, err := io.ReadFull(random, nonce); err != nil {
		return token, err
	}
	mac := h.mac(t)
	copy(token[:nonceLen], nonce)
	copy(token[nonceLen:], mac[:])
	return token, nil
}

// valid reports whether token was issued for message seq of queue qid.
func (h *handleSigner) valid(qid [16]byte, seq uint64, token [tokenLen]byte) bool {
	t := h.scratch(qid, seq, token[:nonceLen])
	defer h.done(t)
	mac := h.mac(t)
	return hmac.Equal(mac[:], token[nonceLen:])
}

func encodeReceiptHandle(qid [16]byte, seq uint64, token [tokenLen]byte) string {
	var text [receiptHandleTextLen]byte
	return string(appendReceiptHandle(text[:0], qid, seq, token))
}

// appendReceiptHandle appends encodeReceiptHandle's text to dst.
func appendReceiptHandle(dst []byte, qid [16]byte, seq uint64, token [tokenLen]byte) []byte {
	var b [receiptHandleLen]byte
	b[0] = receiptHandleVersion
	copy(b[1:17], qid[:])
	binary.BigEndian.PutUint64(b[17:25], seq)
	copy(b[25:], token[:])
	return base64.RawURLEncoding.AppendEncode(dst, b[:])
}

// receiptHandleTextLen is the length of every receipt handle minisqs
// issues: receiptHandleLen bytes in unpadded base64.
const receiptHandleTextLen = (receiptHandleLen*8 + 5) / 6

// decodeReceiptHandle reads a handle's parts; it does not check the token.
func decodeReceiptHandle(h string) (qid [16]byte, seq uint64, token [tokenLen]byte, err error) {
	var b [receiptHandleLen]byte
	n, derr := 0, error(nil)
	if len(h) == receiptHandleTextLen {
		// A handle as issued is decoded in place.
		var text [receiptHandleTextLen]byte
		copy(text[:], h)
		n, derr = base64.RawURLEncoding.Decode(b[:], text[:])
	} else {
		// Decoding skips newlines, so a longer text may still hold a handle.
		var d []byte
		d, derr = base64.RawURLEncoding.DecodeString(h)
		n = len(d)
		copy(b[:], d)
	}
	if derr != nil || n != receiptHandleLen || b[0] != receiptHandleVersion {
		return qid, 0, token, errHandleNeverIssued(h)
	}
	copy(qid[:], b[1:17])
	copy(token[:], b[25:])
	return qid, binary.BigEndian.Uint64(b[17:25]), token, nil
}

func errHandleNeverIssued(h string) error {
	return ErrHandleInvalid(h, ReasonNotHandle)
}
