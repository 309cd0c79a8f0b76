package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/buntdb"
)

// snapshot is what a test compares of a path before and after an Open:
// its mode and size, and its bytes or, for a directory, its entries.
func snapshot(t *testing.T, path string) string {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	s := fi.Mode().String() + " " + strconv.FormatInt(fi.Size(), 10) + "\n"
	if fi.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			s += e.Name() + "\n"
		}
		return s
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s + string(b)
}

// A file that is not a minisqs store is refused by name and left as it
// was: buntdb alone would take most of these for a store with a torn tail
// and truncate them, or start on them and write over them.
func TestOpenRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	binary := make([]byte, 3*storeHead)
	for i := range binary {
		binary[i] = byte(i*7 + 1)
		if binary[i] == '\n' {
			binary[i] = '?'
		}
	}
	sub := filepath.Join(dir, "dir")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join("dir", "inside"), []byte("x"))
	for name, path := range map[string]string{
		"json":            write("queues.json", []byte(`{"queues":[{"name":"orders"}]}`)),
		"json line":       write("line.json", []byte(`{"queues":[]}`+"\n")),
		"binary":          write("blob.bin", binary),
		"zeros":           write("zeros", make([]byte, 2*storeHead)),
		"other buntdb":    write("other.db", []byte("*3\r\n$3\r\nset\r\n$5\r\nuser1\r\n$2\r\n{}\r\n")),
		"torn other":      write("torn.db", []byte("*3\r\n$3\r\nset\r\n$5\r\nus")),
		"unframed marker": write("unframed.db", []byte(formatKey+"\r\n")),
		"/dev/null":       os.DevNull,
		"directory":       sub,
	} {
		t.Run(name, func(t *testing.T) {
			before := snapshot(t, path)
			e, err := Open(Options{Path: path, Clock: NewManualClock(testStart), Fsync: FsyncNever})
			if err == nil {
				e.Close()
				t.Fatalf("Open(%s) succeeded", path)
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a minisqs store") {
				t.Errorf("error %q, want one saying %s is not a minisqs store", err, path)
			}
			if after := snapshot(t, path); after != before {
				t.Errorf("%s changed:\nbefore %.80q\nafter  %.80q", path, before, after)
			}
			if _, err := os.Stat(lockFile(path)); err == nil {
				t.Errorf("a lock file was made beside %s", path)
			}
		})
	}
}

// A new store's first record is the format record; a file holding only
// the start of it, as a crash during the first write can leave, opens.
func TestOpenMarksNewStores(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	mustCreate(t, e, "q", AttributeUpdate{}, nil)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte(formatRecord)) {
		t.Errorf("a new store begins %.60q, want the format record %q", b, formatRecord)
	}
	mustQueue(t, openAt(t, path, clk), "q")

	torn := filepath.Join(dir, "torn")
	if err := os.WriteFile(torn, []byte(formatRecord[:len(formatRecord)-3]), 0o644); err != nil {
		t.Fatal(err)
	}
	openAt(t, torn, clk)
}

// A store written before stores were marked opens with its queues, and
// gains the format record, which a rewrite of the file puts first.
func TestOpenOldStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	db, err := buntdb.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *buntdb.Tx) error {
		_, _, err := tx.Set(oldQueueKey("old"), `{"id":"00000000-0000-4000-8000-000000000001","name":"old","num":1}`, nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	e := openAt(t, path, NewManualClock(testStart))
	mustQueue(t, e, "old")
	if err := e.store.kv.(*fileRecords).shrink(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte(formatRecord)) {
		t.Errorf("the old store after a rewrite begins %.60q, want the format record %q", b, formatRecord)
	}
}

// A store is one process's at a time: a second Open fails, naming the
// holder, until the first closes.
func TestOpenLocksStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	first := openAt(t, path, clk)
	_, err := Open(Options{Path: path, Clock: clk, Fsync: FsyncNever})
	if err == nil {
		t.Fatal("a second Open of an open store succeeded")
	}
	pid := "process " + strconv.Itoa(os.Getpid())
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), pid) {
		t.Errorf("error %q, want one naming %s and %s", err, path, pid)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	openAt(t, path, clk)
}

