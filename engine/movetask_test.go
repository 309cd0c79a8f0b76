package engine

// Message move tasks (StartMessageMoveTask, CancelMessageMoveTask,
// ListMessageMoveTasks) on the manual clock. A task runs in a goroutine of
// its own: the tests advance the clock and then poll the task's listing,
// in a loop bounded by a real-time safety deadline, until it shows the
// expected state. Time on the engine's clock never passes by itself.
//
// Helpers here start with "mt" to keep clear of the other test files.

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
)

// mtWait bounds, in real time, how long a test waits for a task's goroutine
// to do what the clock has already allowed.
const mtWait = 5 * time.Second

// mtSource creates a queue that dead-letters into dlq after one receive.
func mtSource(t testing.TB, e *Engine, name string, dlq *Queue, u AttributeUpdate) *Queue {
	t.Helper()
	u.VisibilityTimeout = ptr(30)
	u.RedrivePolicy = &RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 1}
	return mustCreate(t, e, name, u, nil)
}

// mtDeadLetter moves every visible message of src (whose redrive policy
// has maxReceiveCount 1 and a 30 s visibility timeout) to its dead-letter
// queue: one receive of each, the leases run out, and the next receive
// moves them instead of returning them.
func mtDeadLetter(t testing.TB, clk *ManualClock, src *Queue) {
	t.Helper()
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatal("source queue never emptied")
		}
		if len(recvNow(t, src, ReceiveOptions{MaxMessages: 10})) == 0 {
			break
		}
	}
	clk.Advance(30 * time.Second)
	recvNone(t, src)
	wantCounts(t, src, Counts{})
}

// mtStart starts a task and fails the test on error.
func mtStart(t testing.TB, e *Engine, source, destination string, rate *int) string {
	t.Helper()
	h, err := e.StartMoveTask(source, destination, rate)
	if err != nil {
		t.Fatalf("StartMoveTask(%s, %q): %v", source, destination, err)
	}
	if h == "" {
		t.Fatal("StartMoveTask returned an empty handle")
	}
	return h
}

// mtFind returns the listed task with the given handle.
func mtFind(t testing.TB, e *Engine, source, handle string) (MoveTask, bool) {
	t.Helper()
	tasks, err := e.MoveTasks(source, maxListedMoveTasks)
	if err != nil {
		t.Fatalf("MoveTasks(%s): %v", source, err)
	}
	for _, task := range tasks {
		if task.Handle == handle {
			return task, true
		}
	}
	return MoveTask{}, false
}

// mtAwait polls the task until cond holds.
func mtAwait(t testing.TB, e *Engine, source, handle, what string, cond func(MoveTask) bool) MoveTask {
	t.Helper()
	deadline := time.Now().Add(mtWait)
	for {
		task, ok := mtFind(t, e, source, handle)
		if ok && cond(task) {
			return task
		}
		if time.Now().After(deadline) {
			t.Fatalf("task never became %s: last seen %+v (listed %v)", what, task, ok)
		}
		runtime.Gosched()
	}
}

// mtAwaitDone waits until the task has ended, whatever the outcome.
func mtAwaitDone(t testing.TB, e *Engine, source, handle string) MoveTask {
	t.Helper()
	return mtAwait(t, e, source, handle, "finished", func(m MoveTask) bool {
		return m.Status != TaskRunning && m.Status != TaskCancelling
	})
}

// mtAwaitMoved waits until the task has moved want messages and is either
// finished or waiting on its next tick, which shows as timers waiters on
// the clock (the sweeper's plus one per running task).
func mtAwaitMoved(t testing.TB, e *Engine, clk *ManualClock, source, handle string, want int64, timers int) MoveTask {
	t.Helper()
	return mtAwait(t, e, source, handle, "idle after moving the expected count", func(m MoveTask) bool {
		if m.Moved != want {
			return false
		}
		return m.Status != TaskRunning || clk.Waiters() >= timers
	})
}

func mtWantTask(t testing.TB, got MoveTask, status string, moved, toMove int64) {
	t.Helper()
	if got.Status != status || got.Moved != moved || got.ToMove != toMove {
		t.Fatalf("task %s moved %d of %d, want %s moved %d of %d (%+v)",
			got.Status, got.Moved, got.ToMove, status, moved, toMove, got)
	}
}

// mtRecvAll receives every visible message of q, in as many receives as it
// takes, leaving them in flight.
func mtRecvAll(t testing.TB, q *Queue) []Delivery {
	t.Helper()
	var out []Delivery
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatal("queue never emptied")
		}
		ds := recvNow(t, q, ReceiveOptions{MaxMessages: 10})
		if len(ds) == 0 {
			return out
		}
		out = append(out, ds...)
	}
}

func mtSortedBodies(ds []Delivery) []string {
	b := bodies(ds)
	sort.Strings(b)
	return b
}

func mtIDs(res []SendResult) []string {
	out := make([]string, len(res))
	for i, r := range res {
		out[i] = r.MessageID
	}
	sort.Strings(out)
	return out
}

func mtDeliveryIDs(ds []Delivery) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.ID
	}
	sort.Strings(out)
	return out
}

// mtWantFresh checks that redriven deliveries look like first deliveries
// with no dead-letter history.
func mtWantFresh(t testing.TB, ds []Delivery) {
	t.Helper()
	for _, d := range ds {
		if d.ReceiveCount != 1 {
			t.Errorf("%q: ReceiveCount %d after the move, want 1", d.Body, d.ReceiveCount)
		}
		if d.DeadLetterSourceArn != "" {
			t.Errorf("%q: DeadLetterSourceArn %q after the move, want none", d.Body, d.DeadLetterSourceArn)
		}
	}
}

// mtPeekAll returns every visible message of q in delivery order, without
// leasing any.
func mtPeekAll(t testing.TB, q *Queue) []Message {
	t.Helper()
	ms, err := q.Peek(1000)
	if err != nil {
		t.Fatalf("Peek(%s): %v", q.Name(), err)
	}
	return ms
}

