package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/tidwall/buntdb"
)

// formatKey marks a buntdb file as a minisqs store; formatValue is the
// store's format. The key sorts before every other key, so it is the first
// record of a new store and of every rewrite of the file, since buntdb's
// Shrink writes the keys in order. In format 3, a message has one record,
// which holds its current state (see recordVersion). Format 1 gave every
// message a state record too; format 2 let a message record end with the
// state the message was sent in, in place of a state record. A store of
// either reads as it is and is marked 3 when opened, its records taking
// format 3's form as their messages change (a build that knows only
// formats 1 and 2 refuses it then). A format this build does not know is
// refused.
const (
	formatKey   = "!minisqs"
	formatValue = "3"
)

// formatRecord is the format record as buntdb writes it.
const formatRecord = "*3\r\n$3\r\nset\r\n$8\r\n" + formatKey + "\r\n$1\r\n" + formatValue + "\r\n"

// storeHead is how much of a file checkStoreFile reads: enough for the
// first record's key, however large the file.
const storeHead = 4096

// fileRecords keeps a store's records in a buntdb file, which buntdb
// keeps in memory too, with the lock that keeps it to this process.
type fileRecords struct {
	db   *buntdb.DB
	lock *storeLock
}

// openFileRecords opens the store at path for this process alone. It
// refuses, without changing it, a file that is not a minisqs store, since
// buntdb's loader would take such a file for a store with a torn tail and
// truncate it; and it refuses a store another process has open, since two
// writers would overwrite each other.
func openFileRecords(path string, fsync FsyncPolicy) (*fileRecords, error) {
	if err := checkStoreFile(path); err != nil {
		return nil, err
	}
	lock, err := lockStore(path)
	if err != nil {
		return nil, err
	}
	db, err := buntdb.Open(path)
	if err == nil {
		if err = configure(db, fsync); err == nil {
			err = markStore(db)
		}
		if err != nil {
			db.Close()
		}
	}
	if err != nil {
		lock.release()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return &fileRecords{db: db, lock: lock}, nil
}

// configure sets db's sync policy to fsync.
func configure(db *buntdb.DB, fsync FsyncPolicy) error {
	var cfg buntdb.Config
	if err := db.ReadConfig(&cfg); err != nil {
		return err
	}
	cfg.SyncPolicy = map[FsyncPolicy]buntdb.SyncPolicy{
		FsyncAlways:      buntdb.Always,
		FsyncEverySecond: buntdb.EverySecond,
		FsyncNever:       buntdb.Never,
	}[fsync]
	return db.SetConfig(cfg)
}

func (r *fileRecords) update(fn func(tx recordTx) error) error {
	return r.db.Update(func(tx *buntdb.Tx) error { return fn(buntTx{tx}) })
}

func (r *fileRecords) view(fn func(tx recordTx) error) error {
	return r.db.View(func(tx *buntdb.Tx) error { return fn(buntTx{tx}) })
}

// close flushes the file and gives up the lock.
func (r *fileRecords) close() error { return errors.Join(r.db.Close(), r.lock.release()) }

// buntTx is a recordTx over a buntdb transaction. buntdb keeps the strings
// it is given, so a message's record is shared with its index entry.
type buntTx struct{ tx *buntdb.Tx }

func (t buntTx) get(key string) (string, bool, error) {
	v, err := t.tx.Get(key)
	if err == buntdb.ErrNotFound {
		return "", false, nil
	}
	return v, err == nil, err
}

func (t buntTx) set(key, value string) error {
	_, _, err := t.tx.Set(key, value, nil)
	return err
}

func (t buntTx) delete(key string) (string, bool, error) {
	v, err := t.tx.Delete(key)
	if err == buntdb.ErrNotFound {
		return "", false, nil
	}
	return v, err == nil, err
}

func (t buntTx) ascend(prefix string, fn func(key, value string) bool) error {
	return t.tx.AscendGreaterOrEqual("", prefix, func(k, v string) bool {
		return strings.HasPrefix(k, prefix) && fn(k, v)
	})
}

// checkStoreFile accepts a missing or empty file and a minisqs store: one
// whose first record is buntdb's set or del of a minisqs key, or the start
// of the format record that a crash cut short. It reads only the file's
// head.
func checkStoreFile(path string) error {
	refuse := func(why string) error {
		return fmt.Errorf("open store %s: not a minisqs store (%s); it is left as it is", path, why)
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("open store %s: %w", path, err)
	case fi.IsDir():
		return refuse("it is a directory")
	case !fi.Mode().IsRegular():
		return refuse("it is not a regular file")
	case fi.Size() == 0:
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open store %s: %w", path, err)
	}
	defer f.Close()
	head := make([]byte, storeHead)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF {
		return fmt.Errorf("open store %s: %w", path, err)
	}
	head = head[:n]
	if n < len(formatRecord) && int64(n) == fi.Size() && strings.HasPrefix(formatRecord, string(head)) {
		return nil
	}
	key, ok := firstKey(head)
	if !ok {
		return refuse("it does not begin with a buntdb record")
	}
	if !isStoreKey(key) {
		return refuse(fmt.Sprintf("its first key, %.40q, is not one minisqs writes", key))
	}
	return nil
}

// isStoreKey reports whether minisqs writes key: the format record, or
// a key of keys.go or of the move tasks. Stores written before the format
// record existed are known by these.
func isStoreKey(key string) bool {
	if key == formatKey || key == lastNumKey {
		return true
	}
	for _, prefix := range []string{queuePrefix, messagePrefix, statePrefix, moveTaskPrefix} {
		if strings.HasPrefix(key, prefix) {
			return true
		}
	}
	return false
}

// firstKey reads the key of the buntdb record that begins b, which must be
// a set ("*3\r\n$3\r\nset\r\n$LEN\r\nKEY\r\n$LEN\r\nVALUE\r\n", or "*5"
// with an expiry after the value) or a del ("*2\r\n$3\r\ndel\r\n$LEN\r\nKEY\r\n"),
// as buntdb writes them.
func firstKey(b []byte) (string, bool) {
	parts, b, ok := respNumber(b, '*')
	if !ok {
		return "", false
	}
	cmd, b, ok := respString(b)
	if !ok || !(cmd == "set" && (parts == 3 || parts == 5) || cmd == "del" && parts == 2) {
		return "", false
	}
	key, _, ok := respString(b)
	return key, ok
}

// respString reads "$LEN\r\nTEXT\r\n" from b's start.
func respString(b []byte) (string, []byte, bool) {
	n, b, ok := respNumber(b, '$')
	if !ok || len(b) < n+2 || b[n] != '\r' || b[n+1] != '\n' {
		return "", nil, false
	}
	return string(b[:n]), b[n+2:], true
}

// respNumber reads "<kind>DIGITS\r\n" from b's start. Numbers too large for
// a store's head are refused.
func respNumber(b []byte, kind byte) (int, []byte, bool) {
	line, rest, ok := bytes.Cut(b, []byte("\r\n"))
	if !ok || len(line) < 2 || len(line) > 8 || line[0] != kind {
		return 0, nil, false
	}
	n := 0
	for _, c := range line[1:] {
		if c < '0' || c > '9' {
			return 0, nil, false
		}
		n = n*10 + int(c-'0')
	}
	return n, rest, true
}

// markStore writes the format record into a store that lacks it: a new
// store, where it is the first record, or one written before stores were
// marked, where buntdb's next rewrite of the file puts it first. It marks a
// format 1 or 2 store as 3, and refuses a format it does not know.
func markStore(db *buntdb.DB) error {
	return db.Update(func(tx *buntdb.Tx) error {
		v, err := tx.Get(formatKey)
		switch {
		case err == buntdb.ErrNotFound || err == nil && (v == "1" || v == "2"):
		case err != nil:
			return err
		case v == formatValue:
			return nil
		default:
			return fmt.Errorf("its format is %.20q, which a newer minisqs wrote; this one reads formats 1 to %s", v, formatValue)
		}
		_, _, err = tx.Set(formatKey, formatValue, nil)
		return err
	})
}

// storeLock is an open lock file, PATH.lock beside the store. Its lock
// (flock, where the system has it) keeps the store to one process: it is
// taken on a file of its own because buntdb's rewrite renames a new file
// over the store, which would drop a lock held on the store's file. The
// file holds the holder's process id, for the error another process gets.
type storeLock struct{ f *os.File }

// release gives up the lock, leaving the lock file empty; closing the file
// is what releases it.
func (l *storeLock) release() error {
	if l == nil {
		return nil
	}
	return errors.Join(l.f.Truncate(0), l.f.Close())
}
