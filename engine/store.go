package engine

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/buntdb"
)

// FsyncPolicy says how often the store's file is flushed to disk. Every
// change is written to the file when it is made, so a killed process loses
// nothing under any policy; the policy bounds what a machine crash can lose.
type FsyncPolicy int

// Fsync policies, after buntdb's sync policies.
const (
	FsyncEverySecond FsyncPolicy = iota
	FsyncAlways
	FsyncNever
)

// ParseFsyncPolicy reads "always", "everysec" or "never".
func ParseFsyncPolicy(s string) (FsyncPolicy, error) {
	switch s {
	case "always":
		return FsyncAlways, nil
	case "everysec", "":
		return FsyncEverySecond, nil
	case "never":
		return FsyncNever, nil
	}
	return 0, fmt.Errorf("fsync policy %q: want always, everysec or never", s)
}

func (p FsyncPolicy) String() string {
	return [...]string{"everysec", "always", "never"}[p]
}

// Keys: "q:NAME" holds a queue; "m:KEYSPACE:SEQ" a message's immutable
// record and "s:KEYSPACE:SEQ" its state. KEYSPACE is the queue's number in
// base 36 rather than its 36-character id, and SEQ is hex after one
// character giving its length, so that keys sort in sending order without
// leading zeros. Every step down the store's B-tree compares keys: short
// keys that differ early keep a deep queue fast and each message small.
const (
	queuePrefix   = "q:"
	messagePrefix = "m:"
	statePrefix   = "s:"
)

func queueKey(name string) string { return queuePrefix + name }

// messageKey and stateKey name a message's two records.
func messageKey(keyspace string, seq uint64) string {
	return recordKey(messagePrefix, keyspace, seq)
}
func stateKey(keyspace string, seq uint64) string { return recordKey(statePrefix, keyspace, seq) }

// keyspaceOf names the queue numbered num in its message keys.
func keyspaceOf(num uint64) string { return strconv.FormatUint(num, 36) }

// recordPrefix begins the keys of every record of one kind in a keyspace.
func recordPrefix(prefix, keyspace string) string { return prefix + keyspace + ":" }

// seqLengths[n] marks a SEQ of n hex digits.
const (
	hexDigits  = "0123456789abcdef"
	seqLengths = "0123456789abcdefg"
)

func recordKey(prefix, keyspace string, seq uint64) string {
	n := 1 // hex digits of seq
	for v := seq >> 4; v > 0; v >>= 4 {
		n++
	}
	b := make([]byte, 0, len(prefix)+len(keyspace)+2+n)
	b = append(b, prefix...)
	b = append(b, keyspace...)
	b = append(b, ':', seqLengths[n])
	for shift := 4 * (n - 1); shift >= 0; shift -= 4 {
		b = append(b, hexDigits[seq>>shift&0xf])
	}
	return string(b)
}

// parseSeq reads the SEQ that ends a record key.
func parseSeq(key string) (uint64, bool) {
	i := strings.LastIndexByte(key, ':')
	if i < 0 || i+2 > len(key) || strings.IndexByte(seqLengths, key[i+1]) != len(key)-i-2 {
		return 0, false
	}
	seq, err := strconv.ParseUint(key[i+2:], 16, 64)
	return seq, err == nil
}

// store is the durable record of queues and messages. A message has an
// immutable record and a state record; the state records exist only to
// bring leases and delays back after a restart, so a store in memory, which
// has no restart, does not write them.
type store struct {
	db      *buntdb.DB
	durable bool // backed by a file
}

func openStore(path string, fsync FsyncPolicy) (*store, error) {
	if path == "" {
		path = ":memory:"
	}
	db, err := buntdb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	var cfg buntdb.Config
	if err := db.ReadConfig(&cfg); err != nil {
		db.Close()
		return nil, err
	}
	cfg.SyncPolicy = map[FsyncPolicy]buntdb.SyncPolicy{
		FsyncAlways:      buntdb.Always,
		FsyncEverySecond: buntdb.EverySecond,
		FsyncNever:       buntdb.Never,
	}[fsync]
	if err := db.SetConfig(cfg); err != nil {
		db.Close()
		return nil, err
	}
	return &store{db: db, durable: path != ":memory:"}, nil
}