// mtFrom keeps the messages of ms dead-lettered from the queue arn, in
// order.
func mtFrom(ms []Message, arn string) []Message {
	var out []Message
	for _, m := range ms {
		if m.DeadLetterSourceArn == arn {
			out = append(out, m)
		}
	}
	return out
}

func mtMessageIDs(ms []Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	sort.Strings(out)
	return out
}

// mtAt says every message was moved at the one instant at.
func mtAt(at time.Time) func(Delivery) time.Time {
	return func(Delivery) time.Time { return at }
}

// mtArrivals records, by message id, when each message was first seen
// visible in a queue. Noting the queue at every instant a task may move
// messages gives the instant each one was moved.
type mtArrivals map[string]time.Time

func (a mtArrivals) note(t testing.TB, q *Queue, now time.Time) {
	t.Helper()
	for _, m := range mtPeekAll(t, q) {
		if _, ok := a[m.ID]; !ok {
			a[m.ID] = now
		}
	}
}

func (a mtArrivals) at(d Delivery) time.Time { return a[d.ID] }

// mtWantRedriven checks that got, received from where a move task put
// them, are the messages of before (the dead-letter queue's messages as
// they were before the move, in delivery order) redriven as SQS does: each
// a new message ("All redriven messages are considered new messages with a
// new messageID and enqueueTime", SQS Developer Guide, "Configure a
// dead-letter queue redrive") with a fresh id and sent when it was moved
// (movedAt), keeping its body, MD5, attributes and group, received for the
// first time and with no dead-letter source. The order is kept: the whole
// order in a standard queue, each group's order in a FIFO one (where
// groups interleave as they become available).
func mtWantRedriven(t testing.TB, got []Delivery, before []Message, movedAt func(Delivery) time.Time) {
	t.Helper()
	if len(got) != len(before) {
		t.Fatalf("received %d moved messages %q, want %d", len(got), bodies(got), len(before))
	}
	// Pair each received message with the one it was, by its place in its
	// group ("" in a standard queue).
	queued := map[string][]Message{}
	old := map[string]bool{}
	for _, m := range before {
		queued[m.GroupID] = append(queued[m.GroupID], m)
		old[m.ID] = true
	}
	seen := map[string]bool{}
	for _, d := range got {
		if len(queued[d.GroupID]) == 0 {
			t.Errorf("%q: received in group %q, which had no more messages to move", d.Body, d.GroupID)
			continue
		}
		was := queued[d.GroupID][0]
		queued[d.GroupID] = queued[d.GroupID][1:]
		if d.Body != was.Body {
			t.Errorf("group %q: received %q where %q was next, want the order kept", d.GroupID, d.Body, was.Body)
			continue
		}
		u, err := uuid.Parse(d.ID)
		switch {
		case err != nil || u.String() != d.ID || u.Version() != 4 || u.Variant() != uuid.RFC4122:
			t.Errorf("%q: MessageId %q after the move is not a random UUID", d.Body, d.ID)
		case old[d.ID]:
			t.Errorf("%q: MessageId %s after the move is an old message's (was %s), want a new one", d.Body, d.ID, was.ID)
		case seen[d.ID]:
			t.Errorf("%q: MessageId %s given to two moved messages", d.Body, d.ID)
		}
		seen[d.ID] = true
		if d.MD5OfBody != was.MD5OfBody {
			t.Errorf("%q: MD5OfBody %s after the move, was %s", d.Body, d.MD5OfBody, was.MD5OfBody)
		}
		if !attributesEqual(d.Attributes, was.Attributes) {
			t.Errorf("%q: attributes %+v after the move, were %+v", d.Body, d.Attributes, was.Attributes)
		}
		if at := movedAt(d); at.IsZero() || !d.SentAt.Equal(at) {
			t.Errorf("%q: SentAt %v after the move, want the move at %v (was sent at %v)", d.Body, d.SentAt, at, was.SentAt)
		}
	}
	mtWantFresh(t, got)
}

func TestMoveTaskToOriginalSources(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	s1 := mtSource(t, e, "orders", dlq, AttributeUpdate{})
	s2 := mtSource(t, e, "payments", dlq, AttributeUpdate{})
	r1 := sendBodies(t, s1, "o1", "o2")
	r2 := sendBodies(t, s2, "p1", "p2", "p3")
	mtDeadLetter(t, clk, s1)
	mtDeadLetter(t, clk, s2)
	wantCounts(t, dlq, Counts{Visible: 5})
	before := mtPeekAll(t, dlq)
	// Dead-lettering keeps the ids; the move below gives new ones.
	if got, want := mtMessageIDs(mtFrom(before, s1.Arn())), mtIDs(r1); !slices.Equal(got, want) {
		t.Fatalf("dead-lettered orders ids %q, want %q", got, want)
	}
	if got, want := mtMessageIDs(mtFrom(before, s2.Arn())), mtIDs(r2); !slices.Equal(got, want) {
		t.Fatalf("dead-lettered payments ids %q, want %q", got, want)
	}

	h := mtStart(t, e, dlq.Arn(), "", nil)
	task := mtAwaitDone(t, e, dlq.Arn(), h)
	mtWantTask(t, task, TaskCompleted, 5, 5)
	if task.SourceArn != dlq.Arn() || task.DestinationArn != "" || task.FailureReason != "" || task.MaxPerSecond != 0 {
		t.Errorf("task %+v", task)
	}
	if want := testStart.Add(60 * time.Second).UnixMilli(); task.Started != want {
		t.Errorf("Started %d, want %d", task.Started, want)
	}

	wantCounts(t, dlq, Counts{})
	wantCounts(t, s1, Counts{Visible: 2})
	wantCounts(t, s2, Counts{Visible: 3})
	// Moved in one batch at the start: all sent now.
	movedAt := clk.Now()
	d1 := mtRecvAll(t, s1)
	if got := mtSortedBodies(d1); !slices.Equal(got, []string{"o1", "o2"}) {
		t.Errorf("orders got %q", got)
	}
	mtWantRedriven(t, d1, mtFrom(before, s1.Arn()), mtAt(movedAt))
	d2 := mtRecvAll(t, s2)
	if got := mtSortedBodies(d2); !slices.Equal(got, []string{"p1", "p2", "p3"}) {
		t.Errorf("payments got %q", got)
	}
	mtWantRedriven(t, d2, mtFrom(before, s2.Arn()), mtAt(movedAt))
	ids := append(mtDeliveryIDs(d1), mtDeliveryIDs(d2)...)
	sort.Strings(ids)
	if len(slices.Compact(slices.Clone(ids))) != len(d1)+len(d2) {
		t.Errorf("moved message ids %q not all distinct", ids)
	}
}

