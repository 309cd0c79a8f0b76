package engine

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/buntdb"
)

// buntdbLoad runs buntdb's own loader on rd, the reference the store's
// load is held to. The loader panics at bytes no store holds, a command's
// name shorter than three bytes or a negative length: an error then.
func buntdbLoad(db *buntdb.DB, rd io.Reader) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("buntdb's loader failed: %v", v)
		}
	}()
	return db.Load(rd)
}

// loadRecords loads data into a new in-memory buntdb with buntdb's own
// loader, and returns its records and the load's error. ok is false for
// input whose lengths would have buntdb's loader allocate more than limit
// bytes, which no store's file has.
func loadRecords(t *testing.T, data []byte, limit int) (recs map[string]string, err error, ok bool) {
	t.Helper()
	if hugeNumber(data, limit) {
		return nil, nil, false
	}
	db, oerr := buntdb.Open(":memory:")
	if oerr != nil {
		t.Fatal(oerr)
	}
	defer db.Close()
	err = buntdbLoad(db, bytes.NewReader(data))
	return dbRecords(t, db), err, true
}

// dbRecords returns every record of db.
func dbRecords(t *testing.T, db *buntdb.DB) map[string]string {
	t.Helper()
	recs := map[string]string{}
	verr := db.View(func(tx *buntdb.Tx) error {
		return tx.Ascend("", func(k, v string) bool {
			recs[k] = v
			return true
		})
	})
	if verr != nil {
		t.Fatal(verr)
	}
	return recs
}

// storeRecords returns every record of a load into db and msgs.
func storeRecords(t *testing.T, db *buntdb.DB, msgs *messageTable) map[string]string {
	t.Helper()
	recs := map[string]string{}
	verr := db.View(func(tx *buntdb.Tx) error {
		return buntTx{tx, msgs}.ascend("", func(k, v string) bool {
			recs[strings.Clone(k)] = v
			return true
		})
	})
	if verr != nil {
		t.Fatal(verr)
	}
	return recs
}

// hugeNumber reports whether data has a length, digits after a '$', that
// buntdb's loader reads as negative or as more than limit, wrapping as it
// does.
func hugeNumber(data []byte, limit int) bool {
	for i := 0; i < len(data); i++ {
		if data[i] != '$' {
			continue
		}
		n, j := 0, i+1
		for ; j < len(data) && data[j] >= '0' && data[j] <= '9'; j++ {
			n = n*10 + int(data[j]-'0')
		}
		if n < 0 || n > limit {
			return true
		}
		i = j - 1
	}
	return false
}

// checkScanAgrees checks that scanCommands ends the whole commands of data
// where buntdb's loader does: all of data when the loader takes it, and,
// when it ends within a command, at a length whose bytes alone load to the
// same records.
func checkScanAgrees(t *testing.T, data []byte) {
	t.Helper()
	recs, err, ok := loadRecords(t, data, len(data))
	if !ok {
		return
	}
	n, serr := scanCommands(bytes.NewReader(data), int64(len(data)))
	switch err {
	case nil:
		if serr != nil || n != int64(len(data)) {
			t.Fatalf("%.200q: buntdb loads it all, but the scan stops at %d of %d: %v", data, n, len(data), serr)
		}
	case io.ErrUnexpectedEOF:
		if serr == nil {
			t.Fatalf("%.200q: buntdb finds a command cut short, the scan none", data)
		}
		cut, cerr, ok := loadRecords(t, data[:n], len(data))
		if !ok || cerr != nil || !maps.Equal(cut, recs) {
			t.Fatalf("%.200q: the scan stops at %d, whose bytes load to %q (%v), not buntdb's %q", data, n, cut, cerr, recs)
		}
	}
}

// Commands that buntdb's loader takes, however it was written: the scan
// must frame them as it does, or a file with a command cut short after
// them is cut before records the loader holds.
func TestScanCommandsFramesAsLoad(t *testing.T) {
	set := string(appendSet(nil, "k", "v"))
	for name, data := range map[string]string{
		"a part count padded past a buffer": "*" + strings.Repeat("0", 5000) + "3\r\n$3\r\nset\r\n$1\r\nk\r\n$1\r\nv\r\n",
		"a length padded past a buffer":     "*3\r\n$3\r\nset\r\n$" + strings.Repeat("0", 5000) + "1\r\nk\r\n$1\r\nv\r\n",
		"a part count of 2^64+3":            "*18446744073709551619\r\n$3\r\nset\r\n$1\r\nk\r\n$1\r\nv\r\n",
		"a length of 2^64+1":                "*3\r\n$3\r\nset\r\n$18446744073709551617\r\nk\r\n$1\r\nv\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			checkScanAgrees(t, []byte(data))
			checkScanAgrees(t, []byte(data+set[:len(set)-3]))
		})
	}
}

