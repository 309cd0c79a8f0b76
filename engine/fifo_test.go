package engine

// FIFO queues and fair queues: required parameters, id formats, the
// deduplication and receive-attempt windows, group ordering and blocking,
// dead-letter redrive and the FIFO settings' rules. Time moves only through
// the ManualClock.
//
// Helpers here are prefixed with "ff" to keep clear of other test files.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"
)

// ffQueue creates a FIFO queue called name (".fifo" is added).
func ffQueue(t testing.TB, e *Engine, name string, u AttributeUpdate) *Queue {
	t.Helper()
	u.FifoQueue = ptr(true)
	return mustCreate(t, e, name+".fifo", u, nil)
}

// ffMsg is a FIFO message whose deduplication id is its body.
func ffMsg(group, body string) NewMessage {
	return NewMessage{Body: body, GroupID: group, DeduplicationID: body}
}

func ffSendOne(q *Queue, m NewMessage) SendResult { return q.Send([]NewMessage{m})[0] }

// ffGroups splits the bodies of ds by group, keeping their order.
func ffGroups(ds []Delivery) map[string][]string {
	out := map[string][]string{}
	for _, d := range ds {
		out[d.GroupID] = append(out[d.GroupID], d.Body)
	}
	return out
}

func ffHandles(ds []Delivery) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.ReceiptHandle
	}
	return out
}

func ffIDs(ds []Delivery) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.ID
	}
	return out
}

func ffWantBodies(t testing.TB, ds []Delivery, want ...string) {
	t.Helper()
	if got := bodies(ds); !slices.Equal(got, want) {
		t.Fatalf("received %q, want %q", got, want)
	}
}

// ffSeq parses a sequence number, which SQS gives as a decimal string.
func ffSeq(t testing.TB, s string) *big.Int {
	t.Helper()
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || n.Sign() <= 0 {
		t.Fatalf("SequenceNumber %q is not a positive decimal number", s)
	}
	return n
}

func TestFIFOSendRequiredParameters(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := ffQueue(t, e, "plain", AttributeUpdate{})

	r := ffSendOne(q, NewMessage{Body: "x", DeduplicationID: "d"})
	wantCode(t, r.Err, ErrMissingParameter)
	if !strings.Contains(r.Err.Error(), "MessageGroupId") {
		t.Errorf("missing group error %q does not name MessageGroupId", r.Err)
	}
	r = ffSendOne(q, NewMessage{Body: "x", GroupID: "g"})
	wantCode(t, r.Err, ErrInvalidParameterValue)
	wantCounts(t, q, Counts{})

	r = ffSendOne(q, NewMessage{Body: "x", GroupID: "g", DeduplicationID: "d"})
	wantCode(t, r.Err, "")
	wantCounts(t, q, Counts{Visible: 1})

	// A batch fails only its bad entries.
	res := q.Send([]NewMessage{
		{Body: "ok1", GroupID: "g", DeduplicationID: "1"},
		{Body: "no group", DeduplicationID: "2"},
		{Body: "no dedup", GroupID: "g"},
		{Body: "ok2", GroupID: "g", DeduplicationID: "3"},
	})
	wantCode(t, res[0].Err, "")
	wantCode(t, res[1].Err, ErrMissingParameter)
	wantCode(t, res[2].Err, ErrInvalidParameterValue)
	wantCode(t, res[3].Err, "")
	ffWantBodies(t, recvNow(t, q, ReceiveOptions{MaxMessages: 10}), "x", "ok1", "ok2")

	// Content-based deduplication makes the id optional, but not the group.
	cb := ffQueue(t, e, "content", AttributeUpdate{ContentBasedDeduplication: ptr(true)})
	wantCode(t, ffSendOne(cb, NewMessage{Body: "x", GroupID: "g"}).Err, "")
	wantCode(t, ffSendOne(cb, NewMessage{Body: "y"}).Err, ErrMissingParameter)

	// Turning content-based deduplication on later lifts the requirement.
	late := ffQueue(t, e, "late", AttributeUpdate{})
	wantCode(t, ffSendOne(late, NewMessage{Body: "x", GroupID: "g"}).Err, ErrInvalidParameterValue)
	wantCode(t, late.SetAttributes(AttributeUpdate{ContentBasedDeduplication: ptr(true)}), "")
	wantCode(t, ffSendOne(late, NewMessage{Body: "x", GroupID: "g"}).Err, "")

	// A standard queue refuses a deduplication id.
	std := mustCreate(t, e, "std", AttributeUpdate{}, nil)
	wantCode(t, ffSendOne(std, NewMessage{Body: "x", DeduplicationID: "d"}).Err, ErrInvalidParameterValue)
	wantCode(t, ffSendOne(std, NewMessage{Body: "x", GroupID: "g", DeduplicationID: "d"}).Err, ErrInvalidParameterValue)
	wantCounts(t, std, Counts{})
}

func TestFIFOPerMessageDelayRefused(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := ffQueue(t, e, "q", AttributeUpdate{})
	for _, d := range []int{1, 5, 900} {
		m := ffMsg("g", fmt.Sprintf("delay-%d", d))
		m.DelaySeconds = ptr(d)
		r := ffSendOne(q, m)
		wantCode(t, r.Err, ErrInvalidParameterValue)
		if !strings.Contains(r.Err.Error(), "DelaySeconds") {
			t.Errorf("error %q does not name DelaySeconds", r.Err)
		}
	}
	wantCounts(t, q, Counts{})

	// A queue-level delay is allowed on a FIFO queue and applies.
	wantCode(t, q.SetAttributes(AttributeUpdate{DelaySeconds: ptr(10)}), "")
	send(t, q, ffMsg("g", "queue-delay"))
	wantCounts(t, q, Counts{Delayed: 1})

	// DelaySeconds=0 is accepted by SQS on a FIFO queue and ignored: the
	// queue's delay still applies (elasticmq#273, localstack#6612 and
	// localstack#12941, checked against AWS).
	m := ffMsg("g", "zero")
	m.DelaySeconds = ptr(0)
	r := ffSendOne(q, m)
	wantCode(t, r.Err, "")
	wantCounts(t, q, Counts{Delayed: 2})
	clk.Advance(10 * time.Second)
	wantCounts(t, q, Counts{Visible: 2})
	ffWantBodies(t, recvNow(t, q, ReceiveOptions{MaxMessages: 10}), "queue-delay", "zero")
}

