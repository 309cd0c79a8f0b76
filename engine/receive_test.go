package engine

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestSendBody(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		want Code
	}{
		{"plain", "hello", ""},
		{"tab", "a\tb", ""},
		{"newline", "line1\nline2", ""},
		{"carriage return", "a\r\nb", ""},
		{"emoji", "emoji 😀 ok", ""},
		{"bmp edges", "\u0020\uD7FF\uE000\uFFFD", ""},
		{"last code point", "\U0010FFFF", ""},
		{"json", `{"a":"<b>&amp;\"c\""}`, ""},
		{"only space", " ", ""},
		{"empty", "", ErrMissingParameter},
		{"nul", "a\x00b", ErrInvalidMessageContents},
		{"bell", "\x07", ErrInvalidMessageContents},
		{"unit separator", "\x1f", ErrInvalidMessageContents},
		{"U+FFFE", "\uFFFE", ErrInvalidMessageContents},
		{"U+FFFF", "\uFFFF", ErrInvalidMessageContents},
		{"invalid utf-8", "a\xffb", ErrInvalidMessageContents},
		{"truncated utf-8", "\xe2\x82", ErrInvalidMessageContents},
		{"surrogate", "\xed\xa0\x80", ErrInvalidMessageContents},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newTestEngine(t, Options{})
			q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
			res := q.Send([]NewMessage{{Body: tc.body}})
			wantCode(t, res[0].Err, tc.want)
			if tc.want != "" {
				wantCounts(t, q, Counts{})
				return
			}
			if res[0].MD5OfBody != hexMD5(tc.body) || len(res[0].MessageID) != 36 {
				t.Errorf("SendResult = %+v", res[0])
			}
			d := recvOne(t, q, ReceiveOptions{}, tc.body) // byte for byte
			if d.MD5OfBody != res[0].MD5OfBody || d.ID != res[0].MessageID {
				t.Errorf("delivery MD5 %s ID %s, want %s %s", d.MD5OfBody, d.ID, res[0].MD5OfBody, res[0].MessageID)
			}
		})
	}
}

func TestSendSize(t *testing.T) {
	attr := func(valueLen int) []MessageAttribute {
		// name 4 + type 6 + value
		return []MessageAttribute{{Name: "attr", DataType: "String", StringValue: strings.Repeat("v", valueLen)}}
	}
	for _, tc := range []struct {
		name    string
		maxSize *int
		msg     NewMessage
		want    Code
	}{
		{"body at limit", ptr(1024), NewMessage{Body: strings.Repeat("x", 1024)}, ""},
		{"body over limit", ptr(1024), NewMessage{Body: strings.Repeat("x", 1025)}, ErrMessageTooLong},
		{"multibyte at limit", ptr(1024), NewMessage{Body: strings.Repeat("😀", 256)}, ""},
		{"multibyte over limit", ptr(1024), NewMessage{Body: strings.Repeat("😀", 256) + "x"}, ErrMessageTooLong},
		{"attributes at limit", ptr(1024), NewMessage{Body: strings.Repeat("x", 1000), Attributes: attr(14)}, ""},
		{"attributes over limit", ptr(1024), NewMessage{Body: strings.Repeat("x", 1000), Attributes: attr(15)}, ErrMessageTooLong},
		{"binary attribute over limit", ptr(1024), NewMessage{Body: strings.Repeat("x", 1000),
			Attributes: []MessageAttribute{{Name: "b", DataType: "Binary", BinaryValue: make([]byte, 19)}}}, ErrMessageTooLong},
		{"default 1 MiB", nil, NewMessage{Body: strings.Repeat("x", 1<<20)}, ""},
		{"default over 1 MiB", nil, NewMessage{Body: strings.Repeat("x", 1<<20+1)}, ErrMessageTooLong},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newTestEngine(t, Options{})
			q := mustCreate(t, e, "q", AttributeUpdate{MaximumMessageSize: tc.maxSize}, nil)
			wantCode(t, q.Send([]NewMessage{tc.msg})[0].Err, tc.want)
			if tc.want == "" {
				d := recvOne(t, q, ReceiveOptions{}, tc.msg.Body)
				if len(d.Attributes) != len(tc.msg.Attributes) {
					t.Errorf("got %d attributes, want %d", len(d.Attributes), len(tc.msg.Attributes))
				}
			}
		})
	}
	t.Run("limit lowered later", func(t *testing.T) {
		e, _ := newTestEngine(t, Options{})
		q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
		sendBodies(t, q, strings.Repeat("x", 2000))
		wantCode(t, q.SetAttributes(AttributeUpdate{MaximumMessageSize: ptr(1024)}), "")
		wantCode(t, q.Send([]NewMessage{{Body: strings.Repeat("x", 2000)}})[0].Err, ErrMessageTooLong)
		recvOne(t, q, ReceiveOptions{}, strings.Repeat("x", 2000)) // already stored: kept
	})
}

