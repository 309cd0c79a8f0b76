package engine

import (
	"slices"
	"strings"
	"sync"
)

// memRecords keeps a store's records in a map, for a store with no file.
// It holds no message records (see store), only a few per queue, so a scan
// sorts the keys it finds rather than keeping them ordered.
type memRecords struct {
	mu sync.Mutex // guards m
	m  map[string]string
}

func newMemRecords() *memRecords { return &memRecords{m: map[string]string{}} }

// update takes the lock only once fn first reads or writes, so that the
// transactions of messages, which write nothing here, never wait for each
// other.
func (r *memRecords) update(fn func(tx recordTx) error) error {
	tx := &memTx{r: r}
	err := fn(tx)
	if tx.locked {
		if err != nil {
			tx.rollback()
		}
		r.mu.Unlock()
	}
	return err
}

func (r *memRecords) view(fn func(tx recordTx) error) error { return r.update(fn) }

func (r *memRecords) close() error { return nil }

// memTx is a transaction of memRecords, with what it changed, to undo.
type memTx struct {
	r      *memRecords
	locked bool
	undo   []memUndo
}

// memUndo is a key's value before a change: its value, or none.
type memUndo struct {
	key, value string
	had        bool
}

func (tx *memTx) lock() {
	if !tx.locked {
		tx.r.mu.Lock()
		tx.locked = true
	}
}

// rollback undoes the changes, the latest first.
func (tx *memTx) rollback() {
	for _, u := range slices.Backward(tx.undo) {
		if u.had {
			tx.r.m[u.key] = u.value
		} else {
			delete(tx.r.m, u.key)
		}
	}
}

func (tx *memTx) get(key string) (string, bool, error) {
	tx.lock()
	v, ok := tx.r.m[key]
	return v, ok, nil
}

func (tx *memTx) set(key, value string) error {
	tx.lock()
	old, had := tx.r.m[key]
	tx.undo = append(tx.undo, memUndo{key, old, had})
	tx.r.m[key] = value
	return nil
}

func (tx *memTx) delete(key string) (string, bool, error) {
	tx.lock()
	old, had := tx.r.m[key]
	if had {
		tx.undo = append(tx.undo, memUndo{key, old, true})
		delete(tx.r.m, key)
	}
	return old, had, nil
}

func (tx *memTx) setMessage(keyspace string, seq uint64, v string) error {
	return tx.set(messageKey(keyspace, seq), v)
}

func (tx *memTx) deleteMessage(keyspace string, seq uint64) error {
	_, _, err := tx.delete(messageKey(keyspace, seq))
	return err
}

func (tx *memTx) ascendMessages(keyspace string, from uint64, fn func(seq uint64, v string) bool) error {
	return tx.ascendFrom(recordPrefix(messagePrefix, keyspace), messageKey(keyspace, from), func(k, v string) bool {
		if _, seq, ok := splitMessageKey(k); ok {
			return fn(seq, v)
		}
		return true
	})
}

func (tx *memTx) ascend(prefix string, fn func(key, value string) bool) error {
	return tx.ascendFrom(prefix, prefix, fn)
}

func (tx *memTx) ascendFrom(prefix, from string, fn func(key, value string) bool) error {
	tx.lock()
	var keys []string
	for k := range tx.r.m {
		if strings.HasPrefix(k, prefix) && k >= from {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !fn(k, tx.r.m[k]) {
			break
		}
	}
	return nil
}

func (tx *memTx) last(prefix string) (string, bool, error) {
	tx.lock()
	key, ok := "", false
	for k := range tx.r.m {
		if strings.HasPrefix(k, prefix) && (!ok || k > key) {
			key, ok = k, true
		}
	}
	return key, ok, nil
}

func (tx *memTx) count() (int, error) {
	tx.lock()
	return len(tx.r.m), nil
}