// FuzzScanCommands checks scanCommands against buntdb's own loader on
// arbitrary bytes.
func FuzzScanCommands(f *testing.F) {
	set := appendSet(nil, "m:1:00000000000000000009", "r\x00\r\n")
	del := appendDel(nil, "m:1:00000000000000000009")
	whole := append(append([]byte(formatRecord), set...), del...)
	for _, seed := range [][]byte{
		nil, whole, whole[:len(whole)-1], whole[:len(formatRecord)+10],
		append(append([]byte{}, whole...), 0, 0, 0), append(append([]byte{0, 0}, set...), set[:5]...),
		[]byte("*0\r\n"), []byte("*1\r\n$7\r\nflushdb\r\n"), []byte("*5\r\n$3\r\nset\r\n$1\r\nk\r\n$1\r\nv\r\n$2\r\nex\r\n$2\r\n10\r\n"),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkScanAgrees(t, data)
	})
}

// checkLoadAgrees checks the store's load of data against buntdb's loader:
// the records it takes are the loader's, and it stops where the loader
// does, or earlier at a command that the loader takes but that the store
// never writes, which it refuses; at a line the input ends within that no
// command begins with, the loader finds a command cut short, the load
// errWrongTail.
func checkLoadAgrees(t *testing.T, data []byte) {
	t.Helper()
	want, werr, ok := loadRecords(t, data, len(data))
	if !ok {
		return
	}
	db, err := buntdb.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	msgs := newMessageTable()
	whole, err := loadCommands(db, msgs, bytes.NewReader(data), int64(len(data)))
	got := storeRecords(t, db, msgs)
	switch err {
	case errWrongTail: // what buntdb's loader takes for a command cut short
		if werr != io.ErrUnexpectedEOF || !maps.Equal(got, want) {
			t.Fatalf("%.200q: the load takes %q (%v), buntdb's loader %q (%v)", data, got, err, want, werr)
		}
	case nil, io.ErrUnexpectedEOF:
		if err != werr || !maps.Equal(got, want) {
			t.Fatalf("%.200q: the load takes %q (%v), buntdb's loader %q (%v)", data, got, err, want, werr)
		}
		if err == nil && whole != int64(len(data)) {
			t.Fatalf("%.200q: the load takes all of it, but says %d of %d bytes", data, whole, len(data))
		}
	case errNotCommand:
		if werr == nil || werr == io.ErrUnexpectedEOF {
			if !foreignCommand(data[whole:]) {
				t.Fatalf("%.200q: the load refuses the command at %d, which buntdb's loader takes", data, whole)
			}
		}
		if cut, cerr, _ := loadRecords(t, data[:whole], len(data)); cerr != nil || !maps.Equal(cut, got) {
			t.Fatalf("%.200q: the load stops at %d with %q, but those bytes load to %q (%v)", data, whole, got, cut, cerr)
		}
	default:
		t.Fatalf("%.200q: the load fails with %v", data, err)
	}
}

// foreignCommand reports whether b begins with a whole command that
// buntdb's loader takes but the store never writes: one whose name only
// begins with set or del, or a set with an expiry.
func foreignCommand(b []byte) bool {
	c := newCommandReader(bytes.NewReader(b), int64(len(b)), true)
	if c.next() != nil || c.parts() == 0 {
		return false
	}
	name := string(c.part(0))
	prefixed := len(name) > 3 && (strings.EqualFold(name[:3], "set") || strings.EqualFold(name[:3], "del"))
	return prefixed || strings.EqualFold(name, "set") && c.parts() == 5
}