func TestFIFOIDFormat(t *testing.T) {
	valid := []string{
		"a", "Z9", strings.Repeat("x", 128),
		"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
		"order-42_eu.west:1",
	}
	invalid := []string{
		strings.Repeat("x", 129), "has space", " lead", "tab\t", "new\nline",
		"caf\u00e9", "\u65e5\u672c", "del\x7f", "nul\x00",
	}
	e, _ := newTestEngine(t, Options{})
	q := ffQueue(t, e, "ids", AttributeUpdate{})
	std := mustCreate(t, e, "std", AttributeUpdate{}, nil)
	n := 0
	uniq := func() string { n++; return fmt.Sprintf("u%d", n) }
	check := func(param, v string, want Code) {
		t.Helper()
		var err error
		switch param {
		case "MessageGroupId":
			err = ffSendOne(q, NewMessage{Body: "b", GroupID: v, DeduplicationID: uniq()}).Err
		case "MessageDeduplicationId":
			err = ffSendOne(q, NewMessage{Body: "b", GroupID: uniq(), DeduplicationID: v}).Err
		case "fair MessageGroupId":
			err = ffSendOne(std, NewMessage{Body: "b", GroupID: v}).Err
		case "ReceiveRequestAttemptId":
			_, err = q.Receive(context.Background(), ReceiveOptions{WaitSeconds: ptr(0), AttemptID: v})
		}
		if want == "" && err != nil || want != "" && CodeOf(err) != want {
			t.Errorf("%s %q: got %v, want %q", param, v, err, want)
		}
	}
	for _, param := range []string{"MessageGroupId", "MessageDeduplicationId", "fair MessageGroupId", "ReceiveRequestAttemptId"} {
		for _, v := range valid {
			check(param, v, "")
		}
		for _, v := range invalid {
			check(param, v, ErrInvalidParameterValue)
		}
	}
	// Only the valid sends were stored: 5 group ids and 5 dedup ids, and
	// the receives above each took one of them.
	c := q.Counts()
	if c.Visible+c.InFlight != 2*len(valid) {
		t.Errorf("FIFO queue holds %+v, want %d messages", c, 2*len(valid))
	}
	wantCounts(t, std, Counts{Visible: len(valid)})
}

func TestFIFODeduplicationWindow(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := ffQueue(t, e, "q", AttributeUpdate{})
	first := send(t, q, NewMessage{Body: "first", GroupID: "g", DeduplicationID: "d1"})[0]
	if first.SequenceNumber == "" {
		t.Fatal("FIFO send returned no SequenceNumber")
	}
	dup := func(body string) SendResult {
		t.Helper()
		return send(t, q, NewMessage{Body: body, GroupID: "g", DeduplicationID: "d1"})[0]
	}
	r := dup("second")
	if r.MessageID != first.MessageID || r.SequenceNumber != first.SequenceNumber {
		t.Fatalf("duplicate got id %s seq %s, want the first's %s %s", r.MessageID, r.SequenceNumber, first.MessageID, first.SequenceNumber)
	}
	wantCounts(t, q, Counts{Visible: 1})

	clk.Advance(5*time.Minute - time.Second)
	r = dup("still inside")
	if r.MessageID != first.MessageID {
		t.Fatalf("duplicate at 4m59s stored as %s", r.MessageID)
	}
	wantCounts(t, q, Counts{Visible: 1})

	// Five minutes after the first send, the id is new again.
	clk.Advance(time.Second)
	third := dup("third")
	if third.MessageID == first.MessageID {
		t.Fatal("send 5 minutes later was deduplicated")
	}
	if ffSeq(t, third.SequenceNumber).Cmp(ffSeq(t, first.SequenceNumber)) <= 0 {
		t.Errorf("SequenceNumber %s not after %s", third.SequenceNumber, first.SequenceNumber)
	}
	wantCounts(t, q, Counts{Visible: 2})
	// And the new send opens a window of its own.
	clk.Advance(time.Minute)
	if r := dup("fourth"); r.MessageID != third.MessageID {
		t.Errorf("repeat of the renewed id stored as %s, want %s", r.MessageID, third.MessageID)
	}
	ds := recvNow(t, q, ReceiveOptions{MaxMessages: 10})
	ffWantBodies(t, ds, "first", "third")
	if ds[0].ID != first.MessageID || ds[0].SequenceNumber != first.SequenceNumber || ds[0].DeduplicationID != "d1" {
		t.Errorf("delivery %+v does not match the first send %+v", ds[0].Message, first)
	}
}

func TestFIFODedupSurvivesDeletion(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := ffQueue(t, e, "q", AttributeUpdate{})
	first := send(t, q, ffMsg("g", "m"))[0]
	d := recvOne(t, q, ReceiveOptions{}, "m")
	wantCode(t, ack(q, d.ReceiptHandle), "")
	wantCounts(t, q, Counts{})

	clk.Advance(time.Minute)
	r := send(t, q, ffMsg("g", "m"))[0]
	if r.MessageID != first.MessageID || r.SequenceNumber != first.SequenceNumber {
		t.Fatalf("resend after deletion got %s/%s, want the first %s/%s", r.MessageID, r.SequenceNumber, first.MessageID, first.SequenceNumber)
	}
	wantCounts(t, q, Counts{})
	recvNone(t, q)

	clk.Advance(4 * time.Minute)
	r = send(t, q, ffMsg("g", "m"))[0]
	if r.MessageID == first.MessageID {
		t.Fatal("resend after the window was deduplicated")
	}
	recvOne(t, q, ReceiveOptions{}, "m")
}

func TestFIFOContentBasedDedup(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := ffQueue(t, e, "q", AttributeUpdate{ContentBasedDeduplication: ptr(true)})
	x1 := send(t, q, NewMessage{Body: "x", GroupID: "g"})[0]
	x2 := send(t, q, NewMessage{Body: "x", GroupID: "g"})[0]
	if x2.MessageID != x1.MessageID || x2.SequenceNumber != x1.SequenceNumber {
		t.Fatalf("same body got %s, want %s", x2.MessageID, x1.MessageID)
	}
	// Same body in another group: the scope is the queue.
	if x3 := send(t, q, NewMessage{Body: "x", GroupID: "other"})[0]; x3.MessageID != x1.MessageID {
		t.Errorf("same body in another group stored as %s", x3.MessageID)
	}
	y := send(t, q, NewMessage{Body: "y", GroupID: "g"})[0]
	if y.MessageID == x1.MessageID {
		t.Fatal("different body deduplicated")
	}
	// An explicit id takes precedence over the body's hash.
	ex := send(t, q, NewMessage{Body: "x", GroupID: "g", DeduplicationID: "explicit"})[0]
	if ex.MessageID == x1.MessageID {
		t.Fatal("explicit deduplication id ignored")
	}
	if r := send(t, q, NewMessage{Body: "z", GroupID: "g", DeduplicationID: "explicit"})[0]; r.MessageID != ex.MessageID {
		t.Errorf("repeated explicit id stored as %s", r.MessageID)
	}
	wantCounts(t, q, Counts{Visible: 3})

	ds := recvNow(t, q, ReceiveOptions{MaxMessages: 10})
	ffWantBodies(t, ds, "x", "y", "x")
	sum := sha256.Sum256([]byte("x"))
	if want := hex.EncodeToString(sum[:]); ds[0].DeduplicationID != want {
		t.Errorf("content-based MessageDeduplicationId = %q, want SHA-256 of the body %q", ds[0].DeduplicationID, want)
	}
	if ds[2].DeduplicationID != "explicit" {
		t.Errorf("explicit MessageDeduplicationId = %q", ds[2].DeduplicationID)
	}
}

