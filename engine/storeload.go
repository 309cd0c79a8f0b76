package engine

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"unsafe"

	"github.com/tidwall/buntdb"
)

// The store's file is read here rather than by buntdb's loader, which
// allocated each line it read and each part of a command apart, and
// kept an undo record of every key it set: loading a million messages took
// it about three quarters of a second. Here a record's key and value share
// one allocation, and the load keeps no undo records.

// loadReadSize is the read buffer of a load: a few records' worth would
// do, but a larger one makes fewer reads of a large file.
const loadReadSize = 1 << 20

// commandReader reads the commands of a store's file, framed as buntdb's
// loader frames them: NUL bytes between commands, then "*N\r\n" and N
// parts of "$LEN\r\n", LEN bytes and "\r\n". Its numbers may have any
// number of digits, and wrap past the int's range, as the loader's do.
type commandReader struct {
	br    *bufio.Reader
	left  int64 // bytes not read yet: a length past them is a command cut short, or wrong
	at    int64 // bytes read
	whole int64 // length of the whole commands read
	start int64 // where the command read last begins, after NUL bytes
	keep  bool  // keep the parts of each command, in buf and ends
	buf   []byte
	ends  []int // where each part ends in buf
}

// newCommandReader reads size bytes from rd. When keep is set, the
// parts of each command are kept, for part.
func newCommandReader(rd io.Reader, size int64, keep bool) *commandReader {
	return &commandReader{br: bufio.NewReaderSize(rd, loadReadSize), left: size, keep: keep}
}

// errNotCommand is what a commandReader says of bytes that are not a
// command.
var errNotCommand = errors.New("not a store command")

// errWrongTail is what a commandReader says when the input ends within a
// line that no command's first bytes are. buntdb's loader judges a line
// only once it is whole, and takes it for a command cut short; but a kill
// cuts short what the store wrote, so the file is wrong, unless a power
// loss's NUL bytes are what make the line wrong.
var errWrongTail = errors.New("the file ends in bytes that are not a store's")

// next reads the next command. It returns io.EOF at the end of the input,
// io.ErrUnexpectedEOF when the input ends within a command, errWrongTail
// when it ends within a line no command begins with, and errNotCommand at
// bytes no command begins or goes on with.
func (c *commandReader) next() error {
	for {
		b, err := c.br.ReadByte()
		if err != nil {
			return err
		}
		if b != 0 {
			c.br.UnreadByte()
			break
		}
		c.at++ // buntdb skips NUL bytes between commands
		c.left--
		c.whole = c.at
	}
	c.start = c.at
	c.buf, c.ends = c.buf[:0], c.ends[:0]
	parts, err := c.number('*')
	for i := 0; err == nil && i < parts; i++ {
		err = c.readPart()
	}
	if err != nil {
		return err
	}
	c.whole = c.at
	return nil
}

// parts is the number of parts of the command read last.
func (c *commandReader) parts() int { return len(c.ends) }

// part returns part i of the command read last, which keep kept.
func (c *commandReader) part(i int) []byte {
	start := 0
	if i > 0 {
		start = c.ends[i-1]
	}
	return c.buf[start:c.ends[i]]
}

// number reads "<kind>DIGITS\r\n". A line is judged once it is whole,
// as the loader judges it, and one the input ends within by the bytes it
// has: errWrongTail when it cannot be the start of such a line.
func (c *commandReader) number(kind byte) (int, error) {
	n, digits, first, cr, bad := 0, 0, true, false, false
	for {
		line, err := c.br.ReadSlice('\n')
		c.at += int64(len(line))
		c.left -= int64(len(line))
		for _, b := range line {
			switch {
			case first:
				bad = b != kind
				first = false
			case cr:
				bad = bad || b != '\n'
			case b == '\r':
				cr = true
			case b >= '0' && b <= '9':
				n = n*10 + int(b-'0')
				digits++
			default:
				bad = true
			}
		}
		switch err {
		case nil:
			if bad || !cr || digits == 0 {
				return 0, errNotCommand
			}
			return n, nil
		case bufio.ErrBufferFull: // a line longer than the buffer
		case io.EOF:
			if bad || cr && digits == 0 {
				return 0, errWrongTail
			}
			return 0, io.ErrUnexpectedEOF
		default:
			return 0, err
		}
	}
}

