package engine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/buntdb"
)

// swapFile puts f in place of r's file, under the write lock, and returns
// the file it replaced.
func swapFile(r *fileRecords, f *os.File) *os.File {
	var was *os.File
	r.db.Update(func(*buntdb.Tx) error { was, r.f = r.f, f; return nil })
	return was
}

// messageRecords counts the message records buntdb holds for r.
func messageRecords(t *testing.T, r *fileRecords) int {
	t.Helper()
	var keys []string
	err := r.view(func(tx recordTx) error {
		var err error
		keys, err = keysWithPrefix(tx, messagePrefix)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return len(keys)
}

// A write that fails part way and cannot then be cut from the file leaves
// the file's tail unknown: its change fails and buntdb does not hold it,
// and no later change is acknowledged, even when the caller recovers from
// a panic, as net/http does a handler's. A pipe takes part of the write,
// then breaks, and cannot be truncated.
func TestUncutWriteStopsWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	sendBodies(t, q, "kept")
	r := e.store.kv.(*fileRecords)

	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { // takes a byte of the write, so that it is part made, then breaks it
		pr.Read(make([]byte, 1))
		pr.Close()
	}()
	file := swapFile(r, pw)
	var res []SendResult
	func() {
		defer func() {
			if v := recover(); v != nil {
				t.Logf("the send panicked: %v", v)
			}
		}()
		res = q.Send([]NewMessage{{Body: strings.Repeat("x", 200<<10)}}) // past a pipe's 64 KiB
	}()
	swapFile(r, file)
	pw.Close()
	if res != nil && res[0].Err == nil {
		t.Errorf("a send whose write failed was acknowledged")
	}
	if n := messageRecords(t, r); n != 1 {
		t.Errorf("after the failed write, buntdb holds %d message records, want 1", n)
	}
	res = q.Send([]NewMessage{{Body: "after"}})
	if res[0].Err == nil {
		t.Errorf("a send after a write that could not be cut was acknowledged")
	}
	if err := r.shrink(); err != nil {
		t.Fatal(err)
	}
	e = reopen(t, e, path, clk)
	if got := storedBodies(t, mustQueue(t, e, "q")); !slices.Equal(got, []string{"kept"}) {
		t.Errorf("after a rewrite and a restart, queue holds %d messages, want [kept]", len(got))
	}
}

// A rewrite of the file keeps its permissions: a store its owner keeps
// from others stays so once compacted.
func TestShrinkKeepsMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	sendBodies(t, mustCreate(t, e, "q", AttributeUpdate{}, nil), "private")
	for _, mode := range []os.FileMode{0o600, 0o640} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		if err := e.store.kv.(*fileRecords).shrink(); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != mode {
			t.Errorf("a file of mode %v has mode %v after a rewrite", mode, got)
		}
	}
}
