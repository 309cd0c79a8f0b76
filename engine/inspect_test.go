package engine

import (
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func inspectBodies(ms []MessageState) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Body
	}
	return out
}

func TestInspectStates(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	sendBodies(t, q, "a", "b", "c")
	send(t, q, NewMessage{Body: "late", DelaySeconds: ptr(60)}, NewMessage{Body: "later", DelaySeconds: ptr(30)})
	d := recvOne(t, q, ReceiveOptions{VisibilityTimeout: ptr(45)}, "a")

	got, err := q.Inspect(InspectOptions{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if b := inspectBodies(got); !slices.Equal(b, []string{"b", "c"}) {
		t.Fatalf("visible only: %q", b)
	}
	all, err := q.Inspect(InspectOptions{Limit: 10, Visible: true, InFlight: true, Delayed: true})
	if err != nil {
		t.Fatal(err)
	}
	// Visible in delivery order, then the rest by when they become visible.
	if b := inspectBodies(all); !slices.Equal(b, []string{"b", "c", "later", "a", "late"}) {
		t.Fatalf("every state: %q", b)
	}
	byBody := map[string]MessageState{}
	for _, m := range all {
		byBody[m.Body] = m
	}
	a := byBody["a"]
	if a.Status != MessageInFlight || a.ReceiveCount != 1 || !a.VisibleAt.Equal(testStart.Add(45*time.Second)) ||
		!a.FirstReceivedAt.Equal(testStart) || a.ID != d.ID {
		t.Errorf("in flight: %+v", a)
	}
	if l := byBody["late"]; l.Status != MessageDelayed || l.ReceiveCount != 0 || !l.VisibleAt.Equal(testStart.Add(time.Minute)) || !l.FirstReceivedAt.IsZero() {
		t.Errorf("delayed: %+v", l)
	}
	if b := byBody["b"]; b.Status != MessageVisible || !b.VisibleAt.IsZero() || !b.ExpiresAt.Equal(testStart.Add(345600*time.Second)) {
		t.Errorf("visible: %+v", b)
	}
	if got, _ := q.Inspect(InspectOptions{Limit: 10, Delayed: true}); !slices.Equal(inspectBodies(got), []string{"later", "late"}) {
		t.Errorf("delayed only: %q", inspectBodies(got))
	}
	if got, _ := q.Inspect(InspectOptions{Limit: 3, Visible: true, InFlight: true, Delayed: true}); len(got) != 3 {
		t.Errorf("limit 3: %q", inspectBodies(got))
	}
	// Inspecting changes nothing: the lease, the counts, the next receive.
	wantCounts(t, q, Counts{Visible: 2, InFlight: 1, Delayed: 2})
	if err := ack(q, d.ReceiptHandle); err != nil {
		t.Errorf("handle after inspection: %v", err)
	}
	clk.Advance(time.Minute)
	if got, _ := q.Inspect(InspectOptions{Limit: 10, InFlight: true, Delayed: true}); len(got) != 0 {
		t.Errorf("after the delays: %q", inspectBodies(got))
	}
}

func TestInspectFIFOHeldGroups(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q.fifo", AttributeUpdate{FifoQueue: ptr(true), ContentBasedDeduplication: ptr(true)}, nil)
	send(t, q,
		NewMessage{Body: "g1-1", GroupID: "g1"}, NewMessage{Body: "g1-2", GroupID: "g1"},
		NewMessage{Body: "g2-1", GroupID: "g2"})
	recvOne(t, q, ReceiveOptions{}, "g1-1")
	// Peek shows what a receive could take now and what a held group will
	// give after; inspection adds the message in flight.
	got, err := q.Inspect(InspectOptions{Limit: 10, Visible: true, InFlight: true})
	if err != nil {
		t.Fatal(err)
	}
	if b := inspectBodies(got); !slices.Equal(b, []string{"g2-1", "g1-2", "g1-1"}) {
		t.Fatalf("FIFO: %q", b)
	}
	if got[1].GroupID != "g1" || got[1].SequenceNumber == "" {
		t.Errorf("group and sequence number: %+v", got[1])
	}
}

func TestDeleteMessageByID(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	e, err := Open(Options{Path: path, Clock: NewManualClock(testStart), Fsync: FsyncNever})
	if err != nil {
		t.Fatal(err)
	}
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	res := sendBodies(t, q, "keep", "in flight", "visible")
	send(t, q, NewMessage{Body: "delayed", DelaySeconds: ptr(60)})
	d := recvOne(t, q, ReceiveOptions{}, "keep")
	if err := ack(q, d.ReceiptHandle); err != nil {
		t.Fatal(err)
	}
	inFlight := recvOne(t, q, ReceiveOptions{}, "in flight")

	wantCode(t, q.DeleteMessage(res[1].MessageID), "")
	if err := ack(q, inFlight.ReceiptHandle); CodeOf(err) != ErrReceiptHandleStale {
		t.Errorf("handle of a deleted message: %v", err)
	}
	wantCode(t, q.DeleteMessage(res[1].MessageID), ErrResourceNotFound)
	wantCode(t, q.DeleteMessage(res[0].MessageID), ErrResourceNotFound) // acknowledged already
	wantCode(t, q.DeleteMessage("no such id"), ErrResourceNotFound)
	delayed, _ := q.Inspect(InspectOptions{Limit: 10, Delayed: true})
	if len(delayed) != 1 {
		t.Fatalf("delayed: %q", inspectBodies(delayed))
	}
	wantCode(t, q.DeleteMessage(delayed[0].ID), "")
	wantCounts(t, q, Counts{Visible: 1})

	// The deletes are in the store.
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e, err = Open(Options{Path: path, Clock: NewManualClock(testStart), Fsync: FsyncNever})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	q, err = e.Queue("q")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := q.Inspect(InspectOptions{Limit: 10, Visible: true, InFlight: true, Delayed: true})
	if b := inspectBodies(got); !slices.Equal(b, []string{"visible"}) {
		t.Errorf("after a restart: %q", b)
	}
	wantCode(t, e.DeleteQueue(q), "")
	wantCode(t, q.DeleteMessage(res[2].MessageID), ErrQueueDoesNotExist)
}

func TestReplaceTags(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, map[string]string{"a": "1", "b": "2"})
	wantCode(t, q.ReplaceTags(map[string]string{"b": "3", "c": "4"}), "")
	if got := q.Tags(); len(got) != 2 || got["b"] != "3" || got["c"] != "4" {
		t.Errorf("tags: %v", got)
	}
	wantCode(t, q.ReplaceTags(map[string]string{"": "x"}), ErrInvalidParameterValue)
	if got := q.Tags(); len(got) != 2 {
		t.Errorf("a refused replacement changed the tags: %v", got)
	}
	wantCode(t, q.ReplaceTags(nil), "")
	if got := q.Tags(); len(got) != 0 {
		t.Errorf("no tags: %v", got)
	}
}