func TestMoveTaskMakesNewMessageAndStartsAfresh(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{VisibilityTimeout: ptr(30)}, nil)
	src := mtSource(t, e, "src", dlq, AttributeUpdate{})
	attrs := []MessageAttribute{
		{Name: "kind", DataType: "String", StringValue: "invoice"},
		{Name: "blob", DataType: "Binary", BinaryValue: []byte{0, 1, 255}},
	}
	res := send(t, src, NewMessage{Body: "poison", Attributes: cloneAttributes(attrs)})
	mtDeadLetter(t, clk, src)
	// Received twice more in the dead-letter queue: three receives in all.
	for i := 2; i <= 3; i++ {
		d := recvOne(t, dlq, ReceiveOptions{}, "poison")
		if d.ReceiveCount != i || d.DeadLetterSourceArn != src.Arn() {
			t.Fatalf("DLQ receive: ReceiveCount %d source %q", d.ReceiveCount, d.DeadLetterSourceArn)
		}
		wantCode(t, changeVis(dlq, d.ReceiptHandle, 0), "")
	}

	before := mtPeekAll(t, dlq)
	if len(before) != 1 || before[0].ID != res[0].MessageID || !before[0].SentAt.Equal(testStart) {
		t.Fatalf("dead-letter queue holds %+v, want the message as sent", before)
	}

	// Minutes later, the move makes it a new message sent then.
	clk.Advance(2 * time.Minute)
	movedAt := clk.Now()
	h := mtStart(t, e, dlq.Arn(), "", nil)
	mtWantTask(t, mtAwaitDone(t, e, dlq.Arn(), h), TaskCompleted, 1, 1)

	// With its receive count kept, this receive would dead-letter it again
	// (maxReceiveCount 1); it starts from zero instead.
	clk.Advance(time.Second)
	d := recvOne(t, src, ReceiveOptions{}, "poison")
	mtWantRedriven(t, []Delivery{d}, before, mtAt(movedAt))
	if d.ID == res[0].MessageID || d.MD5OfBody != res[0].MD5OfBody {
		t.Errorf("moved message id %s md5 %s, want a new id and md5 %s (sent as %s)", d.ID, d.MD5OfBody, res[0].MD5OfBody, res[0].MessageID)
	}
	if !attributesEqual(d.Attributes, attrs) {
		t.Errorf("moved message attributes %+v, want %+v", d.Attributes, attrs)
	}
	if !d.FirstReceivedAt.Equal(clk.Now()) {
		t.Errorf("FirstReceivedAt %v, want this receive at %v", d.FirstReceivedAt, clk.Now())
	}
	// And it dead-letters again once its new lease runs out, as the new
	// message it is, recording the source afresh.
	clk.Advance(30 * time.Second)
	recvNone(t, src)
	again := recvOne(t, dlq, ReceiveOptions{}, "poison")
	if again.ID != d.ID || again.DeadLetterSourceArn != src.Arn() || again.ReceiveCount != 2 || !again.SentAt.Equal(movedAt) {
		t.Errorf("dead-lettered again: id %s source %q count %d sent %v, want id %s source %q count 2 sent %v",
			again.ID, again.DeadLetterSourceArn, again.ReceiveCount, again.SentAt, d.ID, src.Arn(), movedAt)
	}
}

func TestMoveTaskRestartsRetention(t *testing.T) {
	// A moved message gets the destination's full retention period from
	// the move (move.go: "redriven ... a full retention period").
	e, clk := newTestEngine(t, Options{})
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	src := mtSource(t, e, "src", dlq, AttributeUpdate{MessageRetentionPeriod: ptr(60)})
	sendBodies(t, src, "m")
	mtDeadLetter(t, clk, src) // t = 30 s
	clk.Advance(20 * time.Second)
	h := mtStart(t, e, dlq.Arn(), "", nil) // t = 50 s
	mtWantTask(t, mtAwaitDone(t, e, dlq.Arn(), h), TaskCompleted, 1, 1)
	clk.Advance(59 * time.Second) // 109 s after the send, 59 s after the move
	wantCounts(t, src, Counts{Visible: 1})
	clk.Advance(time.Second)
	wantCounts(t, src, Counts{})
}

func TestMoveTaskToDestination(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	src := mtSource(t, e, "src", dlq, AttributeUpdate{})
	dst := mustCreate(t, e, "dst", AttributeUpdate{}, nil)
	res := sendBodies(t, src, "m1", "m2", "m3")
	mtDeadLetter(t, clk, src)
	// A message sent straight to the dead-letter queue has no source, but
	// with a destination it moves like the others.
	res = append(res, sendBodies(t, dlq, "direct")...)
	wantCounts(t, dlq, Counts{Visible: 4})
	before := mtPeekAll(t, dlq)
	if got, want := mtMessageIDs(before), mtIDs(res); !slices.Equal(got, want) {
		t.Fatalf("dead-letter queue ids %q, want %q", got, want)
	}
	clk.Advance(time.Minute)
	movedAt := clk.Now()

	h := mtStart(t, e, dlq.Arn(), dst.Arn(), nil)
	task := mtAwaitDone(t, e, dlq.Arn(), h)
	mtWantTask(t, task, TaskCompleted, 4, 4)
	if task.DestinationArn != dst.Arn() {
		t.Errorf("DestinationArn %q, want %q", task.DestinationArn, dst.Arn())
	}
	wantCounts(t, dlq, Counts{})
	wantCounts(t, src, Counts{})
	ds := mtRecvAll(t, dst)
	if got := mtSortedBodies(ds); !slices.Equal(got, []string{"direct", "m1", "m2", "m3"}) {
		t.Errorf("destination got %q", got)
	}
	mtWantRedriven(t, ds, before, mtAt(movedAt))
}

