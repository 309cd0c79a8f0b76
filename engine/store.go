package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
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

// store is the durable record of queues and messages. A message has an
// immutable record and, once its state is not the one it was sent in, a
// state record (see sentState); the state records exist only to bring
// leases and delays back after a restart, so a store in memory, which has
// no restart, does not write them.
type store struct {
	db      *buntdb.DB
	durable bool       // backed by a file
	lock    *storeLock // keeps the file to this process
	log     *slog.Logger
	// failWrites, when set, is asked before every write transaction; an
	// error it returns fails the write as a full disk would.
	failWrites func() error
}

// errStoreWrite is what a caller is told of a change the store could not
// record, in SQS's words for an internal failure; the cause is logged.
func errStoreWrite() error {
	return ErrInternalFailure("the store refused a write")
}

// update runs fn as one write transaction. When it fails, buntdb has rolled
// the transaction back, so the store is as it was: callers then leave their
// memory as it was too, and answer ErrInternal. Every write of the engine
// goes through here.
func (s *store) update(fn func(tx *buntdb.Tx) error) error {
	if s.failWrites != nil {
		if err := s.failWrites(); err != nil {
			s.log.Error("store write failed", "err", err)
			return errStoreWrite()
		}
	}
	if err := s.db.Update(fn); err != nil {
		s.log.Error("store write failed", "err", err)
		return errStoreWrite()
	}
	return nil
}

func openStore(path string, fsync FsyncPolicy, log *slog.Logger, failWrites func() error) (*store, error) {
	if path == "" {
		path = ":memory:"
	}
	db, lock, err := openDB(path)
	if err != nil {
		return nil, err
	}
	var cfg buntdb.Config
	if err := db.ReadConfig(&cfg); err != nil {
		db.Close()
		lock.release()
		return nil, err
	}
	cfg.SyncPolicy = map[FsyncPolicy]buntdb.SyncPolicy{
		FsyncAlways:      buntdb.Always,
		FsyncEverySecond: buntdb.EverySecond,
		FsyncNever:       buntdb.Never,
	}[fsync]
	if err := db.SetConfig(cfg); err != nil {
		db.Close()
		lock.release()
		return nil, err
	}
	return &store{db: db, durable: path != ":memory:", lock: lock, log: log, failWrites: failWrites}, nil
}

func (s *store) close() error { return errors.Join(s.db.Close(), s.lock.release()) }

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
}

func (r *queueRecord) namespace() Namespace { return Namespace{Account: r.Account, Region: r.Region} }

// placeQueue moves a queue stored before namespaces to ns: its record
// gets the namespace and the key that names it, in one transaction.
func (s *store) placeQueue(rec *queueRecord, ns Namespace) error {
	placed := *rec
	placed.Account, placed.Region = ns.Account, ns.Region
	return s.update(func(tx *buntdb.Tx) error {
		if err := deleteKey(tx, oldQueueKey(rec.Name)); err != nil {
			return err
		}
		return putQueueTx(tx, &placed)
	})
}

func (s *store) putQueue(rec *queueRecord) error {
	return s.update(func(tx *buntdb.Tx) error { return putQueueTx(tx, rec) })
}

func putQueueTx(tx *buntdb.Tx, rec *queueRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	_, _, err = tx.Set(queueKey(rec.namespace(), rec.Name), string(b), nil)
	return err
}

// createQueue stores a new queue and the counter its number came from.
func (s *store) createQueue(rec *queueRecord) error {
	return s.update(func(tx *buntdb.Tx) error { return putNumberedQueueTx(tx, rec) })
}

// numberQueue stores the number given to a queue stored before queues had
// numbers, and moves its messages to its keyspace, in one transaction.
func (s *store) numberQueue(rec *queueRecord) error {
	return s.update(func(tx *buntdb.Tx) error {
		if err := migrateKeysTx(tx, rec.ID, keyspaceOf(rec.Num)); err != nil {
			return err
		}
		return putNumberedQueueTx(tx, rec)
	})
}

func putNumberedQueueTx(tx *buntdb.Tx, rec *queueRecord) error {
	if err := putQueueTx(tx, rec); err != nil {
		return err
	}
	_, _, err := tx.Set(lastNumKey, strconv.FormatUint(rec.Num, 10), nil)
	return err
}

// lastNum reads the highest queue number ever given out.
func (s *store) lastNum() (uint64, error) {
	var n uint64
	err := s.db.View(func(tx *buntdb.Tx) error {
		v, err := tx.Get(lastNumKey)
		if err == buntdb.ErrNotFound {
			return nil
		}
		if err != nil {
			return err
		}
		n, err = strconv.ParseUint(v, 10, 64)
		return err
	})
	return n, err
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

// deleteMessagesTx removes every message record in a keyspace.
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

// deleteQueue removes a queue's record, unless a queue of the same name
// created since holds it now, and the queue's messages.
func (s *store) deleteQueue(ns Namespace, name, id, keyspace string) error {
	return s.update(func(tx *buntdb.Tx) error {
		v, err := tx.Get(queueKey(ns, name))
		switch {
		case err == buntdb.ErrNotFound:
		case err != nil:
			return err
		default:
			var rec queueRecord
			if json.Unmarshal([]byte(v), &rec) != nil || rec.ID == id {
				if err := deleteKey(tx, queueKey(ns, name)); err != nil {
					return err
				}
			}
		}
		if err := deleteKey(tx, seqKey(keyspace)); err != nil {
			return err
		}
		return deleteMessagesTx(tx, keyspace)
	})
}

func deleteKey(tx *buntdb.Tx, key string) error {
	if _, err := tx.Delete(key); err != nil && err != buntdb.ErrNotFound {
		return err
	}
	return nil
}

// putMessageTx stores a new message's records and returns the stored size,
// that of the message record without the sent state at its end.
func (s *store) putMessageTx(tx *buntdb.Tx, keyspace string, m *message, rec *Message, scratch *[]byte) (int, error) {
	*scratch = appendMessage((*scratch)[:0], rec)
	size := len(*scratch)
	sent := s.durable && sentState(m, rec)
	if sent {
		*scratch = appendSentState(*scratch, m)
	}
	if _, _, err := tx.Set(messageKey(keyspace, m.seq), string(*scratch), nil); err != nil {
		return 0, err
	}
	if sent {
		return size, nil
	}
	return size, s.putStateTx(tx, keyspace, m, scratch)
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
