package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

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

// fileRecords keeps a store's records in a file of buntdb's form, an
// append-only log of set and del commands, with the lock that keeps it to
// this process. buntdb holds the records in memory, opened without a file,
// but for messages' records, which msgs holds (storemsgs.go);
// the file is loaded here (storeload.go), written here, each transaction's
// commands in one write before it commits, in the order they were made,
// and rewritten here as buntdb rewrites its own. buntdb's own writing
// keeps a map of every key a transaction changes, to write each once,
// which cost the --db send-receive-delete cycle about 2,600 instructions a
// message.
type fileRecords struct {
	db    *buntdb.DB
	lock  *storeLock
	path  string
	fsync FsyncPolicy
	clock Clock         // for the sync every second
	stop  chan struct{} // closed, under db's write lock, to stop the syncs and rewrites
	// unsynced holds a token while a write waits for the sync every
	// second: the syncs wait on it, so that an idle store does nothing.
	unsynced chan struct{}
	tasks    sync.WaitGroup // the syncs and rewrites under way
	// msgs are the message records, which buntdb does not hold, read under
	// db's read lock and changed under its write lock.
	msgs *messageTable
	// The rest is used under db's write lock.
	wtx       writeTx // the write transaction under way
	f         *os.File
	size      int64  // the file's length, where the next write goes
	cmds      []byte // the commands of the write transaction under way
	live      int64  // the file's length after its last rewrite, or one's when loaded
	shrinking bool
	broken    error // a failed write that could not be cut from the file
}

// Rewrites of the file, as buntdb makes them: once it is past
// shrinkMinSize and twice its length after the last one, a chunk of
// shrinkChunk records at a time.
const (
	shrinkMinSize = 32 << 20
	shrinkChunk   = 1000
)