func (s *store) close() error { return s.db.Close() }

// queueRecord is a queue as stored.
type queueRecord struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Num gives the queue's keyspace; numbers are not reused while the
	// queue's records exist.
	Num        uint64            `json:"num"`
	Created    int64             `json:"created"`
	Modified   int64             `json:"modified"`
	Attributes QueueAttributes   `json:"attributes"`
	Tags       map[string]string `json:"tags,omitempty"`
	LastPurge  int64             `json:"lastPurge,omitempty"`
	// Subscription is the queue's push subscription, if any.
	Subscription *Subscription `json:"subscription,omitempty"`
}

func (s *store) putQueue(rec *queueRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return s.db.Update(func(tx *buntdb.Tx) error {
		_, _, err := tx.Set(queueKey(rec.Name), string(b), nil)
		return err
	})
}

// keysWithPrefix lists the keys that start with prefix.
func keysWithPrefix(tx *buntdb.Tx, prefix string) ([]string, error) {
	var keys []string
	err := tx.AscendGreaterOrEqual("", prefix, func(k, _ string) bool {
		if !strings.HasPrefix(k, prefix) {
			return false
		}
		keys = append(keys, k)
		return true
	})
	return keys, err
}

// deleteMessagesTx removes every message record of queue qid.
func deleteMessagesTx(tx *buntdb.Tx, keyspace string) error {
	for _, prefix := range []string{messagePrefix, statePrefix} {
		keys, err := keysWithPrefix(tx, recordPrefix(prefix, keyspace))
		if err != nil {
			return err
		}
		for _, k := range keys {
			if _, err := tx.Delete(k); err != nil && err != buntdb.ErrNotFound {
				return err
			}
		}
	}
	return nil
}

func (s *store) deleteQueue(name, keyspace string) error {
	return s.db.Update(func(tx *buntdb.Tx) error {
		if _, err := tx.Delete(queueKey(name)); err != nil && err != buntdb.ErrNotFound {
			return err
		}
		return deleteMessagesTx(tx, keyspace)
	})
}

func (s *store) purge(keyspace string) error {
	return s.db.Update(func(tx *buntdb.Tx) error { return deleteMessagesTx(tx, keyspace) })
}

func deleteKey(tx *buntdb.Tx, key string) error {
	if _, err := tx.Delete(key); err != nil && err != buntdb.ErrNotFound {
		return err
	}
	return nil
}

// putMessageTx stores a new message's records and returns the stored size.
func (s *store) putMessageTx(tx *buntdb.Tx, keyspace string, m *message, rec *Message, scratch *[]byte) (int, error) {
	*scratch = appendMessage((*scratch)[:0], rec)
	body := string(*scratch)
	if _, _, err := tx.Set(messageKey(keyspace, m.seq), body, nil); err != nil {
		return 0, err
	}
	return len(body), s.putStateTx(tx, keyspace, m, scratch)
}

// putStateTx records a message's state, when there is a restart to survive.
func (s *store) putStateTx(tx *buntdb.Tx, keyspace string, m *message, scratch *[]byte) error {
	if !s.durable {
		return nil
	}
	*scratch = appendState((*scratch)[:0], m)
	_, _, err := tx.Set(stateKey(keyspace, m.seq), string(*scratch), nil)
	return err
}

// deleteMessageTx removes a message's records.
func (s *store) deleteMessageTx(tx *buntdb.Tx, keyspace string, seq uint64) error {
	if err := deleteKey(tx, messageKey(keyspace, seq)); err != nil {
		return err
	}
	if !s.durable {
		return nil
	}
	return deleteKey(tx, stateKey(keyspace, seq))
}