func TestMoveTaskRate(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	src := mtSource(t, e, "src", dlq, AttributeUpdate{})
	sendBodies(t, src, "m1", "m2", "m3", "m4", "m5")
	mtDeadLetter(t, clk, src)

	h := mtStart(t, e, dlq.Arn(), "", ptr(2))
	// The first second's batch goes at once.
	task := mtAwaitMoved(t, e, clk, dlq.Arn(), h, 2, 2)
	mtWantTask(t, task, TaskRunning, 2, 5)
	if task.MaxPerSecond != 2 {
		t.Errorf("MaxPerSecond %d, want 2", task.MaxPerSecond)
	}
	wantCounts(t, src, Counts{Visible: 2})
	wantCounts(t, dlq, Counts{Visible: 3})

	// Nothing more before the second is up.
	clk.Advance(500 * time.Millisecond)
	task, _ = mtFind(t, e, dlq.Arn(), h)
	mtWantTask(t, task, TaskRunning, 2, 5)
	wantCounts(t, dlq, Counts{Visible: 3})

	clk.Advance(500 * time.Millisecond)
	mtWantTask(t, mtAwaitMoved(t, e, clk, dlq.Arn(), h, 4, 2), TaskRunning, 4, 5)
	wantCounts(t, src, Counts{Visible: 4})
	wantCounts(t, dlq, Counts{Visible: 1})

	clk.Advance(time.Second)
	mtWantTask(t, mtAwaitDone(t, e, dlq.Arn(), h), TaskCompleted, 5, 5)
	wantCounts(t, src, Counts{Visible: 5})
	wantCounts(t, dlq, Counts{})
	got := mtRecvAll(t, src)
	if b := mtSortedBodies(got); !slices.Equal(b, []string{"m1", "m2", "m3", "m4", "m5"}) {
		t.Errorf("source got %q", b)
	}
}

func TestMoveTaskRateLimits(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	mtSource(t, e, "src", dlq, AttributeUpdate{})
	for _, rate := range []int{0, -1, MaxMovePerSecond + 1} {
		_, err := e.StartMoveTask(dlq.Arn(), "", ptr(rate))
		wantCode(t, err, ErrInvalidParameterValue)
	}
	if tasks, err := e.MoveTasks(dlq.Arn(), 10); err != nil || len(tasks) != 0 {
		t.Fatalf("refused starts left tasks %+v, %v", tasks, err)
	}
	// The bounds themselves are accepted; an empty queue's task completes
	// at once.
	for _, rate := range []int{1, MaxMovePerSecond} {
		h := mtStart(t, e, dlq.Arn(), "", ptr(rate))
		task := mtAwaitDone(t, e, dlq.Arn(), h)
		mtWantTask(t, task, TaskCompleted, 0, 0)
		if task.MaxPerSecond != rate {
			t.Errorf("MaxPerSecond %d, want %d", task.MaxPerSecond, rate)
		}
	}
}

func TestMoveTaskStartErrors(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	src := mtSource(t, e, "src", dlq, AttributeUpdate{})
	plain := mustCreate(t, e, "plain", AttributeUpdate{}, nil)

	for _, arn := range []string{testArn("missing"), "not-an-arn", "arn:aws:sqs:eu-west-1:" + testAccount + ":dlq", ""} {
		_, err := e.StartMoveTask(arn, "", nil)
		wantCode(t, err, ErrResourceNotFound)
		_, err = e.MoveTasks(arn, 1)
		wantCode(t, err, ErrResourceNotFound)
	}
	// A queue that no queue dead-letters into is no source for a task.
	_, err := e.StartMoveTask(plain.Arn(), "", nil)
	wantCode(t, err, ErrInvalidParameterValue)
	_, err = e.StartMoveTask(src.Arn(), dlq.Arn(), nil)
	wantCode(t, err, ErrInvalidParameterValue)
	// Unknown destination, and the source itself as destination.
	_, err = e.StartMoveTask(dlq.Arn(), testArn("missing"), nil)
	wantCode(t, err, ErrResourceNotFound)
	_, err = e.StartMoveTask(dlq.Arn(), dlq.Arn(), nil)
	wantCode(t, err, ErrInvalidParameterValue)
	// The destination must be of the source's type, both ways (a standard
	// message has no group to join in a FIFO queue).
	fifo := AttributeUpdate{FifoQueue: ptr(true)}
	fifoDLQ := mustCreate(t, e, "dlq.fifo", fifo, nil)
	fifoSrc := mtSource(t, e, "src.fifo", fifoDLQ, fifo)
	_, err = e.StartMoveTask(dlq.Arn(), fifoSrc.Arn(), nil)
	wantCode(t, err, ErrInvalidParameterValue)
	_, err = e.StartMoveTask(fifoDLQ.Arn(), plain.Arn(), nil)
	wantCode(t, err, ErrInvalidParameterValue)
	// MaxResults is 1 to 10.
	for _, max := range []int{0, -1, 11} {
		_, err = e.MoveTasks(dlq.Arn(), max)
		wantCode(t, err, ErrInvalidParameterValue)
	}
	// Once its only source drops the redrive policy, the queue is no
	// longer a dead-letter queue.
	wantCode(t, src.SetAttributes(AttributeUpdate{ClearRedrivePolicy: true}), "")
	_, err = e.StartMoveTask(dlq.Arn(), "", nil)
	wantCode(t, err, ErrInvalidParameterValue)
	if tasks, err := e.MoveTasks(dlq.Arn(), 10); err != nil || len(tasks) != 0 {
		t.Fatalf("refused starts left tasks %+v, %v", tasks, err)
	}
}

