package engine

import (
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"unsafe"
)

// A transaction of a store in memory that fails leaves every record as it
// was, whatever it changed; one that succeeds keeps its changes.
func TestMemRecordsRollBack(t *testing.T) {
	before := map[string]string{"a": "1", "b": "2", "c:x": "3"}
	failed := errors.New("refused")
	for name, change := range map[string]func(tx recordTx) error{
		"set":    func(tx recordTx) error { return tx.set("a", "changed") },
		"add":    func(tx recordTx) error { return tx.set("new", "v") },
		"delete": func(tx recordTx) error { _, _, err := tx.delete("b"); return err },
		"mixed": func(tx recordTx) error {
			tx.set("a", "x")
			tx.delete("a")
			tx.set("a", "y")
			tx.delete("c:x")
			return tx.set("b", "z")
		},
	} {
		t.Run(name, func(t *testing.T) {
			r := newMemRecords()
			maps.Copy(r.m, before)
			err := r.update(func(tx recordTx) error {
				if err := change(tx); err != nil {
					return err
				}
				return failed
			})
			if err != failed {
				t.Fatalf("update: %v", err)
			}
			if !maps.Equal(r.m, before) {
				t.Fatalf("after a failed transaction: %v, want %v", r.m, before)
			}
			if err := r.update(change); err != nil {
				t.Fatal(err)
			}
			if maps.Equal(r.m, before) {
				t.Fatalf("a transaction that succeeded changed nothing: %v", r.m)
			}
		})
	}
}

func TestMemRecordsReads(t *testing.T) {
	r := newMemRecords()
	err := r.update(func(tx recordTx) error {
		for _, k := range []string{"q:b", "c:queues", "q:a", "q:c", "t:1"} {
			if err := tx.set(k, "v"+k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = r.view(func(tx recordTx) error {
		var keys []string
		tx.ascend("q:", func(k, v string) bool {
			if v != "v"+k {
				t.Errorf("%s = %q", k, v)
			}
			keys = append(keys, k)
			return len(keys) < 2
		})
		if want := []string{"q:a", "q:b"}; !slices.Equal(keys, want) {
			t.Errorf("ascend q: until the second: %q, want %q", keys, want)
		}
		if v, ok, err := tx.get("t:1"); v != "vt:1" || !ok || err != nil {
			t.Errorf("get t:1: %q %v %v", v, ok, err)
		}
		if _, ok, err := tx.get("t:2"); ok || err != nil {
			t.Errorf("get t:2: %v %v", ok, err)
		}
		if v, ok, err := tx.delete("t:2"); v != "" || ok || err != nil {
			t.Errorf("delete t:2: %q %v %v", v, ok, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A transaction that leaves the map alone, as a message's does, never
// takes its lock, so such transactions never wait for one another.
func TestMemRecordsLockOnlyWhenTouched(t *testing.T) {
	r := newMemRecords()
	r.mu.Lock() // were update to take it, the test would hang
	err := r.update(func(tx recordTx) error { return nil })
	r.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
}

// A store in memory keeps a message only in its index entry: its map holds
// no message or state record, while the message is delivered whole.
func TestMemoryStoreHoldsNoMessageRecords(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q, err := e.CreateQueue("q", AttributeUpdate{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sendBodies(t, q, "one", "two")
	recvOne(t, q, ReceiveOptions{}, "one")
	if n := storedKeys(t, e, q); n != 0 {
		t.Fatalf("%d message keys in a store in memory", n)
	}
	if n := len(e.store.kv.(*memRecords).m); n > 4 {
		t.Fatalf("%d records for one queue: %v", n, e.store.kv.(*memRecords).m)
	}
}

// A file store holds the very string of a message's index entry, when the
// message is sent and when it is loaded again: a body is in memory once.
func TestFileStoreSharesRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	sendBodies(t, q, "shared")
	check := func(when string, e *Engine, q *Queue) {
		t.Helper()
		q.mu.Lock()
		m := q.msgs.get(q.seq.Load())
		q.mu.Unlock()
		err := e.store.view(func(tx recordTx) error {
			v, ok, err := tx.get(messageKey(q.keyspace, m.seq))
			if !ok || err != nil {
				t.Fatalf("%s: the record: %v %v", when, ok, err)
			}
			if v != m.record() || unsafe.StringData(v) != m.recData {
				t.Errorf("%s: the store holds a copy of the index entry's record", when)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	check("sent", e, q)
	e = reopen(t, e, path, clk)
	check("loaded", e, mustQueue(t, e, "q"))
}
