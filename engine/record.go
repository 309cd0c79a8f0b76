package engine

import (
	"encoding/binary"
	"errors"
	"time"
)

// Stored records use a small length-prefixed binary form rather than JSON:
// bodies go in as they are, with no escaping, and encoding stays off the
// profile of the send and receive paths.

var errCorruptRecord = errors.New("corrupt record")

// recordWriter appends to a caller's buffer, so that encoding allocates
// only the final string.
type recordWriter struct{ b []byte }

func (w *recordWriter) uint(v uint64)   { w.b = binary.AppendUvarint(w.b, v) }
func (w *recordWriter) int(v int64)     { w.b = binary.AppendVarint(w.b, v) }
func (w *recordWriter) bytes(v []byte)  { w.uint(uint64(len(v))); w.b = append(w.b, v...) }
func (w *recordWriter) string(v string) { w.uint(uint64(len(v))); w.b = append(w.b, v...) }

// recordReader reads a stored string in place: the strings it returns share
// the record's memory.
type recordReader struct {
	s   string
	err error
}

func (r *recordReader) uint() uint64 {
	if r.s != "" && r.s[0] < 0x80 { // most lengths, and the load reads many
		v := uint64(r.s[0])
		r.s = r.s[1:]
		return v
	}
	var v uint64
	for i := 0; i < len(r.s) && i < binary.MaxVarintLen64; i++ {
		c := r.s[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			r.s = r.s[i+1:]
			return v
		}
	}
	r.err = errCorruptRecord
	return 0
}

func (r *recordReader) int() int64 {
	u := r.uint()
	return int64(u>>1) ^ -int64(u&1) // zig-zag, as binary.AppendVarint writes
}

func (r *recordReader) string() string {
	n := r.uint()
	if r.err != nil || n > uint64(len(r.s)) {
		r.err = errCorruptRecord
		return ""
	}
	v := r.s[:n]
	r.s = r.s[n:]
	return v
}

func writeAttributes(w *recordWriter, attrs []MessageAttribute) {
	w.uint(uint64(len(attrs)))
	for _, a := range attrs {
		w.string(a.Name)
		w.string(a.DataType)
		w.string(a.StringValue)
		w.bytes(a.BinaryValue)
	}
}

// readAttributes reads attributes into the spare room of *room, which it
// replaces, when short, by room for those of batch records like this one.
func readAttributes(r *recordReader, room *[]MessageAttribute, batch int) []MessageAttribute {
	n := r.uint()
	if r.err != nil || n > uint64(len(r.s)) {
		r.err = errCorruptRecord
		return nil
	}
	if n == 0 {
		return nil
	}
	if uint64(cap(*room)-len(*room)) < n {
		*room = make([]MessageAttribute, 0, int(n)*max(batch, 1))
	}
	start := len(*room)
	*room = (*room)[:start+int(n)]
	attrs := (*room)[start:len(*room):len(*room)]
	for i := range attrs {
		attrs[i].Name = r.string()
		attrs[i].DataType = r.string()
		attrs[i].StringValue = r.string()
		if b := r.string(); len(b) > 0 {
			attrs[i].BinaryValue = []byte(b)
		}
	}
	return attrs
}

// Record versions. A version 1 record, of a store of format 1 or 2, is
// the message alone, its sent time included; its state is in a state
// record of its own or, while it is the state the message was sent in, at
// the record's end (see decodeIndex). A version 2 record, of format 3, is
// the message without its sent time, then its state section and, in a
// last byte, that section's length: in a file store the message's current
// state, which a receive or a visibility change writes by rewriting the
// record, so that a message has one record, written once more for each
// change and deleted once; in memory, which has no restart to survive,
// nothing. The sent time is the index entry's.
const (
	recordVersionSeparate = 1
	recordVersion         = 2
)

// appendMessage renders the immutable part of a message: a record's
// beginning, which appendRecordState ends.
func appendMessage(dst []byte, m *Message) []byte {
	w := recordWriter{b: dst}
	w.uint(recordVersion)
	w.string(m.ID)
	w.string(m.Body)
	w.string(m.MD5OfBody)
	writeAttributes(&w, m.Attributes)
	writeAttributes(&w, m.SystemAttributes)
	w.string(m.SenderID)
	w.string(m.GroupID)
	w.string(m.DeduplicationID)
	w.string(m.SequenceNumber)
	w.string(m.DeadLetterSourceArn)
	return w.b
}

// appendRecordState ends a version 2 record with m's state section, empty
// unless durable, and the section's length. The section is fixed fields,
// which cost next to nothing to write and read: the state and three
// instants, then, once the message has been received, the receive's
// instants, the count and the delivery's token.
func appendRecordState(dst []byte, m *message, durable bool) []byte {
	start := len(dst)
	if durable {
		dst = append(dst, m.state)
		dst = binary.LittleEndian.AppendUint64(dst, uint64(m.sentAt))
		dst = binary.LittleEndian.AppendUint64(dst, uint64(m.visibleAt))
		dst = binary.LittleEndian.AppendUint64(dst, uint64(m.expireAt))
		if m.receiveCount != 0 || m.receivedAt != 0 || m.firstReceiveAt != 0 || m.token != [tokenLen]byte{} {
			dst = binary.LittleEndian.AppendUint64(dst, uint64(m.receivedAt))
			dst = binary.LittleEndian.AppendUint64(dst, uint64(m.firstReceiveAt))
			dst = binary.LittleEndian.AppendUint32(dst, uint32(m.receiveCount))
			dst = append(dst, m.token[:]...)
		}
	}
	return append(dst, byte(len(dst)-start))
}

