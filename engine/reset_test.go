package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// populate gives e a queue with messages in every state, a dead-letter
// queue with a move task, a FIFO queue with a deduplication window, a
// subscription, and purge and delete cooldowns.
func populate(t testing.TB, e *Engine) (src, dlq, fifo *Queue) {
	t.Helper()
	dlq = mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	src = mustCreate(t, e, "src", AttributeUpdate{RedrivePolicy: &RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 3}}, map[string]string{"team": "a"})
	sendBodies(t, src, "one", "two")
	send(t, src, NewMessage{Body: "later", DelaySeconds: ptr(60)})
	recvNow(t, src, ReceiveOptions{})
	if _, err := src.PutSubscription("http://127.0.0.1:1/hook", 5, 0); err != nil {
		t.Fatal(err)
	}
	sendBodies(t, dlq, "dead")
	if _, err := e.StartMoveTask(dlq.Arn(), src.Arn(), ptr(1)); err != nil {
		t.Fatal(err)
	}
	fifo = ffQueue(t, e, "f", AttributeUpdate{})
	if r := ffSendOne(fifo, NewMessage{Body: "x", GroupID: "g", DeduplicationID: "d"}); r.Err != nil {
		t.Fatal(r.Err)
	}
	wantCode(t, fifo.Purge(), "")
	wantCode(t, e.DeleteQueue(mustCreate(t, e, "gone", AttributeUpdate{}, nil)), "")
	return src, dlq, fifo
}

func TestReset(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	src, _, _ := populate(t, e)
	poll := startReceive(context.Background(), mustCreate(t, e, "idle", AttributeUpdate{}, nil), ReceiveOptions{WaitSeconds: ptr(20)})
	awaitParked(t, clk, e.mustQueue(t, "idle"), 1)
	before := e.Now()

	wantCode(t, e.Reset(), "")
	if r := awaitResult(t, poll); CodeOf(r.err) != ErrQueueDoesNotExist {
		t.Fatalf("a long poll on a reset queue ended with %v", r.err)
	}
	if qs := e.Queues(""); len(qs) != 0 {
		t.Fatalf("queues after Reset: %v", queueNames(qs))
	}
	if _, ok := src.Subscription(); ok {
		t.Fatal("a reset queue kept its subscription")
	}
	s, err := e.State()
	wantCode(t, err, "")
	if len(s.Queues) != 0 || len(s.MoveTasks) != 0 {
		t.Fatalf("state after Reset: %d queues, %d move tasks", len(s.Queues), len(s.MoveTasks))
	}
	if !e.Now().Equal(before) {
		t.Fatal("Reset moved the clock")
	}
	// Cooldowns are gone: a deleted name is free, and a new queue of an old
	// name is empty and purgeable.
	mustCreate(t, e, "gone", AttributeUpdate{}, nil)
	f := ffQueue(t, e, "f", AttributeUpdate{})
	wantCode(t, f.Purge(), "")
	wantCounts(t, f, Counts{})
	// A sent message lands in the new queue, not an old one.
	sendBodies(t, mustCreate(t, e, "src", AttributeUpdate{}, nil), "new")
	wantCounts(t, e.mustQueue(t, "src"), Counts{Visible: 1})
	wantCode(t, src.Send([]NewMessage{{Body: "late"}})[0].Err, ErrQueueDoesNotExist)
}

func (e *Engine) mustQueue(t testing.TB, name string) *Queue {
	t.Helper()
	q, err := e.Queue(name)
	if err != nil {
		t.Fatalf("Queue(%q): %v", name, err)
	}
	return q
}

func TestResetLeavesNothingInTheStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	e, _ := newTestEngine(t, Options{Path: path})
	populate(t, e)
	lastNum := e.lastNum
	wantCode(t, e.Reset(), "")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e, _ = newTestEngine(t, Options{Path: path})
	s, err := e.State()
	wantCode(t, err, "")
	if len(s.Queues) != 0 || len(s.MoveTasks) != 0 {
		t.Fatalf("after a reset and a restart: %d queues, %d move tasks", len(s.Queues), len(s.MoveTasks))
	}
	if q := mustCreate(t, e, "src", AttributeUpdate{}, nil); q.num <= lastNum {
		t.Fatalf("a queue after the reset got number %d, not above %d", q.num, lastNum)
	}
}

func TestResetQueues(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	src, _, fifo := populate(t, e)
	other := mustCreate(t, e, "other", AttributeUpdate{}, nil)
	sendBodies(t, other, "kept")
	if r := ffSendOne(fifo, NewMessage{Body: "y", GroupID: "g", DeduplicationID: "e"}); r.Err != nil {
		t.Fatal(r.Err)
	}
	wantCode(t, e.ResetQueues([]string{fifo.Name(), "nope"}), ErrQueueDoesNotExist)
	wantCounts(t, fifo, Counts{Visible: 1})

	wantCode(t, e.ResetQueues([]string{fifo.Name(), src.ID()}), "")
	wantCounts(t, fifo, Counts{})
	wantCounts(t, src, Counts{})
	wantCounts(t, other, Counts{Visible: 1})
	if a := src.Attributes(); a.RedrivePolicy == nil || src.Tags()["team"] != "a" {
		t.Fatal("ResetQueues changed the queue's settings")
	}
	if _, ok := src.Subscription(); !ok {
		t.Fatal("ResetQueues removed the subscription")
	}
	wantCode(t, fifo.Purge(), "") // the purge cooldown is gone
	if r := ffSendOne(fifo, NewMessage{Body: "y", GroupID: "g", DeduplicationID: "e"}); r.Err != nil {
		t.Fatal(r.Err)
	}
	wantCounts(t, fifo, Counts{Visible: 1}) // the deduplication window is gone
}

// Reset takes a few milliseconds whatever the number of queues.
func TestResetManyQueues(t *testing.T) {
	e, _ := newTestEngine(t, Options{Path: filepath.Join(t.TempDir(), "db")})
	for i := range 2000 {
		sendBodies(t, mustCreate(t, e, fmt.Sprintf("q%d", i), AttributeUpdate{}, nil), "m")
	}
	start := time.Now()
	wantCode(t, e.Reset(), "")
	t.Logf("Reset of 2000 queues with a message each, in a db file: %v", time.Since(start))
	if n := len(e.Queues("")); n != 0 {
		t.Fatalf("%d queues left", n)
	}
}
