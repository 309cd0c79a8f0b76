package engine

import (
	"encoding/binary"
	"errors"
	"time"
)

// Stored records use a small length-prefixed binary form rather than JSON:
// bodies go in as they are, with no escaping, and encoding stays off the
// profile of the send and receive paths.

const recordVersion = 1

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

// appendMessage renders the immutable part of a message.
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
	w.int(m.SentAt.UnixNano())
	w.string(m.DeadLetterSourceArn)
	return w.b
}

// A message's state has a record of its own only once it is not the state
// the message was sent in: a message sent to a store file that has never
// been received needs one record, not two, and the file and its loading
// are the smaller for it. Its message record then ends with what its
// state record would hold: the delay it was sent with (0 for none) and
// when it expires, both from SentAt. Records without that ending, those
// of a store in memory or written before it, have a state record beside
// them instead.

// sentState reports whether m is in the state a message is sent in, which
// appendSentState can write at the end of rec's record.
func sentState(m *message, rec *Message) bool {
	sent := m.state == stateReady && m.visibleAt == 0 || m.state == stateDelayed && m.visibleAt > m.sentAt
	return sent && m.receiveCount == 0 && m.receivedAt == 0 && m.firstReceiveAt == 0 &&
		m.token == [tokenLen]byte{} && m.sentAt == rec.SentAt.UnixNano()
}

// appendSentState ends a message record with m's state, which sentState
// accepts.
func appendSentState(dst []byte, m *message) []byte {
	w := recordWriter{b: dst}
	var delay int64
	if m.state == stateDelayed {
		delay = m.visibleAt - m.sentAt
	}
	w.int(delay)
	w.int(m.expireAt - m.sentAt)
	return w.b
}

func decodeMessage(s string) (Message, error) {
	var room []MessageAttribute
	return decodeMessageIn(s, &room, 1)
}

// decodeMessageIn is decodeMessage with the attributes in room, as
// readAttributes takes them, so that the messages of one receive share
// one allocation for them.
func decodeMessageIn(s string, room *[]MessageAttribute, batch int) (Message, error) {
	r := recordReader{s: s}
	var m Message
	if r.uint() != recordVersion {
		return m, errCorruptRecord
	}
	m.ID = r.string()
	m.Body = r.string()
	m.MD5OfBody = r.string()
	m.Attributes = readAttributes(&r, room, batch)
	m.SystemAttributes = readAttributes(&r, room, batch)
	m.SenderID = r.string()
	m.GroupID = r.string()
	m.DeduplicationID = r.string()
	m.SequenceNumber = r.string()
	m.SentAt = time.Unix(0, r.int())
	m.DeadLetterSourceArn = r.string()
	return m, r.err
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
// copying any of it: its group id and, when the record ends with its sent
// state, that state into m. sent reports whether it did.
func decodeIndex(s string, m *message) (group string, sent bool, err error) {
	r := recordReader{s: s}
	if r.uint() != recordVersion {
		return "", false, errCorruptRecord
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
	sentAt := r.int()
	r.string() // DeadLetterSourceArn
	if r.err != nil {
		return "", false, r.err
	}
	if r.s == "" {
		return group, false, nil
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
	return group, r.err == nil, r.err
}

// appendState renders the mutable part of a message: what a receive, a
// visibility change or a lease's end changes.
func appendState(dst []byte, m *message) []byte {
	w := recordWriter{b: dst}
	w.uint(recordVersion)
	w.uint(uint64(m.state))
	w.int(m.sentAt)
	w.int(m.visibleAt)
	w.int(m.expireAt)
	w.int(m.receivedAt)
	w.int(m.firstReceiveAt)
	w.uint(uint64(m.receiveCount))
	w.bytes(m.token[:])
	return w.b
}

func decodeState(s string, m *message) error {
	r := recordReader{s: s}
	if r.uint() != recordVersion {
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