// The lengths of a state section: of a message never received, and of one
// received.
const (
	sentStateLen     = 1 + 3*8
	receivedStateLen = sentStateLen + 2*8 + 4 + tokenLen
)

// decodeRecordState reads the state section s, which appendRecordState
// wrote, into m.
func decodeRecordState(s string, m *message) error {
	if len(s) != sentStateLen && len(s) != receivedStateLen || s[0] > stateInFlight {
		return errCorruptRecord
	}
	m.state = s[0]
	m.sentAt, m.visibleAt, m.expireAt = int64(le64(s[1:])), int64(le64(s[9:])), int64(le64(s[17:]))
	if len(s) == receivedStateLen {
		m.receivedAt, m.firstReceiveAt = int64(le64(s[25:])), int64(le64(s[33:]))
		m.receiveCount = int32(uint32(s[41]) | uint32(s[42])<<8 | uint32(s[43])<<16 | uint32(s[44])<<24)
		copy(m.token[:], s[45:])
	}
	return nil
}

// le64 reads a little-endian uint64 from the start of s, in one load.
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// messageEnd is where a version 2 record's message ends and its state
// section begins.
func messageEnd(s string) (int, bool) {
	if len(s) < 2 || s[0] != recordVersion {
		return 0, false
	}
	end := len(s) - 1 - int(s[len(s)-1])
	return end, end > 0
}

// decodeMessage reads m's record.
func decodeMessage(m *message) (Message, error) {
	var room []MessageAttribute
	return decodeMessageIn(m, &room, 1)
}

// decodeMessageIn is decodeMessage with the attributes in room, as
// readAttributes takes them, so that the messages of one receive share
// one allocation for them.
func decodeMessageIn(m *message, room *[]MessageAttribute, batch int) (Message, error) {
	r := recordReader{s: m.rec}
	var rec Message
	version := r.uint()
	if version != recordVersion && version != recordVersionSeparate {
		return rec, errCorruptRecord
	}
	rec.ID = r.string()
	rec.Body = r.string()
	rec.MD5OfBody = r.string()
	rec.Attributes = readAttributes(&r, room, batch)
	rec.SystemAttributes = readAttributes(&r, room, batch)
	rec.SenderID = r.string()
	rec.GroupID = r.string()
	rec.DeduplicationID = r.string()
	rec.SequenceNumber = r.string()
	sentAt := m.sentAt
	if version == recordVersionSeparate {
		sentAt = r.int()
	}
	rec.SentAt = time.Unix(0, sentAt)
	rec.DeadLetterSourceArn = r.string()
	return rec, r.err
}

func skipAttributes(r *recordReader) {
	n := r.uint()
	if r.err != nil || n > uint64(len(r.s)) {
		r.err = errCorruptRecord
		return
	}
	for range 4 * n {
		r.string()
	}
}

// decodeIndex reads what loading a message needs of its record, without
// copying any of it: its group id and, when the record holds a state of
// the message, that state into m; has reports whether it did. A version 2
// record of a file store holds the current state, and current reports so;
// a version 1 record may end with the state the message was sent in, which
// its state record, if it has one, replaces.
func decodeIndex(s string, m *message) (group string, has, current bool, err error) {
	r := recordReader{s: s}
	version := r.uint()
	if version != recordVersion && version != recordVersionSeparate {
		return "", false, false, errCorruptRecord
	}
	r.string() // ID
	r.string() // Body
	r.string() // MD5OfBody
	skipAttributes(&r)
	skipAttributes(&r)
	r.string() // SenderID
	group = r.string()
	r.string() // DeduplicationID
	r.string() // SequenceNumber
	if version == recordVersion {
		r.string() // DeadLetterSourceArn
		if r.err != nil || r.s == "" || int(r.s[len(r.s)-1]) != len(r.s)-1 {
			return "", false, false, errCorruptRecord
		}
		if len(r.s) == 1 {
			return group, false, false, nil // written in memory
		}
		if err := decodeRecordState(r.s[:len(r.s)-1], m); err != nil {
			return "", false, false, err
		}
		return group, true, true, nil
	}
	sentAt := r.int()
	r.string() // DeadLetterSourceArn
	if r.err != nil {
		return "", false, false, r.err
	}
	if r.s == "" {
		return group, false, false, nil
	}
	m.sentAt = sentAt
	if delay := r.int(); delay > 0 {
		m.state, m.visibleAt = stateDelayed, sentAt+delay
	} else {
		m.state, m.visibleAt = stateReady, 0
	}
	m.expireAt = sentAt + r.int()
	if r.err == nil && r.s != "" {
		r.err = errCorruptRecord
	}
	return group, r.err == nil, false, r.err
}

// decodeState reads a state record, which stores of formats 1 and 2 have.
func decodeState(s string, m *message) error {
	r := recordReader{s: s}
	if r.uint() != recordVersionSeparate {
		return errCorruptRecord
	}
	m.state = uint8(r.uint())
	m.sentAt = r.int()
	m.visibleAt = r.int()
	m.expireAt = r.int()
	m.receivedAt = r.int()
	m.firstReceiveAt = r.int()
	m.receiveCount = int32(r.uint())
	if tok := r.string(); len(tok) == tokenLen {
		copy(m.token[:], tok)
	} else if r.err == nil {
		return errCorruptRecord
	}
	if r.err == nil && m.state > stateInFlight {
		return errCorruptRecord
	}
	return r.err
}