func TestFIFODeduplicationScope(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	group := ffQueue(t, e, "group", AttributeUpdate{DeduplicationScope: ptr(DeduplicationScopeMessageGroup)})
	a := send(t, group, NewMessage{Body: "a", GroupID: "g1", DeduplicationID: "d"})[0]
	b := send(t, group, NewMessage{Body: "b", GroupID: "g2", DeduplicationID: "d"})[0]
	if a.MessageID == b.MessageID {
		t.Fatal("messageGroup scope: same id in two groups deduplicated")
	}
	if r := send(t, group, NewMessage{Body: "c", GroupID: "g1", DeduplicationID: "d"})[0]; r.MessageID != a.MessageID {
		t.Errorf("messageGroup scope: repeat in g1 stored as %s, want %s", r.MessageID, a.MessageID)
	}
	if r := send(t, group, NewMessage{Body: "c", GroupID: "g2", DeduplicationID: "d"})[0]; r.MessageID != b.MessageID {
		t.Errorf("messageGroup scope: repeat in g2 stored as %s, want %s", r.MessageID, b.MessageID)
	}
	wantCounts(t, group, Counts{Visible: 2})

	queue := ffQueue(t, e, "queue", AttributeUpdate{DeduplicationScope: ptr(DeduplicationScopeQueue)})
	a = send(t, queue, NewMessage{Body: "a", GroupID: "g1", DeduplicationID: "d"})[0]
	b = send(t, queue, NewMessage{Body: "b", GroupID: "g2", DeduplicationID: "d"})[0]
	if a.MessageID != b.MessageID {
		t.Fatal("queue scope: same id in another group stored")
	}
	wantCounts(t, queue, Counts{Visible: 1})
	d := recvOne(t, queue, ReceiveOptions{}, "a")
	if d.GroupID != "g1" {
		t.Errorf("GroupID %q", d.GroupID)
	}
}

func TestFIFOSequenceNumbers(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := ffQueue(t, e, "q", AttributeUpdate{})
	var results []SendResult
	results = append(results, send(t, q, ffMsg("a", "1"))...)
	results = append(results, send(t, q, ffMsg("b", "2"), ffMsg("a", "3"), ffMsg("b", "4"))...)
	results = append(results, send(t, q, ffMsg("a", "5"))...)
	seqByID := map[string]string{}
	for i, r := range results {
		seqByID[r.MessageID] = r.SequenceNumber
		if i > 0 && ffSeq(t, r.SequenceNumber).Cmp(ffSeq(t, results[i-1].SequenceNumber)) <= 0 {
			t.Errorf("SequenceNumber %d (%s) not after %s", i, r.SequenceNumber, results[i-1].SequenceNumber)
		}
	}
	ds := recvNow(t, q, ReceiveOptions{MaxMessages: 10})
	if len(ds) != 5 {
		t.Fatalf("received %q", bodies(ds))
	}
	for _, d := range ds {
		if d.SequenceNumber != seqByID[d.ID] {
			t.Errorf("message %s delivered with SequenceNumber %q, sent with %q", d.Body, d.SequenceNumber, seqByID[d.ID])
		}
	}
	// A redelivery keeps its sequence number.
	for _, d := range ds {
		wantCode(t, changeVis(q, d.ReceiptHandle, 0), "")
	}
	again := recvNow(t, q, ReceiveOptions{MaxMessages: 10})
	if len(again) != len(ds) {
		t.Fatalf("redelivery got %q", bodies(again))
	}
	for _, d := range again {
		if d.SequenceNumber != seqByID[d.ID] {
			t.Errorf("message %s redelivered with SequenceNumber %q, sent with %q", d.Body, d.SequenceNumber, seqByID[d.ID])
		}
	}

	// Standard queues have none.
	std := mustCreate(t, e, "std", AttributeUpdate{}, nil)
	if r := sendBodies(t, std, "s")[0]; r.SequenceNumber != "" {
		t.Errorf("standard send SequenceNumber %q", r.SequenceNumber)
	}
	if d := recvOne(t, std, ReceiveOptions{}, "s"); d.SequenceNumber != "" {
		t.Errorf("standard delivery SequenceNumber %q", d.SequenceNumber)
	}
}

func TestFIFOGroupOrderAcrossReceives(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := ffQueue(t, e, "q", AttributeUpdate{})
	send(t, q, ffMsg("g", "m1"), ffMsg("g", "m2"), ffMsg("g", "m3"), ffMsg("g", "m4"), ffMsg("g", "m5"))

	m1 := recvOne(t, q, ReceiveOptions{}, "m1")
	if m1.GroupID != "g" || m1.DeduplicationID != "m1" {
		t.Errorf("delivery GroupID %q DeduplicationID %q", m1.GroupID, m1.DeduplicationID)
	}
	recvNone(t, q) // the group is blocked while m1 is in flight
	wantCode(t, ack(q, m1.ReceiptHandle), "")

	ds := recvNow(t, q, ReceiveOptions{MaxMessages: 2})
	ffWantBodies(t, ds, "m2", "m3")
	recvNone(t, q)
	wantCode(t, ack(q, ds[0].ReceiptHandle), "")
	recvNone(t, q) // m3 still holds the group
	wantCode(t, ack(q, ds[1].ReceiptHandle), "")

	ffWantBodies(t, recvNow(t, q, ReceiveOptions{MaxMessages: 10}), "m4", "m5")
	wantCounts(t, q, Counts{InFlight: 2})
}

func TestFIFORedeliveryOrder(t *testing.T) {
	t.Run("visibility timeout", func(t *testing.T) {
		e, clk := newTestEngine(t, Options{})
		q := ffQueue(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(30)})
		send(t, q, ffMsg("g", "a"), ffMsg("g", "b"), ffMsg("g", "c"))
		first := recvNow(t, q, ReceiveOptions{MaxMessages: 2})
		ffWantBodies(t, first, "a", "b")
		clk.Advance(29 * time.Second)
		recvNone(t, q)
		clk.Advance(time.Second)
		ds := recvNow(t, q, ReceiveOptions{MaxMessages: 10})
		ffWantBodies(t, ds, "a", "b", "c")
		for i, want := range []int{2, 2, 1} {
			if ds[i].ReceiveCount != want {
				t.Errorf("%s ReceiveCount %d, want %d", ds[i].Body, ds[i].ReceiveCount, want)
			}
		}
		wantCode(t, ack(q, first[0].ReceiptHandle), ErrReceiptHandleStale)
	})
	t.Run("change visibility 0", func(t *testing.T) {
		e, _ := newTestEngine(t, Options{})
		q := ffQueue(t, e, "q", AttributeUpdate{})
		send(t, q, ffMsg("g", "a"), ffMsg("g", "b"), ffMsg("g", "c"))
		a := recvOne(t, q, ReceiveOptions{}, "a")
		wantCode(t, changeVis(q, a.ReceiptHandle, 0), "")
		ffWantBodies(t, recvNow(t, q, ReceiveOptions{MaxMessages: 10}), "a", "b", "c")
	})
	t.Run("released message waits for the rest of its receive", func(t *testing.T) {
		e, _ := newTestEngine(t, Options{})
		q := ffQueue(t, e, "q", AttributeUpdate{})
		send(t, q, ffMsg("g", "a"), ffMsg("g", "b"), ffMsg("g", "c"))
		ds := recvNow(t, q, ReceiveOptions{MaxMessages: 2})
		ffWantBodies(t, ds, "a", "b")
		wantCode(t, changeVis(q, ds[1].ReceiptHandle, 0), "")
		recvNone(t, q) // a is still in flight
		wantCounts(t, q, Counts{Visible: 2, InFlight: 1})
		wantCode(t, ack(q, ds[0].ReceiptHandle), "")
		again := recvNow(t, q, ReceiveOptions{MaxMessages: 10})
		ffWantBodies(t, again, "b", "c")
		if again[0].ReceiveCount != 2 {
			t.Errorf("b ReceiveCount %d", again[0].ReceiveCount)
		}
	})
	t.Run("after acknowledging the head", func(t *testing.T) {
		e, clk := newTestEngine(t, Options{})
		q := ffQueue(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(30)})
		send(t, q, ffMsg("g", "a"), ffMsg("g", "b"), ffMsg("g", "c"))
		ds := recvNow(t, q, ReceiveOptions{MaxMessages: 2})
		wantCode(t, ack(q, ds[0].ReceiptHandle), "")
		clk.Advance(30 * time.Second)
		ffWantBodies(t, recvNow(t, q, ReceiveOptions{MaxMessages: 10}), "b", "c")
	})
	t.Run("only the expired group returns", func(t *testing.T) {
		e, clk := newTestEngine(t, Options{})
		q := ffQueue(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(30)})
		send(t, q, ffMsg("g1", "a1"), ffMsg("g1", "a2"))
		a := recvNow(t, q, ReceiveOptions{})
		ffWantBodies(t, a, "a1")
		clk.Advance(10 * time.Second)
		send(t, q, ffMsg("g2", "b1"), ffMsg("g2", "b2"))
		b := recvNow(t, q, ReceiveOptions{})
		ffWantBodies(t, b, "b1")
		clk.Advance(20 * time.Second) // a1's lease ends, b1's does not
		ffWantBodies(t, recvNow(t, q, ReceiveOptions{MaxMessages: 10}), "a1", "a2")
	})
}

