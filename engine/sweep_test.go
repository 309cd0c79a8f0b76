package engine

import (
	"math"
	"runtime"
	"testing"
	"time"
)

// awaitSweepAt waits until the sweeper plans its next run for want, in the
// clock's Unix nanoseconds; math.MaxInt64 is "not until something is due"
// (and, for a moment, "sweeping now").
func awaitSweepAt(t *testing.T, e *Engine, want int64) {
	t.Helper()
	deadline := time.Now().Add(safetyTimeout)
	for e.sweepAt.Load() != want {
		if time.Now().After(deadline) {
			t.Fatalf("the sweeper plans to run at %d, want %d", e.sweepAt.Load(), want)
		}
		runtime.Gosched()
	}
}

// indexedMessages is the number of messages q holds, without bringing it
// to the clock's time.
func indexedMessages(q *Queue) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.msgs.len()
}

func TestSweeperSleepsUntilSomethingIsDue(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	awaitSweepAt(t, e, math.MaxInt64)

	sendBodies(t, q, "a")
	retention := int64(q.Attributes().MessageRetentionPeriod) * 1e9
	awaitSweepAt(t, e, testStart.UnixNano()+retention)

	d := recvOne(t, q, ReceiveOptions{VisibilityTimeout: ptr(30)}, "a")
	awaitSweepAt(t, e, testStart.Add(30*time.Second).UnixNano())
	wantCode(t, ack(q, d.ReceiptHandle), "")

	// The lease's deadline comes and finds the message gone: nothing is due
	// any more, though the heaps still held both of its entries.
	clk.Advance(30 * time.Second)
	awaitSweepAt(t, e, math.MaxInt64)
}

func TestSweeperExpiresMessagesOnTime(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{MessageRetentionPeriod: ptr(60)}, nil)
	sendBodies(t, q, "old")
	clk.Advance(30 * time.Second)
	sendBodies(t, q, "new")
	awaitSweepAt(t, e, testStart.Add(60*time.Second).UnixNano())
	// Nothing looks at the queue: the sweeper alone expires the first
	// message at its deadline, and then plans for the second's.
	clk.Advance(30 * time.Second)
	awaitSweepAt(t, e, testStart.Add(90*time.Second).UnixNano())
	if left := indexedMessages(q); left != 1 {
		t.Fatalf("%d messages stored after the first expired, want 1", left)
	}
}

func TestSweeperEndsCooldowns(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	wantCode(t, e.DeleteQueue(mustCreate(t, e, "gone", AttributeUpdate{}, nil)), "")
	awaitSweepAt(t, e, testStart.Add(DeleteQueueCooldown).UnixNano())
	clk.Advance(DeleteQueueCooldown)
	deadline := time.Now().Add(safetyTimeout)
	for {
		e.mu.RLock()
		cooling := len(e.deletedAt)
		e.mu.RUnlock()
		if cooling == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d names still cooling down after the cooldown", cooling)
		}
		runtime.Gosched()
	}
	awaitSweepAt(t, e, math.MaxInt64)
}

// The send rate is sampled once a second of the clock, when the queue is
// next used: a busy minute and a quiet one give the partitions and the rate
// that sampling every second gives.
func TestPartitionsSampledWhenUsed(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "busy", AttributeUpdate{}, nil)
	batch := make([]NewMessage, 10)
	for i := range batch {
		batch[i] = NewMessage{Body: "m"}
	}
	want := 0.0
	for range 60 { // a minute at 1,650 messages a second
		for range 165 {
			q.Send(batch)
		}
		clk.Advance(time.Second)
		want += rateSmoothing * (1650 - want)
	}
	if got := q.Partitions(); got != 6 {
		t.Errorf("after a minute at 1,650 messages a second: %d partitions, want 6", got)
	}
	clk.Advance(time.Minute)
	if got := q.Partitions(); got != 6 {
		t.Errorf("after a quiet minute: %d partitions, want still 6", got)
	}
	for range 60 {
		want -= rateSmoothing * want
	}
	q.mu.Lock()
	got := q.parts.rate
	q.mu.Unlock()
	if math.Abs(got-want) > 1e-9*want {
		t.Errorf("rate after the quiet minute = %v, want %v", got, want)
	}
}

func TestChangedAndNextDue(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	closed := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	ch := e.Changed()
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	if !closed(ch) {
		t.Fatal("creating a queue did not signal a change")
	}
	if due := e.NextDue(); !due.IsZero() {
		t.Fatalf("NextDue of an empty queue = %v, want none", due)
	}
	ch = e.Changed()
	if closed(ch) {
		t.Fatal("a change was signalled with none made")
	}
	send(t, q, NewMessage{Body: "a", DelaySeconds: ptr(7)})
	if !closed(ch) {
		t.Fatal("a send did not signal a change")
	}
	if due := e.NextDue(); !due.Equal(testStart.Add(7 * time.Second)) {
		t.Fatalf("NextDue = %v, want the delay's end", due)
	}
	ch = e.Changed()
	wantCode(t, e.DeleteQueue(q), "")
	if !closed(ch) {
		t.Fatal("deleting a queue did not signal a change")
	}
}

// Messages that expire in send order have no expiry entry: once the first
// is acknowledged, the sweeper, waking for it, finds the next one's expiry
// and plans for it, and then for the one after.
func TestSweeperFindsTheNextInOrderExpiry(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{MessageRetentionPeriod: ptr(60)}, nil)
	sendBodies(t, q, "a")
	clk.Advance(10 * time.Second)
	sendBodies(t, q, "b")
	clk.Advance(10 * time.Second)
	sendBodies(t, q, "c")
	awaitSweepAt(t, e, testStart.Add(60*time.Second).UnixNano())
	wantCode(t, ack(q, recvOne(t, q, ReceiveOptions{}, "a").ReceiptHandle), "")
	clk.Advance(40 * time.Second)
	awaitSweepAt(t, e, testStart.Add(70*time.Second).UnixNano())
	clk.Advance(10 * time.Second)
	awaitSweepAt(t, e, testStart.Add(80*time.Second).UnixNano())
	if left := indexedMessages(q); left != 1 {
		t.Fatalf("%d messages stored after b expired, want c alone", left)
	}
}
