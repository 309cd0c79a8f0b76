package sqs

// The JSON protocol's hot path: the inputs of the message actions decoded,
// and their results encoded, in one pass over the bytes and without
// reflection. encoding/json remains the definition: a body the decoder
// does not take in its stride goes to encoding/json afresh, and the
// encoders write what encoding/json writes, byte for byte
// (jsonfast_test.go holds them to both).

import (
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/minisqs/minisqs/internal/wordscan"
)

// maxFastDepth bounds the nesting the decoder follows in members it skips;
// deeper bodies go to encoding/json, which has its own limit.
const maxFastDepth = 100

// decodeJSONFast decodes s, a body, into in when in is the input of a message
// action: SendMessage(Batch), ReceiveMessage, DeleteMessage(Batch) or
// ChangeMessageVisibility(Batch). It reports false, leaving in in any
// state, for any other input and for any body it does not decode exactly
// as encoding/json would: a syntax error, a value of another type, a
// member named twice or with other than ASCII letters, invalid UTF-8, a
// number that is not a plain integer. The caller then decodes the body
// with encoding/json into a fresh input, for its result or its error.
//
// Strings share the memory of s, except the queue URL and the FIFO ids,
// which outlive the request (in the request journal, metrics, message
// groups and deduplication windows) and get their own. The maps of message
// attributes are made afresh when lent is nil, else borrowed from lent.
func decodeJSONFast(s string, in any, lent *lentMaps) bool {
	d := jsonIn{s: s, lent: lent}
	switch in.(type) {
	case *SendMessageInput, *SendMessageBatchInput, *ReceiveMessageInput, *DeleteMessageInput,
		*DeleteMessageBatchInput, *ChangeMessageVisibilityInput, *ChangeMessageVisibilityBatchInput:
	default:
		return false
	}
	if d.null() {
		d.ws()
		return d.i == len(d.s)
	}
	var ok bool
	switch in := in.(type) {
	case *SendMessageInput:
		ok = d.sendMessage(in)
	case *SendMessageBatchInput:
		ok = d.sendMessageBatch(in)
	case *ReceiveMessageInput:
		ok = d.receiveMessage(in)
	case *DeleteMessageInput:
		ok = d.deleteMessage(in)
	case *DeleteMessageBatchInput:
		ok = d.deleteMessageBatch(in)
	case *ChangeMessageVisibilityInput:
		ok = d.changeVisibility(in)
	case *ChangeMessageVisibilityBatchInput:
		ok = d.changeVisibilityBatch(in)
	}
	if !ok {
		return false
	}
	d.ws()
	return d.i == len(d.s)
}

// jsonIn reads JSON from s at i. Its methods report false, with i anywhere,
// on anything the fast path leaves to encoding/json.
type jsonIn struct {
	s       string
	i       int
	scratch []byte // unescaped strings are built here
	strs    []string
	ints    []int
	lent    *lentMaps // nil: attribute maps are made afresh
}

// lentMaps lends the fast decoder maps of message attributes for one
// request, and keeps them, emptied, for the next (it comes with a pooled
// buffer): the action copies what it needs out of them, and a map of even
// one attribute is an allocation of hundreds of bytes, for every message
// sent. Its length is the maps lent; emptied ones wait beyond it.
type lentMaps []map[string]MessageAttributeValue

// borrow lends a map, empty.
func (l *lentMaps) borrow() map[string]MessageAttributeValue {
	n := len(*l)
	if n < cap(*l) {
		*l = (*l)[:n+1]
		if m := (*l)[n]; m != nil {
			return m
		}
	} else {
		*l = append(*l, nil)
	}
	m := map[string]MessageAttributeValue{}
	(*l)[n] = m
	return m
}

// release takes back and empties every map lent. Nothing may use them
// afterwards.
func (l *lentMaps) release() {
	for _, m := range *l {
		clear(m)
	}
	*l = (*l)[:0]
}