func TestFIFOReceiveSeveralGroups(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := ffQueue(t, e, "q", AttributeUpdate{})
	want := map[string][]string{
		"g1": {"a1", "a2", "a3"},
		"g2": {"b1", "b2"},
		"g3": {"c1"},
	}
	send(t, q, ffMsg("g1", "a1"), ffMsg("g2", "b1"), ffMsg("g1", "a2"), ffMsg("g3", "c1"), ffMsg("g2", "b2"), ffMsg("g1", "a3"))

	ds := recvNow(t, q, ReceiveOptions{MaxMessages: 10})
	got := ffGroups(ds)
	for g, w := range want {
		if !slices.Equal(got[g], w) {
			t.Errorf("group %s received %q, want %q (all: %q)", g, got[g], w, bodies(ds))
		}
	}
	recvNone(t, q)
	// A group's messages come as a run, in order: one group is taken from
	// until it has nothing more, then the next.
	for i := 1; i < len(ds); i++ {
		if ds[i].GroupID != ds[i-1].GroupID {
			if slices.ContainsFunc(ds[:i-1], func(d Delivery) bool { return d.GroupID == ds[i].GroupID }) {
				t.Errorf("group %s interleaved with others: %q", ds[i].GroupID, bodies(ds))
			}
		}
	}
}

func TestFIFOReceivePartialGroups(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := ffQueue(t, e, "q", AttributeUpdate{})
	want := map[string][]string{}
	var msgs []NewMessage
	for i := range 4 {
		for g := range 3 {
			group := fmt.Sprintf("g%d", g)
			body := fmt.Sprintf("%s-%d", group, i)
			want[group] = append(want[group], body)
			msgs = append(msgs, ffMsg(group, body))
		}
	}
	send(t, q, msgs...)

	// Each receive returns, for each group it touches, the next messages of
	// that group in order; a group it touched gives nothing more until its
	// messages are acknowledged.
	next := map[string]int{}
	var held []Delivery
	done := func() bool { return next["g0"] == 4 && next["g1"] == 4 && next["g2"] == 4 }
	for round := 0; round < 30 && !done(); round++ {
		ds := recvNow(t, q, ReceiveOptions{MaxMessages: 5})
		if len(ds) == 0 {
			if len(held) == 0 {
				t.Fatalf("nothing received and nothing in flight; delivered so far %v", next)
			}
			wantCode(t, q.Acknowledge(ffHandles(held))[0], "")
			held = nil
			continue
		}
		for g, bs := range ffGroups(ds) {
			if slices.ContainsFunc(held, func(d Delivery) bool { return d.GroupID == g }) {
				t.Fatalf("group %s delivered while in flight", g)
			}
			for _, b := range bs {
				if want[g][next[g]] != b {
					t.Fatalf("group %s: got %s, want %s", g, b, want[g][next[g]])
				}
				next[g]++
			}
		}
		held = append(held, ds...)
	}
	for g := range want {
		if next[g] != 4 {
			t.Errorf("group %s: delivered %d of 4", g, next[g])
		}
	}
}

func TestFIFODelayedMessagesDoNotBlockGroup(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := ffQueue(t, e, "q", AttributeUpdate{DelaySeconds: ptr(60), VisibilityTimeout: ptr(300)})
	send(t, q, ffMsg("g", "late"))
	wantCode(t, q.SetAttributes(AttributeUpdate{DelaySeconds: ptr(0)}), "")
	send(t, q, ffMsg("g", "now"))
	wantCounts(t, q, Counts{Visible: 1, Delayed: 1})

	d := recvOne(t, q, ReceiveOptions{MaxMessages: 10}, "now")
	clk.Advance(60 * time.Second)
	wantCounts(t, q, Counts{Visible: 1, InFlight: 1})
	// "late" was sent first: "now" in flight holds back only the messages
	// sent after it, as AWS delivers a group's visible messages ahead of
	// its first in flight (LocalStack's test_fifo_group_visibility_extends_
	// with_change_message_visibility, validated against AWS).
	late := recvOne(t, q, ReceiveOptions{}, "late")
	send(t, q, ffMsg("g", "later"))
	recvNone(t, q) // both in flight hold "later" back
	wantCode(t, ack(q, late.ReceiptHandle), "")
	recvNone(t, q) // "now" still does
	wantCode(t, ack(q, d.ReceiptHandle), "")
	recvOne(t, q, ReceiveOptions{}, "later")
}

func TestFIFOReceiveAttemptID(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := ffQueue(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(30)})
	send(t, q, ffMsg("g1", "a1"), ffMsg("g2", "b1"), ffMsg("g1", "a2"))
	opts := ReceiveOptions{MaxMessages: 10, AttemptID: "attempt-1"}

	first := recvNow(t, q, opts)
	if len(first) != 3 {
		t.Fatalf("first receive got %q", bodies(first))
	}
	again := recvNow(t, q, opts)
	if !slices.Equal(ffIDs(again), ffIDs(first)) || !slices.Equal(ffHandles(again), ffHandles(first)) {
		t.Fatalf("retry got %q, want the same messages and handles as %q", bodies(again), bodies(first))
	}
	wantCounts(t, q, Counts{InFlight: 3})
	// Another attempt id is a new receive: every group is in flight.
	recvNone(t, q)
	if ds := recvNow(t, q, ReceiveOptions{MaxMessages: 10, AttemptID: "attempt-2"}); len(ds) != 0 {
		t.Fatalf("new attempt got %q", bodies(ds))
	}

	// A retry restarts the visibility timeout.
	clk.Advance(20 * time.Second)
	recvNow(t, q, opts)
	clk.Advance(20 * time.Second) // 40 s after the first receive, 20 after the retry
	wantCounts(t, q, Counts{InFlight: 3})

	// After one is acknowledged, a retry returns the rest.
	wantCode(t, ack(q, first[0].ReceiptHandle), "")
	rest := recvNow(t, q, opts)
	if !slices.Equal(ffHandles(rest), ffHandles(first[1:])) {
		t.Fatalf("retry after acknowledging %s got %q, want %q", first[0].Body, bodies(rest), bodies(first[1:]))
	}

	// Five minutes on, the attempt id is forgotten and the receive is new.
	clk.Advance(5 * time.Minute)
	fresh := recvNow(t, q, opts)
	if len(fresh) != 2 {
		t.Fatalf("receive after the window got %q", bodies(fresh))
	}
	for _, d := range fresh {
		if slices.Contains(ffHandles(first), d.ReceiptHandle) {
			t.Errorf("%s: old receipt handle returned after the window", d.Body)
		}
		if d.ReceiveCount < 2 {
			t.Errorf("%s: ReceiveCount %d after a new receive", d.Body, d.ReceiveCount)
		}
	}
	wantCode(t, ack(q, first[1].ReceiptHandle), ErrReceiptHandleStale)
	// The new receive made a new attempt: retrying it returns its handles.
	if r := recvNow(t, q, opts); !slices.Equal(ffHandles(r), ffHandles(fresh)) {
		t.Errorf("retry of the new attempt got %q", bodies(r))
	}
}

