package sqs

// Encoding the results of the message actions as encoding/json encodes
// them, byte for byte, without reflection: fields in their order, empty
// ones left out where their tags say omitempty, map keys sorted, strings
// escaped as json.Marshal escapes them (HTML characters included).

import (
	"encoding/base64"
	"strconv"
	"unicode/utf8"

	"github.com/minisqs/minisqs/internal/wordscan"
)

// appendJSONResult appends the JSON of out, a message action's result, and
// reports whether it knew out's type.
func appendJSONResult(b []byte, out any) ([]byte, bool) {
	switch out := out.(type) {
	case *SendMessageOutput:
		b = append(b, '{')
		b = appendSendOutput(b, out)
		return append(b, '}'), true
	case *SendMessageBatchOutput:
		b = append(b, '{')
		if len(out.Successful) > 0 {
			b = appendList(append(b, `"Successful":`...), out.Successful, func(b []byte, e *SendMessageBatchResultEntry) []byte {
				b = appendJSONString(append(b, `{"Id":`...), e.Id)
				b = appendSendOutput(append(b, ','), &e.SendMessageOutput)
				return append(b, '}')
			})
		}
		return appendFailed(b, out.Failed, len(out.Successful) > 0), true
	case *ReceiveMessageOutput:
		b = append(b, '{')
		if len(out.Messages) > 0 {
			b = appendList(append(b, `"Messages":`...), out.Messages, appendMessage)
		}
		return append(b, '}'), true
	case *DeleteMessageBatchOutput:
		return appendBatchResult(b, out.Successful, out.Failed), true
	case *ChangeMessageVisibilityBatchOutput:
		return appendBatchResult(b, out.Successful, out.Failed), true
	}
	return b, false
}

// appendSendOutput appends SendMessageOutput's members, without braces.
func appendSendOutput(b []byte, o *SendMessageOutput) []byte {
	b = appendJSONPlain(append(b, `"MD5OfMessageBody":`...), o.MD5OfMessageBody)
	if o.MD5OfMessageAttributes != "" {
		b = appendJSONPlain(append(b, `,"MD5OfMessageAttributes":`...), o.MD5OfMessageAttributes)
	}
	if o.MD5OfMessageSystemAttributes != "" {
		b = appendJSONPlain(append(b, `,"MD5OfMessageSystemAttributes":`...), o.MD5OfMessageSystemAttributes)
	}
	b = appendJSONString(append(b, `,"MessageId":`...), o.MessageId)
	if o.SequenceNumber != "" {
		b = appendJSONString(append(b, `,"SequenceNumber":`...), o.SequenceNumber)
	}
	return b
}

// appendBatchResult writes a batch answer; both lists are omitempty, as SQS
// leaves an empty one out.
func appendBatchResult(b []byte, ok []BatchResultEntry, failed []BatchResultErrorEntry) []byte {
	b = append(b, '{')
	if len(ok) > 0 {
		b = appendList(append(b, `"Successful":`...), ok, func(b []byte, e *BatchResultEntry) []byte {
			return append(appendJSONString(append(b, `{"Id":`...), e.Id), '}')
		})
	}
	return appendFailed(b, failed, len(ok) > 0)
}

// appendFailed ends a batch answer with its failures, if any, after a comma
// when a list came before.
func appendFailed(b []byte, failed []BatchResultErrorEntry, after bool) []byte {
	if len(failed) > 0 {
		if after {
			b = append(b, ',')
		}
		b = appendList(append(b, `"Failed":`...), failed, appendBatchError)
	}
	return append(b, '}')
}

func appendBatchError(b []byte, e *BatchResultErrorEntry) []byte {
	b = appendJSONString(append(b, `{"Id":`...), e.Id)
	b = strconv.AppendBool(append(b, `,"SenderFault":`...), e.SenderFault)
	b = appendJSONString(append(b, `,"Code":`...), e.Code)
	if e.Message != "" {
		b = appendJSONString(append(b, `,"Message":`...), e.Message)
	}
	return append(b, '}')
}