// A format 1 or 2 store opens and is marked 3; a store of a format this
// build does not know is refused and left as it was.
func TestOpenStoreFormats(t *testing.T) {
	dir := t.TempDir()
	write := func(name, format string) string {
		path := filepath.Join(dir, name)
		db, err := buntdb.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		err = db.Update(func(tx *buntdb.Tx) error {
			_, _, err := tx.Set(formatKey, format, nil)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}

	for _, format := range []string{"1", "2"} {
		old := write("old"+format, format)
		e := openAt(t, old, NewManualClock(testStart))
		if v := storeFormat(t, e); v != "3" {
			t.Errorf("a format %s store opened is marked %q, want 3", format, v)
		}
	}

	newer := write("newer", "4")
	before, err := os.ReadFile(newer)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(Options{Path: newer, Clock: NewManualClock(testStart)})
	if err == nil || !strings.Contains(err.Error(), `format is "4"`) {
		t.Errorf("opening a format 4 store: %v, want a refusal naming its format", err)
	}
	if after, _ := os.ReadFile(newer); !bytes.Equal(after, before) {
		t.Errorf("the refused store changed:\n%q\nwas\n%q", after, before)
	}
}

// storeFormat reads the format record of e's store.
func storeFormat(t *testing.T, e *Engine) string {
	t.Helper()
	var v string
	err := e.store.kv.(*fileRecords).db.View(func(tx *buntdb.Tx) error {
		var err error
		v, err = tx.Get(formatKey)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// storedBodies lists the bodies of q's messages, sorted.
func storedBodies(t *testing.T, q *Queue) []string {
	t.Helper()
	ms, err := q.Messages()
	wantCode(t, err, "")
	var got []string
	for _, m := range ms {
		got = append(got, m.Body)
	}
	slices.Sort(got)
	return got
}

// A store whose last write a kill cut short opens with every whole
// command, its file cut to them, and takes writes after them.
func TestOpenCutsTornTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	sendBodies(t, mustCreate(t, e, "q", AttributeUpdate{}, nil), "a")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	small := appendSet(nil, messageKey("1", 99), "a record the kill cut short")
	// As long as a record gets: the largest message, and room to spare
	// for what its record holds beside it.
	large := appendSet(nil, messageKey("1", 99), strings.Repeat("m", MaxMaximumMessageSize+64<<10))
	for _, torn := range [][]byte{small, large} {
		for _, cut := range []int{1, 4, 9, 20, 50, len(torn) / 2, len(torn) - 1} {
			if err := os.WriteFile(path, append(slices.Clone(whole), torn[:cut]...), 0o600); err != nil {
				t.Fatal(err)
			}
			e := openAt(t, path, clk)
			q := mustQueue(t, e, "q")
			if got := storedBodies(t, q); !slices.Equal(got, []string{"a"}) {
				t.Errorf("%d bytes of a record of %d: queue holds %q, want [a]", cut, len(torn), got)
			}
			if fi, err := os.Stat(path); err != nil || fi.Size() != int64(len(whole)) {
				t.Errorf("%d bytes of a record of %d: file of %v bytes (%v), want %d", cut, len(torn), fi.Size(), err, len(whole))
			}
			sendBodies(t, q, "b")
			e = reopen(t, e, path, clk)
			if got := storedBodies(t, mustQueue(t, e, "q")); !slices.Equal(got, []string{"a", "b"}) {
				t.Errorf("%d bytes of a record of %d, then a send: queue holds %q, want [a b]", cut, len(torn), got)
			}
			e.Close()
		}
	}
}

// A rewrite of the file while messages come and go keeps every change:
// those made before it began, in the records it writes, and those made
// while it ran, in the commands it copies after them.
func TestShrinkWhileWriting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	for i := range 30 {
		sendBodies(t, q, "before-"+strconv.Itoa(i))
	}
	r := e.store.kv.(*fileRecords)
	done := make(chan error)
	go func() {
		var err error
		for range 5 {
			if err = r.shrink(); err != nil {
				break
			}
		}
		done <- err
	}()
	for i := range 200 {
		body := "during-" + strconv.Itoa(i)
		sendBodies(t, q, body)
		if i%2 == 0 {
			ds := recvNow(t, q, ReceiveOptions{MaxMessages: 1})
			if len(ds) != 1 {
				t.Fatalf("received %d messages, want 1", len(ds))
			}
			if errs := q.Acknowledge([]string{ds[0].ReceiptHandle}); errs[0] != nil {
				t.Fatal(errs[0])
			}
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("shrink: %v", err)
	}
	want := storedBodies(t, q)
	checkStoreAgrees(t, e)
	e = reopen(t, e, path, clk)
	if got := storedBodies(t, mustQueue(t, e, "q")); !slices.Equal(got, want) {
		t.Errorf("after the rewrites and a restart, queue holds %d messages, want %d", len(got), len(want))
	}
	checkStoreAgrees(t, e)
}

// A write the file refuses fails its change, which neither the store nor
// the queue then holds.
func TestFileWriteFailureRollsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	sendBodies(t, q, "kept")
	r := e.store.kv.(*fileRecords)
	readOnly, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var f *os.File
	swap := func(to *os.File) {
		r.db.Update(func(*buntdb.Tx) error { f, r.f = r.f, to; return nil })
	}
	swap(readOnly)
	res := q.Send([]NewMessage{{Body: "lost"}})
	wantCode(t, res[0].Err, ErrInternal)
	swap(f)
	readOnly.Close()
	if got := storedBodies(t, q); !slices.Equal(got, []string{"kept"}) {
		t.Errorf("after a failed write, queue holds %q, want [kept]", got)
	}
	checkStoreAgrees(t, e)
	sendBodies(t, q, "after")
	e = reopen(t, e, path, clk)
	if got := storedBodies(t, mustQueue(t, e, "q")); !slices.Equal(got, []string{"after", "kept"}) {
		t.Errorf("after a restart, queue holds %q, want [after kept]", got)
	}
}

// Commands are written as buntdb writes them, whatever their parts'
// lengths.
func TestAppendCommands(t *testing.T) {
	for _, n := range []int{0, 1, 9, 10, 99, 100, 999, 1000, 65536} {
		s := strings.Repeat("x", n)
		want := fmt.Sprintf("*3\r\n$3\r\nset\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", n, s, n+1, s+"y")
		if got := string(appendSet(nil, s, s+"y")); got != want {
			t.Errorf("appendSet of lengths %d, %d: %.40q, want %.40q", n, n+1, got, want)
		}
		if got := setLen(n, n+1); got != len(want) {
			t.Errorf("setLen of lengths %d, %d: %d, want %d", n, n+1, got, len(want))
		}
		want = fmt.Sprintf("*2\r\n$3\r\ndel\r\n$%d\r\n%s\r\n", n, s)
		if got := string(appendDel(nil, s)); got != want {
			t.Errorf("appendDel of length %d: %.40q, want %.40q", n, got, want)
		}
	}
}

// Under every fsync policy, what was written is there after a restart.
func TestFsyncPolicies(t *testing.T) {
	for _, fsync := range []FsyncPolicy{FsyncAlways, FsyncEverySecond, FsyncNever} {
		path := filepath.Join(t.TempDir(), "db")
		clk := NewManualClock(testStart)
		e, err := Open(Options{Path: path, Clock: clk, Fsync: fsync})
		if err != nil {
			t.Fatal(err)
		}
		q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
		sendBodies(t, q, "a", "b")
		ds := recvNow(t, q, ReceiveOptions{MaxMessages: 1})
		if errs := q.Acknowledge([]string{ds[0].ReceiptHandle}); errs[0] != nil {
			t.Fatal(errs[0])
		}
		if err := e.Close(); err != nil {
			t.Fatalf("%v: Close: %v", fsync, err)
		}
		e = openAt(t, path, clk)
		if got := storedBodies(t, mustQueue(t, e, "q")); len(got) != 1 {
			t.Errorf("%v: after a restart, queue holds %q, want one of [a b]", fsync, got)
		}
	}
}

// A write that takes the file past shrinkMinSize, and twice its length
// after the last rewrite, starts a rewrite, which drops what is no longer
// there; the close waits for it.
func TestWritesStartRewrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	body := strings.Repeat("x", 200<<10)
	const n = shrinkMinSize / (200 << 10) / 2 // messages in half the size
	for i := range n {
		sendBodies(t, q, body)
		ds := recvNow(t, q, ReceiveOptions{MaxMessages: 1})
		if errs := q.Acknowledge([]string{ds[0].ReceiptHandle}); errs[0] != nil {
			t.Fatalf("message %d: %v", i, errs[0])
		}
	}
	for range n + 2 {
		sendBodies(t, q, body+"kept")
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// Without a rewrite the file holds about 48 MB: every message sent, and
	// again each one received. The rewrite keeps the messages kept, and may
	// hold those sent while it ran twice, in its records and in the
	// commands it copies after them.
	if max := int64(shrinkMinSize) * 5 / 4; fi.Size() > max {
		t.Errorf("the file is %d bytes after the rewrite, want at most %d", fi.Size(), max)
	}
	e = openAt(t, path, clk)
	if got := storedBodies(t, mustQueue(t, e, "q")); len(got) != n+2 || got[0] != body+"kept" {
		t.Errorf("after the rewrite and a restart, queue holds %d messages, want %d kept", len(got), n+2)
	}
}

// Under FsyncEverySecond a store no one writes to keeps no timer on the
// clock, and a write arms the sync a second after it.
func TestEverySecondSyncWaitsForWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	r, err := openFileRecords(path, FsyncNever, NewManualClock(testStart)) // marks the store
	if err != nil {
		t.Fatal(err)
	}
	if err := r.close(); err != nil {
		t.Fatal(err)
	}
	clk := NewManualClock(testStart)
	if r, err = openFileRecords(path, FsyncEverySecond, clk); err != nil {
		t.Fatal(err)
	}
	defer r.close()
	if n := clk.Waiters(); n != 0 {
		t.Fatalf("an idle store keeps %d timers, want none", n)
	}
	if err := r.update(func(tx recordTx) error { return tx.set("k", "v") }); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := clk.AwaitWaiters(ctx, 1); err != nil {
		t.Fatalf("after a write, no sync is due: %v", err)
	}
	clk.Advance(time.Second)
}

// A rewrite that fails is not tried again until the file doubles once
// more: one that failed for want of room would otherwise run after every
// write, filling the disk that the writes need.
func TestFailedRewriteWaits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	// A directory where the rewrite's copy goes makes it fail.
	if err := os.Mkdir(path+".tmp", 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := openFileRecords(path, FsyncNever, NewManualClock(testStart))
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	value := strings.Repeat("v", 1<<20)
	set := func() {
		t.Helper()
		if err := r.update(func(tx recordTx) error { return tx.set("k", value) }); err != nil {
			t.Fatal(err)
		}
		r.tasks.Wait() // the rewrite a write started, if any
	}
	for range shrinkMinSize>>20 + 1 {
		set()
	}
	if err := os.Remove(path + ".tmp"); err != nil {
		t.Fatal(err)
	}
	set()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() < shrinkMinSize {
		t.Fatalf("the file is %d bytes: a write right after a failed rewrite tried again", fi.Size())
	}
}

// shrink rewrites r's file now, as a write past the threshold would,
// unless a rewrite is under way.
func (r *fileRecords) shrink() error {
	var start int64
	err := r.db.Update(func(*buntdb.Tx) error {
		if r.shrinking {
			return errors.New("the store's file is being rewritten")
		}
		r.shrinking, start = true, r.size
		return nil
	})
	if err != nil {
		return err
	}
	return r.rewrite(start)
}