func TestFIFOReceiveAttemptIDAfterAllAcknowledged(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := ffQueue(t, e, "q", AttributeUpdate{})
	send(t, q, ffMsg("g", "a"), ffMsg("g", "b"))
	opts := ReceiveOptions{AttemptID: "x"}
	a := recvOne(t, q, opts, "a")
	wantCode(t, ack(q, a.ReceiptHandle), "")
	// Nothing of the attempt is left in flight: the retry must not return a
	// deleted message.
	for _, d := range recvNow(t, q, opts) {
		if d.Body == "a" {
			t.Fatal("retry returned an acknowledged message")
		}
	}
}

func TestFIFODeadLetterQueueMustBeFIFO(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	stdDLQ := mustCreate(t, e, "std-dlq", AttributeUpdate{}, nil)
	fifoDLQ := ffQueue(t, e, "dlq", AttributeUpdate{})

	_, err := e.CreateQueue("src.fifo", AttributeUpdate{FifoQueue: ptr(true), RedrivePolicy: &RedrivePolicy{DeadLetterTargetArn: stdDLQ.Arn(), MaxReceiveCount: 3}}, nil)
	wantCode(t, err, ErrInvalidParameterValue)
	if _, err := e.Queue("src.fifo"); CodeOf(err) != ErrQueueDoesNotExist {
		t.Errorf("refused CreateQueue left the queue: %v", err)
	}
	_, err = e.CreateQueue("src", AttributeUpdate{RedrivePolicy: &RedrivePolicy{DeadLetterTargetArn: fifoDLQ.Arn(), MaxReceiveCount: 3}}, nil)
	wantCode(t, err, ErrInvalidParameterValue)

	src := ffQueue(t, e, "src", AttributeUpdate{})
	wantCode(t, src.SetAttributes(AttributeUpdate{RedrivePolicy: &RedrivePolicy{DeadLetterTargetArn: stdDLQ.Arn(), MaxReceiveCount: 3}}), ErrInvalidParameterValue)
	if src.Attributes().RedrivePolicy != nil {
		t.Error("refused SetAttributes set a RedrivePolicy")
	}
	wantCode(t, src.SetAttributes(AttributeUpdate{RedrivePolicy: &RedrivePolicy{DeadLetterTargetArn: fifoDLQ.Arn(), MaxReceiveCount: 3}}), "")
}

func TestFIFODeadLetterRedriveKeepsGroupOrder(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	dlq := ffQueue(t, e, "dlq", AttributeUpdate{})
	src := ffQueue(t, e, "src", AttributeUpdate{
		VisibilityTimeout: ptr(30),
		RedrivePolicy:     &RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 1},
	})
	sent := send(t, src, ffMsg("g1", "a1"), ffMsg("g1", "a2"), ffMsg("g2", "b1"), ffMsg("g1", "a3"))
	ids := map[string]string{"a1": sent[0].MessageID, "a2": sent[1].MessageID, "b1": sent[2].MessageID, "a3": sent[3].MessageID}

	// a1, the head of g1, is received once and not deleted.
	recvOne(t, src, ReceiveOptions{}, "a1")
	clk.Advance(30 * time.Second)
	// The next receive moves it and goes on with the rest of its group.
	ds := recvNow(t, src, ReceiveOptions{MaxMessages: 10})
	if g := ffGroups(ds); !slices.Equal(g["g1"], []string{"a2", "a3"}) || !slices.Equal(g["g2"], []string{"b1"}) {
		t.Fatalf("source receive after the move got %q", bodies(ds))
	}
	wantCounts(t, dlq, Counts{Visible: 1})
	// None is deleted: the next receive moves all three, keeping order.
	clk.Advance(30 * time.Second)
	recvNone(t, src)
	wantCounts(t, src, Counts{})
	wantCounts(t, dlq, Counts{Visible: 4})

	got := recvNow(t, dlq, ReceiveOptions{MaxMessages: 10})
	g := ffGroups(got)
	if !slices.Equal(g["g1"], []string{"a1", "a2", "a3"}) || !slices.Equal(g["g2"], []string{"b1"}) {
		t.Fatalf("DLQ received %q (by group %v)", bodies(got), g)
	}
	for _, d := range got {
		if d.ID != ids[d.Body] {
			t.Errorf("%s: DLQ message id %s, want the original %s", d.Body, d.ID, ids[d.Body])
		}
		if d.DeadLetterSourceArn != src.Arn() {
			t.Errorf("%s: DeadLetterSourceArn %q", d.Body, d.DeadLetterSourceArn)
		}
		// In a FIFO dead-letter queue the deduplication id (the body
		// here, see ffMsg) is replaced by the message id, as SQS does.
		if d.DeduplicationID != d.ID || d.DeduplicationID == d.Body {
			t.Errorf("%s: DeduplicationID %q, want the message id %s", d.Body, d.DeduplicationID, d.ID)
		}
	}
	// The DLQ is FIFO: its groups block while in flight.
	recvNone(t, dlq)
	byBody := map[string]Delivery{}
	for _, d := range got {
		byBody[d.Body] = d
	}
	// Released, a1 is delivered again though a2 and a3, sent after it,
	// are still in flight (LocalStack's test_fifo_message_group_visibility_
	// after_terminate_visibility_timeout, validated against AWS).
	wantCode(t, changeVis(dlq, byBody["a1"].ReceiptHandle, 0), "")
	again := recvOne(t, dlq, ReceiveOptions{MaxMessages: 10}, "a1")
	for _, b := range []string{"a2", "a3", "b1"} {
		wantCode(t, ack(dlq, byBody[b].ReceiptHandle), "")
	}
	recvNone(t, dlq) // a1's new delivery holds g1
	wantCode(t, ack(dlq, again.ReceiptHandle), "")
	wantCounts(t, dlq, Counts{})
}

