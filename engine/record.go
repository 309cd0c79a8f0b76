package engine

import (
	"crypto/md5"
	"encoding/binary"
	"errors"
	"slices"
	"time"
	"unsafe"
)

// Stored records use a small length-prefixed binary form rather than JSON:
// bodies go in as they are, with no escaping, and encoding stays off the
// profile of the send and receive paths.

var errCorruptRecord = errors.New("corrupt record")

// recordWriter appends to a caller's buffer, so that encoding allocates
// only the final string.
type recordWriter struct{ b []byte }

func (w *recordWriter) uint(v uint64) {
	if v < 0x80 { // most lengths
		w.b = append(w.b, byte(v))
		return
	}
	w.b = binary.AppendUvarint(w.b, v)
}
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

func (r *recordReader) string() string { return r.take(r.uint()) }

// take reads the next n bytes.
func (r *recordReader) take(n uint64) string {
	if r.err != nil || n > uint64(len(r.s)) {
		r.err = errCorruptRecord
		return ""
	}
	v := r.s[:n]
	r.s = r.s[n:]
	return v
}

// attributeTypes are the data types a version 2 record writes as a code,
// their index; any other type is written as its length past them, then
// its text.
var attributeTypes = [...]string{"String", "Number", "Binary"}

// writeAttributes writes attributes as a version 2 record holds them.
func writeAttributes(w *recordWriter, attrs []MessageAttribute) {
	w.uint(uint64(len(attrs)))
	for i := range attrs {
		a := &attrs[i]
		w.string(a.Name)
		switch a.DataType {
		case attributeTypes[0]:
			w.uint(0)
		case attributeTypes[1]:
			w.uint(1)
		case attributeTypes[2]:
			w.uint(2)
		default:
			w.uint(uint64(len(attributeTypes) + len(a.DataType)))
			w.b = append(w.b, a.DataType...)
		}
		w.string(a.StringValue)
		w.bytes(a.BinaryValue)
	}
}

// dataType reads what writeAttributes wrote of an attribute's type, or,
// in a version 1 record, its text.
func (r *recordReader) dataType(version uint64) string {
	if version == recordVersionSeparate {
		return r.string()
	}
	n := r.uint()
	if n < uint64(len(attributeTypes)) {
		return attributeTypes[n]
	}
	return r.take(n - uint64(len(attributeTypes)))
}