// readPart reads a part: its length, its bytes and "\r\n".
func (c *commandReader) readPart() error {
	n, err := c.number('$')
	switch {
	case err != nil:
		return err
	case n < 0:
		return errNotCommand // the loader panics at it
	case int64(n) > c.left-2:
		// Read no further: the length may be any number, and the bytes
		// cannot hold it. One no record has is not a kill's doing.
		if n > maxCutCommand {
			return errNotCommand
		}
		return io.ErrUnexpectedEOF
	}
	var end [2]byte
	if c.keep {
		c.buf = slices.Grow(c.buf, n+2)
		room := c.buf[len(c.buf) : len(c.buf)+n+2]
		if _, err = io.ReadFull(c.br, room); err == nil {
			c.buf = c.buf[:len(c.buf)+n]
			c.ends = append(c.ends, len(c.buf))
			end = [2]byte(room[n:])
		}
	} else if _, err = c.br.Discard(n); err == nil {
		_, err = io.ReadFull(c.br, end[:])
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return err
	}
	c.at += int64(n) + 2
	c.left -= int64(n) + 2
	if end != [2]byte{'\r', '\n'} {
		return errNotCommand
	}
	return nil
}

// scanCommands reads commands of buntdb's form from rd, size bytes, as
// buntdb's loader frames them. It returns the length of the whole
// commands it read, and nil at the end of rd, or an error as next does.
func scanCommands(rd io.Reader, size int64) (int64, error) {
	c := newCommandReader(rd, size, false)
	for {
		if err := c.next(); err != nil {
			if err == io.EOF {
				err = nil
			}
			return c.whole, err
		}
	}
}

// scanFile is scanCommands over the whole of f, wherever its offset is.
func scanFile(f *os.File) (int64, error) {
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, err
	}
	return scanCommands(io.NewSectionReader(f, 0, size), size)
}

// loadCommands applies the commands of rd, size bytes, to db and msgs,
// which must be empty: the set, del and flushdb commands the store writes,
// those of message records' keys to msgs. It
// returns the length of the commands it applied, and an error as
// scanCommands does: errNotCommand also at a command the store does not
// write. The commands before the first wrong one stay applied. The file
// is read on a goroutine of its own, a batch of commands ahead of the
// transaction that applies them: a load of a million records takes about
// as long to read as to insert.
func loadCommands(db *buntdb.DB, msgs *messageTable, rd io.Reader, size int64) (int64, error) {
	read := make(chan []loadOp, loadBatches-1)
	free := make(chan []loadOp, loadBatches)
	for range loadBatches {
		free <- make([]loadOp, 0, loadBatch)
	}
	stop := make(chan struct{})
	var whole int64
	var rerr error
	go func() {
		defer close(read)
		whole, rerr = readOps(rd, size, read, free, stop)
	}()
	msgs.reset()
	uerr := db.Update(func(tx *buntdb.Tx) error {
		// A transaction that has deleted every key keeps no undo record
		// of each key it changes afterwards: its rollback would restore
		// the trees it replaced, which are empty.
		err := tx.DeleteAll()
		for ops := range read {
			for i := 0; err == nil && i < len(ops); i++ {
				err = ops[i].apply(tx, msgs)
			}
			free <- ops[:0]
			if err != nil {
				break
			}
		}
		return err // a failed apply undoes the load; what was read stays otherwise
	})
	// The reader is stopped, and waited for, also when the transaction
	// failed or never ran: it would wait for ever to hand over a batch.
	close(stop)
	for range read {
	}
	if uerr != nil {
		msgs.reset()
		return 0, uerr
	}
	return whole, rerr
}

// A load's commands go from the reader to the transaction in batches of
// loadBatch, of which loadBatches are in use at once.
const (
	loadBatch   = 512
	loadBatches = 4
)

// loadOp is a command of the file, read to be applied. A message record's
// has its keyspace and sequence number rather than its key.
type loadOp struct {
	name       byte // 's', 'd' or 'f', for set, del and flushdb
	key, value string
	keyspace   string // a message record's, or ""
	seq        uint64
}

func (op *loadOp) apply(tx *buntdb.Tx, msgs *messageTable) error {
	switch {
	case op.keyspace != "" && op.name == 's':
		msgs.set(op.keyspace, op.seq, op.value)
		return nil
	case op.keyspace != "":
		msgs.delete(op.keyspace, op.seq)
		return nil
	case op.name == 's':
		_, _, err := tx.Set(op.key, op.value, nil)
		return err
	case op.name == 'd':
		if _, err := tx.Delete(op.key); err != buntdb.ErrNotFound {
			return err
		}
		return nil
	}
	msgs.reset()
	return tx.DeleteAll()
}