func TestSendMessageAttributes(t *testing.T) {
	str := func(name, typ, v string) MessageAttribute {
		return MessageAttribute{Name: name, DataType: typ, StringValue: v}
	}
	bin := func(name, typ string, v []byte) MessageAttribute {
		return MessageAttribute{Name: name, DataType: typ, BinaryValue: v}
	}
	nAttrs := func(n int) []MessageAttribute {
		out := make([]MessageAttribute, n)
		for i := range out {
			out[i] = str(fmt.Sprintf("a%d", i), "String", "v")
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		attrs []MessageAttribute
		want  Code
	}{
		{"none", nil, ""},
		{"string", []MessageAttribute{str("s", "String", "v")}, ""},
		{"string with tab and emoji", []MessageAttribute{str("s", "String", "a\tb 😀")}, ""},
		{"custom string", []MessageAttribute{str("s", "String.foo", "v")}, ""},
		{"number int", []MessageAttribute{str("n", "Number", "42")}, ""},
		{"number negative float", []MessageAttribute{str("n", "Number", "-3.25")}, ""},
		{"number exponent", []MessageAttribute{str("n", "Number", "1.5e10")}, ""},
		{"custom number", []MessageAttribute{str("n", "Number.int", "7")}, ""},
		{"binary", []MessageAttribute{bin("b", "Binary", []byte{0, 1, 0xff})}, ""},
		{"custom binary", []MessageAttribute{bin("b", "Binary.gzip", []byte{1})}, ""},
		{"ten", nAttrs(10), ""},
		{"eleven", nAttrs(11), ErrInvalidParameterValue},
		{"name with dot dash underscore", []MessageAttribute{str("a.b-c_D9", "String", "v")}, ""},
		{"name with letters beyond ASCII", []MessageAttribute{str("attr.1øßä", "String", "v")}, ""},
		{"name 256 letters beyond ASCII", []MessageAttribute{str(strings.Repeat("ø", 256), "String", "v")}, ""},
		{"name with a symbol beyond ASCII", []MessageAttribute{str("a§b", "String", "v")}, ErrInvalidParameterValue},
		{"name 256", []MessageAttribute{str(strings.Repeat("n", 256), "String", "v")}, ""},
		{"name 257", []MessageAttribute{str(strings.Repeat("n", 257), "String", "v")}, ErrInvalidParameterValue},
		{"empty name", []MessageAttribute{str("", "String", "v")}, ErrInvalidParameterValue},
		{"name with space", []MessageAttribute{str("a b", "String", "v")}, ErrInvalidParameterValue},
		{"name with slash", []MessageAttribute{str("a/b", "String", "v")}, ErrInvalidParameterValue},
		{"name leading period", []MessageAttribute{str(".a", "String", "v")}, ErrInvalidParameterValue},
		{"name trailing period", []MessageAttribute{str("a.", "String", "v")}, ErrInvalidParameterValue},
		{"name double period", []MessageAttribute{str("a..b", "String", "v")}, ErrInvalidParameterValue},
		{"reserved AWS.", []MessageAttribute{str("AWS.trace", "String", "v")}, ErrInvalidParameterValue},
		{"reserved aws.", []MessageAttribute{str("aws.trace", "String", "v")}, ErrInvalidParameterValue},
		{"reserved Amazon.", []MessageAttribute{str("Amazon.x", "String", "v")}, ErrInvalidParameterValue},
		{"reserved AMAZON.", []MessageAttribute{str("AMAZON.x", "String", "v")}, ErrInvalidParameterValue},
		{"AWS without period is fine", []MessageAttribute{str("AWSish", "String", "v")}, ""},
		{"duplicate name", []MessageAttribute{str("d", "String", "1"), str("d", "String", "2")}, ErrInvalidParameterValue},
		{"empty type", []MessageAttribute{str("t", "", "v")}, ErrInvalidParameterValue},
		{"unknown type", []MessageAttribute{str("t", "Text", "v")}, ErrInvalidParameterValue},
		{"lowercase type", []MessageAttribute{str("t", "string", "v")}, ErrInvalidParameterValue},
		{"type with empty label", []MessageAttribute{str("t", "String.", "v")}, ErrInvalidParameterValue},
		{"empty string value", []MessageAttribute{str("s", "String", "")}, ErrInvalidParameterValue},
		{"string value with nul", []MessageAttribute{str("s", "String", "a\x00")}, ErrInvalidParameterValue},
		{"string given as binary", []MessageAttribute{bin("s", "String", []byte("v"))}, ErrInvalidParameterValue},
		{"bad number", []MessageAttribute{str("n", "Number", "abc")}, ErrInvalidParameterValue},
		{"number with trailing junk", []MessageAttribute{str("n", "Number", "12abc")}, ErrInvalidParameterValue},
		{"empty number", []MessageAttribute{str("n", "Number", "")}, ErrInvalidParameterValue},
		{"empty binary", []MessageAttribute{bin("b", "Binary", nil)}, ErrInvalidParameterValue},
		{"binary given as string", []MessageAttribute{str("b", "Binary", "v")}, ErrInvalidParameterValue},
		{"one bad among good", []MessageAttribute{str("ok", "String", "v"), str("AWS.bad", "String", "v")}, ErrInvalidParameterValue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newTestEngine(t, Options{})
			q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
			wantCode(t, q.Send([]NewMessage{{Body: "b", Attributes: tc.attrs}})[0].Err, tc.want)
			if tc.want != "" {
				wantCounts(t, q, Counts{})
				return
			}
			d := recvOne(t, q, ReceiveOptions{}, "b")
			if !attributesEqual(d.Attributes, tc.attrs) {
				t.Errorf("attributes = %+v, want %+v", d.Attributes, tc.attrs)
			}
		})
	}
}

// SQS numbers have up to 38 digits of precision and lie between 10^-128 and
// 10^+126 (Developer Guide, "Amazon SQS message attributes", Number). Go's
// float syntax accepts more than that.
func TestSendNumberAttributeOutsideSQSNumbers(t *testing.T) {
	for _, v := range []string{"NaN", "Inf", "-Infinity", "0x1p3", "1e200"} {
		t.Run(v, func(t *testing.T) {
			e, _ := newTestEngine(t, Options{})
			q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
			res := q.Send([]NewMessage{{Body: "b", Attributes: []MessageAttribute{{Name: "n", DataType: "Number", StringValue: v}}}})
			wantCode(t, res[0].Err, ErrInvalidParameterValue)
		})
	}
}

func cloneAttributes(attrs []MessageAttribute) []MessageAttribute {
	out := slices.Clone(attrs)
	for i := range out {
		out[i].BinaryValue = slices.Clone(out[i].BinaryValue)
	}
	return out
}

func attributesEqual(a, b []MessageAttribute) bool {
	return slices.EqualFunc(a, b, func(x, y MessageAttribute) bool {
		return x.Name == y.Name && x.DataType == y.DataType && x.StringValue == y.StringValue && bytes.Equal(x.BinaryValue, y.BinaryValue)
	})
}

func TestSendSystemAttributesAndOtherParameters(t *testing.T) {
	trace := MessageAttribute{Name: "AWSTraceHeader", DataType: "String", StringValue: "Root=1-5759e988-bd862e3fe1be46a994272793"}
	for _, tc := range []struct {
		name string
		msg  NewMessage
		want Code
	}{
		{"trace header", NewMessage{SystemAttributes: []MessageAttribute{trace}}, ""},
		{"unknown system attribute", NewMessage{SystemAttributes: []MessageAttribute{{Name: "Other", DataType: "String", StringValue: "v"}}}, ErrInvalidParameterValue},
		{"trace header as number", NewMessage{SystemAttributes: []MessageAttribute{{Name: "AWSTraceHeader", DataType: "Number", StringValue: "1"}}}, ErrInvalidParameterValue},
		{"empty trace header", NewMessage{SystemAttributes: []MessageAttribute{{Name: "AWSTraceHeader", DataType: "String"}}}, ErrInvalidParameterValue},
		{"dedup id on standard queue", NewMessage{DeduplicationID: "d1"}, ErrInvalidParameterValue},
		{"sender id", NewMessage{SenderID: "AIDAEXAMPLE"}, ""},
		{"numeric sender id", NewMessage{SenderID: "123456789012"}, ""}, // not the account, whose number a send reads once
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newTestEngine(t, Options{})
			q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
			msg := tc.msg
			msg.Body = "b"
			wantCode(t, q.Send([]NewMessage{msg})[0].Err, tc.want)
			if tc.want != "" {
				return
			}
			d := recvOne(t, q, ReceiveOptions{}, "b")
			if !attributesEqual(d.SystemAttributes, msg.SystemAttributes) {
				t.Errorf("system attributes = %+v, want %+v", d.SystemAttributes, msg.SystemAttributes)
			}
			wantSender := msg.SenderID
			if wantSender == "" {
				wantSender = testAccount
			}
			if d.SenderID != wantSender {
				t.Errorf("SenderID = %q, want %q", d.SenderID, wantSender)
			}
		})
	}
}

func TestSendBatchIsPerMessage(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	res := q.Send([]NewMessage{{Body: "one"}, {Body: "bad\x00"}, {Body: "three", DelaySeconds: ptr(901)}, {Body: "four"}})
	wantCode(t, res[0].Err, "")
	wantCode(t, res[1].Err, ErrInvalidMessageContents)
	wantCode(t, res[2].Err, ErrInvalidParameterValue)
	wantCode(t, res[3].Err, "")
	if res[0].MessageID == res[3].MessageID || res[1].MessageID != "" {
		t.Errorf("results %+v", res)
	}
	ds := recvNow(t, q, ReceiveOptions{MaxMessages: 10})
	if got := bodies(ds); !slices.Equal(got, []string{"one", "four"}) {
		t.Errorf("received %q", got)
	}
}

