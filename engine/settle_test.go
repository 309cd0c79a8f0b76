package engine

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

func TestOffsetClock(t *testing.T) {
	c := NewOffsetClock()
	if d := time.Until(c.Now()); d < -time.Second || d > time.Second {
		t.Fatalf("a new offset clock is %v from the wall clock", d)
	}
	soon, _ := c.After(30 * time.Minute)
	late, _ := c.After(2 * time.Hour)
	stopped, stop := c.After(10 * time.Minute)
	stop()
	c.Advance(time.Hour)
	if c.Offset() != time.Hour {
		t.Fatalf("Offset = %v, want 1h", c.Offset())
	}
	if d := time.Until(c.Now()); d < time.Hour-time.Second || d > time.Hour+time.Second {
		t.Fatalf("after Advance(1h) the clock is %v ahead of the wall clock", d)
	}
	select {
	case at := <-soon:
		if at.Before(time.Now().Add(time.Hour - time.Second)) {
			t.Fatalf("timer fired with %v, before the advanced time", at)
		}
	default:
		t.Fatal("a 30-minute timer did not fire on a one-hour advance")
	}
	for name, ch := range map[string]<-chan time.Time{"2h timer": late, "stopped timer": stopped} {
		select {
		case <-ch:
			t.Fatalf("the %s fired", name)
		default:
		}
	}
	c.SetOffset(time.Minute) // behind: ignored
	if c.Offset() != time.Hour {
		t.Fatalf("SetOffset moved the clock back to %v", c.Offset())
	}
	c.SetOffset(3 * time.Hour)
	select {
	case <-late:
	default:
		t.Fatal("SetOffset past a timer's deadline did not fire it")
	}
	if c.Offset() != 3*time.Hour {
		t.Fatalf("Offset = %v, want 3h", c.Offset())
	}
	if ch, _ := c.After(0); len(ch) != 1 {
		t.Fatal("After(0) did not fire at once")
	}
}

func TestAdvanceRefusesTimeGoingBack(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	wantCode(t, e.Advance(0), ErrInvalidParameterValue)
	wantCode(t, e.Advance(-time.Second), ErrInvalidParameterValue)
	fixed, err := Open(Options{Clock: SystemClock{}})
	if err != nil {
		t.Fatal(err)
	}
	defer fixed.Close()
	wantCode(t, fixed.Advance(time.Second), ErrUnsupportedOperation)
	if fixed.Offset() != 0 {
		t.Fatalf("a system clock's offset is %v", fixed.Offset())
	}
	wantCode(t, e.Advance(90*time.Second), "")
	if e.Offset() != 90*time.Second || !e.Now().Equal(testStart.Add(90*time.Second)) {
		t.Fatalf("after Advance(90s): offset %v, now %v", e.Offset(), e.Now())
	}
}

func TestAdvanceEndsLeasesDelaysAndRetention(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(30), MessageRetentionPeriod: ptr(300)}, nil)
	sendBodies(t, q, "leased")
	send(t, q, NewMessage{Body: "delayed", DelaySeconds: ptr(60)})
	recvOne(t, q, ReceiveOptions{}, "leased")
	wantCounts(t, q, Counts{InFlight: 1, Delayed: 1})
	wantCode(t, e.Advance(31*time.Second), "")
	// Read the counts without Counts, which would apply the deadlines
	// itself: Advance must have done it.
	q.mu.Lock()
	got := Counts{Visible: q.visible, InFlight: q.inFlight, Delayed: q.delayed}
	q.mu.Unlock()
	if got != (Counts{Visible: 1, Delayed: 1}) {
		t.Fatalf("after 31 s the counts are %+v, want the lease ended", got)
	}
	wantCode(t, e.Advance(30*time.Second), "")
	q.mu.Lock()
	got = Counts{Visible: q.visible, InFlight: q.inFlight, Delayed: q.delayed}
	q.mu.Unlock()
	if got != (Counts{Visible: 2}) {
		t.Fatalf("after 61 s the counts are %+v, want the delay ended", got)
	}
	wantCode(t, e.Advance(300*time.Second), "")
	if n := indexedMessages(q); n != 0 {
		t.Fatalf("%d messages outlived their retention", n)
	}
}

// A long poll woken by a message that an advance made visible has taken it
// by the time Advance returns.
func TestAdvanceAnswersWokenLongPolls(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	send(t, q, NewMessage{Body: "later", DelaySeconds: ptr(10)})
	polls := []<-chan recvResult{
		startReceive(context.Background(), q, ReceiveOptions{WaitSeconds: ptr(20)}),
		startReceive(context.Background(), q, ReceiveOptions{WaitSeconds: ptr(20)}),
	}
	awaitParked(t, clk, q, 2)
	wantCode(t, e.Advance(11*time.Second), "")
	q.mu.Lock()
	inFlight, woken := q.inFlight, q.woken
	q.mu.Unlock()
	if inFlight != 1 || woken != 0 {
		t.Fatalf("when Advance returned: %d in flight, %d receives yet to retry; want 1 and 0", inFlight, woken)
	}
	// One poll took the message; the other waits on, and a second message
	// ends it.
	sendBodies(t, q, "next")
	got := 0
	for _, p := range polls {
		got += len(awaitResult(t, p).ds)
	}
	if got != 2 {
		t.Fatalf("the polls got %d messages, want 2", got)
	}
}