func (d *jsonIn) ws() {
	if d.i < len(d.s) && d.s[d.i] > ' ' {
		return // the usual case: SDKs send JSON without white space
	}
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek is the next byte after white space, or 0 at the end.
func (d *jsonIn) peek() byte {
	d.ws()
	if d.i < len(d.s) {
		return d.s[d.i]
	}
	return 0
}

// literal consumes word if it comes next.
func (d *jsonIn) literal(word string) bool {
	if len(d.s)-d.i >= len(word) && d.s[d.i:d.i+len(word)] == word {
		d.i += len(word)
		return true
	}
	return false
}

// null consumes a null if one comes next.
func (d *jsonIn) null() bool { return d.peek() == 'n' && d.literal("null") }

// object reads an object, calling member with each key once the reader is
// at its value; member reads or skips the value.
func (d *jsonIn) object(member func(key string) bool) bool {
	if d.peek() != '{' {
		return false
	}
	d.i++
	if d.peek() == '}' {
		d.i++
		return true
	}
	for {
		if d.peek() != '"' {
			return false
		}
		key, ok := d.str()
		if !ok || d.peek() != ':' {
			return false
		}
		d.i++
		if !member(key) {
			return false
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return true
		default:
			return false
		}
	}
}

// array reads an array, calling elem at each element, and reports how many
// there were.
func (d *jsonIn) array(elem func() bool) (int, bool) {
	if d.peek() != '[' {
		return 0, false
	}
	d.i++
	if d.peek() == ']' {
		d.i++
		return 0, true
	}
	for n := 1; ; n++ {
		if !elem() {
			return 0, false
		}
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return n, true
		default:
			return 0, false
		}
	}
}

// str reads a string. One without escapes is a slice of s.
func (d *jsonIn) str() (string, bool) {
	d.i++ // the opening quote
	start := d.i
	// One pass over the string: most are ASCII without escapes, which
	// plainRun crosses to the closing quote eight bytes at a time.
	for {
		d.i = plainRun(d.s, d.i, false)
		if d.i == len(d.s) {
			return "", false
		}
		switch c := d.s[d.i]; {
		case c == '"':
			d.i++
			return d.s[start : d.i-1], true
		case c == '\\':
			return d.unescape(start)
		case c < ' ':
			return "", false
		default:
			r, size := utf8.DecodeRuneInString(d.s[d.i:])
			if r == utf8.RuneError && size == 1 {
				return "", false // encoding/json would put U+FFFD in its place
			}
			d.i += size
		}
	}
}

// plainRun returns the index of the first byte of s from i on that a JSON
// string does not carry as it is, or len(s): a quote, a backslash, a
// control character or a byte of a non-ASCII character, and with html set
// also <, > and &, which json.Marshal escapes.
func plainRun(s string, i int, html bool) int {
	// The tests run on each word with every top bit clear, so that they are
	// exact for each byte; a byte whose top bit was set is a non-ASCII one,
	// and stops the run too. A loop for each case keeps the flag's test
	// out of them.
	if html {
		for ; i+8 <= len(s); i += 8 {
			if stop := jsonStops(wordscan.Word(s[i : i+8])); stop != 0 {
				return i + bits.TrailingZeros64(stop)/8
			}
		}
	} else {
		for ; i+8 <= len(s); i += 8 {
			w := wordscan.Word(s[i : i+8])
			a := w &^ wordscan.Highs
			m := wordscan.NotBelow(a, ' ') & wordscan.NotByte(a, '\\') & wordscan.NotByte(a, '"')
			if stop := (^m | w) & wordscan.Highs; stop != 0 {
				return i + bits.TrailingZeros64(stop)/8
			}
		}
	}
	for ; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\\' || c < ' ' || c >= utf8.RuneSelf || html && (c == '<' || c == '>' || c == '&') {
			break
		}
	}
	return i
}

// unescape reads the rest of a string that has escapes, from start, with
// d.i at its first backslash.
func (d *jsonIn) unescape(start int) (string, bool) {
	b := append(d.scratch[:0], d.s[start:d.i]...)
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			d.scratch = b
			return string(b), true
		case c == '\\':
			if d.i+1 >= len(d.s) {
				return "", false
			}
			d.i += 2
			switch e := d.s[d.i-1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return "", false
				}
				if utf8.ValidRune(r) {
					b = utf8.AppendRune(b, r)
					break
				}
				// A surrogate: only a high one followed by a low one
				// makes a character; encoding/json writes U+FFFD for
				// any other, which is left to it.
				if r >= 0xdc00 || !d.literal(`\u`) {
					return "", false
				}
				lo, ok := d.hex4()
				if !ok || lo < 0xdc00 || lo > 0xdfff {
					return "", false
				}
				b = utf8.AppendRune(b, 0x10000+(r-0xd800)<<10+(lo-0xdc00))
			default:
				return "", false
			}
		case c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			b = append(b, c)
			d.i++
		default:
			r, size := utf8.DecodeRuneInString(d.s[d.i:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			b = append(b, d.s[d.i:d.i+size]...)
			d.i += size
		}
	}
	return "", false
}