func TestMessageRoundTrip(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	attrs := []MessageAttribute{
		{Name: "s", DataType: "String", StringValue: "hello"},
		{Name: "n", DataType: "Number", StringValue: "42.5"},
		{Name: "b", DataType: "Binary", BinaryValue: []byte{0, 1, 2, 0xff}},
		{Name: "c", DataType: "String.custom", StringValue: "x"},
		{Name: "cb", DataType: "Binary.png", BinaryValue: []byte("png")},
	}
	clk.Advance(3 * time.Second)
	sentAt := clk.Now()
	sent := cloneAttributes(attrs)
	res := send(t, q, NewMessage{Body: "payload", Attributes: sent})
	// The engine must not keep the caller's attribute slices.
	sent[0].StringValue = "changed"
	sent[2].BinaryValue[0] = 9

	clk.Advance(2 * time.Second)
	d := recvOne(t, q, ReceiveOptions{}, "payload")
	if d.ID != res[0].MessageID || d.MD5OfBody != res[0].MD5OfBody {
		t.Errorf("ID %s MD5 %s, want %s %s", d.ID, d.MD5OfBody, res[0].MessageID, res[0].MD5OfBody)
	}
	if !attributesEqual(d.Attributes, attrs) {
		t.Errorf("attributes = %+v, want %+v", d.Attributes, attrs)
	}
	for _, a := range d.Attributes {
		if a.IsBinary() != strings.HasPrefix(a.DataType, "Binary") {
			t.Errorf("%s IsBinary = %v", a.DataType, a.IsBinary())
		}
	}
	if !d.SentAt.Equal(sentAt) {
		t.Errorf("SentAt = %v, want %v", d.SentAt, sentAt)
	}
	if d.ReceiveCount != 1 || !d.FirstReceivedAt.Equal(sentAt.Add(2*time.Second)) {
		t.Errorf("ReceiveCount %d FirstReceivedAt %v", d.ReceiveCount, d.FirstReceivedAt)
	}
	if d.DeadLetterSourceArn != "" || d.ReceiptHandle == "" {
		t.Errorf("DeadLetterSourceArn %q ReceiptHandle %q", d.DeadLetterSourceArn, d.ReceiptHandle)
	}
	// Mutating a delivery must not change the stored message.
	d.Attributes[2].BinaryValue[0] = 7
	wantCode(t, changeVis(q, d.ReceiptHandle, 0), "")
	d2 := recvOne(t, q, ReceiveOptions{}, "payload")
	if !attributesEqual(d2.Attributes, attrs) {
		t.Errorf("stored attributes changed: %+v", d2.Attributes)
	}
	if d2.ReceiveCount != 2 || !d2.FirstReceivedAt.Equal(d.FirstReceivedAt) {
		t.Errorf("second delivery ReceiveCount %d FirstReceivedAt %v", d2.ReceiveCount, d2.FirstReceivedAt)
	}
}

func TestDelaySeconds(t *testing.T) {
	for _, tc := range []struct {
		name       string
		queueDelay int
		msgDelay   *int
		visibleIn  int // seconds
	}{
		{"message delay", 0, ptr(10), 10},
		{"queue delay", 10, nil, 10},
		{"message 0 overrides queue", 10, ptr(0), 0},
		{"message shorter than queue", 10, ptr(5), 5},
		{"message longer than queue", 10, ptr(30), 30},
		{"maximum", 0, ptr(900), 900},
		{"queue maximum", 900, nil, 900},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, clk := newTestEngine(t, Options{})
			q := mustCreate(t, e, "q", AttributeUpdate{DelaySeconds: ptr(tc.queueDelay)}, nil)
			send(t, q, NewMessage{Body: "m", DelaySeconds: tc.msgDelay})
			if tc.visibleIn == 0 {
				wantCounts(t, q, Counts{Visible: 1})
				recvOne(t, q, ReceiveOptions{}, "m")
				return
			}
			wantCounts(t, q, Counts{Delayed: 1})
			recvNone(t, q)
			clk.Advance(time.Duration(tc.visibleIn)*time.Second - time.Millisecond)
			wantCounts(t, q, Counts{Delayed: 1})
			recvNone(t, q)
			clk.Advance(time.Millisecond)
			wantCounts(t, q, Counts{Visible: 1})
			d := recvOne(t, q, ReceiveOptions{}, "m")
			if d.ReceiveCount != 1 {
				t.Errorf("ReceiveCount = %d", d.ReceiveCount)
			}
		})
	}
	t.Run("validation", func(t *testing.T) {
		e, _ := newTestEngine(t, Options{})
		q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
		for _, d := range []int{-1, 901} {
			wantCode(t, q.Send([]NewMessage{{Body: "m", DelaySeconds: ptr(d)}})[0].Err, ErrInvalidParameterValue)
		}
		wantCounts(t, q, Counts{})
	})
	t.Run("fifo refuses per-message delay", func(t *testing.T) {
		e, _ := newTestEngine(t, Options{})
		q := mustCreate(t, e, "q.fifo", AttributeUpdate{FifoQueue: ptr(true)}, nil)
		res := q.Send([]NewMessage{{Body: "m", GroupID: "g", DeduplicationID: "d", DelaySeconds: ptr(5)}})
		wantCode(t, res[0].Err, ErrInvalidParameterValue)
	})
	t.Run("queue delay changed later", func(t *testing.T) {
		e, clk := newTestEngine(t, Options{})
		q := mustCreate(t, e, "q", AttributeUpdate{DelaySeconds: ptr(60)}, nil)
		sendBodies(t, q, "before")
		wantCode(t, q.SetAttributes(AttributeUpdate{DelaySeconds: ptr(0)}), "")
		sendBodies(t, q, "after")
		d := recvOne(t, q, ReceiveOptions{MaxMessages: 10}, "after")
		wantCode(t, ack(q, d.ReceiptHandle), "")
		clk.Advance(time.Minute)
		recvOne(t, q, ReceiveOptions{MaxMessages: 10}, "before")
	})
}