func TestAdvanceLapsesDeduplicationAndAttempts(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := ffQueue(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(3600)})
	first := ffSendOne(q, NewMessage{Body: "a", GroupID: "g", DeduplicationID: "d"})
	if r := ffSendOne(q, NewMessage{Body: "a", GroupID: "g", DeduplicationID: "d"}); r.MessageID != first.MessageID {
		t.Fatalf("a repeat within the window was stored as %s", r.MessageID)
	}
	ds := recvNow(t, q, ReceiveOptions{AttemptID: "try"})
	if len(ds) != 1 {
		t.Fatalf("got %d messages", len(ds))
	}
	if again := recvNow(t, q, ReceiveOptions{AttemptID: "try"}); len(again) != 1 || again[0].ReceiptHandle != ds[0].ReceiptHandle {
		t.Fatal("a retried attempt did not return the same delivery")
	}
	wantCode(t, e.Advance(DeduplicationWindow), "")
	if again := recvNow(t, q, ReceiveOptions{AttemptID: "try"}); len(again) != 0 {
		t.Fatal("an attempt id outlived its five minutes")
	}
	if r := ffSendOne(q, NewMessage{Body: "a", GroupID: "g", DeduplicationID: "d"}); r.Err != nil || r.MessageID == first.MessageID {
		t.Fatalf("after the window the same deduplication id was not stored: %+v", r)
	}
	wantCounts(t, q, Counts{InFlight: 1, Visible: 1})
}

func TestAdvancePassesCooldowns(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	wantCode(t, q.Purge(), "")
	wantCode(t, q.Purge(), ErrPurgeQueueInProgress)
	wantCode(t, e.DeleteQueue(mustCreate(t, e, "gone", AttributeUpdate{}, nil)), "")
	_, err := e.CreateQueue("gone", AttributeUpdate{}, nil)
	wantCode(t, err, ErrQueueDeletedRecently)
	wantCode(t, e.Advance(PurgeCooldown), "")
	e.mu.RLock()
	cooling := len(e.deletedAt)
	e.mu.RUnlock()
	if cooling != 0 {
		t.Fatalf("%d deleted names still cooling down after the advance", cooling)
	}
	wantCode(t, q.Purge(), "")
	mustCreate(t, e, "gone", AttributeUpdate{}, nil)
}

// A running move task moves, by the time Advance returns, the batches that
// the elapsed seconds owed it at its rate.
func TestAdvanceCatchesUpMoveTasks(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	src := mustCreate(t, e, "src", AttributeUpdate{RedrivePolicy: &RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 1}}, nil)
	sendBodies(t, dlq, "1", "2", "3", "4", "5", "6")
	handle, err := e.StartMoveTask(dlq.Arn(), src.Arn(), ptr(1))
	wantCode(t, err, "")
	wantCode(t, e.Advance(3*time.Second), "")
	tasks, err := e.MoveTasks(dlq.Arn(), 1)
	wantCode(t, err, "")
	// Batches are due at 0, 1, 2 and 3 seconds.
	if tasks[0].Handle != handle || tasks[0].Moved != 4 || tasks[0].Status != TaskRunning {
		t.Fatalf("after 3 s at 1 a second: %+v, want 4 moved", tasks[0])
	}
	wantCounts(t, src, Counts{Visible: 4})
	wantCode(t, e.Advance(time.Hour), "")
	tasks, _ = e.MoveTasks(dlq.Arn(), 1)
	if tasks[0].Moved != 6 || tasks[0].Status != TaskCompleted {
		t.Fatalf("after an hour: %+v, want all 6 moved", tasks[0])
	}
	wantCounts(t, src, Counts{Visible: 6})
}

func TestOffsetSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	e, err := Open(Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, e.Advance(time.Hour), "")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	clk := NewOffsetClock()
	e, err = Open(Options{Path: path, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if clk.Offset() != time.Hour {
		t.Fatalf("reopened with offset %v, want 1h", clk.Offset())
	}
}

// On the offset clock a long poll's own wait is real time: moving the clock
// past it does not end it, a message does.
func TestAdvanceLeavesLongPollsWaiting(t *testing.T) {
	e, err := Open(Options{Clock: NewOffsetClock()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	poll := startReceive(context.Background(), q, ReceiveOptions{WaitSeconds: ptr(20)})
	deadline := time.Now().Add(safetyTimeout)
	for {
		q.mu.Lock()
		w := q.waiters.n
		q.mu.Unlock()
		if w == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the receive never waited")
		}
		time.Sleep(time.Millisecond)
	}
	wantCode(t, e.Advance(time.Hour), "")
	assertPending(t, poll)
	sendBodies(t, q, "m")
	if r := awaitResult(t, poll); len(r.ds) != 1 {
		t.Fatalf("the poll got %v, %v", bodies(r.ds), r.err)
	}
}