func TestMoveTaskOneActivePerSource(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	src := mtSource(t, e, "src", dlq, AttributeUpdate{})
	other := mustCreate(t, e, "other-dlq", AttributeUpdate{}, nil)
	otherSrc := mtSource(t, e, "other-src", other, AttributeUpdate{})
	sendBodies(t, src, "a", "b", "c")
	sendBodies(t, otherSrc, "x", "y")
	mtDeadLetter(t, clk, src)
	mtDeadLetter(t, clk, otherSrc)

	h := mtStart(t, e, dlq.Arn(), "", ptr(1))
	mtAwaitMoved(t, e, clk, dlq.Arn(), h, 1, 2)
	// AWS answers InvalidParameterValue (LocalStack's validated
	// test_start_multiple_move_tasks): the SQS protocols render
	// ErrMoveTaskRunning so, and the REST API as move_task_running.
	for _, dest := range []string{"", src.Arn()} {
		_, err := e.StartMoveTask(dlq.Arn(), dest, nil)
		wantCode(t, err, ErrMoveTaskRunning)
	}
	// Another source is independent.
	h2 := mtStart(t, e, other.Arn(), "", ptr(1))
	mtAwaitMoved(t, e, clk, other.Arn(), h2, 1, 3)
	if tasks, _ := e.MoveTasks(dlq.Arn(), 10); len(tasks) != 1 || tasks[0].Handle != h {
		t.Fatalf("dlq tasks %+v, want only the first", tasks)
	}

	// Once the task has ended, a new one may start.
	if _, err := e.CancelMoveTask(h); err != nil {
		t.Fatalf("CancelMoveTask: %v", err)
	}
	mtWantTask(t, mtAwaitDone(t, e, dlq.Arn(), h), TaskCancelled, 1, 3)
	h3 := mtStart(t, e, dlq.Arn(), "", nil)
	mtWantTask(t, mtAwaitDone(t, e, dlq.Arn(), h3), TaskCompleted, 2, 2)
	wantCounts(t, src, Counts{Visible: 3})
	// Meanwhile the other task is still running; a tick finishes it.
	other2, _ := mtFind(t, e, other.Arn(), h2)
	mtWantTask(t, other2, TaskRunning, 1, 2)
	mtAwaitMoved(t, e, clk, other.Arn(), h2, 1, 2)
	clk.Advance(time.Second)
	mtWantTask(t, mtAwaitDone(t, e, other.Arn(), h2), TaskCompleted, 2, 2)
	wantCounts(t, otherSrc, Counts{Visible: 2})
}

func TestMoveTaskCancel(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	src := mtSource(t, e, "src", dlq, AttributeUpdate{})
	sendBodies(t, src, "m1", "m2", "m3", "m4", "m5")
	mtDeadLetter(t, clk, src)

	h := mtStart(t, e, dlq.Arn(), "", ptr(1))
	mtAwaitMoved(t, e, clk, dlq.Arn(), h, 1, 2)
	moved, err := e.CancelMoveTask(h)
	if err != nil || moved != 1 {
		t.Fatalf("CancelMoveTask = %d, %v; want 1", moved, err)
	}
	mtWantTask(t, mtAwaitDone(t, e, dlq.Arn(), h), TaskCancelled, 1, 5)
	// Time passes and nothing more moves.
	clk.Advance(10 * time.Second)
	task, _ := mtFind(t, e, dlq.Arn(), h)
	mtWantTask(t, task, TaskCancelled, 1, 5)
	wantCounts(t, src, Counts{Visible: 1})
	wantCounts(t, dlq, Counts{Visible: 4})

	// Only a running task can be cancelled.
	_, err = e.CancelMoveTask(h)
	if err == nil {
		t.Fatal("cancelling a cancelled task succeeded")
	}
	// A handle that is not one is a bad value (LocalStack's validated
	// test_cancel_with_invalid_task_handle).
	_, err = e.CancelMoveTask("no-such-task")
	wantCode(t, err, ErrInvalidParameterValue)
	_, err = e.CancelMoveTask("")
	wantCode(t, err, ErrInvalidParameterValue)

	h2 := mtStart(t, e, dlq.Arn(), "", nil)
	mtWantTask(t, mtAwaitDone(t, e, dlq.Arn(), h2), TaskCompleted, 4, 4)
	_, err = e.CancelMoveTask(h2)
	if err == nil {
		t.Fatal("cancelling a completed task succeeded")
	}
	task, _ = mtFind(t, e, dlq.Arn(), h2)
	mtWantTask(t, task, TaskCompleted, 4, 4)
	wantCounts(t, src, Counts{Visible: 5})
}

func TestMoveTaskList(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	src := mtSource(t, e, "src", dlq, AttributeUpdate{})
	other := mustCreate(t, e, "other-dlq", AttributeUpdate{}, nil)
	mtSource(t, e, "other-src", other, AttributeUpdate{})

	if tasks, err := e.MoveTasks(dlq.Arn(), 10); err != nil || len(tasks) != 0 {
		t.Fatalf("MoveTasks before any task: %+v, %v", tasks, err)
	}
	// Twelve finished tasks a second apart, then a running one.
	var handles []string
	for range 12 {
		h := mtStart(t, e, dlq.Arn(), "", nil)
		mtAwaitDone(t, e, dlq.Arn(), h)
		handles = append(handles, h)
		clk.Advance(time.Second)
	}
	mtStart(t, e, other.Arn(), "", nil) // not listed for dlq
	sendBodies(t, src, "a", "b")
	mtDeadLetter(t, clk, src)
	running := mtStart(t, e, dlq.Arn(), "", ptr(1))
	mtAwaitMoved(t, e, clk, dlq.Arn(), running, 1, 2)
	handles = append(handles, running)
	slices.Reverse(handles) // newest first

	for _, max := range []int{1, 2, 10} {
		tasks, err := e.MoveTasks(dlq.Arn(), max)
		if err != nil {
			t.Fatalf("MoveTasks(%d): %v", max, err)
		}
		if len(tasks) != max {
			t.Fatalf("MoveTasks(%d) listed %d", max, len(tasks))
		}
		for i, task := range tasks {
			if task.Handle != handles[i] {
				t.Fatalf("MoveTasks(%d)[%d] = %s, want %s", max, i, task.Handle, handles[i])
			}
			if task.SourceArn != dlq.Arn() {
				t.Fatalf("listed task of %s", task.SourceArn)
			}
			if i > 0 && task.Started >= tasks[i-1].Started {
				t.Fatalf("MoveTasks(%d): started %d listed after %d", max, task.Started, tasks[i-1].Started)
			}
		}
	}
	tasks, _ := e.MoveTasks(dlq.Arn(), 1)
	mtWantTask(t, tasks[0], TaskRunning, 1, 2)
	if want := clk.Now().UnixMilli(); tasks[0].Started != want {
		t.Errorf("Started %d, want %d", tasks[0].Started, want)
	}
	if tasks, _ := e.MoveTasks(other.Arn(), 10); len(tasks) != 1 {
		t.Errorf("other DLQ lists %d tasks, want 1", len(tasks))
	}
}

