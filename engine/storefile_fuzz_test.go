package engine

import (
	"bufio"
	"bytes"
	"io"
	"maps"
	"strings"
	"testing"

	"github.com/tidwall/buntdb"
)

// loadRecords loads data into a new in-memory buntdb, as the store's load
// does, and returns its records and the load's error. ok is false for
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
	err = loadFrom(db, bytes.NewReader(data))
	recs = map[string]string{}
	verr := db.View(func(tx *buntdb.Tx) error {
		return tx.Ascend("", func(k, v string) bool {
			recs[k] = v
			return true
		})
	})
	if verr != nil {
		t.Fatal(verr)
	}
	return recs, err, true
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
	n, serr := scanCommands(bufio.NewReader(bytes.NewReader(data)))
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