func TestVisibilityTimeout(t *testing.T) {
	for _, tc := range []struct {
		name     string
		queueVis int
		recvVis  *int
		hiddenS  int
	}{
		{"queue default", 30, nil, 30},
		{"queue setting", 120, nil, 120},
		{"per receive shorter", 120, ptr(5), 5},
		{"per receive longer", 5, ptr(600), 600},
		{"per receive zero", 120, ptr(0), 0},
		{"queue zero", 0, nil, 0},
		{"per receive maximum", 30, ptr(43200), 43200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, clk := newTestEngine(t, Options{})
			q := mustCreate(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(tc.queueVis)}, nil)
			sendBodies(t, q, "m")
			d1 := recvOne(t, q, ReceiveOptions{VisibilityTimeout: tc.recvVis}, "m")
			if tc.hiddenS > 0 {
				wantCounts(t, q, Counts{InFlight: 1})
				clk.Advance(time.Duration(tc.hiddenS)*time.Second - time.Millisecond)
				wantCounts(t, q, Counts{InFlight: 1})
				recvNone(t, q)
				clk.Advance(time.Millisecond)
			}
			wantCounts(t, q, Counts{Visible: 1})
			d2 := recvOne(t, q, ReceiveOptions{}, "m")
			if d2.ReceiveCount != 2 || d2.ID != d1.ID {
				t.Errorf("second delivery ReceiveCount %d ID %s, want 2 %s", d2.ReceiveCount, d2.ID, d1.ID)
			}
			if d2.ReceiptHandle == d1.ReceiptHandle {
				t.Fatalf("a new delivery kept the old receipt handle")
			}
			// The old handle no longer names the message's lease.
			wantCode(t, changeVis(q, d1.ReceiptHandle, 10), ErrReceiptHandleStale)
			wantCode(t, ack(q, d1.ReceiptHandle), ErrReceiptHandleStale)
			if q.Counts() == (Counts{}) {
				t.Fatalf("a stale handle deleted the message")
			}
			wantCode(t, ack(q, d2.ReceiptHandle), "")
			wantCounts(t, q, Counts{})
			wantCode(t, ack(q, d2.ReceiptHandle), ErrReceiptHandleStale)
		})
	}
	t.Run("new queue setting applies to later receives", func(t *testing.T) {
		e, clk := newTestEngine(t, Options{})
		q := mustCreate(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(100)}, nil)
		sendBodies(t, q, "a", "b")
		recvOne(t, q, ReceiveOptions{}, "a")
		wantCode(t, q.SetAttributes(AttributeUpdate{VisibilityTimeout: ptr(10)}), "")
		recvOne(t, q, ReceiveOptions{}, "b")
		clk.Advance(10 * time.Second)
		d := recvOne(t, q, ReceiveOptions{MaxMessages: 10}, "b")
		wantCode(t, ack(q, d.ReceiptHandle), "")
		clk.Advance(90 * time.Second)
		recvOne(t, q, ReceiveOptions{MaxMessages: 10}, "a")
	})
}

func TestHandleWorksAfterVisibilityExpiry(t *testing.T) {
	for _, tc := range []struct {
		name string
		use  func(q *Queue, h string) error
		want Counts
	}{
		{"acknowledge", func(q *Queue, h string) error { return ack(q, h) }, Counts{}},
		{"change visibility", func(q *Queue, h string) error { return changeVis(q, h, 60) }, Counts{InFlight: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, clk := newTestEngine(t, Options{})
			q := mustCreate(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(30)}, nil)
			sendBodies(t, q, "m")
			d := recvOne(t, q, ReceiveOptions{}, "m")
			clk.Advance(45 * time.Second)
			wantCounts(t, q, Counts{Visible: 1})
			wantCode(t, tc.use(q, d.ReceiptHandle), "")
			wantCounts(t, q, tc.want)
			recvNone(t, q)
		})
	}
}

// AcknowledgeInFlight, which SQS's FIFO queues use, refuses a handle whose
// visibility timeout has ended, even before another receive.
func TestAcknowledgeInFlightRefusesEndedLease(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(30)}, nil)
	sendBodies(t, q, "m")
	d := recvOne(t, q, ReceiveOptions{}, "m")
	clk.Advance(31 * time.Second)
	err := q.AcknowledgeInFlight([]string{d.ReceiptHandle})[0]
	wantCode(t, err, ErrReceiptHandleStale)
	if e, ok := err.(*Error); !ok || e.Reason != ReasonExpired {
		t.Errorf("error %v", err)
	}
	wantCounts(t, q, Counts{Visible: 1})
	d = recvOne(t, q, ReceiveOptions{}, "m")
	wantCode(t, q.AcknowledgeInFlight([]string{d.ReceiptHandle})[0], "")
	wantCounts(t, q, Counts{})
}

func TestChangeVisibility(t *testing.T) {
	t.Run("zero releases at once", func(t *testing.T) {
		e, _ := newTestEngine(t, Options{})
		q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
		sendBodies(t, q, "m")
		d := recvOne(t, q, ReceiveOptions{}, "m")
		wantCode(t, changeVis(q, d.ReceiptHandle, 0), "")
		wantCounts(t, q, Counts{Visible: 1})
		if d2 := recvOne(t, q, ReceiveOptions{}, "m"); d2.ReceiveCount != 2 {
			t.Errorf("ReceiveCount = %d", d2.ReceiveCount)
		}
	})
	t.Run("extend and shorten count from now", func(t *testing.T) {
		e, clk := newTestEngine(t, Options{})
		q := mustCreate(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(30)}, nil)
		sendBodies(t, q, "m")
		d := recvOne(t, q, ReceiveOptions{}, "m")
		clk.Advance(20 * time.Second)
		wantCode(t, changeVis(q, d.ReceiptHandle, 60), "") // visible at 80 s
		clk.Advance(59 * time.Second)
		recvNone(t, q)
		wantCode(t, changeVis(q, d.ReceiptHandle, 5), "") // visible at 84 s
		clk.Advance(4 * time.Second)
		recvNone(t, q)
		clk.Advance(time.Second)
		recvOne(t, q, ReceiveOptions{}, "m")
	})
	t.Run("12 hour cap", func(t *testing.T) {
		e, clk := newTestEngine(t, Options{})
		q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
		sendBodies(t, q, "m")
		d := recvOne(t, q, ReceiveOptions{}, "m")
		wantCode(t, changeVis(q, d.ReceiptHandle, 43200), "") // exactly 12 h from the receive
		clk.Advance(time.Hour)
		wantCode(t, changeVis(q, d.ReceiptHandle, 43200), ErrInvalidParameterValue)
		wantCode(t, changeVis(q, d.ReceiptHandle, 39601), ErrInvalidParameterValue)
		wantCode(t, changeVis(q, d.ReceiptHandle, 39600), "")
		// The refused changes left the lease as it was: visible 12 h after the receive.
		clk.Advance(11*time.Hour - time.Second)
		recvNone(t, q)
		clk.Advance(time.Second)
		d2 := recvOne(t, q, ReceiveOptions{}, "m")
		// A new receive starts a new 12 hours.
		wantCode(t, changeVis(q, d2.ReceiptHandle, 43200), "")
	})
	t.Run("range", func(t *testing.T) {
		e, _ := newTestEngine(t, Options{})
		q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
		sendBodies(t, q, "m")
		d := recvOne(t, q, ReceiveOptions{}, "m")
		for _, v := range []int{-1, 43201} {
			wantCode(t, changeVis(q, d.ReceiptHandle, v), ErrInvalidParameterValue)
		}
		wantCounts(t, q, Counts{InFlight: 1})
	})
	t.Run("restarts an ended lease", func(t *testing.T) {
		e, clk := newTestEngine(t, Options{})
		q := mustCreate(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(10)}, nil)
		sendBodies(t, q, "m")
		d := recvOne(t, q, ReceiveOptions{}, "m")
		clk.Advance(15 * time.Second)
		wantCode(t, changeVis(q, d.ReceiptHandle, 30), "")
		wantCounts(t, q, Counts{InFlight: 1})
		clk.Advance(29 * time.Second)
		recvNone(t, q)
		clk.Advance(time.Second)
		recvOne(t, q, ReceiveOptions{}, "m")
	})
	t.Run("batch results are per change", func(t *testing.T) {
		e, _ := newTestEngine(t, Options{})
		q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
		sendBodies(t, q, "a", "b")
		ds := recvNow(t, q, ReceiveOptions{MaxMessages: 2})
		errs := q.ChangeVisibility([]VisibilityChange{
			{ReceiptHandle: ds[0].ReceiptHandle, Timeout: 0},
			{ReceiptHandle: "not a handle", Timeout: 0},
			{ReceiptHandle: ds[1].ReceiptHandle, Timeout: -5},
		})
		wantCode(t, errs[0], "")
		wantCode(t, errs[1], ErrReceiptHandleIsInvalid)
		wantCode(t, errs[2], ErrInvalidParameterValue)
		wantCounts(t, q, Counts{Visible: 1, InFlight: 1})
	})
}