func TestFIFOThroughputLimitNeedsMessageGroupScope(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	a := ffQueue(t, e, "defaults", AttributeUpdate{}).Attributes()
	if a.DeduplicationScope != DeduplicationScopeQueue || a.FifoThroughputLimit != FifoThroughputPerQueue || a.ContentBasedDeduplication {
		t.Errorf("FIFO defaults: scope %q limit %q content %v", a.DeduplicationScope, a.FifoThroughputLimit, a.ContentBasedDeduplication)
	}

	for _, u := range []AttributeUpdate{
		{FifoQueue: ptr(true), FifoThroughputLimit: ptr(FifoThroughputPerMessageGroup)},
		{FifoQueue: ptr(true), FifoThroughputLimit: ptr(FifoThroughputPerMessageGroup), DeduplicationScope: ptr(DeduplicationScopeQueue)},
	} {
		_, err := e.CreateQueue("bad.fifo", u, nil)
		wantCode(t, err, ErrInvalidAttributeValue)
	}
	if _, err := e.Queue("bad.fifo"); CodeOf(err) != ErrQueueDoesNotExist {
		t.Errorf("refused CreateQueue left the queue: %v", err)
	}

	high := ffQueue(t, e, "high", AttributeUpdate{FifoThroughputLimit: ptr(FifoThroughputPerMessageGroup), DeduplicationScope: ptr(DeduplicationScopeMessageGroup)})
	if a := high.Attributes(); a.FifoThroughputLimit != FifoThroughputPerMessageGroup || a.DeduplicationScope != DeduplicationScopeMessageGroup {
		t.Errorf("high throughput queue attributes %+v", a)
	}
	wantCode(t, high.SetAttributes(AttributeUpdate{DeduplicationScope: ptr(DeduplicationScopeQueue)}), ErrInvalidAttributeValue)
	if high.Attributes().DeduplicationScope != DeduplicationScopeMessageGroup {
		t.Error("refused SetAttributes changed DeduplicationScope")
	}
	// Both together may change.
	wantCode(t, high.SetAttributes(AttributeUpdate{DeduplicationScope: ptr(DeduplicationScopeQueue), FifoThroughputLimit: ptr(FifoThroughputPerQueue)}), "")

	q := ffQueue(t, e, "q", AttributeUpdate{})
	wantCode(t, q.SetAttributes(AttributeUpdate{FifoThroughputLimit: ptr(FifoThroughputPerMessageGroup)}), ErrInvalidAttributeValue)
	if q.Attributes().FifoThroughputLimit != FifoThroughputPerQueue {
		t.Error("refused SetAttributes changed FifoThroughputLimit")
	}
	wantCode(t, q.SetAttributes(AttributeUpdate{FifoThroughputLimit: ptr(FifoThroughputPerMessageGroup), DeduplicationScope: ptr(DeduplicationScopeMessageGroup)}), "")
	// perQueue works with either scope.
	wantCode(t, q.SetAttributes(AttributeUpdate{FifoThroughputLimit: ptr(FifoThroughputPerQueue)}), "")
}

func TestFIFOInFlightCap(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a queue with 20,000 messages")
	}
	e, _ := newTestEngine(t, Options{})
	q := ffQueue(t, e, "q", AttributeUpdate{})
	const perGroup = MaxMessagesPerReceive
	groups := MaxInFlightFIFO / perGroup
	msgs := make([]NewMessage, 0, MaxInFlightFIFO+1)
	for g := range groups {
		for i := range perGroup {
			msgs = append(msgs, ffMsg(fmt.Sprintf("g%d", g), fmt.Sprintf("%d-%d", g, i)))
		}
	}
	msgs = append(msgs, ffMsg("last", "over-the-cap"))
	send(t, q, msgs...)
	opts := ReceiveOptions{MaxMessages: MaxMessagesPerReceive, WaitSeconds: ptr(0)}
	for i := range groups {
		ds, err := q.Receive(context.Background(), opts)
		if err != nil || len(ds) != perGroup {
			t.Fatalf("receive %d: %d messages, %v", i, len(ds), err)
		}
	}
	wantCounts(t, q, Counts{Visible: 1, InFlight: MaxInFlightFIFO})
	_, err := q.Receive(context.Background(), opts)
	wantCode(t, err, ErrOverLimit)
}

// FIFO groups under visibility changes, as AWS answered LocalStack's tests
// (localstack/localstack tests/aws/services/sqs/test_sqs.py, each
// markers.aws.validated, with the orderings the test marks "aws"). Sleeps
// there are clock advances here.
func TestFIFOGroupsUnderVisibilityChanges(t *testing.T) {
	cb := AttributeUpdate{ContentBasedDeduplication: ptr(true)}
	msg := func(group, body string) NewMessage { return NewMessage{Body: body, GroupID: group} }

	// test_fifo_message_group_visibility_after_terminate_visibility_timeout
	// and test_fifo_message_group_visibility_after_change_message_visibility:
	// a head made visible again, by visibility 0 or by a shorter timeout,
	// is delivered though a later message of its group is in flight, after
	// the group that waited all along.
	for _, release := range []struct {
		name    string
		timeout int
		wait    time.Duration
	}{{"visibility 0", 0, 0}, {"visibility 1 then 2 s", 1, 2 * time.Second}} {
		t.Run("released head: "+release.name, func(t *testing.T) {
			e, clk := newTestEngine(t, Options{})
			q := ffQueue(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(30), ContentBasedDeduplication: ptr(true)})
			send(t, q, msg("group-1", "g1-m1"), msg("group-1", "g1-m2"), msg("group-2", "g2-m1"))
			ds := recvNow(t, q, ReceiveOptions{MaxMessages: 2})
			ffWantBodies(t, ds, "g1-m1", "g1-m2")
			wantCode(t, changeVis(q, ds[0].ReceiptHandle, release.timeout), "")
			clk.Advance(release.wait)
			ffWantBodies(t, recvNow(t, q, ReceiveOptions{MaxMessages: 3}), "g2-m1", "g1-m1")
		})
	}

	// test_fifo_group_visibility_extends_with_change_message_visibility
	// (recorded 19-11-2025): the extended message and those after it stay
	// back; those before it are delivered.
	for p, want := range [][]string{{}, {"foo"}, {"foo", "bar"}} {
		t.Run(fmt.Sprintf("extend message %d", p), func(t *testing.T) {
			e, clk := newTestEngine(t, Options{})
			q := ffQueue(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(1)})
			send(t, q, ffMsg("1", "foo"), ffMsg("1", "bar"), ffMsg("1", "baz"))
			ds := recvNow(t, q, ReceiveOptions{MaxMessages: 5})
			ffWantBodies(t, ds, "foo", "bar", "baz")
			wantCode(t, changeVis(q, ds[p].ReceiptHandle, 4), "")
			clk.Advance(2500 * time.Millisecond)
			ffWantBodies(t, recvNow(t, q, ReceiveOptions{MaxMessages: 5}), want...)
		})
	}

	// test_fifo_messages_in_order_after_timeout: a group comes back whole,
	// in order.
	t.Run("in order after the timeout", func(t *testing.T) {
		e, clk := newTestEngine(t, Options{})
		q := ffQueue(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(1)})
		send(t, q, ffMsg("1", "message-0"), ffMsg("1", "message-1"), ffMsg("1", "message-2"))
		ffWantBodies(t, recvNow(t, q, ReceiveOptions{MaxMessages: 10}), "message-0", "message-1", "message-2")
		clk.Advance(2 * time.Second)
		ffWantBodies(t, recvNow(t, q, ReceiveOptions{MaxMessages: 10}), "message-0", "message-1", "message-2")
	})

	// test_fifo_receive_message_group_id_ordering: one group is drained
	// before the next.
	t.Run("group drained first", func(t *testing.T) {
		e, _ := newTestEngine(t, Options{})
		q := ffQueue(t, e, "q", cb)
		send(t, q, msg("group-1", "g1-m1"), msg("group-2", "g2-m1"), msg("group-1", "g1-m2"), msg("group-1", "g1-m3"))
		ffWantBodies(t, recvNow(t, q, ReceiveOptions{MaxMessages: 10}), "g1-m1", "g1-m2", "g1-m3", "g2-m1")
	})

	// test_fifo_receive_message_with_zero_visibility_timeout: groups that
	// come back go after the one that never left, in the order they left.
	t.Run("zero visibility timeout", func(t *testing.T) {
		e, _ := newTestEngine(t, Options{})
		q := ffQueue(t, e, "q", cb)
		send(t, q, msg("group-1", "g1-m1"), msg("group-2", "g2-m1"), msg("group-2", "g2-m2"), msg("group-3", "g3-m1"), msg("group-1", "g1-m2"))
		zero := ReceiveOptions{MaxMessages: 3, VisibilityTimeout: ptr(0)}
		ffWantBodies(t, recvNow(t, q, zero), "g1-m1", "g1-m2", "g2-m1")
		zero.MaxMessages = 10
		ffWantBodies(t, recvNow(t, q, zero), "g3-m1", "g1-m1", "g1-m2", "g2-m1", "g2-m2")
	})

	// test_fifo_receive_message_visibility_timeout_shared_in_group: a
	// message in flight holds back the rest of its group; after the
	// timeout the groups come back in the order their heads did.
	t.Run("timeout shared in group", func(t *testing.T) {
		e, clk := newTestEngine(t, Options{})
		q := ffQueue(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(1), ContentBasedDeduplication: ptr(true)})
		send(t, q, msg("group-1", "g1-m1"), msg("group-1", "g1-m2"), msg("group-1", "g1-m3"), msg("group-1", "g1-m4"),
			msg("group-2", "g2-m1"), msg("group-3", "g3-m1"))
		ffWantBodies(t, recvNow(t, q, ReceiveOptions{MaxMessages: 2}), "g1-m1", "g1-m2")
		clk.Advance(100 * time.Millisecond) // the next request comes a moment later
		ffWantBodies(t, recvNow(t, q, ReceiveOptions{MaxMessages: 1}), "g2-m1")
		clk.Advance(2 * time.Second)
		ffWantBodies(t, recvNow(t, q, ReceiveOptions{MaxMessages: 10, VisibilityTimeout: ptr(0)}),
			"g3-m1", "g1-m1", "g1-m2", "g1-m3", "g1-m4", "g2-m1")
	})

	// test_fifo_message_group_visibility_after_delete: deleting what was
	// in flight frees the group at once, placed by when its new head was
	// sent (g1-m2 is sent twice; content-based deduplication keeps one).
	deleteCase := func(t *testing.T, deleteBoth bool, want ...string) {
		e, _ := newTestEngine(t, Options{})
		q := ffQueue(t, e, "q", cb)
		send(t, q, msg("group-1", "g1-m1"), msg("group-2", "g2-m1"), msg("group-1", "g1-m2"), msg("group-2", "g2-m2"),
			msg("group-1", "g1-m2"), msg("group-1", "g1-m3"), msg("group-1", "g1-m4"), msg("group-3", "g3-m1"))
		ds := recvNow(t, q, ReceiveOptions{MaxMessages: 2})
		ffWantBodies(t, ds, "g1-m1", "g1-m2")
		wantCode(t, ack(q, ds[0].ReceiptHandle), "")
		if deleteBoth {
			wantCode(t, ack(q, ds[1].ReceiptHandle), "")
		}
		ffWantBodies(t, recvNow(t, q, ReceiveOptions{MaxMessages: 10}), want...)
	}
	t.Run("after delete", func(t *testing.T) {
		deleteCase(t, true, "g2-m1", "g2-m2", "g1-m3", "g1-m4", "g3-m1")
	})
	// test_fifo_message_group_visibility_after_partial_delete: a group
	// whose first message is in flight is passed over.
	t.Run("after partial delete", func(t *testing.T) {
		deleteCase(t, false, "g2-m1", "g2-m2", "g3-m1")
	})
}

