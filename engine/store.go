package engine

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
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

// store is the durable record of queues and messages, over records: a
// buntdb file (storefile.go) or, with no file, a small map (storemem.go). A
// message has one record, which its index entry holds too: the message and,
// in a file store, its current state (see recordVersion). The record is
// stored only to bring messages back after a restart, so a store in memory,
// which has no restart, writes none: its map holds only queues, counters,
// keys and move tasks.
type store struct {
	kv      records
	durable bool // backed by a file
	log     *slog.Logger
	// failWrites, when set, is asked before every write transaction; an
	// error it returns fails the write as a full disk would.
	failWrites func() error
	// legacy says that the file had state records when it opened, of
	// format 1 or 2: a message's delete takes its state record too.
	legacy bool
}

// records are ordered string keys and their values, changed in atomic
// transactions.
type records interface {
	// update runs fn as one transaction: when fn fails, none of its writes
	// stay.
	update(fn func(tx recordTx) error) error
	// view runs fn, which only reads.
	view(fn func(tx recordTx) error) error
	close() error
}

// recordTx reads and writes records within one transaction.
type recordTx interface {
	// get returns key's value and whether key is there.
	get(key string) (string, bool, error)
	set(key, value string) error
	// delete removes key and returns the value it had, if it was there.
	delete(key string) (string, bool, error)
	// ascend calls fn with the keys that start with prefix, in order, and
	// their values, until fn returns false. fn must not write.
	ascend(prefix string, fn func(key, value string) bool) error
	// ascendFrom is ascend from the key from on, or from prefix's first
	// key when from sorts before it.
	ascendFrom(prefix, from string, fn func(key, value string) bool) error
	// last returns the greatest key that starts with prefix, if any.
	last(prefix string) (string, bool, error)
	// count is the number of records.
	count() (int, error)
	// ascendMessages is ascend over the records of keyspace's messages,
	// those with keys of messageKey's form, from the sequence number from
	// on, with no key made. In a file store, several goroutines may run it
	// in one transaction at once.
	ascendMessages(keyspace string, from uint64, fn func(seq uint64, value string) bool) error
	// setMessage and deleteMessage are set and delete of messageKey's key,
	// which they need not make.
	setMessage(keyspace string, seq uint64, v string) error
	deleteMessage(keyspace string, seq uint64) error
}

// errStoreWrite is what a caller is told of a change the store could not
// record, in SQS's words for an internal failure; the cause is logged.
func errStoreWrite() error {
	return ErrInternalFailure("the store refused a write")
}

// update runs fn as one write transaction. When it fails, the transaction
// is rolled back, so the store is as it was: callers then leave their
// memory as it was too, and answer ErrInternal. Every write of the engine
// goes through here.
func (s *store) update(fn func(tx recordTx) error) error {
	if s.failWrites != nil {
		if err := s.failWrites(); err != nil {
			s.log.Error("store write failed", "err", err)
			return errStoreWrite()
		}
	}
	if err := s.kv.update(fn); err != nil {
		s.log.Error("store write failed", "err", err)
		return errStoreWrite()
	}
	return nil
}

// view runs fn over the store's records, reading only.
func (s *store) view(fn func(tx recordTx) error) error { return s.kv.view(fn) }

// openStore opens the store in the file at path, or one in memory for "".
// A file's syncs every second keep to the wall clock, not the engine's:
// they are the disk's, which no test moves.
func openStore(path string, fsync FsyncPolicy, log *slog.Logger, failWrites func() error) (*store, error) {
	s := &store{log: log, failWrites: failWrites}
	if path == "" {
		s.kv = newMemRecords()
		return s, nil
	}
	kv, err := openFileRecords(path, fsync, SystemClock{})
	if err != nil {
		return nil, err
	}
	s.kv, s.durable = kv, true
	return s, nil
}

func (s *store) close() error { return s.kv.close() }

// queueRecord is a queue as stored.
type queueRecord struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Account and Region are the queue's namespace; a record stored before
	// namespaces has neither.
	Account string `json:"account,omitempty"`
	Region  string `json:"region,omitempty"`
	// Num gives the queue's keyspace. Numbers come from a counter kept
	// in the store, so no two queues ever share one.
	Num        uint64            `json:"num"`
	Created    int64             `json:"created"`
	Modified   int64             `json:"modified"`
	Attributes QueueAttributes   `json:"attributes"`
	Tags       map[string]string `json:"tags,omitempty"`
	LastPurge  int64             `json:"lastPurge,omitempty"`
	// Subscription is the queue's push subscription, if any.
	Subscription *Subscription `json:"subscription,omitempty"`
	// IDKey makes the ids of the messages it sends (messageIDs). A record
	// stored before the key has none, and a load gives it one.
	IDKey []byte `json:"idKey,omitempty"`
}

func (r *queueRecord) namespace() Namespace { return Namespace{Account: r.Account, Region: r.Region} }

// placeQueue moves a queue stored before namespaces to ns: its record,
// with the namespace, is stored under the key that names it, and then, in
// a later transaction, the old key goes. A kill can leave any of a
// transaction's commands, so the old record goes only once the new one is
// stored; a load that finds both keeps the new one and drops the old.
func (s *store) placeQueue(rec *queueRecord, ns Namespace) error {
	placed := *rec
	placed.Account, placed.Region = ns.Account, ns.Region
	if err := s.putQueue(&placed); err != nil {
		return err
	}
	return s.dropOldQueue(rec.Name)
}