func TestMalformedReceiptHandles(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	sendBodies(t, q, "m")
	d := recvOne(t, q, ReceiveOptions{}, "m")
	for _, h := range []string{
		"",
		"garbage!",
		"AAAA",
		d.ReceiptHandle[:len(d.ReceiptHandle)-2],
		d.ReceiptHandle + "AA",
		strings.ToUpper(d.ReceiptHandle) + "==",
		"dGhpcyBpcyBub3QgYSByZWNlaXB0IGhhbmRsZQ", // base64 of the wrong length
	} {
		wantCode(t, ack(q, h), ErrReceiptHandleIsInvalid)
		wantCode(t, changeVis(q, h, 0), ErrReceiptHandleIsInvalid)
	}
	wantCounts(t, q, Counts{InFlight: 1})
	// A handle names its queue: another queue's handle is not valid here.
	other := mustCreate(t, e, "other", AttributeUpdate{}, nil)
	sendBodies(t, other, "o")
	wantCode(t, ack(other, d.ReceiptHandle), ErrReceiptHandleIsInvalid)
	wantCounts(t, other, Counts{Visible: 1})
}

func TestAcknowledge(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	sendBodies(t, q, "a", "b", "c")
	ds := recvNow(t, q, ReceiveOptions{MaxMessages: 3})
	errs := q.Acknowledge([]string{ds[0].ReceiptHandle, "bad", ds[1].ReceiptHandle, ds[0].ReceiptHandle})
	wantCode(t, errs[0], "")
	wantCode(t, errs[1], ErrReceiptHandleIsInvalid)
	wantCode(t, errs[2], "")
	wantCode(t, errs[3], ErrReceiptHandleStale) // deleted earlier in the same call
	wantCounts(t, q, Counts{InFlight: 1})
	if errs := q.Acknowledge(nil); len(errs) != 0 {
		t.Errorf("Acknowledge(nil) = %v", errs)
	}
	wantCode(t, e.DeleteQueue(q), "")
	wantCode(t, ack(q, ds[2].ReceiptHandle), ErrQueueDoesNotExist)
	wantCode(t, changeVis(q, ds[2].ReceiptHandle, 0), ErrQueueDoesNotExist)
}

// Receipt handles are meant to be unguessable and bound to one delivery
// (docs/rest-api.md, "Receipt handles"). A handle built from a message's sequence
// number and an all-zero token must not name a message no receive has
// leased, or anyone could delete or hide queued messages.
func TestForgedHandleOfUnreceivedMessage(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	sendBodies(t, q, "never received")
	var zero [tokenLen]byte
	forged := encodeReceiptHandle(q.uuid, 1, zero)
	if err := changeVis(q, forged, 600); err == nil {
		t.Errorf("ChangeVisibility with a forged handle hid a message no one received")
	}
	if err := ack(q, forged); err == nil {
		t.Errorf("Acknowledge with a forged handle deleted a message no one received")
	}
	if got := q.Counts(); got != (Counts{Visible: 1}) {
		t.Errorf("Counts = %+v after forged handles, want one visible message", got)
	}
}

func TestRetention(t *testing.T) {
	for _, retention := range []int{60, 3600} {
		t.Run(fmt.Sprint(retention), func(t *testing.T) {
			e, clk := newTestEngine(t, Options{})
			q := mustCreate(t, e, "q", AttributeUpdate{MessageRetentionPeriod: ptr(retention), VisibilityTimeout: ptr(43200)}, nil)
			sendBodies(t, q, "in flight", "visible")
			send(t, q, NewMessage{Body: "delayed", DelaySeconds: ptr(900)})
			d := recvOne(t, q, ReceiveOptions{}, "in flight")
			clk.Advance(time.Duration(retention)*time.Second - time.Millisecond)
			want := Counts{Visible: 1, InFlight: 1, Delayed: 1}
			if retention > 900 {
				want = Counts{Visible: 2, InFlight: 1}
			}
			wantCounts(t, q, want)
			clk.Advance(time.Millisecond)
			wantCounts(t, q, Counts{})
			recvNone(t, q)
			wantCode(t, ack(q, d.ReceiptHandle), ErrReceiptHandleStale)
			wantCode(t, changeVis(q, d.ReceiptHandle, 0), ErrReceiptHandleStale)
		})
	}
	t.Run("new retention applies to later sends", func(t *testing.T) {
		e, clk := newTestEngine(t, Options{})
		q := mustCreate(t, e, "q", AttributeUpdate{MessageRetentionPeriod: ptr(60)}, nil)
		sendBodies(t, q, "short")
		wantCode(t, q.SetAttributes(AttributeUpdate{MessageRetentionPeriod: ptr(3600)}), "")
		sendBodies(t, q, "long")
		clk.Advance(time.Minute)
		wantCounts(t, q, Counts{Visible: 1})
		recvOne(t, q, ReceiveOptions{MaxMessages: 10}, "long")
	})
}

func TestCounts(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(30)}, nil)
	wantCounts(t, q, Counts{})
	sendBodies(t, q, "a", "b", "c")
	send(t, q, NewMessage{Body: "d10", DelaySeconds: ptr(10)}, NewMessage{Body: "d40", DelaySeconds: ptr(40)})
	wantCounts(t, q, Counts{Visible: 3, Delayed: 2})
	recvNow(t, q, ReceiveOptions{MaxMessages: 2})
	wantCounts(t, q, Counts{Visible: 1, InFlight: 2, Delayed: 2})
	clk.Advance(10 * time.Second)
	wantCounts(t, q, Counts{Visible: 2, InFlight: 2, Delayed: 1})
	clk.Advance(20 * time.Second)
	wantCounts(t, q, Counts{Visible: 4, Delayed: 1})
	clk.Advance(10 * time.Second)
	wantCounts(t, q, Counts{Visible: 5})
}

func TestPurge(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	sendBodies(t, q, "a", "b")
	send(t, q, NewMessage{Body: "delayed", DelaySeconds: ptr(60)})
	d := recvOne(t, q, ReceiveOptions{}, "a")
	wantCode(t, q.Purge(), "")
	wantCounts(t, q, Counts{})
	recvNone(t, q)
	wantCode(t, ack(q, d.ReceiptHandle), ErrReceiptHandleStale)

	sendBodies(t, q, "after purge")
	for _, step := range []struct {
		advance time.Duration
		want    Code
	}{
		{0, ErrPurgeQueueInProgress},
		{59 * time.Second, ErrPurgeQueueInProgress},
		{999 * time.Millisecond, ErrPurgeQueueInProgress},
	} {
		clk.Advance(step.advance)
		wantCode(t, q.Purge(), step.want)
	}
	// The refused purges deleted nothing.
	wantCounts(t, q, Counts{Visible: 1})
	clk.Advance(time.Millisecond)
	wantCode(t, q.Purge(), "")
	wantCounts(t, q, Counts{})

	// Other queues have their own cooldown.
	other := mustCreate(t, e, "other", AttributeUpdate{}, nil)
	wantCode(t, other.Purge(), "")

	wantCode(t, e.DeleteQueue(other), "")
	wantCode(t, other.Purge(), ErrQueueDoesNotExist)
}