// openFileRecords opens the store at path for this process alone. It
// refuses, without changing it, a file that is not a minisqs store, since
// the load would take such a file for a store with a torn tail and
// truncate it; and it refuses a store another process has open, since two
// writers would overwrite each other.
func openFileRecords(path string, fsync FsyncPolicy, clock Clock) (*fileRecords, error) {
	if err := checkStoreFile(path); err != nil {
		return nil, err
	}
	lock, err := lockStore(path)
	if err != nil {
		return nil, err
	}
	r := &fileRecords{lock: lock, path: path, fsync: fsync, clock: clock, stop: make(chan struct{}), unsynced: make(chan struct{}, 1)}
	r.wtx.r = r
	err = r.load()
	if err == nil {
		if err = markStore(r); err != nil {
			r.db.Close()
			r.f.Close()
		}
	}
	if err != nil {
		lock.release()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if fsync == FsyncEverySecond {
		r.tasks.Add(1)
		go r.syncEverySecond()
	}
	return r, nil
}

// load reads the file into a new in-memory buntdb. A file that ends in a
// command cut short, by a kill during its write, is cut to its last whole
// command, as buntdb cuts it.
func (r *fileRecords) load() error {
	_, err := os.Stat(r.path)
	created := errors.Is(err, fs.ErrNotExist)
	f, err := os.OpenFile(r.path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return err
	}
	if created { // the new file's name is the directory's to keep
		syncDir(filepath.Dir(r.path))
	}
	db, err := buntdb.Open(":memory:")
	if err != nil {
		f.Close()
		return err
	}
	msgs := newMessageTable()
	var whole int64
	size, err := f.Seek(0, io.SeekEnd)
	if err == nil {
		whole, err = loadCommands(db, msgs, io.NewSectionReader(f, 0, size), size)
	}
	switch err {
	case io.ErrUnexpectedEOF: // a kill cut the last write short
		err = f.Truncate(whole)
	case errNotCommand, errWrongTail:
		err = cutTorn(f, whole)
	}
	if err == nil {
		r.size, err = f.Seek(0, io.SeekEnd)
	}
	// The file's length after a rewrite, as buntdb reckons it, so that a
	// file grown long is rewritten as soon as buntdb would have.
	if err == nil {
		r.live = msgs.setLens()
		err = db.View(func(tx *buntdb.Tx) error {
			return tx.Ascend("", func(k, v string) bool {
				r.live += int64(setLen(len(k), len(v)))
				return true
			})
		})
	}
	if err != nil {
		db.Close()
		f.Close()
		return err
	}
	r.db, r.f, r.msgs = db, f, msgs
	return nil
}

// cutTorn cuts the file at whole, the length of the commands its load
// took, when the bytes after them are a command cut short and NUL bytes
// (see tornCommand). A file wrong in any other way is refused, unchanged.
func cutTorn(f *os.File, whole int64) error {
	torn, err := tornCommand(f)
	switch {
	case err != nil:
		return err
	case torn != whole:
		return fmt.Errorf("the bytes at offset %d are not a store's command; the file is left as it is", whole)
	}
	return f.Truncate(whole)
}

// setLen is the length of the command appendSet appends for a key and a
// value of those lengths.
func setLen(key, value int) int {
	digits := func(n int) int {
		d := 1
		for ; n >= 10; n /= 10 {
			d++
		}
		return d
	}
	return len("*3\r\n$3\r\nset\r\n") + 2*len("$\r\n\r\n") + digits(key) + key + digits(value) + value
}

// update runs fn in a buntdb transaction, which buntdb rolls back when
// fn or the write fails; the message records fn changed are rolled back
// here. A panic in fn fails the transaction too, rolled back, and goes on
// once it is: buntdb would commit a transaction that a panic passes
// through, with none of its commands in the file.
func (r *fileRecords) update(fn func(tx recordTx) error) error {
	var panicked any
	err := r.db.Update(func(tx *buntdb.Tx) (err error) {
		defer func() {
			if panicked = recover(); panicked != nil {
				err = errPanicked
			}
			if err != nil {
				r.wtx.rollback()
			}
			r.wtx.done()
		}()
		r.cmds = r.cmds[:0]
		r.wtx.buntTx = buntTx{tx, r.msgs}
		if err := fn(&r.wtx); err != nil {
			return err
		}
		return r.write()
	})
	if panicked != nil {
		panic(panicked)
	}
	return err
}

// errPanicked fails a transaction that a panic went through.
var errPanicked = errors.New("the transaction panicked")

// write appends the transaction's commands to the file in one write, and
// syncs it under FsyncAlways. A write that fails is cut from the file, as
// buntdb cuts its own, and fails the transaction, which buntdb then rolls
// back; one that cannot be cut leaves the file wrong, and fails every
// later write rather than write after it. A panic would not do: buntdb
// commits a transaction that a panic passes through, and a caller may
// recover, as net/http does a handler's.
func (r *fileRecords) write() error {
	if len(r.cmds) == 0 {
		return nil
	}
	if r.broken != nil {
		return r.broken
	}
	n, err := r.f.Write(r.cmds)
	if err != nil {
		if n > 0 {
			cerr := r.f.Truncate(r.size)
			if cerr == nil {
				_, cerr = r.f.Seek(r.size, io.SeekStart)
			}
			if cerr != nil {
				r.broken = fmt.Errorf("store %s: cutting a failed write: %w", r.path, cerr)
				return r.broken
			}
		}
		return err
	}
	r.size += int64(n)
	switch r.fsync {
	case FsyncAlways:
		_ = r.f.Sync() // as buntdb: the write is in the file, whatever the disk says
	case FsyncEverySecond:
		select {
		case r.unsynced <- struct{}{}:
		default: // a sync is due already
		}
	}
	if !r.shrinking && r.size > shrinkMinSize && r.size > 2*r.live && !closed(r.stop) {
		r.shrinking = true
		r.tasks.Add(1)
		go func(start int64) {
			defer r.tasks.Done()
			_ = r.rewrite(start)
		}(r.size)
	}
	return nil
}

func (r *fileRecords) view(fn func(tx recordTx) error) error {
	return r.db.View(func(tx *buntdb.Tx) error { return fn(buntTx{tx, r.msgs}) })
}

// syncEverySecond syncs the file, under FsyncEverySecond, a second after
// a write that no sync has covered, so that a write is on disk within a
// second, and a store no one writes to keeps no timer.
func (r *fileRecords) syncEverySecond() {
	defer r.tasks.Done()
	for {
		select {
		case <-r.stop:
			return
		case <-r.unsynced:
		}
		due, release := r.clock.After(time.Second)
		select {
		case <-r.stop:
			release()
			return
		case <-due:
		}
		_ = r.db.Update(func(*buntdb.Tx) error {
			_ = r.f.Sync()
			// Under the write lock, the sync covers every write that
			// left a token.
			select {
			case <-r.unsynced:
			default:
			}
			return nil
		})
	}
}

// closed reports whether c is closed.
func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// errClosing is what a rewrite the store's close cut short returns.
var errClosing = errors.New("the store is closing")

// rewrite rewrites the file, whose length was start when the rewrite
// began, as one set command for each record, buntdb's in key order, as
// buntdb's Shrink does, then the message records': the records are read a
// chunk at a time, so that writes go on meanwhile, and the commands
// written since start are copied after them; then the new file is renamed
// over the old. A kill at any point
// leaves one whole file or the other.
func (r *fileRecords) rewrite(start int64) (err error) {
	defer r.db.Update(func(*buntdb.Tx) error {
		r.shrinking = false
		if err != nil {
			// The next try waits for the file to double again: one that
			// failed for want of room would fail at once, and fill the
			// disk that the writes need, every write.
			r.live = r.size
		}
		return nil
	})
	tmp := r.path + ".tmp"
	fi, err := os.Stat(r.path)
	if err != nil {
		return err
	}
	// The copy keeps the file's permissions, whatever the umask, and is
	// never opened with more: its owner may keep the messages from others.
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, fi.Mode().Perm())
	if err != nil {
		return err
	}
	defer func() {
		f.Close()
		os.Remove(tmp)
	}()
	if err := f.Chmod(fi.Mode().Perm()); err != nil {
		return err
	}
	var buf []byte
	for pivot, more := "", true; more; {
		if closed(r.stop) { // the store is closing: the file stays as it is
			return errClosing
		}
		more, buf = false, buf[:0]
		n := 0
		err := r.db.View(func(tx *buntdb.Tx) error {
			return tx.AscendGreaterOrEqual("", pivot, func(k, v string) bool {
				if n == shrinkChunk {
					pivot, more = k, true
					return false
				}
				buf = appendSet(buf, k, v)
				n++
				return true
			})
		})
		if err == nil {
			_, err = f.Write(buf)
		}
		if err != nil {
			return err
		}
	}
	if err := r.rewriteMessages(f); err != nil {
		return err
	}
	// Flushed before the write lock is taken, the copy leaves the flush
	// under it only the commands written meanwhile.
	if err := f.Sync(); err != nil {
		return err
	}
	return r.db.Update(func(*buntdb.Tx) error {
		if _, err := io.Copy(f, io.NewSectionReader(r.f, start, r.size-start)); err != nil {
			return err
		}
		if err := f.Sync(); err != nil {
			return err
		}
		if err := os.Rename(tmp, r.path); err != nil {
			return err
		}
		size, err := f.Seek(0, io.SeekEnd)
		if err != nil {
			panic(fmt.Errorf("store %s: after its rewrite: %w", r.path, err))
		}
		r.f.Close()
		r.f, f = f, nil
		r.size, r.live = size, size
		// The rename is the directory's to keep: flushed before any later
		// write, so that a write flushed under FsyncAlways cannot come
		// back after a power loss in a file the old name points to.
		syncDir(filepath.Dir(r.path))
		return nil
	})
}