// The load frames commands as buntdb's loader does, and takes the ones
// the store writes as it takes them.
func TestLoadAgreesWithBuntdb(t *testing.T) {
	set := string(appendSet(nil, "k", "v"))
	other := string(appendSet(nil, "m:1:00000000000000000009", "r\x00\r\n"))
	del := string(appendDel(nil, "k"))
	msg := string(appendSet(nil, messageKey("1", 9), "r\x00\r\n"))
	msgDel := string(appendDel(nil, messageKey("1", 9)))
	for name, data := range map[string]string{
		"message records":                    formatRecord + msg + string(appendSet(nil, messageKey("a", 1), "x")) + msgDel + set + msg,
		"a message record's del and flushdb": msg + msgDel + msgDel + msg + "*1\r\n$7\r\nflushdb\r\n" + set + string(appendSet(nil, "M:1:19", "upper")),
		"sets and a del":                     formatRecord + set + other + del + set,
		"NUL bytes between commands":         "\x00\x00" + set + "\x00" + other + "\x00",
		"a del of a missing key":             del + set,
		"flushdb":                            set + "*1\r\n$7\r\nFLUSHDB\r\n" + other,
		"no parts":                           "*0\r\n" + set,
		"a part count padded past a buffer":  "*" + strings.Repeat("0", 2<<20) + "3\r\n$3\r\nset\r\n$1\r\nk\r\n$1\r\nv\r\n",
		"a length padded past a buffer":      "*3\r\n$3\r\nset\r\n$" + strings.Repeat("0", 2<<20) + "1\r\nk\r\n$1\r\nv\r\n",
		"a value larger than the buffer":     string(appendSet(nil, "big", strings.Repeat("b", 3<<20))) + set,
		"a part count of 2^64+3":             "*18446744073709551619\r\n$3\r\nset\r\n$1\r\nk\r\n$1\r\nv\r\n",
		"a length of 2^64+1":                 "*3\r\n$3\r\nset\r\n$18446744073709551617\r\nk\r\n$1\r\nv\r\n",
		"a huge length":                      "*3\r\n$3\r\nset\r\n$1\r\nk\r\n$999999999999999\r\nv\r\n",
		"a name that only begins with set":   "*3\r\n$4\r\nsetx\r\n$1\r\nk\r\n$1\r\nv\r\n",
		"a set with an expiry":               "*5\r\n$3\r\nset\r\n$1\r\nk\r\n$1\r\nv\r\n$2\r\nex\r\n$2\r\n10\r\n",
		"an unknown command":                 "*2\r\n$4\r\nzzzz\r\n$1\r\nx\r\n" + set,
		"a name that folds to set":           "*3\r\n$4\r\n\u017fet\r\n$1\r\nk\r\n$1\r\nv\r\n",
		"a name that folds to flushdb":       set + "*1\r\n$8\r\nflu\u017fhdb\r\n",
		"a wrong line end":                   strings.Replace(set, "v\r\n", "vX\n", 1),
		"a line cut short at the end":        set + "*3\r",
		"a wrong line cut short at the end":  set + "*3\r\n$3x",
		"text after the commands":            set + "appended text",
	} {
		t.Run(name, func(t *testing.T) {
			checkLoadAgrees(t, []byte(data))
			checkLoadAgrees(t, []byte(data+set[:len(set)-3]))
			checkScanAgrees(t, []byte(data))
		})
	}
}

// A length past the file's end is found without reading or making room
// for its bytes: buntdb's loader made room for any length it read, which
// could take all of memory. One that a record of the store can have is a
// command a kill cut short; a longer one is no store's, and is refused.
func TestLoadTakesNoLengthPastTheFile(t *testing.T) {
	set := string(appendSet(nil, "k", "v"))
	for length, want := range map[string]error{
		"9223372036854775807":           errNotCommand,
		"9223372036854775806":           errNotCommand,
		"999999999999999":               errNotCommand,
		strconv.Itoa(maxCutCommand + 1): errNotCommand,
		strconv.Itoa(maxCutCommand):     io.ErrUnexpectedEOF,
		strconv.Itoa(len(set)):          io.ErrUnexpectedEOF,
	} {
		data := set + "*3\r\n$3\r\nset\r\n$1\r\nx\r\n$" + length + "\r\nv\r\n"
		db, err := buntdb.Open(":memory:")
		if err != nil {
			t.Fatal(err)
		}
		msgs := newMessageTable()
		whole, err := loadCommands(db, msgs, bytes.NewReader([]byte(data)), int64(len(data)))
		if got := storeRecords(t, db, msgs); err != want || whole != int64(len(set)) || !maps.Equal(got, map[string]string{"k": "v"}) {
			t.Errorf("a value of length %s: the load takes %q and %d bytes (%v), want k = v, %d bytes and %v", length, got, whole, err, len(set), want)
		}
		db.Close()
		if n, err := scanCommands(bytes.NewReader([]byte(data)), int64(len(data))); err != want || n != int64(len(set)) {
			t.Errorf("a value of length %s: the scan stops at %d (%v), want %d and %v", length, n, err, len(set), want)
		}
	}
}

// FuzzLoadCommands checks the store's load against buntdb's own loader on
// arbitrary bytes.
func FuzzLoadCommands(f *testing.F) {
	set := appendSet(nil, "m:1:00000000000000000009", "r\x00\r\n")
	del := appendDel(nil, "m:1:00000000000000000009")
	whole := append(append([]byte(formatRecord), set...), del...)
	msgs := append(append(appendSet(nil, messageKey("1", 9), "r"), appendDel(nil, messageKey("1", 9))...), appendSet(nil, messageKey("1", 10), "s")...)
	for _, seed := range [][]byte{
		nil, whole, whole[:len(whole)-1], append(append([]byte{}, whole...), 0, 0, 0), msgs,
		[]byte("*0\r\n"), []byte("*1\r\n$7\r\nflushdb\r\n"), []byte("*3\r\n$4\r\nsetx\r\n$1\r\nk\r\n$1\r\nv\r\n"),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkLoadAgrees(t, data)
	})
}