func TestPurgeSkipCooldowns(t *testing.T) {
	e, _ := newTestEngine(t, Options{SkipCooldowns: true})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	for i := range 3 {
		sendBodies(t, q, fmt.Sprint(i))
		wantCode(t, q.Purge(), "")
		wantCounts(t, q, Counts{})
	}
}

func TestReceiveOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts ReceiveOptions
		want Code
		n    int
	}{
		{"max 0 means 1", ReceiveOptions{}, "", 1},
		{"max 1", ReceiveOptions{MaxMessages: 1}, "", 1},
		{"max 5", ReceiveOptions{MaxMessages: 5}, "", 5},
		{"max 10", ReceiveOptions{MaxMessages: 10}, "", 10},
		{"max 11", ReceiveOptions{MaxMessages: 11}, ErrInvalidParameterValue, 0},
		{"max -1", ReceiveOptions{MaxMessages: -1}, ErrInvalidParameterValue, 0},
		{"visibility -1", ReceiveOptions{VisibilityTimeout: ptr(-1)}, ErrInvalidParameterValue, 0},
		{"visibility 43201", ReceiveOptions{VisibilityTimeout: ptr(43201)}, ErrInvalidParameterValue, 0},
		{"wait -1", ReceiveOptions{WaitSeconds: ptr(-1)}, ErrInvalidParameterValue, 0},
		{"wait 21", ReceiveOptions{WaitSeconds: ptr(21)}, ErrInvalidParameterValue, 0},
		{"wait 20 with messages", ReceiveOptions{MaxMessages: 3, WaitSeconds: ptr(20)}, "", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newTestEngine(t, Options{})
			q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
			for i := range 12 {
				sendBodies(t, q, fmt.Sprint(i))
			}
			ds, err := q.Receive(context.Background(), tc.opts)
			wantCode(t, err, tc.want)
			if len(ds) != tc.n {
				t.Errorf("got %d messages, want %d", len(ds), tc.n)
			}
			wantCounts(t, q, Counts{Visible: 12 - tc.n, InFlight: tc.n})
		})
	}
}

func TestReceiveOrder(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(30)}, nil)
	var want []string
	for i := range 15 {
		want = append(want, fmt.Sprintf("m%02d", i))
	}
	sendBodies(t, q, want[:7]...)
	sendBodies(t, q, want[7:]...)
	first := recvNow(t, q, ReceiveOptions{MaxMessages: 10})
	if got := bodies(first); !slices.Equal(got, want[:10]) {
		t.Fatalf("first receive %q, want %q", got, want[:10])
	}
	if got := bodies(recvNow(t, q, ReceiveOptions{MaxMessages: 10})); !slices.Equal(got, want[10:]) {
		t.Fatalf("second receive %q, want %q", got, want[10:])
	}
	// Messages whose leases end go back in sending order, ahead of newer ones.
	handles := map[string]bool{}
	for _, d := range first {
		if handles[d.ReceiptHandle] {
			t.Fatalf("duplicate receipt handle %s", d.ReceiptHandle)
		}
		handles[d.ReceiptHandle] = true
	}
	wantCode(t, changeVis(q, first[4].ReceiptHandle, 0), "")
	wantCode(t, changeVis(q, first[2].ReceiptHandle, 0), "")
	sendBodies(t, q, "newest")
	if got, w := bodies(recvNow(t, q, ReceiveOptions{MaxMessages: 10})), []string{"m02", "m04", "newest"}; !slices.Equal(got, w) {
		t.Fatalf("after release %q, want %q", got, w)
	}
	// Every lease ends at 30 s; all 16 messages are visible again, oldest first.
	clk.Advance(30 * time.Second)
	if got := bodies(recvNow(t, q, ReceiveOptions{MaxMessages: 10})); !slices.Equal(got, want[:10]) {
		t.Fatalf("after timeout %q, want %q", got, want[:10])
	}
	if got, w := bodies(recvNow(t, q, ReceiveOptions{MaxMessages: 10})), append(slices.Clone(want[10:]), "newest"); !slices.Equal(got, w) {
		t.Fatalf("after timeout, rest %q, want %q", got, w)
	}
}

func TestDeletedQueue(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	sendBodies(t, q, "m")
	wantCode(t, e.DeleteQueue(q), "")
	_, err := q.Receive(context.Background(), ReceiveOptions{WaitSeconds: ptr(0)})
	wantCode(t, err, ErrQueueDoesNotExist)
	wantCode(t, q.Send([]NewMessage{{Body: "x"}})[0].Err, ErrQueueDoesNotExist)
	// A message that fails validation fails for that reason.
	wantCode(t, q.Send([]NewMessage{{Body: ""}})[0].Err, ErrMissingParameter)
	wantCounts(t, q, Counts{})
}

// Long polling. Each test parks a Receive in a goroutine, waits until it is
// parked (awaitParked), then moves the clock or sends.

func TestLongPollWakesOnSend(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    ReceiveOptions
		queueW  int
		send    []string
		wantGot []string
	}{
		{"one", ReceiveOptions{WaitSeconds: ptr(20)}, 0, []string{"a"}, []string{"a"}},
		{"batch", ReceiveOptions{MaxMessages: 10, WaitSeconds: ptr(20)}, 0, []string{"a", "b", "c"}, []string{"a", "b", "c"}},
		{"max smaller than batch", ReceiveOptions{MaxMessages: 2, WaitSeconds: ptr(5)}, 0, []string{"a", "b", "c"}, []string{"a", "b"}},
		{"queue wait attribute", ReceiveOptions{}, 20, []string{"a"}, []string{"a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, clk := newTestEngine(t, Options{})
			q := mustCreate(t, e, "q", AttributeUpdate{ReceiveMessageWaitTimeSeconds: ptr(tc.queueW)}, nil)
			ch := startReceive(context.Background(), q, tc.opts)
			awaitParked(t, clk, q, 1)
			assertPending(t, ch)
			sendBodies(t, q, tc.send...)
			r := awaitResult(t, ch)
			wantCode(t, r.err, "")
			if got := bodies(r.ds); !slices.Equal(got, tc.wantGot) {
				t.Errorf("got %q, want %q", got, tc.wantGot)
			}
			if !clk.Now().Equal(testStart) {
				t.Errorf("clock moved")
			}
			q.mu.Lock()
			waiting := q.waiters.n
			q.mu.Unlock()
			if waiting != 0 {
				t.Errorf("q.waiters.n = %d after the receive returned", waiting)
			}
		})
	}
}