// A group's place among groups follows its first visible message through
// every change, and peeking shows what a receive would take.
func TestFIFOGroupOrderFollowsHead(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := ffQueue(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(30)})
	var msgs []NewMessage
	for i := range 50 {
		msgs = append(msgs, ffMsg(fmt.Sprintf("g%02d", i), fmt.Sprintf("g%02d-a", i)), ffMsg(fmt.Sprintf("g%02d", i), fmt.Sprintf("g%02d-b", i)))
	}
	send(t, q, msgs...)
	// Take the heads of the first five groups; extend one and release
	// another at different moments.
	ds := ffTake(t, q, 10)
	ffWantBodies(t, ds, "g00-a", "g00-b", "g01-a", "g01-b", "g02-a", "g02-b", "g03-a", "g03-b", "g04-a", "g04-b")
	clk.Advance(time.Second)
	wantCode(t, changeVis(q, ds[4].ReceiptHandle, 0), "") // g02-a
	clk.Advance(time.Second)
	wantCode(t, changeVis(q, ds[0].ReceiptHandle, 0), "") // g00-a
	wantCode(t, ack(q, ds[3].ReceiptHandle), "")          // g01-b: g01 stays held by g01-a
	peek, err := q.Peek(100)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{}
	for i := 5; i < 50; i++ {
		want = append(want, fmt.Sprintf("g%02d-a", i), fmt.Sprintf("g%02d-b", i))
	}
	want = append(want, "g02-a", "g00-a")
	var got []string
	for _, m := range peek {
		got = append(got, m.Body)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("peek %q,\n want %q", got, want)
	}
	all := ffTake(t, q, len(want))
	ffWantBodies(t, all, want...)
	recvNone(t, q)
}

// Fair queues: message groups on a standard queue.

func TestFairQueueGroupID(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := mustCreate(t, e, "fair", AttributeUpdate{}, nil)
	r := send(t, q, NewMessage{Body: "a", GroupID: "tenant-1"}, NewMessage{Body: "b"})
	if r[0].SequenceNumber != "" {
		t.Errorf("fair queue send returned SequenceNumber %q", r[0].SequenceNumber)
	}
	ds := recvNow(t, q, ReceiveOptions{MaxMessages: 10})
	ffWantBodies(t, ds, "a", "b")
	if ds[0].GroupID != "tenant-1" || ds[1].GroupID != "" {
		t.Errorf("GroupIDs %q %q", ds[0].GroupID, ds[1].GroupID)
	}
	// A standard queue does not block a group while it has messages in
	// flight.
	send(t, q, NewMessage{Body: "c", GroupID: "tenant-1"})
	recvOne(t, q, ReceiveOptions{}, "c")
}

// ffFill sends n messages of group g (bodies g-0, g-1, ...) from start.
func ffFill(t testing.TB, q *Queue, g string, start, n int) {
	t.Helper()
	msgs := make([]NewMessage, n)
	for i := range msgs {
		msgs[i] = NewMessage{Body: fmt.Sprintf("%s-%d", g, start+i), GroupID: g}
	}
	send(t, q, msgs...)
}

// ffTake receives n messages, ten at a time.
func ffTake(t testing.TB, q *Queue, n int) []Delivery {
	t.Helper()
	var out []Delivery
	for len(out) < n {
		ds := recvNow(t, q, ReceiveOptions{MaxMessages: min(10, n-len(out))})
		if len(ds) == 0 {
			t.Fatalf("queue ran dry after %d of %d", len(out), n)
		}
		out = append(out, ds...)
	}
	return out
}