// readOps reads the commands of rd, size bytes, and sends them on read in
// batches it takes from free, until rd ends or stop is closed. It returns
// the length of the commands sent, and an error as loadCommands does.
func readOps(rd io.Reader, size int64, read chan<- []loadOp, free <-chan []loadOp, stop <-chan struct{}) (whole int64, err error) {
	c := newCommandReader(rd, size, true)
	ops := <-free
	var keyspace string // the last message record's, most often the next one's
	for {
		if err = c.next(); err != nil {
			whole = c.whole
			break
		}
		op, ok := opOf(c, &keyspace)
		if !ok {
			whole, err = c.start, errNotCommand
			break
		}
		if op.name != 0 { // a command of no parts, which the loader skips
			ops = append(ops, op)
		}
		if len(ops) == cap(ops) {
			select {
			case read <- ops:
			case <-stop:
				return c.whole, nil
			}
			select {
			case ops = <-free:
			case <-stop:
				return c.whole, nil
			}
		}
	}
	if err == io.EOF {
		err = nil
	}
	select {
	case read <- ops:
	case <-stop:
	}
	return whole, err
}

// opOf returns the command c read last as an op, and false for one the
// store does not write. A message record's keyspace is *keyspace when it
// is the same, and becomes it.
func opOf(c *commandReader, keyspace *string) (loadOp, bool) {
	if c.parts() == 0 {
		return loadOp{}, true
	}
	name := c.part(0)
	if c.parts() == 3 && isName(name, "set") || c.parts() == 2 && isName(name, "del") {
		key := c.part(1)
		if ks, seq, ok := splitMessageKey(unsafe.String(unsafe.SliceData(key), len(key))); ok {
			if ks != *keyspace {
				*keyspace = strings.Clone(ks)
			}
			op := loadOp{name: 'd', keyspace: *keyspace, seq: seq}
			if c.parts() == 3 {
				op.name, op.value = 's', string(c.part(2))
			}
			return op, true
		}
	}
	switch {
	case c.parts() == 3 && isName(name, "set"):
		// The key and its value share one allocation, as the store's
		// writes make them.
		key := c.part(1)
		kv := string(c.buf[len(name) : len(name)+len(key)+len(c.part(2))])
		return loadOp{name: 's', key: kv[:len(key)], value: kv[len(key):]}, true
	case c.parts() == 2 && isName(name, "del"):
		return loadOp{name: 'd', key: string(c.part(1))}, true
	case c.parts() == 1 && isName(name, "flushdb"):
		return loadOp{name: 'f'}, true
	}
	return loadOp{}, false
}

// isName reports whether b is the command name lower, in any case of its
// ASCII letters. Not bytes.EqualFold: Unicode folding takes "\u017fet" for
// set and "flu\u017fhdb" for flushdb, names buntdb's loader refuses.
func isName(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range len(b) {
		if b[i]|0x20 != lower[i] {
			return false
		}
	}
	return true
}

// maxCutCommand bounds a command cut short that a load cuts from the
// file, a kill's or a power loss's: one record, whose largest, a message
// of 1 MiB with its attributes, is well within it. Past it, the bytes are
// more likely a length that something else changed, and the file is
// refused: cut there, it would lose the commands after them.
const maxCutCommand = 4 << 20

// tornCommand returns the length of the file's whole commands, when the
// bytes after them are not a command but one cut short and then NUL bytes
// up to the file's end: what a power loss leaves of a write whose blocks
// did not all reach the disk, on file systems that grow the file first.
// It returns -1 for a file that ends in any other way.
func tornCommand(f *os.File) (int64, error) {
	whole, err := scanFile(f)
	switch err {
	case errNotCommand, errWrongTail:
	case nil, io.ErrUnexpectedEOF:
		return -1, nil
	default:
		return -1, err
	}
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return -1, err
	}
	end := size
	// The NUL bytes at the file's end, read back a block at a time.
	var block [4096]byte
	for end > whole {
		n := min(int64(len(block)), end-whole)
		if _, err := f.ReadAt(block[:n], end-n); err != nil {
			return -1, err
		}
		// Byte by byte, not by rune: the last bytes may read as a
		// character of several bytes, which would end the cut short.
		if k := len(bytes.TrimRight(block[:n], "\x00")); k > 0 {
			end -= n - int64(k)
			break
		}
		end -= n
	}
	if end == whole || end == size || end-whole > maxCutCommand {
		return -1, nil
	}
	if _, err = scanCommands(io.NewSectionReader(f, whole, end-whole), end-whole); err != io.ErrUnexpectedEOF {
		return -1, nil
	}
	return whole, nil
}