func TestLongPollTwoWaiters(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	ch1 := startReceive(context.Background(), q, ReceiveOptions{WaitSeconds: ptr(20)})
	ch2 := startReceive(context.Background(), q, ReceiveOptions{WaitSeconds: ptr(20)})
	awaitParked(t, clk, q, 2)
	sendBodies(t, q, "a", "b")
	r1, r2 := awaitResult(t, ch1), awaitResult(t, ch2)
	got := append(bodies(r1.ds), bodies(r2.ds)...)
	slices.Sort(got)
	if !slices.Equal(got, []string{"a", "b"}) || len(r1.ds) != 1 {
		t.Errorf("waiters got %q and %q", bodies(r1.ds), bodies(r2.ds))
	}
}

func TestLongPollTimesOut(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   ReceiveOptions
		queueW int
		wait   time.Duration
	}{
		{"wait seconds", ReceiveOptions{WaitSeconds: ptr(20)}, 0, 20 * time.Second},
		{"queue attribute", ReceiveOptions{}, 7, 7 * time.Second},
		{"wait overrides queue", ReceiveOptions{WaitSeconds: ptr(3)}, 20, 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, clk := newTestEngine(t, Options{})
			q := mustCreate(t, e, "q", AttributeUpdate{ReceiveMessageWaitTimeSeconds: ptr(tc.queueW)}, nil)
			ch := startReceive(context.Background(), q, tc.opts)
			awaitParked(t, clk, q, 1)
			clk.Advance(tc.wait - time.Second)
			awaitParked(t, clk, q, 1) // still parked once the sweeper has rearmed
			assertPending(t, ch)
			clk.Advance(time.Second)
			r := awaitResult(t, ch)
			wantCode(t, r.err, "")
			if len(r.ds) != 0 {
				t.Errorf("got %q from an empty queue", bodies(r.ds))
			}
		})
	}
	t.Run("zero wait overrides queue attribute", func(t *testing.T) {
		e, _ := newTestEngine(t, Options{})
		q := mustCreate(t, e, "q", AttributeUpdate{ReceiveMessageWaitTimeSeconds: ptr(20)}, nil)
		ds, err := q.Receive(context.Background(), ReceiveOptions{WaitSeconds: ptr(0)})
		if err != nil || len(ds) != 0 {
			t.Errorf("Receive = %q, %v", bodies(ds), err)
		}
	})
}

func TestLongPollContextCancelled(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	ch := startReceive(ctx, q, ReceiveOptions{WaitSeconds: ptr(20)})
	awaitParked(t, clk, q, 1)
	cancel()
	r := awaitResult(t, ch)
	if len(r.ds) != 0 || r.err != nil && !errors.Is(r.err, context.Canceled) {
		t.Errorf("Receive = %q, %v; want nothing", bodies(r.ds), r.err)
	}
	// The receive let go of its timer and its place on the queue.
	if n := clk.Waiters(); n > 1 {
		t.Errorf("%d clock waiters remain, want at most the sweeper's", n)
	}
	q.mu.Lock()
	waiting := q.waiters.n
	q.mu.Unlock()
	if waiting != 0 {
		t.Errorf("q.waiters.n = %d", waiting)
	}
	// A message sent afterwards stays for the next receive.
	sendBodies(t, q, "later")
	recvOne(t, q, ReceiveOptions{}, "later")
}

func TestLongPollQueueDeleted(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	ch := startReceive(context.Background(), q, ReceiveOptions{WaitSeconds: ptr(20)})
	awaitParked(t, clk, q, 1)
	wantCode(t, e.DeleteQueue(q), "")
	r := awaitResult(t, ch)
	if len(r.ds) != 0 || r.err != nil && CodeOf(r.err) != ErrQueueDoesNotExist {
		t.Errorf("Receive = %q, %v; want nothing or %s", bodies(r.ds), r.err, ErrQueueDoesNotExist)
	}
}

func TestLongPollEngineClosed(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	ch := startReceive(context.Background(), q, ReceiveOptions{WaitSeconds: ptr(20)})
	awaitParked(t, clk, q, 1)
	wantCode(t, e.Close(), "")
	r := awaitResult(t, ch)
	if len(r.ds) != 0 || r.err != nil {
		t.Errorf("Receive = %q, %v; want nothing", bodies(r.ds), r.err)
	}
}

func TestLongPollMessageBecomesVisible(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T, q *Queue) // before the receive parks
		during  func(t *testing.T, q *Queue) // once it is parked
		advance time.Duration
	}{
		{"delayed before the wait",
			func(t *testing.T, q *Queue) { send(t, q, NewMessage{Body: "m", DelaySeconds: ptr(5)}) },
			nil, 5 * time.Second},
		{"delayed during the wait",
			nil,
			func(t *testing.T, q *Queue) { send(t, q, NewMessage{Body: "m", DelaySeconds: ptr(5)}) },
			5 * time.Second},
		{"lease ends during the wait",
			func(t *testing.T, q *Queue) {
				sendBodies(t, q, "m")
				recvOne(t, q, ReceiveOptions{VisibilityTimeout: ptr(8)}, "m")
			},
			nil, 8 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, clk := newTestEngine(t, Options{})
			q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
			if tc.setup != nil {
				tc.setup(t, q)
			}
			ch := startReceive(context.Background(), q, ReceiveOptions{WaitSeconds: ptr(20)})
			awaitParked(t, clk, q, 1)
			if tc.during != nil {
				tc.during(t, q)
			}
			clk.Advance(tc.advance - time.Second)
			awaitParked(t, clk, q, 1)
			assertPending(t, ch)
			clk.Advance(time.Second)
			r := awaitResult(t, ch)
			wantCode(t, r.err, "")
			if got := bodies(r.ds); !slices.Equal(got, []string{"m"}) {
				t.Errorf("got %q, want [m]", got)
			}
		})
	}
}

// Dead-letter queues.

func TestDeadLetterRedrive(t *testing.T) {
	for _, tc := range []struct {
		name    string
		max     int
		release func(clk *ManualClock, q *Queue, d Delivery) error
	}{
		{"max 1 by timeout", 1, releaseByTimeout},
		{"max 2 by timeout", 2, releaseByTimeout},
		{"max 2 by change visibility", 2, releaseByChangeVisibility},
		{"max 5 by timeout", 5, releaseByTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, clk := newTestEngine(t, Options{})
			dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
			src := mustCreate(t, e, "src", AttributeUpdate{
				VisibilityTimeout: ptr(30),
				RedrivePolicy:     &RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: tc.max},
			}, nil)
			attrs := []MessageAttribute{{Name: "k", DataType: "String", StringValue: "v"}}
			sentAt := clk.Now()
			res := send(t, src, NewMessage{Body: "poison", Attributes: attrs})
			sendBodies(t, src, "healthy")

			var last Delivery
			for i := 1; i <= tc.max; i++ {
				last = recvOne(t, src, ReceiveOptions{}, "poison")
				if last.ReceiveCount != i {
					t.Fatalf("receive %d: ReceiveCount %d", i, last.ReceiveCount)
				}
				wantCode(t, tc.release(clk, src, last), "")
			}
			// The next receive moves it instead of returning it, and goes on
			// to the next message.
			recvOne(t, src, ReceiveOptions{}, "healthy")
			wantCounts(t, src, Counts{InFlight: 1})
			wantCode(t, ack(src, last.ReceiptHandle), ErrReceiptHandleStale)
			wantCounts(t, dlq, Counts{Visible: 1})

			d := recvOne(t, dlq, ReceiveOptions{}, "poison")
			if d.ID != res[0].MessageID || d.MD5OfBody != res[0].MD5OfBody {
				t.Errorf("DLQ message ID %s MD5 %s, want %s %s", d.ID, d.MD5OfBody, res[0].MessageID, res[0].MD5OfBody)
			}
			if d.DeadLetterSourceArn != src.Arn() {
				t.Errorf("DeadLetterSourceArn = %q, want %q", d.DeadLetterSourceArn, src.Arn())
			}
			if !attributesEqual(d.Attributes, attrs) {
				t.Errorf("DLQ attributes %+v", d.Attributes)
			}
			if !d.SentAt.Equal(sentAt) {
				t.Errorf("DLQ SentAt %v, want the original %v", d.SentAt, sentAt)
			}
			wantCode(t, ack(dlq, d.ReceiptHandle), "")
			wantCounts(t, dlq, Counts{})
		})
	}
}

