package sqs

// The JSON protocol's hot path: the inputs of the message actions decoded,
// and their results encoded, in one pass over the bytes and without
// reflection. encoding/json remains the definition: a body the decoder
// does not take in its stride goes to encoding/json afresh, and the
// encoders write what encoding/json writes, byte for byte
// (jsonfast_test.go holds them to both).

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/minisqs/minisqs/engine"
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
// member named twice, a non-ASCII member name that matches no field,
// invalid UTF-8, a lone surrogate, an integer field's value that is not
// an integer in int's range. The caller then decodes the body with
// encoding/json into a fresh input, for its result or its error.
//
// Strings share the memory of s, except the queue URL and the FIFO ids,
// which outlive the request (in the request journal, metrics, message
// groups and deduplication windows) and get their own. Message attributes
// go to the input's sentAttributes, as settleAttributes would put them,
// their maps left nil; entries with equal attributes may share one list.
func decodeJSONFast(s string, in any) bool {
	d := jsonIn{s: s, backslash: -1}
	d.replain()
	// A null input is the zero one, as encoding/json has it.
	var ok bool
	switch in := in.(type) {
	case *SendMessageInput:
		ok = d.null() || d.sendMessage(in)
	case *SendMessageBatchInput:
		ok = d.null() || d.sendMessageBatch(in)
	case *ReceiveMessageInput:
		ok = d.null() || d.receiveMessage(in)
	case *DeleteMessageInput:
		ok = d.null() || d.deleteMessage(in)
	case *DeleteMessageBatchInput:
		ok = d.null() || d.deleteMessageBatch(in)
	case *ChangeMessageVisibilityInput:
		ok = d.null() || d.changeVisibility(in)
	case *ChangeMessageVisibilityBatchInput:
		ok = d.null() || d.changeVisibilityBatch(in)
	default:
		return false
	}
	d.ws()
	return ok && d.i == len(d.s)
}

// jsonIn reads JSON from s at i. Its methods report false, with i anywhere,
// on anything the fast path leaves to encoding/json.
type jsonIn struct {
	s string
	i int
	// A string that ends before plainTo holds no backslash, control byte
	// or non-ASCII byte: it ends at the next quote and means what it
	// spells. backslash is the index of the first backslash at or after
	// where replain last looked for one, len(s) if none, -1 before the
	// first look.
	plainTo, backslash int
	scratch            []byte // unescaped strings are built here
	strs               []string
	ints               []int
	// attrs holds the lists of message attributes read, each a part of
	// it (or of the array it outgrew) with no room to grow into the next.
	attrs []engine.MessageAttribute
	// lastAttrs and lastSys are the last lists of message attributes and
	// of system attributes read, with their JSON. A batch's entries often
	// carry equal ones, most often spelled the same: those are not read
	// again, and share the first's list, which the engine and the digests,
	// comparing each entry's attributes with the last they checked, then
	// find the same without looking at them again.
	lastAttrs, lastSys readAttributes
}

// readAttributes is a list of message attributes read and the JSON it was
// read from.
type readAttributes struct {
	json string
	list []engine.MessageAttribute
}

// maxFastAttributes bounds the attributes of an object whose names come out
// of order, which the fast path sorts by insertion; more, far beyond what
// SQS takes, go to encoding/json.
const maxFastAttributes = 64

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
	if d.i < len(d.s) && d.s[d.i] > ' ' {
		return d.s[d.i]
	}
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

// Results of (*jsonIn).member besides a field's index.
const (
	unknownField = -1 // a member that matches no field, for the caller to skip
	badField     = -2 // anything the fast path leaves to encoding/json
	endObject    = -3
)

// object is the state of an object being read by member.
type object struct {
	open bool   // its opening brace has been read
	seen uint64 // the fields read, by index
	key  string // the last member's name
}

// member reads up to the value of an object's next member, or past the
// object's end, and returns the index of the member's field as lookup
// gives it (a field's index, unknownField or badField), endObject, or
// badField on a syntax error. A field named twice is a badField:
// encoding/json merges a repeated object or array into the first, which
// the fast path does not do.
//
// The readers of objects loop on member, switching on its result with a
// case for each field, unknownField and endObject, each setting ok: a
// badField, having no case, leaves ok false and ends the read.
func (d *jsonIn) member(o *object, lookup func(key string) int) int {
	c := d.peek()
	switch {
	case !o.open && c == '{':
		o.open = true
		d.i++
		if c = d.peek(); c == '}' {
			d.i++
			return endObject
		}
	case !o.open:
		return badField
	case c == ',':
		d.i++
		c = d.peek()
	case c == '}':
		d.i++
		return endObject
	default:
		return badField
	}
	if c != '"' {
		return badField
	}
	key, ok := d.str()
	if !ok || d.peek() != ':' {
		return badField
	}
	d.i++
	o.key = key
	i := lookup(key)
	if i >= 0 {
		if o.seen&(1<<i) != 0 {
			return badField
		}
		o.seen |= 1 << i
	}
	return i
}