// dropOldQueue deletes the record of a queue stored before namespaces,
// once its record under its namespace is stored.
func (s *store) dropOldQueue(name string) error {
	return s.update(func(tx recordTx) error {
		_, _, err := tx.delete(oldQueueKey(name))
		return err
	})
}

func (s *store) putQueue(rec *queueRecord) error {
	return s.update(func(tx recordTx) error { return putQueueTx(tx, rec) })
}

func putQueueTx(tx recordTx, rec *queueRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return tx.set(queueKey(rec.namespace(), rec.Name), string(b))
}

// createQueue stores a new queue, or the number given to a queue stored
// before queues had numbers, and the counter its number came from.
func (s *store) createQueue(rec *queueRecord) error {
	return s.update(func(tx recordTx) error { return putNumberedQueueTx(tx, rec) })
}

func putNumberedQueueTx(tx recordTx, rec *queueRecord) error {
	if err := putQueueTx(tx, rec); err != nil {
		return err
	}
	return tx.set(lastNumKey, strconv.FormatUint(rec.Num, 10))
}

// lastNum reads the highest queue number ever given out.
func (s *store) lastNum() (uint64, error) {
	var n uint64
	err := s.view(func(tx recordTx) error {
		v, ok, err := tx.get(lastNumKey)
		if !ok || err != nil {
			return err
		}
		n, err = strconv.ParseUint(v, 10, 64)
		return err
	})
	return n, err
}

// keysWithPrefix lists the keys that start with prefix.
func keysWithPrefix(tx recordTx, prefix string) ([]string, error) {
	var keys []string
	err := tx.ascend(prefix, func(k, _ string) bool {
		keys = append(keys, k)
		return true
	})
	return keys, err
}

// deleteMessagesTx removes every message record in a keyspace.
func deleteMessagesTx(tx recordTx, keyspace string) error {
	for _, prefix := range []string{messagePrefix, statePrefix} {
		keys, err := keysWithPrefix(tx, recordPrefix(prefix, keyspace))
		if err != nil {
			return err
		}
		for _, k := range keys {
			if _, _, err := tx.delete(k); err != nil {
				return err
			}
		}
	}
	return nil
}

// deleteQueue removes a queue's record, unless a queue of the same name
// created since holds it now, and the queue's messages; then, in a
// transaction of its own, its sequence counter. A kill can cut a
// transaction's write short, keeping any of its commands, and one that
// kept the queue's record without its counter would let a restart number
// messages as deleted ones were.
func (s *store) deleteQueue(ns Namespace, name, id, keyspace string) error {
	err := s.update(func(tx recordTx) error {
		v, ok, err := tx.get(queueKey(ns, name))
		if err != nil {
			return err
		}
		if ok {
			var rec queueRecord
			if json.Unmarshal([]byte(v), &rec) != nil || rec.ID == id {
				if _, _, err := tx.delete(queueKey(ns, name)); err != nil {
					return err
				}
			}
		}
		return deleteMessagesTx(tx, keyspace)
	})
	if err != nil {
		return err
	}
	if err := s.update(func(tx recordTx) error {
		_, _, err := tx.delete(seqKey(keyspace))
		return err
	}); err != nil {
		s.log.Error("deleting a deleted queue's sequence counter", "err", err)
	}
	return nil
}

// encodeMessage makes rec m's record, which m keeps: in a file store, it
// ends with m's state. raw, unless nil, has rec's fields in raw form, as
// appendMessageRaw takes them.
func (s *store) encodeMessage(m *message, rec *Message, raw *rawFields, scratch *[]byte) {
	b := appendRecordState(appendMessageRaw((*scratch)[:0], rec, raw), m, s.durable)
	*scratch = b
	m.setRecord(string(b))
}

// putMessageTx stores a new message's record in keyspace, when there is a
// restart to survive. The store keeps m's record itself, not a copy.
func (s *store) putMessageTx(tx recordTx, keyspace string, m *message) error {
	if !s.durable {
		return nil
	}
	return tx.setMessage(keyspace, m.seq, m.record())
}

// putStateTx records a message's state, when there is a restart to survive,
// by rewriting its record with m's state at its end. It returns the new
// record, which m takes once the transaction is done, or m's record as it
// is in memory. A record of a store of format 1 or 2 is rewritten in
// format 3's form; its state record, which the new record overrides, stays
// until the message goes: a kill can cut a transaction's write short,
// leaving any of its commands, and a delete of the state record without
// the rewrite would lose the message.
func (s *store) putStateTx(tx recordTx, keyspace string, m *message, scratch *[]byte) (string, error) {
	if !s.durable {
		return m.record(), nil
	}
	b := (*scratch)[:0]
	if end, ok := messageEnd(m.record()); ok {
		b = append(b, m.record()[:end]...)
	} else {
		// Only a record written before message-id keys has no end, and it
		// holds its id.
		rec, err := decodeMessage(m, messageIDs{})
		if err != nil {
			return "", err
		}
		b = appendMessage(b, &rec)
	}
	b = appendRecordState(b, m, true)
	*scratch = b
	rec := string(b)
	return rec, tx.setMessage(keyspace, m.seq, rec)
}

// deleteBatchTx removes the records of msgs.
func (s *store) deleteBatchTx(tx recordTx, keyspace string, msgs []*message) error {
	if !s.durable {
		return nil
	}
	for _, m := range msgs {
		if err := tx.deleteMessage(keyspace, m.seq); err != nil {
			return err
		}
		if s.legacy {
			if _, _, err := tx.delete(stateKey(keyspace, m.seq)); err != nil {
				return err
			}
		}
	}
	return nil
}