func TestMoveTaskApproximateNumberOfMessagesToMove(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{VisibilityTimeout: ptr(30)}, nil)
	src := mtSource(t, e, "src", dlq, AttributeUpdate{})
	sendBodies(t, src, "m1", "m2", "m3", "m4")
	mtDeadLetter(t, clk, src)
	// One is being worked on in the dead-letter queue: it is not counted
	// and not moved.
	leased := recvOne(t, dlq, ReceiveOptions{}, "m1")

	h := mtStart(t, e, dlq.Arn(), "", ptr(1))
	mtWantTask(t, mtAwaitMoved(t, e, clk, dlq.Arn(), h, 1, 2), TaskRunning, 1, 3)
	// A message arriving after the start is not counted either, and the
	// task stops before it (it has no source to go back to, so reaching it
	// would fail the task).
	sendBodies(t, dlq, "late")
	clk.Advance(time.Second)
	mtWantTask(t, mtAwaitMoved(t, e, clk, dlq.Arn(), h, 2, 2), TaskRunning, 2, 3)
	clk.Advance(time.Second)
	mtWantTask(t, mtAwaitDone(t, e, dlq.Arn(), h), TaskCompleted, 3, 3)
	wantCounts(t, dlq, Counts{Visible: 1, InFlight: 1})
	wantCounts(t, src, Counts{Visible: 3})
	if got := mtSortedBodies(mtRecvAll(t, src)); !slices.Equal(got, []string{"m2", "m3", "m4"}) {
		t.Errorf("source got %q", got)
	}
	recvOne(t, dlq, ReceiveOptions{}, "late")
	wantCode(t, ack(dlq, leased.ReceiptHandle), "")
}

func TestMoveTaskFailsWithoutSource(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	src := mtSource(t, e, "src", dlq, AttributeUpdate{})
	sendBodies(t, src, "first")
	mtDeadLetter(t, clk, src)
	sendBodies(t, dlq, "direct") // no DeadLetterSourceArn
	sendBodies(t, src, "last")
	mtDeadLetter(t, clk, src)
	wantCounts(t, dlq, Counts{Visible: 3})

	h := mtStart(t, e, dlq.Arn(), "", nil)
	task := mtAwaitDone(t, e, dlq.Arn(), h)
	if task.Status != TaskFailed || task.FailureReason == "" {
		t.Fatalf("task %+v, want FAILED with a reason", task)
	}
	// It moved what came before the message with nowhere to go, and left
	// that message and the rest in place.
	if task.Moved != 1 || task.ToMove != 3 {
		t.Errorf("task moved %d of %d, want 1 of 3", task.Moved, task.ToMove)
	}
	recvOne(t, src, ReceiveOptions{}, "first")
	wantCounts(t, dlq, Counts{Visible: 2})

	// A failed task is not active: a task with a destination moves the rest.
	h2 := mtStart(t, e, dlq.Arn(), src.Arn(), nil)
	mtWantTask(t, mtAwaitDone(t, e, dlq.Arn(), h2), TaskCompleted, 2, 2)
	wantCounts(t, dlq, Counts{})
	if got := mtSortedBodies(mtRecvAll(t, src)); !slices.Equal(got, []string{"direct", "last"}) {
		t.Errorf("source got %q", got)
	}
	// The failed task keeps its reason in the listing.
	failed, _ := mtFind(t, e, dlq.Arn(), h)
	if failed.Status != TaskFailed || failed.FailureReason != task.FailureReason {
		t.Errorf("failed task now %+v", failed)
	}
}

func TestMoveTaskFailsWhenSourceQueueDeleted(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	src := mtSource(t, e, "src", dlq, AttributeUpdate{})
	keep := mtSource(t, e, "keep", dlq, AttributeUpdate{}) // keeps dlq a DLQ
	sendBodies(t, src, "orphan")
	mtDeadLetter(t, clk, src)
	wantCode(t, e.DeleteQueue(src), "")

	h := mtStart(t, e, dlq.Arn(), "", nil)
	task := mtAwaitDone(t, e, dlq.Arn(), h)
	if task.Status != TaskFailed || task.FailureReason == "" || task.Moved != 0 {
		t.Fatalf("task %+v, want FAILED with a reason and nothing moved", task)
	}
	wantCounts(t, dlq, Counts{Visible: 1})
	wantCounts(t, keep, Counts{})
}