func releaseByTimeout(clk *ManualClock, q *Queue, d Delivery) error {
	clk.Advance(30 * time.Second)
	return nil
}

func releaseByChangeVisibility(clk *ManualClock, q *Queue, d Delivery) error {
	return changeVis(q, d.ReceiptHandle, 0)
}

func TestDeadLetterNotBeforeMaxReceiveCount(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	src := mustCreate(t, e, "src", AttributeUpdate{
		VisibilityTimeout: ptr(30),
		RedrivePolicy:     &RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 3},
	}, nil)
	sendBodies(t, src, "m")
	recvOne(t, src, ReceiveOptions{}, "m")
	clk.Advance(30 * time.Second)
	d := recvOne(t, src, ReceiveOptions{}, "m")
	// Acknowledged before reaching the count: never dead-lettered.
	wantCode(t, ack(src, d.ReceiptHandle), "")
	clk.Advance(time.Hour)
	wantCounts(t, src, Counts{})
	wantCounts(t, dlq, Counts{})
}

func TestDeadLetterPolicyAddedLater(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	src := mustCreate(t, e, "src", AttributeUpdate{VisibilityTimeout: ptr(30)}, nil)
	sendBodies(t, src, "m")
	for range 3 {
		recvOne(t, src, ReceiveOptions{}, "m")
		clk.Advance(30 * time.Second)
	}
	wantCode(t, src.SetAttributes(AttributeUpdate{RedrivePolicy: &RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 2}}), "")
	recvNone(t, src)
	recvOne(t, dlq, ReceiveOptions{}, "m")
}

func TestDeadLetterWakesLongPollOnDLQ(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	src := mustCreate(t, e, "src", AttributeUpdate{
		RedrivePolicy: &RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 1},
	}, nil)
	sendBodies(t, src, "m")
	d := recvOne(t, src, ReceiveOptions{}, "m")
	wantCode(t, changeVis(src, d.ReceiptHandle, 0), "")
	ch := startReceive(context.Background(), dlq, ReceiveOptions{WaitSeconds: ptr(20)})
	awaitParked(t, clk, dlq, 1)
	recvNone(t, src)
	r := awaitResult(t, ch)
	if got := bodies(r.ds); r.err != nil || !slices.Equal(got, []string{"m"}) {
		t.Errorf("DLQ long poll got %q, %v", got, r.err)
	}
}

// rationedRandom reads crypto/rand, left more times if left is not -1, and
// fails every read after.
type rationedRandom struct {
	mu   sync.Mutex
	left int
}

func (r *rationedRandom) ration(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.left = n
}

func (r *rationedRandom) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.left == 0:
		return 0, errors.New("no randomness left")
	case r.left > 0:
		r.left--
	}
	return rand.Read(p)
}

// A receive that cannot make a receipt token fails whole, with the store
// unchanged: the messages it leased before the failure are as they were,
// and one it took for the dead-letter queue goes there rather than
// vanishing from both queues.
func TestReceiveTokenFailureChangesNothing(t *testing.T) {
	// failed runs a receive of q whose second token cannot be made.
	failed := func(t *testing.T, random *rationedRandom, q *Queue, attempt string) {
		t.Helper()
		random.ration(1)
		defer random.ration(-1)
		if ds, err := q.Receive(t.Context(), ReceiveOptions{MaxMessages: 10, WaitSeconds: ptr(0), AttemptID: attempt}); CodeOf(err) != ErrInternal {
			t.Fatalf("Receive: %q, %v; want %s", bodies(ds), err, ErrInternal)
		}
	}
	t.Run("standard", func(t *testing.T) {
		random := &rationedRandom{left: -1}
		e, clk := newTestEngine(t, Options{Random: random})
		dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
		src := mtSource(t, e, "src", dlq, AttributeUpdate{})
		sendBodies(t, src, "poison")
		recvOne(t, src, ReceiveOptions{}, "poison")
		clk.Advance(30 * time.Second) // its lease ends: it is first, for the dead-letter queue
		sendBodies(t, src, "a", "b")
		failed(t, random, src, "") // a's token, not b's
		wantCounts(t, src, Counts{Visible: 2})
		wantCounts(t, dlq, Counts{Visible: 1})
		ds := recvNow(t, src, ReceiveOptions{MaxMessages: 10})
		if got := bodies(ds); !slices.Equal(got, []string{"a", "b"}) {
			t.Fatalf("Receive after the failure got %q, want [a b] in order", got)
		}
		for _, d := range ds {
			if d.ReceiveCount != 1 {
				t.Errorf("%s: ReceiveCount %d, want 1: the failed receive counted", d.Body, d.ReceiveCount)
			}
		}
		recvOne(t, dlq, ReceiveOptions{}, "poison")
	})
	t.Run("FIFO", func(t *testing.T) {
		// A group's messages go back in their order, the group free, and
		// the attempt id names no delivery.
		random := &rationedRandom{left: -1}
		e, _ := newTestEngine(t, Options{Random: random})
		f := ffQueue(t, e, "f", AttributeUpdate{})
		for _, body := range []string{"c", "d"} {
			wantCode(t, ffSendOne(f, ffMsg("g", body)).Err, "")
		}
		failed(t, random, f, "x")
		wantCounts(t, f, Counts{Visible: 2})
		if got := bodies(recvNow(t, f, ReceiveOptions{MaxMessages: 10, AttemptID: "x"})); !slices.Equal(got, []string{"c", "d"}) {
			t.Fatalf("Receive after the failure got %q, want [c d]", got)
		}
	})
}

// TestReceiptHandleStartsWithA checks that no handle starts with "-", which
// the aws CLI would take for a flag in --receipt-handle -....
func TestReceiptHandleStartsWithA(t *testing.T) {
	var qid [16]byte
	var token [tokenLen]byte
	for i := range 256 {
		qid[0], token[0] = byte(i), byte(255-i)
		h := encodeReceiptHandle(qid, uint64(i)<<56, token)
		if h[0] != 'A' {
			t.Fatalf("handle %q does not start with A", h)
		}
		if gotQ, seq, tok, err := decodeReceiptHandle(h); err != nil || gotQ != qid || seq != uint64(i)<<56 || tok != token {
			t.Fatalf("round trip of %q: %v %v %v %v", h, gotQ, seq, tok, err)
		}
	}
}
