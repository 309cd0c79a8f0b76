package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// FIFO deduplication and receive attempts (API_SendMessage,
// API_ReceiveMessage; "Exactly-once processing" in the SQS Developer Guide).

// maxFIFOIDLen bounds MessageGroupId, MessageDeduplicationId and
// ReceiveRequestAttemptId, which take 1 to 128 alphanumeric or punctuation
// characters.
const maxFIFOIDLen = 128

// validFIFOID applies SQS's rule for group, deduplication and attempt ids:
// 1 to 128 characters of a-z, A-Z, 0-9 and ASCII punctuation.
func validFIFOID(s string) bool {
	if s == "" || len(s) > maxFIFOIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c > '~' {
			return false
		}
	}
	return true
}

func checkFIFOID(param, v string) error {
	if !validFIFOID(v) {
		return ErrInvalidParameter(param, v, ReasonCharacters)
	}
	return nil
}

// contentDeduplicationID is the id content-based deduplication uses: the
// SHA-256 of the body.
func contentDeduplicationID(body string) string {
	sum := sha256.Sum256([]byte(body))
	return hex.EncodeToString(sum[:])
}

// formatSequenceNumber renders a FIFO sequence number as SQS does: a
// decimal string, here zero-padded to 20 digits so it also sorts as text.
func formatSequenceNumber(seq uint64) string { return fmt.Sprintf("%020d", seq) }

// dedupEntry remembers a send for the deduplication window.
type dedupEntry struct {
	messageID, sequenceNumber string
	expires                   int64
}

type dedupExpiry struct {
	key     string
	expires int64
}

// dedupWindow holds the deduplication ids sent in the last five minutes.
// Entries expire in the order they were made, so a queue of keys keeps
// expiry O(1) per entry.
type dedupWindow struct {
	entries map[string]dedupEntry
	order   []dedupExpiry
}

func dedupKey(scope, groupID, dedupID string) string {
	if scope == DeduplicationScopeMessageGroup {
		return groupID + "\x00" + dedupID
	}
	return dedupID
}

func (w *dedupWindow) lookup(key string, now int64) (dedupEntry, bool) {
	e, ok := w.entries[key]
	if !ok || e.expires <= now {
		return dedupEntry{}, false
	}
	return e, true
}

func (w *dedupWindow) add(key string, e dedupEntry) {
	if w.entries == nil {
		w.entries = map[string]dedupEntry{}
	}
	w.entries[key] = e
	w.order = append(w.order, dedupExpiry{key, e.expires})
}

// expire drops entries whose window has ended.
func (w *dedupWindow) expire(now int64) {
	n := 0
	for n < len(w.order) && w.order[n].expires <= now {
		x := w.order[n]
		if e, ok := w.entries[x.key]; ok && e.expires == x.expires {
			delete(w.entries, x.key)
		}
		n++
	}
	if n > 0 {
		w.order = append(w.order[:0], w.order[n:]...)
	}
}

// attempt is a receive made with a ReceiveRequestAttemptId: the messages
// and deliveries it returned.
type attempt struct {
	seqs    []uint64
	tokens  [][tokenLen]byte
	expires int64
}

// attemptCache remembers receive attempts for five minutes.
type attemptCache struct {
	byID  map[string]*attempt
	order []dedupExpiry
}

func (c *attemptCache) add(id string, a *attempt) {
	if c.byID == nil {
		c.byID = map[string]*attempt{}
	}
	c.byID[id] = a
	c.order = append(c.order, dedupExpiry{id, a.expires})
}

func (c *attemptCache) lookup(id string, now int64) *attempt {
	a := c.byID[id]
	if a == nil || a.expires <= now {
		return nil
	}
	return a
}

func (c *attemptCache) expire(now int64) {
	n := 0
	for n < len(c.order) && c.order[n].expires <= now {
		if a := c.byID[c.order[n].key]; a != nil && a.expires == c.order[n].expires {
			delete(c.byID, c.order[n].key)
		}
		n++
	}
	if n > 0 {
		c.order = append(c.order[:0], c.order[n:]...)
	}
}