// hex4 reads the four hex digits of a \u escape.
func (d *jsonIn) hex4() (rune, bool) {
	if len(d.s)-d.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(d.s[d.i : d.i+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.i += 4
	return r, true
}

// skip reads and discards any value, checking its syntax.
func (d *jsonIn) skip() bool { return d.skipDepth(0) }

func (d *jsonIn) skipDepth(depth int) bool {
	if depth > maxFastDepth {
		return false
	}
	switch c := d.peek(); {
	case c == '"':
		_, ok := d.str()
		return ok
	case c == '{':
		return d.object(func(string) bool { return d.skipDepth(depth + 1) })
	case c == '[':
		_, ok := d.array(func() bool { return d.skipDepth(depth + 1) })
		return ok
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return false
}

// number reads a number as JSON's grammar has it.
func (d *jsonIn) number() bool {
	if d.i < len(d.s) && d.s[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.s) && d.s[d.i] == '0':
		d.i++
	case d.digits() == 0:
		return false
	}
	if d.i < len(d.s) && d.s[d.i] == '.' {
		d.i++
		if d.digits() == 0 {
			return false
		}
	}
	if d.i < len(d.s) && (d.s[d.i] == 'e' || d.s[d.i] == 'E') {
		d.i++
		if d.i < len(d.s) && (d.s[d.i] == '+' || d.s[d.i] == '-') {
			d.i++
		}
		if d.digits() == 0 {
			return false
		}
	}
	return true
}

func (d *jsonIn) digits() int {
	start := d.i
	for d.i < len(d.s) && d.s[d.i] >= '0' && d.s[d.i] <= '9' {
		d.i++
	}
	return d.i - start
}

// member returns the index of the name in names that key matches as
// encoding/json matches a member to a field, case-insensitively, or -1. A
// key that matches none and is not all ASCII could match one under Unicode
// case folding, and is refused for encoding/json to judge.
func member(key string, names []string) (int, bool) {
	for i, name := range names {
		if len(name) == len(key) && (name == key || equalFoldASCII(key, name)) {
			return i, true
		}
	}
	for i := 0; i < len(key); i++ {
		if key[i] >= utf8.RuneSelf {
			return -1, false
		}
	}
	return -1, true
}

func equalFoldASCII(a, b string) bool {
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// members reads an object whose fields are names, calling field with the
// index of each one present and skipping members that match none. A field
// named twice is refused: encoding/json merges a repeated object or array
// into the first, which the fast path does not do.
func (d *jsonIn) members(names []string, field func(i int) bool) bool {
	var seen uint64
	return d.object(func(key string) bool {
		i, ok := member(key, names)
		switch {
		case !ok:
			return false
		case i < 0:
			return d.skip()
		case seen&(1<<i) != 0:
			return false
		}
		seen |= 1 << i
		return field(i)
	})
}

// text reads a string member; null leaves it as it is. own gives the string
// memory of its own rather than a share of the body's.
func (d *jsonIn) text(p *string, own bool) bool {
	switch d.peek() {
	case 'n':
		return d.literal("null")
	case '"':
		v, ok := d.str()
		if own {
			v = strings.Clone(v)
		}
		*p = v
		return ok
	}
	return false
}

// ownTextPtr reads a *string member into memory of its own, for ids that
// outlive the request; null makes it nil.
func (d *jsonIn) ownTextPtr(p **string) bool {
	if d.peek() == 'n' {
		*p = nil
		return d.literal("null")
	}
	var v string
	if !d.text(&v, true) {
		return false
	}
	*p = &v
	return true
}

// textPtr reads a *string member; null makes it nil.
func (d *jsonIn) textPtr(p **string) bool {
	switch d.peek() {
	case 'n':
		*p = nil
		return d.literal("null")
	case '"':
		v, ok := d.str()
		if len(d.strs) == cap(d.strs) {
			d.strs = make([]string, 0, 10) // one allocation for a batch's bodies
		}
		d.strs = append(d.strs, v)
		*p = &d.strs[len(d.strs)-1]
		return ok
	}
	return false
}

// intPtr reads an *int member: a plain integer in int's range, or null.
func (d *jsonIn) intPtr(p **int) bool {
	c := d.peek()
	if c == 'n' {
		*p = nil
		return d.literal("null")
	}
	if c != '-' && (c < '0' || c > '9') {
		return false
	}
	start := d.i
	if !d.number() {
		return false
	}
	n, err := strconv.ParseInt(d.s[start:d.i], 10, strconv.IntSize)
	if err != nil { // a fraction, an exponent, or out of range
		return false
	}
	if len(d.ints) == cap(d.ints) {
		d.ints = make([]int, 0, 10)
	}
	d.ints = append(d.ints, int(n))
	*p = &d.ints[len(d.ints)-1]
	return true
}

// texts reads a []string member: null makes it nil, [] empty, and a null
// element is "".
func (d *jsonIn) texts(p *[]string) bool {
	if d.null() {
		*p = nil
		return true
	}
	var out []string
	n, ok := d.array(func() bool {
		var v string
		if !d.text(&v, false) {
			return false
		}
		out = append(out, v)
		return true
	})
	if ok && n == 0 {
		out = []string{}
	}
	*p = out
	return ok
}

var messageAttributeValueNames = []string{"StringValue", "BinaryValue", "DataType"}

// attributes reads a map of message attributes; null makes it nil.
func (d *jsonIn) attributes(p *map[string]MessageAttributeValue) bool {
	if d.null() {
		*p = nil
		return true
	}
	var m map[string]MessageAttributeValue
	if d.lent != nil {
		m = d.lent.borrow()
	} else {
		m = map[string]MessageAttributeValue{}
	}
	*p = m
	return d.object(func(key string) bool {
		var v MessageAttributeValue
		if !d.null() && !d.members(messageAttributeValueNames, func(i int) bool {
			switch i {
			case 0:
				return d.text(&v.StringValue, false)
			case 1:
				return d.binary(&v.BinaryValue)
			}
			return d.text(&v.DataType, false)
		}) {
			return false
		}
		m[key] = v
		return true
	})
}

// binary reads a blob member, base64 in a string, as encoding/json reads a
// TextUnmarshaler; null makes it nil.
func (d *jsonIn) binary(p *blob) bool {
	switch d.peek() {
	case 'n':
		*p = nil
		return d.literal("null")
	case '"':
		v, ok := d.str()
		return ok && p.UnmarshalText([]byte(v)) == nil
	}
	return false
}

// entries reads an array of objects with fields, calling field with the
// element's index and the field's; null makes it nil, [] empty, and a null
// element is the zero entry.
func entries[E any](d *jsonIn, p *[]E, names []string, field func(e *E, i int) bool) bool {
	if d.null() {
		*p = nil
		return true
	}
	out := make([]E, 0, 10)
	_, ok := d.array(func() bool {
		out = append(out, *new(E))
		if d.null() {
			return true
		}
		e := &out[len(out)-1]
		return d.members(names, func(i int) bool { return field(e, i) })
	})
	*p = out
	return ok
}

// The inputs' member names, in the order of their fields.
var (
	sendMessageNames      = []string{"QueueUrl", "MessageBody", "DelaySeconds", "MessageAttributes", "MessageSystemAttributes", "MessageDeduplicationId", "MessageGroupId"}
	sendBatchEntryNames   = []string{"Id", "MessageBody", "DelaySeconds", "MessageAttributes", "MessageSystemAttributes", "MessageDeduplicationId", "MessageGroupId"}
	batchNames            = []string{"QueueUrl", "Entries"}
	receiveMessageNames   = []string{"QueueUrl", "AttributeNames", "MessageSystemAttributeNames", "MessageAttributeNames", "MaxNumberOfMessages", "VisibilityTimeout", "WaitTimeSeconds", "ReceiveRequestAttemptId"}
	deleteMessageNames    = []string{"QueueUrl", "ReceiptHandle"}
	deleteEntryNames      = []string{"Id", "ReceiptHandle"}
	changeVisibilityNames = []string{"QueueUrl", "ReceiptHandle", "VisibilityTimeout"}
	changeEntryNames      = []string{"Id", "ReceiptHandle", "VisibilityTimeout"}
)

// sendField reads field i, but the first, of a SendMessage or a batch
// entry, whose fields are the same but the first.
func (d *jsonIn) sendField(e *SendMessageBatchEntry, i int) bool {
	switch i {
	case 1:
		return d.textPtr(&e.MessageBody)
	case 2:
		return d.intPtr(&e.DelaySeconds)
	case 3:
		return d.attributes(&e.MessageAttributes)
	case 4:
		return d.attributes(&e.MessageSystemAttributes)
	case 5:
		return d.ownTextPtr(&e.MessageDeduplicationId)
	}
	return d.ownTextPtr(&e.MessageGroupId)
}

func (d *jsonIn) sendMessage(in *SendMessageInput) bool {
	var e SendMessageBatchEntry
	ok := d.members(sendMessageNames, func(i int) bool {
		if i == 0 {
			return d.text(&in.QueueUrl, true)
		}
		return d.sendField(&e, i)
	})
	in.MessageBody, in.DelaySeconds = e.MessageBody, e.DelaySeconds
	in.MessageAttributes, in.MessageSystemAttributes = e.MessageAttributes, e.MessageSystemAttributes
	in.MessageDeduplicationId, in.MessageGroupId = e.MessageDeduplicationId, e.MessageGroupId
	return ok
}

func (d *jsonIn) sendMessageBatch(in *SendMessageBatchInput) bool {
	return d.members(batchNames, func(i int) bool {
		if i == 0 {
			return d.text(&in.QueueUrl, true)
		}
		return entries(d, &in.Entries, sendBatchEntryNames, func(e *SendMessageBatchEntry, i int) bool {
			if i == 0 {
				return d.text(&e.Id, false)
			}
			return d.sendField(e, i)
		})
	})
}

func (d *jsonIn) receiveMessage(in *ReceiveMessageInput) bool {
	return d.members(receiveMessageNames, func(i int) bool {
		switch i {
		case 0:
			return d.text(&in.QueueUrl, true)
		case 1:
			return d.texts(&in.AttributeNames)
		case 2:
			return d.texts(&in.MessageSystemAttributeNames)
		case 3:
			return d.texts(&in.MessageAttributeNames)
		case 4:
			return d.intPtr(&in.MaxNumberOfMessages)
		case 5:
			return d.intPtr(&in.VisibilityTimeout)
		case 6:
			return d.intPtr(&in.WaitTimeSeconds)
		}
		return d.text(&in.ReceiveRequestAttemptId, true)
	})
}

func (d *jsonIn) deleteMessage(in *DeleteMessageInput) bool {
	return d.members(deleteMessageNames, func(i int) bool {
		if i == 0 {
			return d.text(&in.QueueUrl, true)
		}
		return d.text(&in.ReceiptHandle, false)
	})
}

func (d *jsonIn) deleteMessageBatch(in *DeleteMessageBatchInput) bool {
	return d.members(batchNames, func(i int) bool {
		if i == 0 {
			return d.text(&in.QueueUrl, true)
		}
		return entries(d, &in.Entries, deleteEntryNames, func(e *DeleteMessageBatchEntry, i int) bool {
			if i == 0 {
				return d.text(&e.Id, false)
			}
			return d.text(&e.ReceiptHandle, false)
		})
	})
}

func (d *jsonIn) changeVisibility(in *ChangeMessageVisibilityInput) bool {
	return d.members(changeVisibilityNames, func(i int) bool {
		switch i {
		case 0:
			return d.text(&in.QueueUrl, true)
		case 1:
			return d.text(&in.ReceiptHandle, false)
		}
		return d.intPtr(&in.VisibilityTimeout)
	})
}

func (d *jsonIn) changeVisibilityBatch(in *ChangeMessageVisibilityBatchInput) bool {
	return d.members(batchNames, func(i int) bool {
		if i == 0 {
			return d.text(&in.QueueUrl, true)
		}
		return entries(d, &in.Entries, changeEntryNames, func(e *ChangeMessageVisibilityBatchEntry, i int) bool {
			switch i {
			case 0:
				return d.text(&e.Id, false)
			case 1:
				return d.text(&e.ReceiptHandle, false)
			}
			return d.intPtr(&e.VisibilityTimeout)
		})
	})
}
