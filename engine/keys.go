package engine

import (
	"math/bits"
	"strconv"
	"strings"
)

// Keys: "q:ACCOUNT:REGION:NAME" holds a queue (stores written before
// namespaces have "q:NAME", moved to the default namespace when opened); "m:KEYSPACE:SEQ" a message's
// record and, in a store of format 1 or 2, "s:KEYSPACE:SEQ" its state; "c:queues" the last queue number
// given out; "c:seq:KEYSPACE" a queue's sequence counter. KEYSPACE is the queue's number in base 36 rather than its
// 36-character id, and SEQ is hex after one character giving its length,
// so that keys sort in sending order without leading zeros. Every command of
// a --db file carries its key, so short keys keep the file small; a file
// store holds a message's record by the keyspace and number its key
// names (storemsgs.go), keeping no key.
const (
	queuePrefix   = "q:"
	messagePrefix = "m:"
	statePrefix   = "s:"
	lastNumKey    = "c:queues"
	seqKeyPrefix  = "c:seq:"
)

// seqKey holds the highest sequence number a queue has handed out, as far
// as its stored messages no longer show it.
func seqKey(keyspace string) string { return seqKeyPrefix + keyspace }

func queueKey(ns Namespace, name string) string {
	return queuePrefix + ns.Account + ":" + ns.Region + ":" + name
}

// oldQueueKey is a queue's key in a store written before namespaces.
func oldQueueKey(name string) string { return queuePrefix + name }

// messageKey and stateKey name a message's records.
func messageKey(keyspace string, seq uint64) string { return recordKey(messagePrefix, keyspace, seq) }
func stateKey(keyspace string, seq uint64) string   { return recordKey(statePrefix, keyspace, seq) }

// keyspaceOf names the queue numbered num in its message keys.
func keyspaceOf(num uint64) string { return strconv.FormatUint(num, 36) }

// recordPrefix begins the keys of every record of one kind in a keyspace.
func recordPrefix(prefix, keyspace string) string { return prefix + keyspace + ":" }

func recordKey(prefix, keyspace string, seq uint64) string {
	var b [48]byte
	return string(appendRecordKey(b[:0], prefix, keyspace, seq))
}

func appendRecordKey(b []byte, prefix, keyspace string, seq uint64) []byte {
	b = append(b, prefix...)
	b = append(b, keyspace...)
	return appendSeq(append(b, ':'), seq)
}

// seqLengths[n] marks a SEQ of n hex digits.
const (
	hexDigits  = "0123456789abcdef"
	seqLengths = "0123456789abcdefg"
)

// appendSeq fills the SEQ from its end in an array, then appends it at
// once: every write of a --db store builds a key.
func appendSeq(b []byte, seq uint64) []byte {
	n := seqDigits(seq)
	var text [1 + 16]byte
	text[0] = seqLengths[n]
	for i := n; i > 0; i-- {
		text[i] = hexDigits[seq&0xf]
		seq >>= 4
	}
	return append(b, text[:n+1]...)
}

// seqDigits is the number of hex digits of seq in its SEQ.
func seqDigits(seq uint64) int { return max(1, (bits.Len64(seq)+3)/4) }

// parseSeq reads the SEQ that ends a record key, as recordKey writes it:
// its length, then lowercase hex digits with no leading zero. A restart
// reads every message's key, so it copies nothing.
func parseSeq(key string) (uint64, bool) {
	text := key[strings.LastIndexByte(key, ':')+1:]
	n := len(text) - 1 // hex digits
	if n < 1 || n > 16 || text[0] != seqLengths[n] || n > 1 && text[1] == '0' {
		return 0, false
	}
	var seq uint64
	for i := 1; i <= n; i++ {
		switch c := text[i]; {
		case '0' <= c && c <= '9':
			seq = seq<<4 | uint64(c-'0')
		case 'a' <= c && c <= 'f':
			seq = seq<<4 | uint64(c-'a'+10)
		default:
			return 0, false
		}
	}
	return seq, true
}

// migrateKeys moves the records of a queue stored before queues had
// numbers, under "m:ID:SEQ" and "s:ID:SEQ" with SEQ 16 hex digits, to its
// keyspace: one transaction copies each to its new key, where a copy
// already there wins, and a later one deletes the old keys. A kill can
// leave any of a transaction's commands, so the old keys go only once every
// copy is stored; a load that finds old keys, after a kill or not, calls
// this again, and it finishes what is left.
func (s *store) migrateKeys(id, keyspace string) error {
	var old, moved []string
	err := s.view(func(tx recordTx) error {
		for _, prefix := range []string{messagePrefix, statePrefix} {
			from := prefix + id + ":"
			keys, err := keysWithPrefix(tx, from)
			if err != nil {
				return err
			}
			for _, k := range keys {
				if seq, err := strconv.ParseUint(k[len(from):], 16, 64); err == nil {
					old, moved = append(old, k), append(moved, recordKey(prefix, keyspace, seq))
				}
			}
		}
		return nil
	})
	if err != nil || len(old) == 0 {
		return err
	}
	err = s.update(func(tx recordTx) error {
		for i, k := range old {
			if _, ok, err := tx.get(moved[i]); ok || err != nil {
				if err != nil {
					return err
				}
				continue
			}
			v, _, err := tx.get(k)
			if err != nil {
				return err
			}
			if err := tx.set(moved[i], v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.update(func(tx recordTx) error {
		for _, k := range old {
			if _, _, err := tx.delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}