func TestMoveTaskFifoKeepsGroupOrder(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	fifo := AttributeUpdate{FifoQueue: ptr(true), ContentBasedDeduplication: ptr(true)}
	dlq := mustCreate(t, e, "dlq.fifo", fifo, nil)
	src := mtSource(t, e, "src.fifo", dlq, fifo)
	type gm struct{ group, body string }
	sent := []gm{{"g1", "a1"}, {"g2", "b1"}, {"g1", "a2"}, {"g3", "c1"}, {"g2", "b2"}, {"g1", "a3"}, {"g3", "c2"}, {"g2", "b3"}}
	ids := map[string]string{}
	for _, m := range sent {
		res := send(t, src, NewMessage{Body: m.body, GroupID: m.group})
		ids[m.body] = res[0].MessageID
	}
	mtDeadLetter(t, clk, src)
	wantCounts(t, dlq, Counts{Visible: len(sent)})
	before := mtPeekAll(t, dlq)
	for _, m := range before {
		// Dead-lettering keeps the id, and in a FIFO dead-letter queue
		// the deduplication id becomes the message id.
		if m.ID != ids[m.Body] || m.DeduplicationID != m.ID {
			t.Errorf("%s in the dead-letter queue: id %s dedup id %q, want id %s and dedup id the same", m.Body, m.ID, m.DeduplicationID, ids[m.Body])
		}
	}

	// Two a second: a group of three straddles batches whatever the order.
	h := mtStart(t, e, dlq.Arn(), "", ptr(2))
	arrived := mtArrivals{}
	for i := 0; ; i++ {
		task := mtAwait(t, e, dlq.Arn(), h, "idle", func(m MoveTask) bool {
			return m.Status != TaskRunning || clk.Waiters() >= 2
		})
		arrived.note(t, src, clk.Now())
		if task.Status != TaskRunning {
			mtWantTask(t, task, TaskCompleted, int64(len(sent)), int64(len(sent)))
			break
		}
		if i > len(sent) {
			t.Fatalf("task still running after %d ticks: %+v", i, task)
		}
		clk.Advance(time.Second)
	}
	wantCounts(t, dlq, Counts{})

	ds := mtRecvAll(t, src)
	groups := map[string][]string{}
	lastSeq := map[string]string{}
	for _, d := range ds {
		groups[d.GroupID] = append(groups[d.GroupID], d.Body)
		if d.SequenceNumber <= lastSeq[d.GroupID] {
			t.Errorf("%s: sequence number %s not after %s", d.Body, d.SequenceNumber, lastSeq[d.GroupID])
		}
		lastSeq[d.GroupID] = d.SequenceNumber
		if d.ID == ids[d.Body] {
			t.Errorf("%s: id %s after the move is the one it was sent with", d.Body, d.ID)
		}
	}
	mtWantRedriven(t, ds, before, arrived.at)
	// Eight at two a second take four ticks: sent over three seconds.
	bySent := func(a, b Delivery) int { return a.SentAt.Compare(b.SentAt) }
	if first, last := slices.MinFunc(ds, bySent).SentAt, slices.MaxFunc(ds, bySent).SentAt; last.Sub(first) != 3*time.Second {
		t.Errorf("moved messages sent from %v to %v, want 3 s apart", first, last)
	}
	want := map[string][]string{"g1": {"a1", "a2", "a3"}, "g2": {"b1", "b2", "b3"}, "g3": {"c1", "c2"}}
	for g, w := range want {
		if !slices.Equal(groups[g], w) {
			t.Errorf("group %s received %q, want %q", g, groups[g], w)
		}
	}
	if len(groups) != len(want) {
		t.Errorf("groups %v", groups)
	}
}

func TestMoveTaskSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	src := mtSource(t, e, "src", dlq, AttributeUpdate{})
	res := sendBodies(t, src, "m1", "m2", "m3", "m4", "m5")
	mtDeadLetter(t, clk, src)
	before := mtPeekAll(t, dlq)
	if got, want := mtMessageIDs(before), mtIDs(res); !slices.Equal(got, want) {
		t.Fatalf("dead-letter queue ids %q, want %q", got, want)
	}

	h := mtStart(t, e, dlq.Arn(), "", ptr(1))
	mtWantTask(t, mtAwaitMoved(t, e, clk, dlq.Arn(), h, 1, 2), TaskRunning, 1, 5)
	arrived := mtArrivals{}
	arrived.note(t, src, clk.Now())

	e = reopen(t, e, path, clk)
	dlq, src = mustQueue(t, e, "dlq"), mustQueue(t, e, "src")
	task, ok := mtFind(t, e, dlq.Arn(), h)
	if !ok || task.Status != TaskRunning || task.Moved < 1 || task.ToMove != 5 || task.MaxPerSecond != 1 {
		t.Fatalf("after reopen: task %+v (listed %v), want RUNNING with its progress", task, ok)
	}
	// The task carries on; a second is enough for each message.
	for i := 0; ; i++ {
		task = mtAwait(t, e, dlq.Arn(), h, "idle", func(m MoveTask) bool {
			return m.Status != TaskRunning || clk.Waiters() >= 2
		})
		arrived.note(t, src, clk.Now())
		if task.Status != TaskRunning {
			break
		}
		if i >= 5 {
			t.Fatalf("task still running after %d ticks: %+v", i, task)
		}
		clk.Advance(time.Second)
	}
	mtWantTask(t, task, TaskCompleted, 5, 5)
	wantCounts(t, dlq, Counts{})
	ds := mtRecvAll(t, src)
	mtWantRedriven(t, ds, before, arrived.at)

	// A finished task is still listed after another restart.
	e = reopen(t, e, path, clk)
	dlq = mustQueue(t, e, "dlq")
	task, ok = mtFind(t, e, dlq.Arn(), h)
	if !ok {
		t.Fatal("completed task forgotten after reopen")
	}
	mtWantTask(t, task, TaskCompleted, 5, 5)
}

func TestMoveTaskCancelledAcrossRestart(t *testing.T) {
	// Cancelled just before the engine closes: whether the task saw the
	// cancellation or not, it is CANCELLED after a reopen and moves no more.
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	src := mtSource(t, e, "src", dlq, AttributeUpdate{})
	sendBodies(t, src, "m1", "m2", "m3")
	mtDeadLetter(t, clk, src)
	h := mtStart(t, e, dlq.Arn(), "", ptr(1))
	mtAwaitMoved(t, e, clk, dlq.Arn(), h, 1, 2)
	if _, err := e.CancelMoveTask(h); err != nil {
		t.Fatal(err)
	}
	e = reopen(t, e, path, clk)
	dlq, src = mustQueue(t, e, "dlq"), mustQueue(t, e, "src")
	task, ok := mtFind(t, e, dlq.Arn(), h)
	if !ok {
		t.Fatal("task forgotten after reopen")
	}
	mtWantTask(t, task, TaskCancelled, 1, 3)
	clk.Advance(5 * time.Second)
	wantCounts(t, dlq, Counts{Visible: 2})
	wantCounts(t, src, Counts{Visible: 1})
	// Not active: a new task may start.
	h2 := mtStart(t, e, dlq.Arn(), "", nil)
	mtWantTask(t, mtAwaitDone(t, e, dlq.Arn(), h2), TaskCompleted, 2, 2)
}