// readAttributes reads attributes into the spare room of *room, which it
// replaces, when short, by room for those of batch records like this one.
func readAttributes(r *recordReader, version uint64, room *[]MessageAttribute, batch int) []MessageAttribute {
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
		attrs[i].DataType = r.dataType(version)
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
// the message in a compact form without its sent time, which the index
// entry holds, then its state section and, in a last byte, that section's
// length: in a file store the message's current state, which a receive or
// a visibility change writes by rewriting the record, so that a message
// has one record, written once more for each change and deleted once; in
// memory, which has no restart to survive, nothing.
const (
	recordVersionSeparate = 1
	recordVersion         = 2
)

// A version 2 record's second byte is flags: which fields it holds in a
// raw form, rendered as text when read, and which of the fields most
// messages leave empty it holds at all. A message id that its queue made
// (messageIDs) is empty text; another of uuidLen lowercase hex digits and
// dashes takes 16 bytes; a sender of 12 decimal digits, an
// account, takes its value. A message's body MD5 is always its body's, so
// a record holds it as empty text and a read computes it (bodyMD5): 15
// bytes a message less to keep than its raw form, for about 3k
// instructions a delivery of 200 bytes; records written before held it
// raw, with rawMD5, or as text. A 200-byte body's record, with an attribute, from
// the default account, then fits Go's 224-byte size class.
const (
	rawID = 1 << iota
	rawMD5
	numericSender
	hasSystemAttributes
	hasGroup
	hasDeduplication
	hasSequenceNumber
	hasSource
)

// Lengths of the fields a version 2 record may hold raw, as text.
const (
	md5TextLen    = 32
	senderTextLen = 12
	// recordTextLen bounds the text of one record's raw fields.
	recordTextLen = uuidLen + md5TextLen + senderTextLen
)

// rawFields are a message's id and sender in the raw form a version 2
// record holds them, where hasID and numericSender say they are; or, with
// seqID, an id that its queue's messageIDs make, which the record holds as
// empty text.
type rawFields struct {
	id                          [16]byte
	sender                      uint64
	hasID, numericSender, seqID bool
}

// parseRaw reads the raw form of m's fields.
func parseRaw(m *Message) rawFields {
	var raw rawFields
	raw.hasID = parseUUID(&raw.id, m.ID)
	raw.sender, raw.numericSender = parseDigits(m.SenderID)
	return raw
}

// bodyMD5 is the MD5 of a message's body, which its record leaves out.
func bodyMD5(body string) [16]byte {
	return md5.Sum(unsafe.Slice(unsafe.StringData(body), len(body))) // read, never written
}

// appendMessage renders a message as the beginning of a version 2 record,
// which appendRecordState ends.
func appendMessage(dst []byte, m *Message) []byte { return appendMessageRaw(dst, m, nil) }

// appendMessageRaw is appendMessage for a message whose id and sender,
// where raw has them, are raw's: m's text of those is not read, nor is its
// MD5. A new message's id is raw to begin with, and its sender most often
// its batch's. A nil raw is parseRaw(m).
func appendMessageRaw(dst []byte, m *Message, raw *rawFields) []byte {
	if raw == nil {
		r := parseRaw(m)
		raw = &r
	}
	w := recordWriter{b: append(dst, recordVersion, 0)}
	at := len(w.b) - 1 // where the flags go
	var flags byte
	switch {
	case raw.seqID:
		w.string("")
	case raw.hasID:
		flags |= rawID
		w.b = append(w.b, raw.id[:]...)
	default:
		w.string(m.ID)
	}
	w.string("") // the MD5, which a read computes
	w.string(m.Body)
	writeAttributes(&w, m.Attributes)
	if len(m.SystemAttributes) > 0 {
		flags |= hasSystemAttributes
		writeAttributes(&w, m.SystemAttributes)
	}
	if raw.numericSender {
		flags |= numericSender
		w.uint(raw.sender)
	} else {
		w.string(m.SenderID)
	}
	flags |= w.optional(hasGroup, m.GroupID) | w.optional(hasDeduplication, m.DeduplicationID) |
		w.optional(hasSequenceNumber, m.SequenceNumber) | w.optional(hasSource, m.DeadLetterSourceArn)
	w.b[at] = flags
	return w.b
}

// optional writes v, a field most messages leave empty, unless it is, and
// returns the flag that says a record holds it then.
func (w *recordWriter) optional(flag byte, v string) byte {
	if v == "" {
		return 0
	}
	w.string(v)
	return flag
}

// parseUUID decodes s into dst when it is a UUID in the form putID
// writes: 8-4-4-4-12 lowercase hex digits.
func parseUUID(dst *[16]byte, s string) bool {
	if len(s) != uuidLen || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return false
	}
	return hex8(dst[0:4], le64(s[0:])) && hex8(dst[4:8], uint64(le32(s[9:]))|uint64(le32(s[14:]))<<32) &&
		hex8(dst[8:12], uint64(le32(s[19:]))|uint64(le32(s[24:]))<<32) && hex8(dst[12:16], le64(s[28:]))
}

// Bytes of a word, for hex8.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// hex8 decodes x, 8 lowercase hex digits read little-endian, into dst's 4
// bytes, a byte of the word at a time, and reports whether they were such
// digits.
func hex8(dst []byte, x uint64) bool {
	// With no byte's high bit set, adding 0x80-c to each byte sets its
	// high bit just when the byte is at least c, with no carry between
	// bytes.
	digit := (x + ones*(0x80-'0')) &^ (x + ones*(0x80-'9'-1))
	lower := (x + ones*(0x80-'a')) &^ (x + ones*(0x80-'f'-1))
	if x&highs != 0 || (digit|lower)&highs != highs {
		return false
	}
	// A digit's value is its low 4 bits, a letter's those plus 9: letters
	// alone have bit 6 set.
	n := x&(ones*0xf) + (x>>6&ones)*9
	// Pack each pair of nibbles into a byte, then the bytes together.
	n = (n<<4 | n>>8) & 0x00ff00ff00ff00ff
	n = (n | n>>8) & 0x0000ffff0000ffff
	n = n | n>>16
	binary.LittleEndian.PutUint32(dst, uint32(n))
	return true
}

// rawBytes are the forms of raw fields: a record's text, or a new
// message's bytes.
type rawBytes interface{ ~string | ~[]byte }

