package engine

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"testing"

	"github.com/tidwall/buntdb"
)

// setsOf returns n set commands, of keys k0 to k(n-1).
func setsOf(n int) []byte {
	var b []byte
	for i := range n {
		b = appendSet(b, fmt.Sprintf("k%d", i), "v")
	}
	return b
}

// readerRunning reports whether a load's reader is still under way.
func readerRunning() bool {
	buf := make([]byte, 1<<20)
	return bytes.Contains(buf[:runtime.Stack(buf, true)], []byte("engine.readOps("))
}

// A load whose transaction never runs stops its reader, which would
// otherwise wait for ever to hand over a batch.
func TestLoadStopsItsReaderWhenTheTransactionFails(t *testing.T) {
	db, err := buntdb.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	data := setsOf(2 * loadBatches * loadBatch)
	if _, err := loadCommands(db, newMessageTable(), bytes.NewReader(data), int64(len(data))); err != buntdb.ErrDatabaseClosed {
		t.Fatalf("the load of a closed db returns %v, want %v", err, buntdb.ErrDatabaseClosed)
	}
	if readerRunning() {
		t.Fatal("the reader still runs after the load returned")
	}
}

// errAfter is a reader of data that fails with err once it has given n
// bytes.
type errAfter struct {
	data []byte
	n    int
	err  error
}

func (r *errAfter) Read(p []byte) (int, error) {
	if r.n == 0 || len(r.data) == 0 {
		return 0, r.err
	}
	k := copy(p[:min(len(p), r.n)], r.data)
	r.data, r.n = r.data[k:], r.n-k
	return k, nil
}

// A read that fails mid-file fails the load with its error, after the
// whole commands before it, and leaves no reader behind.
func TestLoadReadErrorMidFile(t *testing.T) {
	data := setsOf(loadReadSize / 16) // past the read buffer, and many batches
	ioErr := errors.New("input/output error")
	for _, n := range []int{0, 1, loadReadSize/3 + 7, loadReadSize + 5, len(data) - 1} {
		db, err := buntdb.Open(":memory:")
		if err != nil {
			t.Fatal(err)
		}
		msgs := newMessageTable()
		whole, err := loadCommands(db, msgs, &errAfter{data, n, ioErr}, int64(len(data)))
		if err != ioErr || whole > int64(n) {
			t.Errorf("a read failing after %d bytes: the load says %d bytes and %v, want at most %d and %v", n, whole, err, n, ioErr)
		}
		want, werr, _ := loadRecords(t, data[:whole], len(data))
		if got := storeRecords(t, db, msgs); werr != nil || len(got) != len(want) {
			t.Errorf("a read failing after %d bytes: the load takes %d records, the %d bytes before it hold %d (%v)", n, len(got), whole, len(want), werr)
		}
		db.Close()
		if readerRunning() {
			t.Fatalf("a read failing after %d bytes: the reader still runs after the load returned", n)
		}
	}
}

// The load's transaction keeps no undo records, having deleted every key
// first; the transactions after it keep theirs: one that fails leaves the
// records, and their count, as the load made them.
func TestLoadLeavesLaterTransactionsTheirUndo(t *testing.T) {
	data := append(append(setsOf(3), "*1\r\n$7\r\nflushdb\r\n"...), setsOf(2*loadBatch)...)
	db, err := buntdb.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := loadCommands(db, newMessageTable(), bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	want := dbRecords(t, db)
	failed := errors.New("failed")
	err = db.Update(func(tx *buntdb.Tx) error {
		for _, k := range []string{"k0", "k1", "new"} {
			if _, _, err := tx.Set(k, "changed", nil); err != nil {
				return err
			}
		}
		if _, err := tx.Delete("k2"); err != nil {
			return err
		}
		return failed
	})
	if err != failed {
		t.Fatalf("the update returns %v, want %v", err, failed)
	}
	if got := dbRecords(t, db); len(want) != 2*loadBatch || !maps.Equal(got, want) {
		t.Fatalf("after a failed update the db holds %d records, the load %d of %d", len(got), len(want), 2*loadBatch)
	}
	var n int
	if err := db.View(func(tx *buntdb.Tx) (err error) { n, err = tx.Len(); return err }); err != nil || n != len(want) {
		t.Fatalf("the db counts %d records (%v), want %d", n, err, len(want))
	}
}

// A command the store does not write is refused where it begins, after
// the NUL bytes before it: the offset the refusal gives.
func TestLoadRefusesAtTheCommand(t *testing.T) {
	set := appendSet(nil, "k", "v")
	data := append(append(slices.Clone(set), 0, 0), "*3\r\n$4\r\nsetx\r\n$1\r\nk\r\n$1\r\nv\r\n"...)
	db, err := buntdb.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if whole, err := loadCommands(db, newMessageTable(), bytes.NewReader(data), int64(len(data))); err != errNotCommand || whole != int64(len(set)+2) {
		t.Fatalf("the load stops at %d (%v), want %d (%v)", whole, err, len(set)+2, errNotCommand)
	}
}