// anyField is the lookup of an object whose members are not fields: a
// map's, or one skipped.
func anyField(string) int { return unknownField }

// element reads up to an array's next element, its opening bracket first
// when open is false, and reports whether there is one; at the array's
// end it reads past it. ok is false on a syntax error.
func (d *jsonIn) element(open *bool) (more, ok bool) {
	c := d.peek()
	if *open {
		switch c {
		case ',':
			d.i++
			return true, true
		case ']':
			d.i++
			return false, true
		}
		return false, false
	}
	if c != '[' {
		return false, false
	}
	d.i++
	*open = true
	if d.peek() == ']' {
		d.i++
		return false, true
	}
	return true, true
}

// str reads a string. One without escapes is a slice of s.
func (d *jsonIn) str() (string, bool) {
	start := d.i + 1 // past the opening quote
	// Up to plainTo, every byte is below 0x80, for which the word test
	// for a quote is exact. Most strings are short, and a word at a time
	// finds their end sooner than IndexByte's setup would; past
	// wordSearched bytes, a long one's rest goes to IndexByte. (A function
	// of its own, in wordscan, would not be inlined, and costs a call for
	// every string.)
	const wordSearched = 32
	plain := d.s[:d.plainTo]
	end := start
	for long := start + wordSearched; ; end += 8 {
		if end+8 > len(plain) {
			for end < len(plain) && plain[end] != '"' {
				end++
			}
			break
		}
		if end == long {
			if n := strings.IndexByte(plain[end:], '"'); n >= 0 {
				end += n
			} else {
				end = len(plain)
			}
			break
		}
		if stop := ^wordscan.NotByte(wordscan.Word(plain[end:end+8]), '"') & wordscan.Highs; stop != 0 {
			end += wordscan.FirstHigh(stop)
			break
		}
	}
	if end < len(plain) {
		d.i = end + 1
		return plain[start:end], true
	}
	d.i = start
	v, ok := d.scan(start)
	if ok && d.i > d.plainTo {
		d.replain()
	}
	return v, ok
}

// replain finds plainTo from d.i on: the first backslash, control byte or
// non-ASCII byte. A body as SDKs send it has none, and its strings end at
// the next quote; past one, the strings go through scan until the next.
func (d *jsonIn) replain() {
	if d.backslash < d.i {
		d.backslash = len(d.s)
		if n := strings.IndexByte(d.s[d.i:], '\\'); n >= 0 {
			d.backslash = d.i + n
		}
	}
	d.plainTo = wordscan.PrintableRun(d.s[:d.backslash], d.i)
}