func appendMessage(b []byte, m *Message) []byte {
	b = appendJSONString(append(b, `{"MessageId":`...), m.MessageId)
	b = appendJSONPlain(append(b, `,"ReceiptHandle":`...), m.ReceiptHandle)
	b = appendJSONPlain(append(b, `,"MD5OfBody":`...), m.MD5OfBody)
	b = appendJSONString(append(b, `,"Body":`...), m.Body)
	if len(m.Attributes) > 0 {
		b = append(b, `,"Attributes":{`...)
		for i, k := range sortedKeys(m.Attributes) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(append(appendJSONString(b, k), ':'), m.Attributes[k])
		}
		b = append(b, '}')
	}
	if m.MD5OfMessageAttributes != "" {
		b = appendJSONPlain(append(b, `,"MD5OfMessageAttributes":`...), m.MD5OfMessageAttributes)
	}
	if len(m.MessageAttributes) > 0 {
		b = append(b, `,"MessageAttributes":{`...)
		for i := range m.MessageAttributes {
			if i > 0 {
				b = append(b, ',')
			}
			v := &m.MessageAttributes[i]
			b = append(appendJSONString(b, v.Name), ":{"...)
			if v.StringValue != "" {
				b = append(appendJSONString(append(b, `"StringValue":`...), v.StringValue), ',')
			}
			if len(v.BinaryValue) > 0 {
				b = append(b, `"BinaryValue":"`...)
				b = base64.StdEncoding.AppendEncode(b, v.BinaryValue)
				b = append(b, `",`...)
			}
			b = append(appendJSONString(append(b, `"DataType":`...), v.DataType), '}')
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendList appends a JSON array of list's elements, or null for a nil
// list, as encoding/json does.
func appendList[E any](b []byte, list []E, elem func([]byte, *E) []byte) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, &list[i])
	}
	return append(b, ']')
}

const lowerHex = "0123456789abcdef"

// appendJSONPlain appends s quoted, as json.Marshal quotes a string that
// needs no escaping. s must be text the server made of characters that are
// never escaped: MD5 digests in hex and receipt handles in URL-safe base64.
// Message ids and sequence numbers are not: a state a client loads may
// give them.
func appendJSONPlain(b []byte, s string) []byte {
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONString appends s quoted as json.Marshal quotes a string: with
// <, > and & escaped for HTML, control characters as \b, \f, \n, \r, \t or
// \u00XX, invalid UTF-8 as \ufffd, and U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	if plainJSON(s) {
		return appendJSONPlain(b, s)
	}
	b = append(b, '"')
	start := 0
	for i := 0; ; {
		if i = plainRun(s, i, true); i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', lowerHex[c>>4], lowerHex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', lowerHex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}

// plainJSON reports whether json.Marshal quotes s without escaping any of
// it. Most strings of answers need none, and testing s eight bytes at a
// time, its last eight again rather than byte by byte, settles that for
// them in a few steps.
func plainJSON(s string) bool {
	if len(s) < 8 {
		for i := 0; i < len(s); i++ {
			if !plainJSONByte[s[i]] {
				return false
			}
		}
		return true
	}
	last := jsonStops(wordscan.Word(s[len(s)-8:]))
	for ; len(s) >= 8; s = s[8:] {
		if jsonStops(wordscan.Word(s[:8])) != 0 {
			return false
		}
	}
	return last == 0
}

// plainJSONByte tells the bytes that plainRun passes, for strings too
// short for a word.
var plainJSONByte = func() (plain [256]bool) {
	for c := range plain {
		plain[c] = plainRun(string([]byte{byte(c)}), 0, true) == 1
	}
	return plain
}()

// jsonStops has the top bit set of each byte of w, eight bytes of a
// string, that json.Marshal escapes (a quote, a backslash, a control
// character, <, > or &) or that is part of a non-ASCII character, which
// may need it.
func jsonStops(w uint64) uint64 {
	// The tests run on w with every top bit clear, so that they are exact
	// for each byte; a byte whose top bit was set stops the run anyway. "
	// and & differ in one bit, as do < and >: setting it tests for both at
	// once.
	a := w &^ wordscan.Highs
	m := wordscan.NotBelow(a, ' ') & wordscan.NotByte(a, '\\') &
		wordscan.NotByte(a|0x04*wordscan.Ones, '&') & wordscan.NotByte(a|0x02*wordscan.Ones, '>')
	return (^m | w) & wordscan.Highs
}