// Task handles are AWS's: the padded standard base64 of
// {"taskId":"<uuid>","sourceArn":"<arn>"} (LocalStack's validated
// test_basic_move_task_workflow decodes them so; the API_ListMessageMoveTasks
// sample handle is of this form). Cancel answers a handle that is not one,
// one naming an unknown source and one naming an unknown task of a known
// source as AWS does (LocalStack's validated
// test_cancel_with_invalid_task_handle, ..._invalid_source_arn_in_task_handle
// and ..._invalid_task_id_in_task_handle).
func TestMoveTaskHandle(t *testing.T) {
	const sample = "eyJ0YXNrSWQiOiJkYzE2OWUwNC0wZTU1LTQ0ZDItYWE5MC1jMDgwY2ExZjM2ZjciLCJzb3VyY2VBcm4iOiJhcm46YXdzOnNxczp1cy1lYXN0LTE6MTc3NzE1MjU3NDM2Ok15RGVhZExldHRlclF1ZXVlIn0="
	if got := encodeTaskHandle("dc169e04-0e55-44d2-aa90-c080ca1f36f7", "arn:aws:sqs:us-east-1:177715257436:MyDeadLetterQueue"); got != sample {
		t.Fatalf("handle %s, want AWS's sample %s", got, sample)
	}
	e, clk := newTestEngine(t, Options{})
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	src := mtSource(t, e, "src", dlq, AttributeUpdate{})
	sendBodies(t, src, "m1", "m2", "m3")
	mtDeadLetter(t, clk, src)
	h := mtStart(t, e, dlq.Arn(), "", ptr(1))
	b, err := base64.StdEncoding.DecodeString(h)
	if err != nil {
		t.Fatalf("handle %q is not standard base64: %v", h, err)
	}
	var th struct{ TaskID, SourceArn string }
	if err := json.Unmarshal(b, &th); err != nil || th.SourceArn != dlq.Arn() {
		t.Fatalf("handle decodes to %s (%v)", b, err)
	}
	if _, err := uuid.Parse(th.TaskID); err != nil || !strings.HasPrefix(string(b), `{"taskId":"`) {
		t.Fatalf("handle decodes to %s: want the taskId, a UUID, first", b)
	}
	mtAwaitMoved(t, e, clk, dlq.Arn(), h, 1, 2)

	cancelErr := func(handle string, code Code, param string) {
		t.Helper()
		_, err := e.CancelMoveTask(handle)
		wantCode(t, err, code)
		if got := err.(*Error).Param; got != param {
			t.Errorf("CancelMoveTask(%.30q): %v, want one of parameter %s", handle, err, param)
		}
	}
	cancelErr("foobared", ErrInvalidParameterValue, "TaskHandle")
	cancelErr(base64.StdEncoding.EncodeToString([]byte("not json")), ErrInvalidParameterValue, "TaskHandle")
	cancelErr(encodeTaskHandle("10f57157-fc38-4da9-a113-4de7e12d05dd", "arn:aws:sqs:us-east-1:878966065785:test-queue-doesnt-exist-123456"),
		ErrResourceNotFound, "SourceArn")
	cancelErr(encodeTaskHandle("10f57157-fc38-4da9-a113-4de7e12d05aa", dlq.Arn()), ErrResourceNotFound, "TaskHandle")

	// The handle form of earlier minisqs versions names the same task.
	old := base64.StdEncoding.EncodeToString([]byte(th.TaskID + "|" + dlq.Arn()))
	if moved, err := e.CancelMoveTask(old); err != nil || moved != 1 {
		t.Fatalf("cancel by the old handle form: %d, %v", moved, err)
	}
	mtWantTask(t, mtAwaitDone(t, e, dlq.Arn(), h), TaskCancelled, 1, 3)
}

// A task stored by an earlier version, under a handle of the form
// base64("id|sourceArn"), is listed and cancelled by that handle after a
// restart.
func TestMoveTaskOldHandleAcrossRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	src := mtSource(t, e, "src", dlq, AttributeUpdate{})
	sendBodies(t, src, "m1", "m2", "m3")
	mtDeadLetter(t, clk, src)
	old := base64.StdEncoding.EncodeToString([]byte("0f5d2b4e-5d0c-4a53-9f0b-2a1c3e4d5f60|" + dlq.Arn()))
	stored := MoveTask{Handle: old, SourceArn: dlq.Arn(), MaxPerSecond: 1, Status: TaskRunning, ToMove: 3, Started: clk.Now().UnixMilli()}
	if err := e.store.update(func(tx recordTx) error { return putTaskTx(tx, stored) }); err != nil {
		t.Fatal(err)
	}
	e = reopen(t, e, path, clk)
	dlq = mustQueue(t, e, "dlq")
	mtAwaitMoved(t, e, clk, dlq.Arn(), old, 1, 2)
	if moved, err := e.CancelMoveTask(old); err != nil || moved != 1 {
		t.Fatalf("cancel by the stored handle: %d, %v", moved, err)
	}
	mtWantTask(t, mtAwaitDone(t, e, dlq.Arn(), old), TaskCancelled, 1, 3)
}

// A move task whose destination's store refuses the write fails, and the
// messages stay in the dead-letter queue, as they were.
func TestMoveTaskFailsWhenStoreRefuses(t *testing.T) {
	var armed atomic.Bool
	var writes atomic.Int32
	e, clk := newTestEngine(t, Options{FailWrites: func() error {
		// The task's own record is written first; every write after it
		// fails.
		if armed.Load() && writes.Add(1) > 1 {
			return errors.New("disk full")
		}
		return nil
	}})
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	src := mtSource(t, e, "src", dlq, AttributeUpdate{})
	sendBodies(t, src, "stuck")
	mtDeadLetter(t, clk, src)

	armed.Store(true)
	h := mtStart(t, e, dlq.Arn(), "", nil)
	task := mtAwaitDone(t, e, dlq.Arn(), h)
	armed.Store(false)
	if task.Status != TaskFailed || task.FailureReason != string(ErrInternal) || task.Moved != 0 {
		t.Fatalf("task %+v, want FAILED for %s with nothing moved", task, ErrInternal)
	}
	wantCounts(t, src, Counts{})
	recvOne(t, dlq, ReceiveOptions{}, "stuck")
}