func TestFairQueueNoisyTenant(t *testing.T) {
	t.Run("noisy tenant passed over", func(t *testing.T) {
		e, _ := newTestEngine(t, Options{})
		q := mustCreate(t, e, "fair", AttributeUpdate{}, nil)
		ffFill(t, q, "noisy", 0, 40)
		ffTake(t, q, 30) // 30 in flight: 100% of the queue's
		send(t, q, NewMessage{Body: "quiet-0", GroupID: "quiet"}, NewMessage{Body: "loner"})
		// Ten older noisy messages are ahead, yet the quiet tenant's and the
		// ungrouped one come first.
		ffWantBodies(t, recvNow(t, q, ReceiveOptions{}), "quiet-0")
		ffWantBodies(t, recvNow(t, q, ReceiveOptions{}), "loner")
		// With no one else waiting, the noisy tenant is served.
		ffWantBodies(t, recvNow(t, q, ReceiveOptions{MaxMessages: 2}), "noisy-30", "noisy-31")
	})
	t.Run("29 in flight is not noisy", func(t *testing.T) {
		e, _ := newTestEngine(t, Options{})
		q := mustCreate(t, e, "fair", AttributeUpdate{}, nil)
		ffFill(t, q, "busy", 0, 40)
		ffTake(t, q, 29)
		send(t, q, NewMessage{Body: "quiet-0", GroupID: "quiet"})
		ffWantBodies(t, recvNow(t, q, ReceiveOptions{}), "busy-29")
		// Now at 30 of 30 in flight: noisy.
		ffWantBodies(t, recvNow(t, q, ReceiveOptions{}), "quiet-0")
	})
	t.Run("share of in-flight messages", func(t *testing.T) {
		e, _ := newTestEngine(t, Options{})
		q := mustCreate(t, e, "fair", AttributeUpdate{}, nil)
		// 270 messages of 27 tenants with 10 each in flight: none is noisy.
		// (The big tenant comes after them: had it been noisy once, the
		// mark would stay.)
		for i := range 27 {
			ffFill(t, q, fmt.Sprintf("other%d", i), 0, 10)
		}
		others := ffTake(t, q, 270)
		ffFill(t, q, "big", 0, 40)
		ffTake(t, q, 30)
		// 30 of 300 in flight is 10%, not more: not noisy, oldest first.
		send(t, q, NewMessage{Body: "quiet-0", GroupID: "quiet"})
		d := recvOne(t, q, ReceiveOptions{}, "big-30")
		wantCode(t, changeVis(q, d.ReceiptHandle, 0), "")
		// 30 of 299 is more than 10%: noisy.
		wantCode(t, ack(q, others[0].ReceiptHandle), "")
		recvOne(t, q, ReceiveOptions{}, "quiet-0")
		recvOne(t, q, ReceiveOptions{}, "big-30")
	})
	t.Run("several noisy tenants: fewest in flight first", func(t *testing.T) {
		// "If multiple tenants are detected as noisy neighbors at the same
		// time, consumer instances first receive messages from the noisy
		// tenant with the fewest in-flight messages" (How Amazon SQS fair
		// queues work, SQS Developer Guide).
		e, _ := newTestEngine(t, Options{})
		q := mustCreate(t, e, "fair", AttributeUpdate{}, nil)
		ffFill(t, q, "a", 0, 45)
		ffTake(t, q, 40)
		ffFill(t, q, "b", 0, 35)
		for _, d := range ffTake(t, q, 30) {
			if d.GroupID != "b" {
				t.Fatalf("noisy tenant a's %s taken while b was quiet", d.Body)
			}
		}
		// a: 40 of 70 in flight, b: 30 of 70; both noisy, a's messages older.
		recvOne(t, q, ReceiveOptions{}, "b-30")
	})
}

// A tenant marked noisy stays so until its backlog is drained or it has
// sent nothing for 5 consecutive minutes ("How Amazon SQS fair queues
// work", SQS Developer Guide, "When a noisy neighbor becomes quiet"), even
// once its share of the messages in flight has fallen.
func TestFairQueueNoisyTenantBecomesQuiet(t *testing.T) {
	// mark makes "noisy" a noisy tenant with 40 messages: 30 in flight and
	// marked, 10 waiting, plus the handles of those in flight.
	mark := func(t *testing.T, q *Queue) []Delivery {
		t.Helper()
		ffFill(t, q, "noisy", 0, 40)
		held := ffTake(t, q, 30)
		send(t, q, NewMessage{Body: "quiet-0", GroupID: "quiet"})
		ffWantBodies(t, recvNow(t, q, ReceiveOptions{}), "quiet-0")
		return held
	}
	// release acknowledges n of the noisy tenant's messages in flight,
	// which takes it below the 30 that make a tenant noisy.
	release := func(t *testing.T, q *Queue, held []Delivery, n int) {
		t.Helper()
		for _, d := range held[:n] {
			wantCode(t, ack(q, d.ReceiptHandle), "")
		}
	}
	long := AttributeUpdate{VisibilityTimeout: ptr(MaxVisibilityTimeout)}

	t.Run("the mark stays while the backlog waits", func(t *testing.T) {
		e, clk := newTestEngine(t, Options{})
		q := mustCreate(t, e, "fair", long, nil)
		held := mark(t, q)
		release(t, q, held, 20) // 10 of 11 in flight: no longer over the threshold
		clk.Advance(4 * time.Minute)
		ffFill(t, q, "noisy", 40, 1) // it keeps sending
		clk.Advance(59 * time.Second)
		send(t, q, NewMessage{Body: "quiet-1", GroupID: "quiet"})
		ffWantBodies(t, recvNow(t, q, ReceiveOptions{}), "quiet-1")
	})
	t.Run("quiet after 5 minutes without a send", func(t *testing.T) {
		e, clk := newTestEngine(t, Options{})
		q := mustCreate(t, e, "fair", long, nil)
		held := mark(t, q)
		release(t, q, held, 20)
		clk.Advance(5 * time.Minute)
		send(t, q, NewMessage{Body: "quiet-1", GroupID: "quiet"})
		// Its backlog is served oldest first again.
		ffWantBodies(t, recvNow(t, q, ReceiveOptions{}), "noisy-30")
	})
	t.Run("quiet once its backlog is drained", func(t *testing.T) {
		e, _ := newTestEngine(t, Options{})
		q := mustCreate(t, e, "fair", long, nil)
		held := mark(t, q)
		// Nothing else waits: its last 10 are received, draining it.
		ffWantBodies(t, ffTake(t, q, 10), "noisy-30", "noisy-31", "noisy-32", "noisy-33", "noisy-34",
			"noisy-35", "noisy-36", "noisy-37", "noisy-38", "noisy-39")
		release(t, q, held, 30) // 10 in flight
		ffFill(t, q, "noisy", 40, 1)
		send(t, q, NewMessage{Body: "quiet-1", GroupID: "quiet"})
		ffWantBodies(t, recvNow(t, q, ReceiveOptions{}), "noisy-40")
	})
	t.Run("marked again while over the threshold", func(t *testing.T) {
		e, clk := newTestEngine(t, Options{})
		q := mustCreate(t, e, "fair", long, nil)
		mark(t, q)
		clk.Advance(5 * time.Minute) // quiet by time, but still 30 of 31 in flight
		send(t, q, NewMessage{Body: "quiet-1", GroupID: "quiet"})
		ffWantBodies(t, recvNow(t, q, ReceiveOptions{}), "quiet-1")
	})
}
