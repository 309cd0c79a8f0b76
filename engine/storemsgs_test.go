package engine

import (
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Exactly the keys messageKey makes are message records' keys, each read
// back as the keyspace and number it was made of: any other key, an older
// store's among them, stays buntdb's.
func TestSplitMessageKey(t *testing.T) {
	for _, num := range []uint64{0, 1, 35, 36, 1 << 40, math.MaxUint64} {
		for _, seq := range []uint64{0, 1, 15, 16, 1 << 33, math.MaxUint64} {
			ks := keyspaceOf(num)
			key := messageKey(ks, seq)
			gotKS, gotSeq, ok := splitMessageKey(key)
			if !ok || gotKS != ks || gotSeq != seq {
				t.Errorf("splitMessageKey(%q) = %q, %d, %v; want %q, %d", key, gotKS, gotSeq, ok, ks, seq)
			}
			if n := messageKeyLen(ks, seq); n != len(key) {
				t.Errorf("messageKeyLen(%q, %d) = %d, want %d", ks, seq, n, len(key))
			}
		}
	}
	for _, key := range []string{
		"m:0123e4567-e89b-12d3-a456-426614174000:0000000000000001", // before queue numbers
		"m:1:00000000000000000009", "m:01:11", "m:1:011", "m:1:2a", "m::11", "m:A:11", "m:1:11x",
		"m:1:", "m:1", "s:1:11", "m:1:11:", "m:3w5e11264sgsg:11", "m:00:11", "m:1:x:1a", "m:1::1a", "m:1:zz:1a",
	} {
		if ks, seq, ok := splitMessageKey(key); ok {
			t.Errorf("splitMessageKey(%q) = %q, %d; want a refusal", key, ks, seq)
		}
	}
}

// A file store's records read the same, in one order, whether buntdb or
// the message records hold them: in a transaction, after a restart, and
// after a rewrite of the file.
func TestFileStoreMergesMessageRecords(t *testing.T) {
	legacy := "m:0123e4567-e89b-12d3-a456-426614174000:0000000000000001"
	recs := map[string]string{
		"c:queues": "2", "q:z": "queue", "s:1:11": "state", legacy: "old", "m:1:zz": "odd", "m:1:x:1a": "alias",
		messageKey("1", 1): "a", messageKey("1", 2): "b", messageKey("1", 64): "c", messageKey("1", 1000): "d",
		messageKey("10", 1): "e", messageKey("a", 3): "f", messageKey("0", 5): "g",
	}
	path := filepath.Join(t.TempDir(), "db")
	r, err := openFileRecords(path, FsyncNever, NewManualClock(testStart))
	if err != nil {
		t.Fatal(err)
	}
	err = r.update(func(tx recordTx) error {
		for k, v := range recs {
			if err := tx.set(k, v); err != nil {
				return err
			}
		}
		return tx.setMessage("1", 3, "h")
	})
	if err != nil {
		t.Fatal(err)
	}
	recs[messageKey("1", 3)] = "h"
	recs[formatKey] = formatValue
	check := func(when string) {
		t.Helper()
		if got := r.msgs.n; got != 8 {
			t.Errorf("%s: the message table holds %d records, want 8", when, got)
		}
		err := r.view(func(tx recordTx) error {
			var keys []string
			err := tx.ascend("", func(k, v string) bool {
				if v != recs[k] {
					t.Errorf("%s: %q is %q, want %q", when, k, v, recs[k])
				}
				keys = append(keys, k)
				return true
			})
			want := slices.Sorted(func(yield func(string) bool) {
				for k := range recs {
					if !yield(k) {
						return
					}
				}
			})
			if !slices.Equal(keys, want) {
				t.Errorf("%s: the store ascends\n%q, want\n%q", when, keys, want)
			}
			for _, prefix := range []string{"m:", "m:1:", "m:1:1", "m:10:", "m:0", "q:", "", "c:", "s:"} {
				var got []string
				tx.ascend(prefix, func(k, _ string) bool { got = append(got, k); return true })
				sub := slices.DeleteFunc(slices.Clone(want), func(k string) bool { return !strings.HasPrefix(k, prefix) })
				if !slices.Equal(got, sub) {
					t.Errorf("%s: ascend(%q) gives %q, want %q", when, prefix, got, sub)
				}
				starts := []string{"m:1:3:3fff", "m:1:1", "m:1:2", "m:10", "m:1:zz", "m:1:z", "m;", "r"}
				if len(sub) > 0 {
					starts = append(starts, sub[len(sub)/2])
				}
				for _, start := range starts {
					var from []string
					tx.ascendFrom(prefix, start, func(k, _ string) bool { from = append(from, k); return true })
					at, _ := slices.BinarySearch(sub, start)
					if !slices.Equal(from, sub[at:]) {
						t.Errorf("%s: ascendFrom(%q, %q) gives %q, want %q", when, prefix, start, from, sub[at:])
					}
				}
				last, ok, _ := tx.last(prefix)
				if ok != (len(sub) > 0) || ok && last != sub[len(sub)-1] {
					t.Errorf("%s: last(%q) = %q, %v; want %q", when, prefix, last, ok, sub)
				}
			}
			var seqs []uint64
			tx.ascendMessages("1", 2, func(seq uint64, _ string) bool { seqs = append(seqs, seq); return true })
			if !slices.Equal(seqs, []uint64{2, 3, 64, 1000}) {
				t.Errorf("%s: keyspace 1 from 2 ascends %d, want [2 3 64 1000]", when, seqs)
			}
			if n, _ := tx.count(); n != len(recs) {
				t.Errorf("%s: the store counts %d records, want %d", when, n, len(recs))
			}
			for _, k := range []string{messageKey("1", 64), legacy, "m:1:zz"} {
				if v, ok, _ := tx.get(k); !ok || v != recs[k] {
					t.Errorf("%s: get(%q) = %q, %v; want %q", when, k, v, ok, recs[k])
				}
			}
			if _, ok, _ := tx.get(messageKey("1", 4)); ok {
				t.Errorf("%s: get of a key never set finds it", when)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	check("in the transaction's store")

	// A failed transaction leaves every record as it was.
	failed := errors.New("failed")
	err = r.update(func(tx recordTx) error {
		tx.set(messageKey("1", 1), "changed")
		tx.set(messageKey("7", 1), "new")
		tx.setMessage("1", 2, "changed")
		tx.delete(messageKey("1", 64))
		tx.deleteMessage("a", 3)
		tx.delete(messageKey("1", 4)) // never there
		tx.set(messageKey("1", 64), "back")
		return failed
	})
	if err != failed {
		t.Fatalf("the failed update returns %v", err)
	}
	check("after a failed transaction")

	reopenRecords := func() {
		t.Helper()
		if err := r.close(); err != nil {
			t.Fatal(err)
		}
		if r, err = openFileRecords(path, FsyncNever, NewManualClock(testStart)); err != nil {
			t.Fatal(err)
		}
	}
	reopenRecords()
	check("after a restart")
	if err := r.shrink(); err != nil {
		t.Fatal(err)
	}
	reopenRecords()
	check("after a rewrite and a restart")

	// A delete of each kind is in the file too.
	err = r.update(func(tx recordTx) error {
		delete(recs, messageKey("1", 2))
		delete(recs, "m:1:zz")
		delete(recs, messageKey("10", 1))
		delete(recs, messageKey("1", 64))
		recs[messageKey("a", 3)] = "f2"
		tx.delete(messageKey("1", 2))
		tx.delete("m:1:zz")
		tx.deleteMessage("10", 1)
		tx.deleteMessage("1", 64)
		return tx.set(messageKey("a", 3), "f2")
	})
	if err != nil {
		t.Fatal(err)
	}
	reopenRecords()
	if got := r.msgs.n; got != 5 {
		t.Errorf("after deletes and a restart: %d message records, want 5", got)
	}
	r.view(func(tx recordTx) error {
		got := map[string]string{}
		tx.ascend("", func(k, v string) bool { got[k] = v; return true })
		if len(got) != len(recs) {
			t.Errorf("after deletes and a restart, the store holds %q, want %q", got, recs)
		}
		for k, v := range recs {
			if got[k] != v {
				t.Errorf("after deletes and a restart, %q is %q, want %q", k, got[k], v)
			}
		}
		return nil
	})
	r.close()
}

// A panic through a transaction leaves the records as they were, in
// memory and in the file, as a failed one does, and goes on to the caller.
func TestPanicInUpdateChangesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	r, err := openFileRecords(path, FsyncNever, NewManualClock(testStart))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.update(func(tx recordTx) error { return tx.setMessage("1", 1, "kept") }); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Fatalf("the update's panic comes out as %v", p)
			}
		}()
		r.update(func(tx recordTx) error {
			tx.setMessage("1", 1, "changed")
			tx.setMessage("1", 2, "ghost")
			tx.set("c:x", "ghost")
			panic("boom")
		})
	}()
	// A later failed transaction undoes its own changes only.
	failed := errors.New("failed")
	if err := r.update(func(tx recordTx) error { tx.deleteMessage("1", 1); return failed }); err != failed {
		t.Fatalf("the failed update returns %v", err)
	}
	check := func(when string) {
		t.Helper()
		r.view(func(tx recordTx) error {
			got := map[string]string{}
			tx.ascend("", func(k, v string) bool { got[k] = v; return true })
			want := map[string]string{formatKey: formatValue, messageKey("1", 1): "kept"}
			if len(got) != len(want) || got[messageKey("1", 1)] != "kept" || got[formatKey] != formatValue {
				t.Errorf("%s: the store holds %q, want %q", when, got, want)
			}
			return nil
		})
	}
	check("after the panic")
	if err := r.close(); err != nil {
		t.Fatal(err)
	}
	if r, err = openFileRecords(path, FsyncNever, NewManualClock(testStart)); err != nil {
		t.Fatal(err)
	}
	check("after a restart")
	r.close()
}

// A page keeps room only for the records it holds once most have gone,
// so that messages left among many gone cost little.
func TestMessagePageShrinks(t *testing.T) {
	tab := newMessageTable()
	for seq := range uint64(seqPageSize) {
		tab.set("1", seq, "r")
	}
	for seq := range uint64(seqPageSize - 2) {
		if _, had := tab.delete("1", seq); !had {
			t.Fatalf("record %d was not there", seq)
		}
	}
	p := tab.spaces["1"][0]
	if len(p.recs) != 2 || cap(p.recs) > 8 {
		t.Fatalf("a page with 2 records left keeps %d of room for %d", cap(p.recs), len(p.recs))
	}
	for _, seq := range []uint64{seqPageSize - 2, seqPageSize - 1} {
		if v, ok := tab.get("1", seq); !ok || v != "r" {
			t.Fatalf("record %d reads %q, %v", seq, v, ok)
		}
	}
	tab.delete("1", seqPageSize-2)
	tab.delete("1", seqPageSize-1)
	if len(tab.spaces) != 0 || tab.n != 0 {
		t.Fatalf("an empty table keeps %d keyspaces, counts %d records", len(tab.spaces), tab.n)
	}
}
