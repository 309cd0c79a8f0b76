package engine

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// storeWithTail makes a store holding messages a, b and c, then appends
// tail to its file, and returns the path and the file's length before.
func storeWithTail(t *testing.T, tail []byte) (string, int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e, err := Open(Options{Path: path, Clock: clk, Fsync: FsyncNever})
	if err != nil {
		t.Fatal(err)
	}
	sendBodies(t, mustCreate(t, e, "q", AttributeUpdate{}, nil), "a", "b", "c")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(tail); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path, fi.Size()
}

// A power loss can leave a write's first blocks and NUL bytes where its
// later blocks were to go. The file opens with its whole commands, cut
// where the torn one begins, and takes writes after them.
func TestZeroFilledTailIsCut(t *testing.T) {
	set := string(appendSet(nil, "m:1:00000000000000000009", strings.Repeat("r", 300)))
	zeros := strings.Repeat("\x00", 5000)
	for name, tail := range map[string]string{
		"in the value":          set[:len(set)-100] + zeros,
		"in a length":           set[:len("*3\r\n$3\r\nset\r\n$2")] + zeros,
		"after the part count":  set[:len("*3\r\n")] + zeros[:100],
		"in the value's ending": set[:len(set)-1] + zeros,
	} {
		t.Run(name, func(t *testing.T) {
			path, size := storeWithTail(t, []byte(tail))
			clk := NewManualClock(testStart)
			e := openAt(t, path, clk)
			q := mustQueue(t, e, "q")
			if got := storedBodies(t, q); !slices.Equal(got, []string{"a", "b", "c"}) {
				t.Fatalf("after the torn write, the queue holds %q, want [a b c]", got)
			}
			if fi, err := os.Stat(path); err != nil || fi.Size() != size {
				t.Fatalf("the file is %v bytes (%v), want it cut to %d", fi.Size(), err, size)
			}
			sendBodies(t, q, "d")
			e = reopen(t, e, path, clk)
			if got := storedBodies(t, mustQueue(t, e, "q")); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
				t.Fatalf("after a write and a restart, the queue holds %q, want [a b c d]", got)
			}
		})
	}
}

// A file wrong in any other way is refused, and left as it is: a command
// that is whole but not one buntdb knows, a wrong byte with whole commands
// after it, or a torn command with no NUL bytes after it that is not at the
// end; also one at which buntdb's loader panics.
func TestOtherwiseWrongFileIsRefused(t *testing.T) {
	set := string(appendSet(nil, "m:1:00000000000000000009", strings.Repeat("r", 300)))
	zeros := strings.Repeat("\x00", 5000)
	bad := strings.Replace(set, "r\r\n", "rX\n", 1)
	for name, tail := range map[string]string{
		"unknown command then NUL bytes":         "*2\r\n$4\r\nzzzz\r\n$1\r\nx\r\n" + zeros,
		"wrong byte then whole commands":         bad + set + zeros,
		"wrong byte at the end":                  bad,
		"a character at the end":                 set[:len(set)-2] + "é",
		"a one-byte command":                     "*1\r\n$1\r\ns\r\n",
		"a negative length":                      "*2\r\n$3\r\ndel\r\n$18446744073709551615\r\nk\r\n",
		"a name that folds to set":               "*3\r\n$4\r\n\u017fet\r\n$1\r\nk\r\n$1\r\nv\r\n",
		"bytes with no line end at the end":      "appended text",
		"a wrong line the file ends within":      set + "*3\r\n$3x",
		"a huge length, whole commands after it": "*3\r\n$3\r\nset\r\n$1\r\nx\r\n$999999999999999\r\nv\r\n" + set + set,
		"a length past any record, NUL bytes":    "*3\r\n$3\r\nset\r\n$1\r\nx\r\n$" + strconv.Itoa(maxCutCommand+1) + "\r\nv\r\n" + zeros,
	} {
		t.Run(name, func(t *testing.T) {
			path, _ := storeWithTail(t, []byte(tail))
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if e, err := Open(Options{Path: path, Clock: NewManualClock(testStart), Fsync: FsyncNever}); err == nil {
				e.Close()
				t.Fatal("Open took the file")
			}
			if after, err := os.ReadFile(path); err != nil || !bytes.Equal(after, before) {
				t.Fatalf("the refused file changed (%v)", err)
			}
		})
	}
}

// A command buntdb's loader takes, though minisqs writes none like it, is
// kept when a command cut short follows it: the file is cut where the
// loader stopped, so that what the store holds is what a restart finds.
func TestCutKeepsWhatTheLoaderTook(t *testing.T) {
	padded := "*" + strings.Repeat("0", 5000) + "3\r\n$3\r\nset\r\n$1\r\nx\r\n$1\r\nv\r\n"
	set := string(appendSet(nil, "y", "w"))
	path, size := storeWithTail(t, []byte(padded+set[:len(set)-3]))
	for range 2 {
		r, err := openFileRecords(path, FsyncNever, NewManualClock(testStart))
		if err != nil {
			t.Fatal(err)
		}
		var v string
		var ok bool
		if err := r.view(func(tx recordTx) (err error) { v, ok, err = tx.get("x"); return err }); err != nil || !ok || v != "v" {
			t.Errorf("the store holds x = %q (%v, %v), want v", v, ok, err)
		}
		if err := r.close(); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() != size+int64(len(padded)) {
			t.Fatalf("the file is %v bytes (%v), want it cut to %d", fi.Size(), err, size+int64(len(padded)))
		}
	}
}

// A kill can cut a write at any byte, and a power loss leave NUL bytes
// after any: at each, the store opens with the whole commands before it,
// its file cut to them (NUL bytes after a whole command may stay: they
// are skipped).
func TestCutAtEveryByte(t *testing.T) {
	var data []byte
	var ends []int // where each command ends
	for _, cmd := range [][]byte{
		[]byte(formatRecord),
		appendSet(nil, messageKey("1", 1), "a\r\n$3\r\n"),
		appendDel(nil, messageKey("1", 1)),
		appendSet(nil, messageKey("1", 2), strings.Repeat("b", 20)),
	} {
		data = append(data, cmd...)
		ends = append(ends, len(data))
	}
	dir := t.TempDir()
	for cut := len(formatRecord); cut <= len(data); cut++ {
		whole := 0
		for _, end := range ends {
			if end <= cut {
				whole = end
			}
		}
		want, _, _ := loadRecords(t, data[:whole], len(data))
		for _, zeros := range []int{0, 3} {
			path := filepath.Join(dir, fmt.Sprintf("db%d-%d", cut, zeros))
			if err := os.WriteFile(path, append(slices.Clone(data[:cut]), make([]byte, zeros)...), 0o600); err != nil {
				t.Fatal(err)
			}
			r, err := openFileRecords(path, FsyncNever, NewManualClock(testStart))
			if err != nil {
				t.Fatalf("cut at %d, %d NUL bytes after: %v", cut, zeros, err)
			}
			got := storeRecords(t, r.db, r.msgs)
			if err := r.close(); err != nil {
				t.Fatal(err)
			}
			size := int64(whole)
			if whole == cut {
				size += int64(zeros)
			}
			if fi, err := os.Stat(path); err != nil || fi.Size() != size || !maps.Equal(got, want) {
				t.Fatalf("cut at %d, %d NUL bytes after: the store holds %q in %d bytes (%v), want %q in %d", cut, zeros, got, fi.Size(), err, want, size)
			}
		}
	}
}