// scan reads the rest of a string from start, checking each byte.
func (d *jsonIn) scan(start int) (string, bool) {
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
				return i + wordscan.FirstHigh(stop)
			}
		}
	} else {
		for ; i+8 <= len(s); i += 8 {
			w := wordscan.Word(s[i : i+8])
			a := w &^ wordscan.Highs
			m := wordscan.NotBelow(a, ' ') & wordscan.NotByte(a, '\\') & wordscan.NotByte(a, '"')
			if stop := (^m | w) & wordscan.Highs; stop != 0 {
				return i + wordscan.FirstHigh(stop)
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
				if !d.literal(`\u`) {
					return "", false
				}
				lo, ok := d.hex4()
				if r = utf16.DecodeRune(r, lo); !ok || r == utf8.RuneError {
					return "", false
				}
				b = utf8.AppendRune(b, r)
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
		var o object
		for {
			switch d.member(&o, anyField) {
			case endObject:
				return true
			case badField:
				return false
			}
			if !d.skipDepth(depth + 1) {
				return false
			}
		}
	case c == '[':
		open := false
		for {
			more, ok := d.element(&open)
			if !more {
				return ok
			}
			if !d.skipDepth(depth + 1) {
				return false
			}
		}
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

// The inputs' member names, in the order of their fields, and for each
// list a lookup, for member: a switch that matches a key spelled as the
// name is (as SDKs send them), then fold for the rest.
var (
	sendMessageNames      = []string{"QueueUrl", "MessageBody", "DelaySeconds", "MessageAttributes", "MessageSystemAttributes", "MessageDeduplicationId", "MessageGroupId"}
	sendBatchEntryNames   = []string{"Id", "MessageBody", "DelaySeconds", "MessageAttributes", "MessageSystemAttributes", "MessageDeduplicationId", "MessageGroupId"}
	batchNames            = []string{"QueueUrl", "Entries"}
	receiveMessageNames   = []string{"QueueUrl", "AttributeNames", "MessageSystemAttributeNames", "MessageAttributeNames", "MaxNumberOfMessages", "VisibilityTimeout", "WaitTimeSeconds", "ReceiveRequestAttemptId"}
	deleteMessageNames    = []string{"QueueUrl", "ReceiptHandle"}
	deleteEntryNames      = []string{"Id", "ReceiptHandle"}
	changeVisibilityNames = []string{"QueueUrl", "ReceiptHandle", "VisibilityTimeout"}
	changeEntryNames      = []string{"Id", "ReceiptHandle", "VisibilityTimeout"}
	attributeValueNames   = []string{"StringValue", "BinaryValue", "DataType"}
)

func sendMessageField(key string) int {
	if key == "QueueUrl" {
		return 0
	}
	return sendField(key, sendMessageNames)
}

func sendEntryField(key string) int {
	if key == "Id" {
		return 0
	}
	return sendField(key, sendBatchEntryNames)
}

// sendField looks up the names that SendMessage and a batch entry share,
// all but the first, in either's names.
func sendField(key string, names []string) int {
	switch key {
	case "MessageBody":
		return 1
	case "DelaySeconds":
		return 2
	case "MessageAttributes":
		return 3
	case "MessageSystemAttributes":
		return 4
	case "MessageDeduplicationId":
		return 5
	case "MessageGroupId":
		return 6
	}
	return fold(key, names)
}

func batchField(key string) int {
	switch key {
	case "QueueUrl":
		return 0
	case "Entries":
		return 1
	}
	return fold(key, batchNames)
}

func receiveMessageField(key string) int {
	switch key {
	case "QueueUrl":
		return 0
	case "AttributeNames":
		return 1
	case "MessageSystemAttributeNames":
		return 2
	case "MessageAttributeNames":
		return 3
	case "MaxNumberOfMessages":
		return 4
	case "VisibilityTimeout":
		return 5
	case "WaitTimeSeconds":
		return 6
	case "ReceiveRequestAttemptId":
		return 7
	}
	return fold(key, receiveMessageNames)
}

func deleteMessageField(key string) int { return receiptField(key, "QueueUrl", deleteMessageNames) }
func deleteEntryField(key string) int   { return receiptField(key, "Id", deleteEntryNames) }

func changeVisibilityField(key string) int {
	return receiptField(key, "QueueUrl", changeVisibilityNames)
}

func changeEntryField(key string) int { return receiptField(key, "Id", changeEntryNames) }

// receiptField looks up a key in names, those of DeleteMessage, its batch
// entry, ChangeMessageVisibility or its batch entry: first (QueueUrl or
// Id), ReceiptHandle and, for a change, VisibilityTimeout.
func receiptField(key, first string, names []string) int {
	switch {
	case key == first:
		return 0
	case key == "ReceiptHandle":
		return 1
	case len(names) > 2 && key == names[2]:
		return 2
	}
	return fold(key, names)
}

func attributeValueField(key string) int {
	switch key {
	case "StringValue":
		return 0
	case "BinaryValue":
		return 1
	case "DataType":
		return 2
	}
	return fold(key, attributeValueNames)
}

// fold returns the index of the name in names that key matches as
// encoding/json matches a member to a field, under Unicode case folding
// (ſ is an s), or unknownField. A key that matches none and is not all
// ASCII is a badField, for encoding/json to judge.
func fold(key string, names []string) int {
	for i, name := range names {
		if strings.EqualFold(key, name) {
			return i
		}
	}
	for i := 0; i < len(key); i++ {
		if key[i] >= utf8.RuneSelf {
			return badField
		}
	}
	return unknownField
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
	if d.null() {
		*p = nil
		return true
	}
	*p = new(string)
	return d.text(*p, true)
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

// body reads a message's body into e.MessageBody, noting whether it lies
// wholly before plainTo: a string str took in its stride is printable
// ASCII with no escapes.
func (d *jsonIn) body(e *SendMessageBatchEntry) bool {
	plainTo := d.plainTo
	ok := d.textPtr(&e.MessageBody)
	e.sent.plainBody = ok && e.MessageBody != nil && d.i <= plainTo
	return ok
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
	out := []string{}
	for open := false; ; {
		more, ok := d.element(&open)
		if !more {
			*p = out
			return ok
		}
		var v string
		if !d.text(&v, false) {
			return false
		}
		out = append(out, v)
	}
}

// attributes reads an object of message attributes into *p, as
// sentAttributes has them; null makes it nil. A name may come twice, the
// last value winning, as in encoding/json. The object becomes prev; one
// spelled as prev was, byte for byte, means what it meant, and is not read
// again, and a list equal to prev's is prev's.
func (d *jsonIn) attributes(p *[]engine.MessageAttribute, prev *readAttributes) bool {
	if d.null() {
		*p = nil
		return true
	}
	if d.peek() != '{' {
		return false
	}
	if prev.json != "" && strings.HasPrefix(d.s[d.i:], prev.json) {
		d.i += len(prev.json)
		*p = prev.list
		return true
	}
	from, start := d.i, len(d.attrs)
	for o := (object{}); ; {
		switch d.member(&o, anyField) {
		case endObject:
			switch end := len(d.attrs); {
			case end == start:
				*p = nil
			case engine.SameAttributes(d.attrs[start:end], prev.list):
				*p, d.attrs = prev.list, d.attrs[:start]
			default:
				*p = d.attrs[start:end:end]
			}
			*prev = readAttributes{json: d.s[from:d.i], list: *p}
			return true
		case badField:
			return false
		}
		if d.attrs == nil {
			d.attrs = make([]engine.MessageAttribute, 0, 10) // a batch's, one each, in one allocation
		}
		// Read into place at the end, where an attribute whose name comes
		// last, as it usually does, stays.
		d.attrs = append(d.attrs, engine.MessageAttribute{Name: o.key})
		last := len(d.attrs) - 1
		if d.peek() == 'n' {
			if !d.literal("null") {
				return false
			}
		} else if !d.attributeValue(&d.attrs[last]) {
			return false
		}
		if last > start && d.attrs[last-1].Name >= o.key && !d.placeLast(start) {
			return false
		}
	}
}

// placeLast moves the last attribute of d.attrs into its place by name in
// the list from d.attrs[start], or in place of the attribute of that name;
// it reports false for one more than maxFastAttributes.
func (d *jsonIn) placeLast(start int) bool {
	last := len(d.attrs) - 1
	a := d.attrs[last]
	list := d.attrs[start:last]
	i, found := slices.BinarySearchFunc(list, a.Name, func(b engine.MessageAttribute, name string) int { return strings.Compare(b.Name, name) })
	switch {
	case found:
		list[i] = a
		d.attrs = d.attrs[:last]
	case len(list) >= maxFastAttributes:
		return false
	default:
		copy(list[i+1:last-start+1], list[i:])
		d.attrs[start+i] = a
	}
	return true
}

func (d *jsonIn) attributeValue(v *engine.MessageAttribute) bool {
	for o := (object{}); ; {
		var ok bool
		switch d.member(&o, attributeValueField) {
		case 0:
			ok = d.text(&v.StringValue, false)
		case 1:
			ok = d.binary((*blob)(&v.BinaryValue))
		case 2:
			ok = d.text(&v.DataType, false)
		case unknownField:
			ok = d.skip()
		case endObject:
			return true
		}
		if !ok {
			return false
		}
	}
}

// binary reads a blob member, base64 in a string, as encoding/json reads a
// TextUnmarshaler; null makes it nil.
func (d *jsonIn) binary(p *blob) bool {
	if d.null() {
		*p = nil
		return true
	}
	var v string
	return d.text(&v, false) && p.UnmarshalText([]byte(v)) == nil
}

// entries reads an array of batch entries: null makes it nil, [] empty,
// and a null element is the zero entry.
func entries[E any](d *jsonIn, p *[]E) bool {
	if d.null() {
		*p = nil
		return true
	}
	out := make([]E, 0, 10)
	for open := false; ; {
		more, ok := d.element(&open)
		if !more {
			*p = out
			return ok
		}
		out = append(out, *new(E))
		if d.peek() == 'n' {
			if !d.literal("null") {
				return false
			}
		} else if !d.entry(&out[len(out)-1]) {
			return false
		}
	}
}

// sendFields reads the members of a SendMessage or a batch entry, whose
// fields are the same but the first, a string read into first (with memory
// of its own if own).
func (d *jsonIn) sendFields(e *SendMessageBatchEntry, lookup func(string) int, first *string, own bool) bool {
	for o := (object{}); ; {
		var ok bool
		switch d.member(&o, lookup) {
		case 0:
			ok = d.text(first, own)
		case 1:
			ok = d.body(e)
		case 2:
			ok = d.intPtr(&e.DelaySeconds)
		case 3:
			ok = d.attributes(&e.sent.attrs, &d.lastAttrs)
		case 4:
			ok = d.attributes(&e.sent.sys, &d.lastSys)
		case 5:
			ok = d.ownTextPtr(&e.MessageDeduplicationId)
		case 6:
			ok = d.ownTextPtr(&e.MessageGroupId)
		case unknownField:
			ok = d.skip()
		case endObject:
			return true
		}
		if !ok {
			return false
		}
	}
}

func (d *jsonIn) sendMessage(in *SendMessageInput) bool {
	var e SendMessageBatchEntry
	ok := d.sendFields(&e, sendMessageField, &in.QueueUrl, true)
	in.MessageBody, in.DelaySeconds = e.MessageBody, e.DelaySeconds
	in.sent = e.sent
	in.MessageDeduplicationId, in.MessageGroupId = e.MessageDeduplicationId, e.MessageGroupId
	return ok
}

// entry reads the members of a batch entry, e. A switch rather than a
// function for each type of entry keeps d off the heap.
func (d *jsonIn) entry(e any) bool {
	switch e := e.(type) {
	case *SendMessageBatchEntry:
		return d.sendFields(e, sendEntryField, &e.Id, false)
	case *DeleteMessageBatchEntry:
		return d.receiptFields(deleteEntryField, &e.Id, false, &e.ReceiptHandle, nil)
	case *ChangeMessageVisibilityBatchEntry:
		return d.receiptFields(changeEntryField, &e.Id, false, &e.ReceiptHandle, &e.VisibilityTimeout)
	default:
		panic("sqs: no JSON decoding for a batch entry of this type")
	}
}

// batch reads the members of a batch action's input.
func batch[E any](d *jsonIn, queueURL *string, p *[]E) bool {
	for o := (object{}); ; {
		var ok bool
		switch d.member(&o, batchField) {
		case 0:
			ok = d.text(queueURL, true)
		case 1:
			ok = entries(d, p)
		case unknownField:
			ok = d.skip()
		case endObject:
			return true
		}
		if !ok {
			return false
		}
	}
}

func (d *jsonIn) sendMessageBatch(in *SendMessageBatchInput) bool {
	return batch(d, &in.QueueUrl, &in.Entries)
}

func (d *jsonIn) receiveMessage(in *ReceiveMessageInput) bool {
	for o := (object{}); ; {
		var ok bool
		switch d.member(&o, receiveMessageField) {
		case 0:
			ok = d.text(&in.QueueUrl, true)
		case 1:
			ok = d.texts(&in.AttributeNames)
		case 2:
			ok = d.texts(&in.MessageSystemAttributeNames)
		case 3:
			ok = d.texts(&in.MessageAttributeNames)
		case 4:
			ok = d.intPtr(&in.MaxNumberOfMessages)
		case 5:
			ok = d.intPtr(&in.VisibilityTimeout)
		case 6:
			ok = d.intPtr(&in.WaitTimeSeconds)
		case 7:
			ok = d.text(&in.ReceiveRequestAttemptId, true)
		case unknownField:
			ok = d.skip()
		case endObject:
			return true
		}
		if !ok {
			return false
		}
	}
}

// receiptFields reads the members of DeleteMessage,
// ChangeMessageVisibility or an entry of their batches: a string into
// first (with memory of its own if own), a receipt handle, and for a
// change a visibility timeout.
func (d *jsonIn) receiptFields(lookup func(string) int, first *string, own bool, handle *string, timeout **int) bool {
	for o := (object{}); ; {
		var ok bool
		switch d.member(&o, lookup) {
		case 0:
			ok = d.text(first, own)
		case 1:
			ok = d.text(handle, false)
		case 2:
			ok = d.intPtr(timeout)
		case unknownField:
			ok = d.skip()
		case endObject:
			return true
		}
		if !ok {
			return false
		}
	}
}

func (d *jsonIn) deleteMessage(in *DeleteMessageInput) bool {
	return d.receiptFields(deleteMessageField, &in.QueueUrl, true, &in.ReceiptHandle, nil)
}

func (d *jsonIn) deleteMessageBatch(in *DeleteMessageBatchInput) bool {
	return batch(d, &in.QueueUrl, &in.Entries)
}

func (d *jsonIn) changeVisibility(in *ChangeMessageVisibilityInput) bool {
	return d.receiptFields(changeVisibilityField, &in.QueueUrl, true, &in.ReceiptHandle, &in.VisibilityTimeout)
}

func (d *jsonIn) changeVisibilityBatch(in *ChangeMessageVisibilityBatchInput) bool {
	return batch(d, &in.QueueUrl, &in.Entries)
}