// rewriteMessages writes the message records into f, after buntdb's, a
// keyspace at a time in order of their numbers, in chunks of about
// shrinkChunk records as rewrite writes buntdb's. The pages listed first
// are read a few at a time: a record gone meanwhile is left out, and one
// added is in the commands written since the rewrite began.
func (r *fileRecords) rewriteMessages(f *os.File) error {
	var spaces []string
	pages := map[string][]uint64{}
	err := r.db.View(func(*buntdb.Tx) error {
		spaces = r.msgs.keyspaces()
		for _, ks := range spaces {
			pages[ks] = r.msgs.pageNumbers(ks)
		}
		return nil
	})
	if err != nil {
		return err
	}
	var buf []byte
	for _, ks := range spaces {
		for left := pages[ks]; len(left) > 0; {
			if closed(r.stop) {
				return errClosing
			}
			buf = buf[:0]
			err := r.db.View(func(*buntdb.Tx) error {
				for n := 0; len(left) > 0 && n < shrinkChunk; left = left[1:] {
					r.msgs.ascendPages(ks, left[:1], 0, func(seq uint64, v string) bool {
						buf = appendMessageSet(buf, ks, seq, v)
						n++
						return true
					})
				}
				return nil
			})
			if err == nil {
				_, err = f.Write(buf)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// syncDir flushes the directory at path, as far as the system lets it: a
// failure leaves the rename where the kernel has it, which is no worse
// than not asking.
func syncDir(path string) {
	if d, err := os.Open(path); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// close stops the syncs and rewrites, syncs and closes the file, and
// gives up the lock.
func (r *fileRecords) close() error {
	// Closed under the write lock, stop keeps writes from starting a
	// rewrite the close would not wait for.
	_ = r.db.Update(func(*buntdb.Tx) error { close(r.stop); return nil })
	r.tasks.Wait()
	err := r.db.Update(func(*buntdb.Tx) error {
		_ = r.f.Sync() // as buntdb: a failed sync does not fail the close
		return r.f.Close()
	})
	return errors.Join(err, r.db.Close(), r.lock.release())
}

// appendSet appends buntdb's command that sets key to value.
func appendSet(b []byte, key, value string) []byte {
	return appendBulk(appendBulk(append(b, "*3\r\n$3\r\nset\r\n"...), key), value)
}

// appendMessageSet is appendSet of a message record.
func appendMessageSet(b []byte, keyspace string, seq uint64, v string) []byte {
	var room [48]byte
	key := appendRecordKey(room[:0], messagePrefix, keyspace, seq)
	return appendSet(b, unsafe.String(unsafe.SliceData(key), len(key)), v)
}

// appendDel appends buntdb's command that deletes key.
func appendDel(b []byte, key string) []byte {
	return appendBulk(append(b, "*2\r\n$3\r\ndel\r\n"...), key)
}

// appendBulk appends s as a part of a command: "$LEN\r\nS\r\n". A
// length of up to three digits, a key's or a message record's, is written
// without strconv: every change of a --db store writes two or three.
func appendBulk(b []byte, s string) []byte {
	switch n := len(s); {
	case n < 10:
		b = append(b, '$', byte('0'+n), '\r', '\n')
	case n < 100:
		b = append(b, '$', byte('0'+n/10), byte('0'+n%10), '\r', '\n')
	case n < 1000:
		b = append(b, '$', byte('0'+n/100), byte('0'+n/10%10), byte('0'+n%10), '\r', '\n')
	default:
		b = append(strconv.AppendInt(append(b, '$'), int64(n), 10), '\r', '\n')
	}
	return append(append(b, s...), '\r', '\n')
}

// buntTx is a recordTx over a buntdb transaction and the message records
// beside it, for reading. buntdb keeps the strings it is given, and so do
// the message records, so a message's record is shared with its index
// entry.
type buntTx struct {
	tx   *buntdb.Tx
	msgs *messageTable
}

func (t buntTx) get(key string) (string, bool, error) {
	if ks, seq, ok := splitMessageKey(key); ok {
		v, had := t.msgs.get(ks, seq)
		return v, had, nil
	}
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

// setMessage and deleteMessage fail: a transaction that writes is a
// writeTx.
func (t buntTx) setMessage(string, uint64, string) error { return buntdb.ErrTxNotWritable }
func (t buntTx) deleteMessage(string, uint64) error      { return buntdb.ErrTxNotWritable }

func (t buntTx) ascendMessages(keyspace string, from uint64, fn func(seq uint64, v string) bool) error {
	t.msgs.ascendPages(keyspace, t.msgs.pageNumbers(keyspace), from, fn)
	return nil
}

func (t buntTx) ascend(prefix string, fn func(key, value string) bool) error {
	return t.ascendFrom(prefix, prefix, fn)
}

// The message records' keys are those from messagePrefix up to, not
// including, msgEnd: buntdb holds none of them in messageKey's form, but
// may hold others there, of an older store's form.
const msgEnd = "m;"

// ascendFrom goes through buntdb's keys before the message records',
// those of the message records merged with buntdb's among them, and
// buntdb's after them.
func (t buntTx) ascendFrom(prefix, from string, fn func(key, value string) bool) error {
	from = max(prefix, from)
	done := false
	each := func(k, v string) bool {
		if !strings.HasPrefix(k, prefix) || !fn(k, v) {
			done = true // past the prefix's keys, which are together from prefix on
		}
		return !done
	}
	if from < messagePrefix {
		if err := t.tx.AscendRange("", from, messagePrefix, each); err != nil || done {
			return err
		}
	}
	if lo := max(from, messagePrefix); lo < msgEnd && (strings.HasPrefix(prefix, messagePrefix) || strings.HasPrefix(messagePrefix, prefix)) {
		type record struct{ k, v string }
		var others []record // buntdb's, seldom any
		err := t.tx.AscendRange("", lo, msgEnd, func(k, v string) bool {
			if !strings.HasPrefix(k, prefix) {
				return k < prefix
			}
			others = append(others, record{k, v})
			return true
		})
		if err != nil {
			return err
		}
		t.msgs.ascend(prefix, lo, func(k, v string) bool {
			for ; len(others) > 0 && others[0].k < k; others = others[1:] {
				if !each(others[0].k, others[0].v) {
					return false
				}
			}
			return each(k, v)
		})
		for ; !done && len(others) > 0; others = others[1:] {
			each(others[0].k, others[0].v)
		}
		if done || strings.HasPrefix(prefix, messagePrefix) {
			return nil
		}
	}
	return t.tx.AscendGreaterOrEqual("", max(from, msgEnd), each)
}

func (t buntTx) last(prefix string) (key string, ok bool, err error) {
	if ks, isMsg := strings.CutPrefix(prefix, messagePrefix); isMsg && strings.HasSuffix(ks, ":") && isKeyspace(ks[:len(ks)-1]) {
		ks = ks[:len(ks)-1]
		// A keyspace's own prefix, which only its records have: the
		// greatest key of the message records, or of buntdb's there.
		key, ok, err = t.buntLast(prefix)
		if seq, has := t.msgs.last(ks); has {
			if k := messageKey(ks, seq); !ok || k > key {
				key, ok = k, true
			}
		}
		return key, ok, err
	}
	key, ok, err = t.buntLast(prefix)
	var top string // the greatest message record's key with prefix
	t.msgs.ascend(prefix, prefix, func(k, _ string) bool {
		top = k
		return true
	})
	if top > key {
		key, ok = strings.Clone(top), true
	}
	return key, ok, err
}

// buntLast returns the greatest key with prefix that buntdb holds.
func (t buntTx) buntLast(prefix string) (key string, ok bool, err error) {
	fn := func(k, _ string) bool {
		if strings.HasPrefix(k, prefix) {
			key, ok = k, true
		}
		return false
	}
	// end is the least key above every key with the prefix: the prefix
	// with its last byte that is not 0xff raised, and those after it cut.
	i := len(prefix) - 1
	for i >= 0 && prefix[i] == 0xff {
		i--
	}
	if i < 0 {
		return key, ok, t.tx.Descend("", fn)
	}
	end := prefix[:i] + string([]byte{prefix[i] + 1})
	return key, ok, t.tx.DescendLessOrEqual("", end, func(k, v string) bool {
		return k == end || fn(k, v)
	})
}

func (t buntTx) count() (int, error) {
	n, err := t.tx.Len()
	return n + t.msgs.n, err
}

// writeTx is a buntTx that writes: each change it makes is added to the
// transaction's commands for the file, and each of a message record kept
// in undo, for rollback.
type writeTx struct {
	buntTx
	r    *fileRecords
	undo []messageUndo
}

// messageUndo is a message record as it was before a change.
type messageUndo struct {
	keyspace string
	seq      uint64
	old      string
	had      bool
}

func (t *writeTx) set(key, value string) error {
	if ks, seq, ok := splitMessageKey(key); ok {
		return t.setMessage(ks, seq, value)
	}
	if err := t.buntTx.set(key, value); err != nil {
		return err
	}
	t.r.cmds = appendSet(t.r.cmds, key, value)
	return nil
}

func (t *writeTx) delete(key string) (string, bool, error) {
	if ks, seq, ok := splitMessageKey(key); ok {
		v, had := t.removeMessage(ks, seq)
		return v, had, nil
	}
	v, ok, err := t.buntTx.delete(key)
	if ok {
		t.r.cmds = appendDel(t.r.cmds, key)
	}
	return v, ok, err
}

func (t *writeTx) setMessage(keyspace string, seq uint64, v string) error {
	old, had := t.msgs.set(keyspace, seq, v)
	t.undo = append(t.undo, messageUndo{keyspace, seq, old, had})
	t.r.cmds = appendMessageSet(t.r.cmds, keyspace, seq, v)
	return nil
}

func (t *writeTx) deleteMessage(keyspace string, seq uint64) error {
	t.removeMessage(keyspace, seq)
	return nil
}

func (t *writeTx) removeMessage(keyspace string, seq uint64) (string, bool) {
	old, had := t.msgs.delete(keyspace, seq)
	if had {
		t.undo = append(t.undo, messageUndo{keyspace, seq, old, true})
		var room [48]byte
		key := appendRecordKey(room[:0], messagePrefix, keyspace, seq)
		t.r.cmds = appendDel(t.r.cmds, unsafe.String(unsafe.SliceData(key), len(key)))
	}
	return old, had
}

// done forgets the transaction's changes, and drops a large transaction's
// buffers, a purge's of every message of a deep queue, rather than keep
// them for ever.
func (t *writeTx) done() {
	clear(t.undo) // the records they hold may go
	t.undo = t.undo[:0]
	if cap(t.undo) > maxKeptUndo {
		t.undo = nil
	}
	if cap(t.r.cmds) > maxKeptCommands {
		t.r.cmds = nil
	}
}

// A transaction's undo list and commands keep their room for the next
// unless they grew past these.
const (
	maxKeptUndo     = 4096
	maxKeptCommands = 4 << 20
)

// rollback puts back the message records the transaction changed, the
// latest change first.
func (t *writeTx) rollback() {
	for _, u := range slices.Backward(t.undo) {
		if u.had {
			t.msgs.set(u.keyspace, u.seq, u.old)
		} else {
			t.msgs.delete(u.keyspace, u.seq)
		}
	}
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
// marked, where the next rewrite of the file puts it first. It marks a
// format 1 or 2 store as 3, and refuses a format it does not know.
func markStore(r *fileRecords) error {
	return r.update(func(tx recordTx) error {
		v, ok, err := tx.get(formatKey)
		switch {
		case err != nil:
			return err
		case !ok || v == "1" || v == "2":
		case v == formatValue:
			return nil
		default:
			return fmt.Errorf("its format is %.20q, which a newer minisqs wrote; this one reads formats 1 to %s", v, formatValue)
		}
		return tx.set(formatKey, formatValue)
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
