package engine

import (
	"context"
	"runtime"
	"testing"
	"time"
)

type waitResult struct {
	counts Counts
	met    bool
	err    error
}

func startWait(ctx context.Context, q *Queue, c WaitCondition) <-chan waitResult {
	ch := make(chan waitResult, 1)
	go func() {
		counts, met, err := q.Wait(ctx, c)
		ch <- waitResult{counts, met, err}
	}()
	return ch
}

// awaitWatching returns once n waits are blocked on q's change signal.
func awaitWatching(t testing.TB, q *Queue, n int) {
	t.Helper()
	deadline := time.Now().Add(safetyTimeout)
	for {
		q.mu.Lock()
		w := q.watching
		q.mu.Unlock()
		if w >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waits never blocked: %d watching, want %d", w, n)
		}
		runtime.Gosched()
	}
}

func awaitWait(t testing.TB, ch <-chan waitResult) waitResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(safetyTimeout):
		t.Fatalf("Wait did not return within %v", safetyTimeout)
		return waitResult{}
	}
}

func assertWaiting(t testing.TB, ch <-chan waitResult) {
	t.Helper()
	select {
	case r := <-ch:
		t.Fatalf("Wait returned early: %+v", r)
	default:
	}
}

func TestWaitConditions(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)

	visible := startWait(context.Background(), q, WaitCondition{Visible: ptr(2)})
	awaitWatching(t, q, 1)
	sendBodies(t, q, "one")
	awaitWatching(t, q, 1) // woken by the send, and waiting again
	assertWaiting(t, visible)
	sendBodies(t, q, "two has a needle")
	if r := awaitWait(t, visible); !r.met || r.err != nil || r.counts != (Counts{Visible: 2}) {
		t.Fatalf("visible: %+v", r)
	}

	inFlight := startWait(context.Background(), q, WaitCondition{InFlight: ptr(2)})
	awaitWatching(t, q, 1)
	ds := recvNow(t, q, ReceiveOptions{MaxMessages: 10})
	if r := awaitWait(t, inFlight); !r.met || r.counts != (Counts{InFlight: 2}) {
		t.Fatalf("inFlight: %+v", r)
	}

	if r := awaitWait(t, startWait(context.Background(), q, WaitCondition{BodyContains: "needle"})); !r.met {
		t.Fatalf("bodyContains on an in-flight message: %+v", r)
	}
	hay := startWait(context.Background(), q, WaitCondition{BodyContains: "hay"})
	awaitWatching(t, q, 1)
	send(t, q, NewMessage{Body: "delayed hay", DelaySeconds: ptr(5)})
	awaitWatching(t, q, 1)
	assertWaiting(t, hay) // a delayed message does not count
	sendBodies(t, q, "hay")
	if r := awaitWait(t, hay); !r.met {
		t.Fatalf("bodyContains: %+v", r)
	}

	empty := startWait(context.Background(), q, WaitCondition{Empty: true})
	awaitWatching(t, q, 1)
	for _, d := range ds {
		wantCode(t, ack(q, d.ReceiptHandle), "")
	}
	wantCode(t, q.Purge(), "")
	if r := awaitWait(t, empty); !r.met || r.counts != (Counts{}) {
		t.Fatalf("empty: %+v", r)
	}
}

// A wait wakes at the next deadline of a message, with no change made.
func TestWaitWakesAtDeadlines(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	send(t, q, NewMessage{Body: "later", DelaySeconds: ptr(10)})
	w := startWait(context.Background(), q, WaitCondition{Visible: ptr(1)})
	awaitWatching(t, q, 1)
	deadline := time.Now().Add(safetyTimeout)
	for clk.Waiters() < 2 { // the sweeper's timer and the wait's
		if time.Now().After(deadline) {
			t.Fatalf("the wait set no timer: %d clock waiters", clk.Waiters())
		}
		runtime.Gosched()
	}
	clk.Advance(10 * time.Second)
	if r := awaitWait(t, w); !r.met || r.counts != (Counts{Visible: 1}) {
		t.Fatalf("%+v", r)
	}
}

func TestWaitEnds(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	sendBodies(t, q, "x")

	ctx, cancel := context.WithCancel(context.Background())
	w := startWait(ctx, q, WaitCondition{Empty: true})
	awaitWatching(t, q, 1)
	cancel()
	if r := awaitWait(t, w); r.met || r.err != nil || r.counts != (Counts{Visible: 1}) {
		t.Fatalf("cancelled: %+v", r)
	}

	w = startWait(context.Background(), q, WaitCondition{Empty: true})
	awaitWatching(t, q, 1)
	wantCode(t, e.DeleteQueue(q), "")
	if r := awaitWait(t, w); CodeOf(r.err) != ErrQueueDoesNotExist {
		t.Fatalf("deleted queue: %+v", r)
	}

	for _, c := range []WaitCondition{{}, {Visible: ptr(1), Empty: true}, {InFlight: ptr(-1)}} {
		_, _, err := mustCreate(t, e, "r", AttributeUpdate{}, nil).Wait(context.Background(), c)
		wantCode(t, err, ErrInvalidParameterValue)
	}
}
