package engine

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"io"
	"sync"

	"github.com/tidwall/buntdb"
)

// A receipt handle is a version byte, the queue's id, the message's
// sequence number and its delivery token: it names its queue, so that it
// works without one, and is bound to one delivery. The token is a random
// nonce and a MAC of queue, sequence number and nonce under a key kept in
// the store, so a handle minisqs never issued is told from a stale one it
// did issue: the first is ReceiptHandleIsInvalid, the second behaves as SQS
// documents for old handles. The version byte also makes every handle start
// with "A", never with "-", which a command line would read as a flag.
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
	macs sync.Pool // of hash.Hash keyed with the store's key
}

// loadHandleSigner reads the store's key, or makes one and stores it.
func loadHandleSigner(s *store, random io.Reader) (*handleSigner, error) {
	var key []byte
	err := s.db.View(func(tx *buntdb.Tx) error {
		v, err := tx.Get(handleKeyKey)
		if err == buntdb.ErrNotFound {
			return nil
		}
		if err != nil {
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
		err := s.update(func(tx *buntdb.Tx) error {
			_, _, err := tx.Set(handleKeyKey, hex.EncodeToString(key), nil)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return &handleSigner{macs: sync.Pool{New: func() any { return hmac.New(sha256.New, key) }}}, nil
}

func (h *handleSigner) mac(qid [16]byte, seq uint64, nonce []byte) [macLen]byte {
	var in [16 + 8 + nonceLen]byte
	copy(in[:16], qid[:])
	binary.BigEndian.PutUint64(in[16:24], seq)
	copy(in[24:], nonce)
	m := h.macs.Get().(hash.Hash)
	m.Reset()
	m.Write(in[:])
	var sum [sha256.Size]byte
	m.Sum(sum[:0])
	h.macs.Put(m)
	return [macLen]byte(sum[:macLen])
}

// newToken gives m a fresh delivery token in queue qid.
func (h *handleSigner) newToken(random io.Reader, qid [16]byte, m *message) error {
	if _, err := io.ReadFull(random, m.token[:nonceLen]); err != nil {
		return err
	}
	mac := h.mac(qid, m.seq, m.token[:nonceLen])
	copy(m.token[nonceLen:], mac[:])
	return nil
}

// valid reports whether token was issued for message seq of queue qid.
func (h *handleSigner) valid(qid [16]byte, seq uint64, token [tokenLen]byte) bool {
	mac := h.mac(qid, seq, token[:nonceLen])
	return hmac.Equal(mac[:], token[nonceLen:])
}

func encodeReceiptHandle(qid [16]byte, seq uint64, token [tokenLen]byte) string {
	var b [receiptHandleLen]byte
	b[0] = receiptHandleVersion
	copy(b[1:17], qid[:])
	binary.BigEndian.PutUint64(b[17:25], seq)
	copy(b[25:], token[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// decodeReceiptHandle reads a handle's parts; it does not check the token.
func decodeReceiptHandle(h string) (qid [16]byte, seq uint64, token [tokenLen]byte, err error) {
	b, derr := base64.RawURLEncoding.DecodeString(h)
	if derr != nil || len(b) != receiptHandleLen || b[0] != receiptHandleVersion {
		return qid, 0, token, errHandleNeverIssued(h)
	}
	copy(qid[:], b[1:17])
	copy(token[:], b[25:])
	return qid, binary.BigEndian.Uint64(b[17:25]), token, nil
}

func errHandleNeverIssued(h string) error {
	return ErrHandleInvalid(h, ReasonNotHandle)
}