// le32 reads a little-endian uint32 from the start of s.
func le32[B rawBytes](s B) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// parseDigits reads s when it is senderTextLen decimal digits.
func parseDigits(s string) (uint64, bool) {
	if len(s) != senderTextLen {
		return 0, false
	}
	var n uint64
	for i := range len(s) {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// hexPairs holds the two lowercase hex digits of each byte value, the
// first in the low byte, as a little-endian store writes them in order.
// A lookup per byte costs less than half of what spreading each byte's
// nibbles apart with word arithmetic does.
var hexPairs = func() (t [256]uint16) {
	const digits = "0123456789abcdef"
	for i := range t {
		t[i] = uint16(digits[i>>4]) | uint16(digits[i&0xf])<<8
	}
	return t
}()

// putHex4 writes the 8 hex digits of b's first 4 bytes to dst.
func putHex4[B rawBytes](dst []byte, b B) {
	_ = b[3]
	binary.LittleEndian.PutUint64(dst, uint64(hexPairs[b[0]])|uint64(hexPairs[b[1]])<<16|
		uint64(hexPairs[b[2]])<<32|uint64(hexPairs[b[3]])<<48)
}

// putHex2 writes the 4 hex digits of b's first 2 bytes to dst.
func putHex2[B rawBytes](dst []byte, b B) {
	_ = b[1]
	binary.LittleEndian.PutUint32(dst, uint32(hexPairs[b[0]])|uint32(hexPairs[b[1]])<<16)
}

// appendHex16 renders 16 raw bytes as lowercase hex digits.
func appendHex16[B rawBytes](dst []byte, b B) []byte {
	n := len(dst)
	dst = slices.Grow(dst, 32)[:n+32]
	t := dst[n:]
	_, _ = b[15], t[31]
	putHex4(t[0:], b[0:])
	putHex4(t[8:], b[4:])
	putHex4(t[16:], b[8:])
	putHex4(t[24:], b[12:])
	return dst
}

// appendUUID renders a raw UUID of 16 bytes as putID writes it.
func appendUUID[B rawBytes](dst []byte, b B) []byte {
	n := len(dst)
	dst = slices.Grow(dst, uuidLen)[:n+uuidLen]
	t := dst[n:]
	_, _ = b[15], t[uuidLen-1]
	putHex4(t[0:], b[0:])
	t[8] = '-'
	putHex2(t[9:], b[4:])
	t[13] = '-'
	putHex2(t[14:], b[6:])
	t[18] = '-'
	putHex2(t[19:], b[8:])
	t[23] = '-'
	putHex2(t[24:], b[10:])
	putHex4(t[28:], b[12:])
	return dst
}

// appendDigits renders n, below 10^12, as senderTextLen decimal digits.
func appendDigits(dst []byte, n uint64) []byte {
	var b [senderTextLen]byte
	for i := senderTextLen - 2; i >= 0; i -= 2 {
		pair := n % 100
		n /= 100
		b[i], b[i+1] = byte('0'+pair/10), byte('0'+pair%10)
	}
	return append(dst, b[:]...)
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
		if r := m.recv; r != nil {
			dst = binary.LittleEndian.AppendUint64(dst, uint64(r.receivedAt))
			dst = binary.LittleEndian.AppendUint64(dst, uint64(r.firstReceiveAt))
			dst = binary.LittleEndian.AppendUint32(dst, uint32(r.receiveCount))
			dst = append(dst, r.token[:]...)
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
	m.recv = nil
	if len(s) == receivedStateLen {
		r := &receipt{receivedAt: int64(le64(s[25:])), firstReceiveAt: int64(le64(s[33:])), receiveCount: int32(le32(s[41:]))}
		copy(r.token[:], s[45:])
		m.recv = r
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

// rawText is what a version 2 record holds of a message in a raw form,
// which a delivery renders as text: the raw id, read from the record or
// made by its queue's messageIDs (hasID), unless the record holds it as
// text; the body's MD5, read raw from a record written before
// (hasMD5), or computed from the body, md5Of, when the record leaves it
// out (deriveMD5); and the sender's number.
type rawText struct {
	id            [16]byte
	hasID         bool
	md5           [16]byte
	hasMD5        bool
	md5Of         string
	deriveMD5     bool
	sender        uint64
	numericSender bool
	spans         [3][2]int // where appendTo put each field's text
}

// appendTo renders the fields to text, noting where. A sender that prev,
// rendered to the same text, shares is not rendered again: the messages
// of a batch most often have one.
func (t *rawText) appendTo(text []byte, prev *rawText) []byte {
	if t.hasID {
		t.spans[0][0] = len(text)
		text = appendUUID(text, t.id[:])
		t.spans[0][1] = len(text)
	}
	if t.deriveMD5 {
		t.md5, t.hasMD5 = bodyMD5(t.md5Of), true
	}
	if t.hasMD5 {
		t.spans[1][0] = len(text)
		text = appendHex16(text, t.md5[:])
		t.spans[1][1] = len(text)
	}
	if t.numericSender {
		if prev != nil && prev.numericSender && prev.sender == t.sender {
			t.spans[2] = prev.spans[2]
		} else {
			t.spans[2][0] = len(text)
			text = appendDigits(text, t.sender)
			t.spans[2][1] = len(text)
		}
	}
	return text
}

// fill gives rec the fields' text, from whole, the text appendTo appended
// to.
func (t *rawText) fill(rec *Message, whole string) {
	if sp := t.spans[0]; sp[1] > 0 {
		rec.ID = whole[sp[0]:sp[1]]
	}
	if sp := t.spans[1]; sp[1] > 0 {
		rec.MD5OfBody = whole[sp[0]:sp[1]]
	}
	if sp := t.spans[2]; sp[1] > 0 {
		rec.SenderID = whole[sp[0]:sp[1]]
	}
}

// decodeMessage reads m's record, a message of the queue whose ids are ids.
func decodeMessage(m *message, ids messageIDs) (Message, error) {
	return decodeMessageMD5(m, ids, true)
}

// decodeMessageContent reads m's record but for the MD5 of its body, for
// a reader that looks at the message rather than deliver it: MD5OfBody is
// "" unless the record, written before records left it out, holds it.
func decodeMessageContent(m *message, ids messageIDs) (Message, error) {
	return decodeMessageMD5(m, ids, false)
}

// decodeMessageMD5 is decodeMessage, or with withMD5 false
// decodeMessageContent.
func decodeMessageMD5(m *message, ids messageIDs, withMD5 bool) (Message, error) {
	var room []MessageAttribute
	var rec Message
	var raw rawText
	err := decodeMessageIn(m, ids, &rec, &raw, &room, 1)
	raw.deriveMD5 = raw.deriveMD5 && withMD5
	raw.fill(&rec, string(raw.appendTo(nil, nil)))
	return rec, err
}

// decodeMessageIn is decodeMessage into rec, which must be zero, with the
// attributes in room, as readAttributes takes them, so that the messages
// of one receive share one allocation for them; the fields the record
// holds raw go to raw, for the caller to render, so that a receive renders
// them all to one text.
func decodeMessageIn(m *message, ids messageIDs, rec *Message, raw *rawText, room *[]MessageAttribute, batch int) error {
	r := recordReader{s: m.record()}
	version := r.uint()
	if version == recordVersionSeparate {
		decodeMessageV1(&r, rec, room, batch)
		return r.err
	}
	if version != recordVersion || r.s == "" {
		return errCorruptRecord
	}
	flags := r.s[0]
	r.s = r.s[1:]
	switch {
	case flags&rawID != 0:
		raw.hasID = copy(raw.id[:], r.raw(16)) == len(raw.id)
	default:
		if rec.ID = r.string(); rec.ID == "" && r.err == nil && ids.block != nil {
			raw.id, raw.hasID = ids.of(m.seq, m.sentAt), true
		}
	}
	if flags&rawMD5 != 0 {
		raw.hasMD5 = copy(raw.md5[:], r.raw(16)) == len(raw.md5)
	} else {
		rec.MD5OfBody = r.string()
	}
	rec.Body = r.string()
	if flags&rawMD5 == 0 && rec.MD5OfBody == "" && r.err == nil {
		raw.md5Of, raw.deriveMD5 = rec.Body, true
	}
	rec.Attributes = readAttributes(&r, version, room, batch)
	if flags&hasSystemAttributes != 0 {
		rec.SystemAttributes = readAttributes(&r, version, room, batch)
	}
	if flags&numericSender != 0 {
		raw.sender, raw.numericSender = r.uint(), r.err == nil
	} else {
		rec.SenderID = r.string()
	}
	rec.GroupID = r.optional(flags, hasGroup)
	rec.DeduplicationID = r.optional(flags, hasDeduplication)
	rec.SequenceNumber = r.optional(flags, hasSequenceNumber)
	rec.DeadLetterSourceArn = r.optional(flags, hasSource)
	rec.SentAt = time.Unix(0, m.sentAt)
	return r.err
}

// decodeMessageV1 reads the rest of a version 1 record into rec.
func decodeMessageV1(r *recordReader, rec *Message, room *[]MessageAttribute, batch int) {
	rec.ID = r.string()
	rec.Body = r.string()
	rec.MD5OfBody = r.string()
	rec.Attributes = readAttributes(r, recordVersionSeparate, room, batch)
	rec.SystemAttributes = readAttributes(r, recordVersionSeparate, room, batch)
	rec.SenderID = r.string()
	rec.GroupID = r.string()
	rec.DeduplicationID = r.string()
	rec.SequenceNumber = r.string()
	rec.SentAt = time.Unix(0, r.int())
	rec.DeadLetterSourceArn = r.string()
}

// raw reads n bytes.
func (r *recordReader) raw(n int) string {
	if len(r.s) < n {
		r.err = errCorruptRecord
		return ""
	}
	v := r.s[:n]
	r.s = r.s[n:]
	return v
}

// optional reads a string a version 2 record holds when flags has flag.
func (r *recordReader) optional(flags, flag byte) string {
	if flags&flag == 0 {
		return ""
	}
	return r.string()
}

func skipAttributes(r *recordReader, version uint64) {
	n := r.uint()
	if r.err != nil || n > uint64(len(r.s)) {
		r.err = errCorruptRecord
		return
	}
	for range n {
		r.string()
		r.dataType(version)
		r.string()
		r.string()
	}
}

// recordHasID reports whether m, a message of the queue whose ids are ids,
// has the id id.
func recordHasID(m *message, ids messageIDs, id string) bool {
	r := recordReader{s: m.record()}
	switch r.uint() {
	case recordVersionSeparate:
		return r.string() == id
	case recordVersion:
		if r.s == "" {
			return false
		}
		flags := r.s[0]
		r.s = r.s[1:]
		var raw [16]byte
		switch {
		case flags&rawID != 0:
			return parseUUID(&raw, id) && r.raw(16) == string(raw[:])
		case ids.block != nil:
			if text := r.string(); text != "" || r.err != nil {
				return text == id
			}
			return parseUUID(&raw, id) && raw == ids.of(m.seq, m.sentAt)
		}
		return r.string() == id
	}
	return false
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
	if version == recordVersionSeparate {
		return decodeIndexV1(&r, m)
	}
	if version != recordVersion || r.s == "" {
		return "", false, false, errCorruptRecord
	}
	flags := r.s[0]
	r.s = r.s[1:]
	for _, raw := range [...]byte{rawID, rawMD5} {
		if flags&raw != 0 {
			r.raw(16)
		} else {
			r.string()
		}
	}
	r.string() // Body
	skipAttributes(&r, version)
	if flags&hasSystemAttributes != 0 {
		skipAttributes(&r, version)
	}
	if flags&numericSender != 0 {
		r.uint()
	} else {
		r.string()
	}
	group = r.optional(flags, hasGroup)
	r.optional(flags, hasDeduplication)
	r.optional(flags, hasSequenceNumber)
	r.optional(flags, hasSource)
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

// decodeIndexV1 is decodeIndex for the rest of a version 1 record.
func decodeIndexV1(r *recordReader, m *message) (group string, has, current bool, err error) {
	r.string() // ID
	r.string() // Body
	r.string() // MD5OfBody
	skipAttributes(r, recordVersionSeparate)
	skipAttributes(r, recordVersionSeparate)
	r.string() // SenderID
	group = r.string()
	r.string() // DeduplicationID
	r.string() // SequenceNumber
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
	var rc receipt
	rc.receivedAt = r.int()
	rc.firstReceiveAt = r.int()
	rc.receiveCount = int32(r.uint())
	if tok := r.string(); len(tok) == tokenLen {
		copy(rc.token[:], tok)
	} else if r.err == nil {
		return errCorruptRecord
	}
	m.recv = nil
	if rc != (receipt{}) {
		kept := rc // a copy, so that a message never received takes no allocation
		m.recv = &kept
	}
	if r.err == nil && m.state > stateInFlight {
		return errCorruptRecord
	}
	return r.err
}
