package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// Shared helpers for the engine's tests. The tests live in package engine so
// they can see a queue's waiting receives and build receipt handles; they
// otherwise drive only the exported API.

// testStart is where every test's ManualClock begins.
var testStart = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

const testAccount = DefaultAccountID

// testArn is the ARN the default engine gives a queue called name.
func testArn(name string) string {
	return "arn:aws:sqs:" + DefaultRegion + ":" + testAccount + ":" + name
}

func ptr[T any](v T) *T { return &v }

// newTestEngine opens an engine on a ManualClock (opts.Clock when it is one)
// and closes it when the test ends.
func newTestEngine(t testing.TB, opts Options) (*Engine, *ManualClock) {
	t.Helper()
	clk, _ := opts.Clock.(*ManualClock)
	if clk == nil {
		clk = NewManualClock(testStart)
		opts.Clock = clk
	}
	e, err := Open(opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e, clk
}

func mustCreate(t testing.TB, e *Engine, name string, u AttributeUpdate, tags map[string]string) *Queue {
	t.Helper()
	q, err := e.CreateQueue(name, u, tags)
	if err != nil {
		t.Fatalf("CreateQueue(%q): %v", name, err)
	}
	return q
}

// wantCode fails unless err has code want; want "" means no error.
func wantCode(t testing.TB, err error, want Code) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want == "":
	case err == nil:
		t.Fatalf("got no error, want %s", want)
	case CodeOf(err) != want:
		t.Fatalf("got error %v (code %s), want code %s", err, CodeOf(err), want)
	}
}

// send sends msgs and fails the test on any per-message error.
func send(t testing.TB, q *Queue, msgs ...NewMessage) []SendResult {
	t.Helper()
	res := q.Send(msgs)
	for i, r := range res {
		if r.Err != nil {
			t.Fatalf("Send message %d (%.40q): %v", i, msgs[i].Body, r.Err)
		}
	}
	return res
}

func sendBodies(t testing.TB, q *Queue, bodies ...string) []SendResult {
	t.Helper()
	msgs := make([]NewMessage, len(bodies))
	for i, b := range bodies {
		msgs[i] = NewMessage{Body: b}
	}
	return send(t, q, msgs...)
}

// recvNow receives without waiting unless opts names a wait.
func recvNow(t testing.TB, q *Queue, opts ReceiveOptions) []Delivery {
	t.Helper()
	if opts.WaitSeconds == nil {
		opts.WaitSeconds = ptr(0)
	}
	ds, err := q.Receive(context.Background(), opts)
	if err != nil {
		t.Fatalf("Receive: %v", err)
	}
	return ds
}

// recvOne receives exactly one message with the given body.
func recvOne(t testing.TB, q *Queue, opts ReceiveOptions, body string) Delivery {
	t.Helper()
	ds := recvNow(t, q, opts)
	if len(ds) != 1 || ds[0].Body != body {
		t.Fatalf("Receive got %q, want [%q]", bodies(ds), body)
	}
	return ds[0]
}

func recvNone(t testing.TB, q *Queue) {
	t.Helper()
	if ds := recvNow(t, q, ReceiveOptions{MaxMessages: 10}); len(ds) != 0 {
		t.Fatalf("Receive got %q, want nothing", bodies(ds))
	}
}

func bodies(ds []Delivery) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Body
	}
	return out
}

func ack(q *Queue, handle string) error { return q.Acknowledge([]string{handle})[0] }

func changeVis(q *Queue, handle string, seconds int) error {
	return q.ChangeVisibility([]VisibilityChange{{ReceiptHandle: handle, Timeout: seconds}})[0]
}

func wantCounts(t testing.TB, q *Queue, want Counts) {
	t.Helper()
	if got := q.Counts(); got != want {
		t.Fatalf("Counts = %+v, want %+v", got, want)
	}
}

// Long polls.

type recvResult struct {
	ds  []Delivery
	err error
}

// startReceive runs a Receive in its own goroutine.
func startReceive(ctx context.Context, q *Queue, opts ReceiveOptions) <-chan recvResult {
	ch := make(chan recvResult, 1)
	go func() {
		ds, err := q.Receive(ctx, opts)
		ch <- recvResult{ds, err}
	}()
	return ch
}

// safetyTimeout bounds how long a test waits, in real time, for something
// that should happen at once. It is never what makes a test pass.
const safetyTimeout = 10 * time.Second

// awaitParked returns once n receives wait on q: each has registered on the
// queue's wake signal and armed its timer on clk. The engine's sweeper holds
// one timer of its own on the clock, so n receives show as n+1 waiters; this
// also makes sure the sweeper is armed before the test advances the clock.
func awaitParked(t testing.TB, clk *ManualClock, q *Queue, n int) {
	t.Helper()
	deadline := time.Now().Add(safetyTimeout)
	for {
		q.mu.Lock()
		w := q.waiters.n
		q.mu.Unlock()
		if w >= n && clk.Waiters() >= n+1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("receives never parked: q.waiters.n=%d clock waiters=%d, want %d and %d", w, clk.Waiters(), n, n+1)
		}
		runtime.Gosched()
	}
}

func awaitResult(t testing.TB, ch <-chan recvResult) recvResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(safetyTimeout):
		t.Fatalf("Receive did not return within %v", safetyTimeout)
		return recvResult{}
	}
}

func assertPending(t testing.TB, ch <-chan recvResult) {
	t.Helper()
	select {
	case r := <-ch:
		t.Fatalf("Receive returned early with %q, %v", bodies(r.ds), r.err)
	default:
	}
}

// Queue tests.

func TestValidQueueName(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"q", true},
		{"My_Queue-1", true},
		{strings.Repeat("a", 80), true},
		{strings.Repeat("a", 75) + ".fifo", true},
		{"orders.fifo", true},
		{"", false},
		{strings.Repeat("a", 81), false},
		{strings.Repeat("a", 76) + ".fifo", false},
		{".fifo", false},
		{"has space", false},
		{"dot.name", false},
		{"a.fifo.fifo", false},
		{"slash/name", false},
		{"colon:name", false},
		{"ünicode", false},
		{"q.FIFO", false},
	} {
		if got := ValidQueueName(tc.name); got != tc.want {
			t.Errorf("ValidQueueName(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCreateQueueDefaults(t *testing.T) {
	for _, tc := range []struct {
		name  string
		attrs AttributeUpdate
		fifo  bool
	}{
		{"standard", AttributeUpdate{}, false},
		{"orders.fifo", AttributeUpdate{FifoQueue: ptr(true)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newTestEngine(t, Options{})
			q := mustCreate(t, e, tc.name, tc.attrs, nil)
			want := QueueAttributes{
				DelaySeconds:                  0,
				MaximumMessageSize:            1048576,
				MessageRetentionPeriod:        345600,
				ReceiveMessageWaitTimeSeconds: 0,
				VisibilityTimeout:             30,
				KmsDataKeyReusePeriodSeconds:  300,
				SqsManagedSseEnabled:          true,
				FifoQueue:                     tc.fifo,
			}
			if tc.fifo {
				want.DeduplicationScope = "queue"
				want.FifoThroughputLimit = "perQueue"
			}
			if got := q.Attributes(); !attrsEqual(got, want) {
				t.Errorf("Attributes = %+v, want %+v", got, want)
			}
			if got := DefaultAttributes(tc.fifo); !attrsEqual(got, want) {
				t.Errorf("DefaultAttributes(%v) = %+v, want %+v", tc.fifo, got, want)
			}
			if q.Name() != tc.name || q.Arn() != testArn(tc.name) || q.IsFIFO() != tc.fifo {
				t.Errorf("Name %q Arn %q IsFIFO %v", q.Name(), q.Arn(), q.IsFIFO())
			}
			if len(q.ID()) != 36 {
				t.Errorf("ID %q is not a UUID", q.ID())
			}
			if !q.Created().Equal(testStart) || !q.Modified().Equal(testStart) {
				t.Errorf("Created %v Modified %v, want %v", q.Created(), q.Modified(), testStart)
			}
			if tags := q.Tags(); len(tags) != 0 {
				t.Errorf("Tags = %v, want none", tags)
			}
			wantCounts(t, q, Counts{})
		})
	}
}

func attrsEqual(a, b QueueAttributes) bool {
	ra, rb := a.RedriveAllowPolicy, b.RedriveAllowPolicy
	a.RedriveAllowPolicy, b.RedriveAllowPolicy = nil, nil
	rpa, rpb := a.RedrivePolicy, b.RedrivePolicy
	a.RedrivePolicy, b.RedrivePolicy = nil, nil
	if a != b {
		return false
	}
	if (rpa == nil) != (rpb == nil) || rpa != nil && *rpa != *rpb {
		return false
	}
	if (ra == nil) != (rb == nil) {
		return false
	}
	return ra == nil || ra.RedrivePermission == rb.RedrivePermission && slices.Equal(ra.SourceQueueArns, rb.SourceQueueArns)
}

func TestEngineRegionAndAccount(t *testing.T) {
	e, _ := newTestEngine(t, Options{Region: "eu-west-2", AccountID: "123456789012"})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	if e.Region() != "eu-west-2" || e.AccountID() != "123456789012" {
		t.Errorf("Region %q AccountID %q", e.Region(), e.AccountID())
	}
	if want := "arn:aws:sqs:eu-west-2:123456789012:q"; q.Arn() != want {
		t.Errorf("Arn = %q, want %q", q.Arn(), want)
	}
	if got, err := e.QueueByArn(q.Arn()); err != nil || got != q {
		t.Errorf("QueueByArn(%q) = %v, %v", q.Arn(), got, err)
	}
	// A sender left unnamed is the engine's account.
	send(t, q, NewMessage{Body: "b"})
	if d := recvOne(t, q, ReceiveOptions{}, "b"); d.SenderID != "123456789012" {
		t.Errorf("SenderID = %q", d.SenderID)
	}
}

func TestCreateQueueInvalidName(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	for _, name := range []string{"", strings.Repeat("x", 81), "a b", "a.b", ".fifo", "a/b", "tab\t", "q.FIFO"} {
		_, err := e.CreateQueue(name, AttributeUpdate{}, nil)
		if err == nil || CodeOf(err) != ErrInvalidParameterValue {
			t.Errorf("CreateQueue(%q) = %v, want %s", name, err, ErrInvalidParameterValue)
		}
	}
	if qs := e.Queues(""); len(qs) != 0 {
		t.Errorf("invalid names created %d queues", len(qs))
	}
}

func TestCreateQueueFifoMismatch(t *testing.T) {
	for _, tc := range []struct {
		name string
		fifo *bool
		want Code
	}{
		{"std", ptr(true), ""},                       // any name may be FIFO here; SQS's naming rule is the SQS layer's
		{"std", ptr(false), ErrInvalidAttributeName}, // "Unknown Attribute FifoQueue.", as SQS answers
		{"std", nil, ""},
		{"orders.fifo", ptr(false), ErrInvalidAttributeValue},
		{"orders.fifo", nil, ErrInvalidParameterValue},
		{"orders.fifo", ptr(true), ""},
	} {
		t.Run(fmt.Sprintf("%s/FifoQueue=%v", tc.name, fmtPtr(tc.fifo)), func(t *testing.T) {
			e, _ := newTestEngine(t, Options{})
			q, err := e.CreateQueue(tc.name, AttributeUpdate{FifoQueue: tc.fifo}, nil)
			wantCode(t, err, tc.want)
			if err == nil && q.IsFIFO() != (tc.fifo != nil && *tc.fifo) {
				t.Errorf("IsFIFO = %v", q.IsFIFO())
			}
			if err != nil {
				if _, err := e.Queue(tc.name); CodeOf(err) != ErrQueueDoesNotExist {
					t.Errorf("a refused CreateQueue left a queue behind: %v", err)
				}
			}
		})
	}
}

func fmtPtr[T any](p *T) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

func TestCreateQueueIdempotent(t *testing.T) {
	first := AttributeUpdate{VisibilityTimeout: ptr(45), DelaySeconds: ptr(5), Policy: ptr(`{"Version":"2012-10-17"}`)}
	for _, tc := range []struct {
		name  string
		again AttributeUpdate
		want  Code
	}{
		{"same attributes", first, ""},
		{"no attributes", AttributeUpdate{}, ""},
		{"subset", AttributeUpdate{VisibilityTimeout: ptr(45)}, ""},
		{"unnamed default named", AttributeUpdate{MaximumMessageSize: ptr(DefaultMaximumMessageSize), SqsManagedSseEnabled: ptr(true)}, ""},
		{"FifoQueue false", AttributeUpdate{FifoQueue: ptr(false)}, ErrInvalidAttributeName},
		{"different visibility", AttributeUpdate{VisibilityTimeout: ptr(46)}, ErrQueueNameExists},
		{"different delay", AttributeUpdate{DelaySeconds: ptr(0)}, ErrQueueNameExists},
		{"different unnamed-before", AttributeUpdate{MessageRetentionPeriod: ptr(60)}, ErrQueueNameExists},
		{"different policy", AttributeUpdate{Policy: ptr("")}, ErrQueueNameExists},
		{"different sse", AttributeUpdate{SqsManagedSseEnabled: ptr(false)}, ErrQueueNameExists},
		{"different kms key", AttributeUpdate{KmsMasterKeyID: ptr("alias/k")}, ErrQueueNameExists},
		{"invalid value", AttributeUpdate{VisibilityTimeout: ptr(-1)}, ErrInvalidAttributeValue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newTestEngine(t, Options{})
			q := mustCreate(t, e, "q", first, map[string]string{"k": "v"})
			before := q.Attributes()
			got, err := e.CreateQueue("q", tc.again, nil)
			wantCode(t, err, tc.want)
			if err == nil && got != q {
				t.Errorf("CreateQueue returned a different queue")
			}
			if after := q.Attributes(); !attrsEqual(after, before) {
				t.Errorf("a repeated CreateQueue changed attributes: %+v, want %+v", after, before)
			}
			if len(e.Queues("")) != 1 {
				t.Errorf("%d queues, want 1", len(e.Queues("")))
			}
		})
	}
}

func TestCreateQueueDeletedRecently(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	other := mustCreate(t, e, "other", AttributeUpdate{}, nil)
	sendBodies(t, q, "old")
	wantCode(t, e.DeleteQueue(q), "")

	if _, err := e.Queue("q"); CodeOf(err) != ErrQueueDoesNotExist {
		t.Fatalf("Queue after delete: %v", err)
	}
	if _, err := e.QueueByID(q.ID()); CodeOf(err) != ErrQueueDoesNotExist {
		t.Fatalf("QueueByID after delete: %v", err)
	}
	wantCode(t, e.DeleteQueue(q), ErrQueueDoesNotExist)

	for _, step := range []struct {
		advance time.Duration
		want    Code
	}{
		{0, ErrQueueDeletedRecently},
		{30 * time.Second, ErrQueueDeletedRecently},
		{29 * time.Second, ErrQueueDeletedRecently},
		{999 * time.Millisecond, ErrQueueDeletedRecently},
		{time.Millisecond, ""}, // exactly 60 s after the delete
	} {
		clk.Advance(step.advance)
		_, err := e.CreateQueue("q", AttributeUpdate{}, nil)
		wantCode(t, err, step.want)
	}
	q2, err := e.Queue("q")
	if err != nil {
		t.Fatal(err)
	}
	if q2.ID() == q.ID() {
		t.Errorf("the new queue reuses the deleted queue's ID")
	}
	wantCounts(t, q2, Counts{})
	recvNone(t, q2)
	// The cooldown is per name.
	wantCode(t, e.DeleteQueue(other), "")
	mustCreate(t, e, "third", AttributeUpdate{}, nil)
}

func TestCreateQueueSkipCooldowns(t *testing.T) {
	e, _ := newTestEngine(t, Options{SkipCooldowns: true})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	sendBodies(t, q, "old")
	wantCode(t, e.DeleteQueue(q), "")
	q2 := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	if q2 == q || q2.ID() == q.ID() {
		t.Errorf("recreated queue is the deleted one")
	}
	wantCounts(t, q2, Counts{})
}

func TestAttributeRanges(t *testing.T) {
	type setter func(v int) AttributeUpdate
	for _, tc := range []struct {
		attr   string
		set    setter
		get    func(QueueAttributes) int
		lo, hi int
	}{
		{"DelaySeconds", func(v int) AttributeUpdate { return AttributeUpdate{DelaySeconds: &v} },
			func(a QueueAttributes) int { return a.DelaySeconds }, 0, 900},
		{"MaximumMessageSize", func(v int) AttributeUpdate { return AttributeUpdate{MaximumMessageSize: &v} },
			func(a QueueAttributes) int { return a.MaximumMessageSize }, 1024, 1048576},
		{"MessageRetentionPeriod", func(v int) AttributeUpdate { return AttributeUpdate{MessageRetentionPeriod: &v} },
			func(a QueueAttributes) int { return a.MessageRetentionPeriod }, 60, 1209600},
		{"ReceiveMessageWaitTimeSeconds", func(v int) AttributeUpdate { return AttributeUpdate{ReceiveMessageWaitTimeSeconds: &v} },
			func(a QueueAttributes) int { return a.ReceiveMessageWaitTimeSeconds }, 0, 20},
		{"VisibilityTimeout", func(v int) AttributeUpdate { return AttributeUpdate{VisibilityTimeout: &v} },
			func(a QueueAttributes) int { return a.VisibilityTimeout }, 0, 43200},
		{"KmsDataKeyReusePeriodSeconds", func(v int) AttributeUpdate { return AttributeUpdate{KmsDataKeyReusePeriodSeconds: &v} },
			func(a QueueAttributes) int { return a.KmsDataKeyReusePeriodSeconds }, 60, 86400},
	} {
		t.Run(tc.attr, func(t *testing.T) {
			e, _ := newTestEngine(t, Options{})
			existing := mustCreate(t, e, "existing", AttributeUpdate{}, nil)
			for i, c := range []struct {
				v  int
				ok bool
			}{
				{tc.lo - 1, false}, {tc.lo, true}, {tc.hi, true}, {tc.hi + 1, false}, {-1 << 31, false}, {1 << 31, false},
			} {
				want := Code("")
				if !c.ok {
					want = ErrInvalidAttributeValue
				}
				q, err := e.CreateQueue(fmt.Sprintf("q%d", i), tc.set(c.v), nil)
				if (err == nil) != c.ok || err != nil && CodeOf(err) != want {
					t.Errorf("CreateQueue with %s=%d: %v, want %q", tc.attr, c.v, err, want)
				}
				if err == nil && tc.get(q.Attributes()) != c.v {
					t.Errorf("CreateQueue stored %s=%d, want %d", tc.attr, tc.get(q.Attributes()), c.v)
				}
				before := tc.get(existing.Attributes())
				err = existing.SetAttributes(tc.set(c.v))
				if (err == nil) != c.ok || err != nil && CodeOf(err) != want {
					t.Errorf("SetAttributes %s=%d: %v, want %q", tc.attr, c.v, err, want)
				}
				switch got := tc.get(existing.Attributes()); {
				case err == nil && got != c.v:
					t.Errorf("SetAttributes stored %s=%d, want %d", tc.attr, got, c.v)
				case err != nil && got != before:
					t.Errorf("a refused SetAttributes changed %s from %d to %d", tc.attr, before, got)
				}
			}
		})
	}
}

// A queue is encrypted by KMS or by SQS, not both: naming both in one call
// is refused, and a KMS key alone turns SQS's encryption off.
func TestServerSideEncryptionKinds(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	both := AttributeUpdate{KmsMasterKeyID: ptr("alias/k"), SqsManagedSseEnabled: ptr(true)}
	_, err := e.CreateQueue("both", both, nil)
	wantCode(t, err, ErrInvalidAttributeName)
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	wantCode(t, q.SetAttributes(both), ErrInvalidAttributeName)
	if a := q.Attributes(); a.KmsMasterKeyID != "" || !a.SqsManagedSseEnabled {
		t.Errorf("a refused change altered encryption: %+v", a)
	}
	wantCode(t, q.SetAttributes(AttributeUpdate{KmsMasterKeyID: ptr("alias/k")}), "")
	if a := q.Attributes(); a.KmsMasterKeyID != "alias/k" || a.SqsManagedSseEnabled {
		t.Errorf("after a KMS key: %+v", a)
	}
	// Naming SQS's encryption off beside a key is no conflict.
	wantCode(t, q.SetAttributes(AttributeUpdate{KmsMasterKeyID: ptr("alias/k2"), SqsManagedSseEnabled: ptr(false)}), "")
}

// A FIFO queue stays FIFO: SQS says so in its own words.
func TestFIFOQueueTypeIsFixed(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q.fifo", AttributeUpdate{FifoQueue: ptr(true)}, nil)
	err := q.SetAttributes(AttributeUpdate{FifoQueue: ptr(false)})
	wantCode(t, err, ErrInvalidAttributeValue)
	if e, ok := err.(*Error); !ok || e.Param != "FifoQueue" || e.Reason != ReasonTypeFixed {
		t.Errorf("error %v, want FifoQueue refused as fixed", err)
	}
	if !q.IsFIFO() {
		t.Error("the queue is no longer FIFO")
	}
}

func TestFifoOnlyAttributes(t *testing.T) {
	for _, tc := range []struct {
		name string
		fifo bool
		u    AttributeUpdate
		want Code
	}{
		{"standard DeduplicationScope", false, AttributeUpdate{DeduplicationScope: ptr("queue")}, ErrInvalidAttributeName},
		{"standard FifoThroughputLimit", false, AttributeUpdate{FifoThroughputLimit: ptr("perQueue")}, ErrInvalidAttributeName},
		{"standard ContentBasedDeduplication", false, AttributeUpdate{ContentBasedDeduplication: ptr(false)}, ErrInvalidAttributeName},
		{"fifo messageGroup scope", true, AttributeUpdate{DeduplicationScope: ptr("messageGroup"), FifoThroughputLimit: ptr("perMessageGroupId")}, ""},
		{"fifo content dedup", true, AttributeUpdate{ContentBasedDeduplication: ptr(true)}, ""},
		{"fifo bad scope", true, AttributeUpdate{DeduplicationScope: ptr("global")}, ErrInvalidAttributeValue},
		{"fifo bad throughput", true, AttributeUpdate{FifoThroughputLimit: ptr("perGroup")}, ErrInvalidAttributeValue},
		{"fifo FifoQueue true again", true, AttributeUpdate{FifoQueue: ptr(true)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newTestEngine(t, Options{})
			name, base := "q", AttributeUpdate{}
			if tc.fifo {
				name, base = "q.fifo", AttributeUpdate{FifoQueue: ptr(true)}
			}
			u := tc.u
			u.FifoQueue = base.FifoQueue
			_, err := e.CreateQueue(name, u, nil)
			wantCode(t, err, tc.want)

			existing := mustCreate(t, e, "existing"+strings.TrimPrefix(name, "q"), base, nil)
			before := existing.Attributes()
			err = existing.SetAttributes(tc.u)
			wantCode(t, err, tc.want)
			if err != nil && !attrsEqual(existing.Attributes(), before) {
				t.Errorf("a refused SetAttributes changed the queue")
			}
		})
	}
}

func TestSetAttributes(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	clk.Advance(time.Minute)
	wantCode(t, q.SetAttributes(AttributeUpdate{VisibilityTimeout: ptr(90), Policy: ptr("{}"), KmsMasterKeyID: ptr("alias/x")}), "")
	a := q.Attributes()
	if a.VisibilityTimeout != 90 || a.Policy != "{}" || a.KmsMasterKeyID != "alias/x" || a.SqsManagedSseEnabled {
		t.Errorf("after SetAttributes: %+v", a)
	}
	if a.DelaySeconds != 0 || a.MessageRetentionPeriod != DefaultRetentionSeconds {
		t.Errorf("SetAttributes changed attributes it did not name: %+v", a)
	}
	if !q.Modified().Equal(testStart.Add(time.Minute)) || !q.Created().Equal(testStart) {
		t.Errorf("Modified %v Created %v", q.Modified(), q.Created())
	}
	// FifoQueue is no attribute of a standard queue, whatever its value.
	wantCode(t, q.SetAttributes(AttributeUpdate{FifoQueue: ptr(true)}), ErrInvalidAttributeName)
	wantCode(t, q.SetAttributes(AttributeUpdate{FifoQueue: ptr(false)}), ErrInvalidAttributeName)
	// A deleted queue takes no settings.
	wantCode(t, e.DeleteQueue(q), "")
	wantCode(t, q.SetAttributes(AttributeUpdate{VisibilityTimeout: ptr(1)}), ErrQueueDoesNotExist)
}

func TestRedrivePolicyValidation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target string // "" means the DLQ's own ARN
		max    int
		fifo   bool // source FIFO, standard DLQ
		want   Code
	}{
		{"ok", "", 2, false, ""},
		{"max 1", "", 1, false, ""},
		{"max 1000", "", 1000, false, ""},
		{"max 0", "", 0, false, ErrInvalidParameterValue},
		{"max 1001", "", 1001, false, ErrInvalidParameterValue},
		{"malformed arn", "dlq", 2, false, ErrInvalidParameterValue},
		{"nonexistent dlq", testArn("nope"), 2, false, ErrInvalidParameterValue},
		{"other account", "arn:aws:sqs:us-east-1:111111111111:dlq", 2, false, ErrInvalidParameterValue},
		// A queue ARN names a region; the engine's queues live in one.
		{"other region", "arn:aws:sqs:eu-west-1:" + testAccount + ":dlq", 2, false, ErrInvalidParameterValue},
		{"fifo source, standard dlq", "", 2, true, ErrInvalidParameterValue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newTestEngine(t, Options{})
			dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
			target := tc.target
			if target == "" {
				target = dlq.Arn()
			}
			policy := &RedrivePolicy{DeadLetterTargetArn: target, MaxReceiveCount: tc.max}
			name, fifo := "src", (*bool)(nil)
			if tc.fifo {
				name, fifo = "src.fifo", ptr(true)
			}
			src, err := e.CreateQueue(name, AttributeUpdate{FifoQueue: fifo, RedrivePolicy: policy}, nil)
			wantCode(t, err, tc.want)
			if err == nil {
				if p := src.Attributes().RedrivePolicy; p == nil || *p != *policy {
					t.Errorf("RedrivePolicy = %+v, want %+v", p, policy)
				}
				if got := e.DeadLetterSourceQueues(dlq); len(got) != 1 || got[0] != src {
					t.Errorf("DeadLetterSourceQueues = %v", queueNames(got))
				}
			}
			// The same rules hold for SetAttributes.
			existing := mustCreate(t, e, "existing"+strings.TrimPrefix(name, "src"), AttributeUpdate{FifoQueue: fifo}, nil)
			wantCode(t, existing.SetAttributes(AttributeUpdate{RedrivePolicy: policy}), tc.want)
			if err != nil && existing.Attributes().RedrivePolicy != nil {
				t.Errorf("a refused SetAttributes stored a RedrivePolicy")
			}
		})
	}
}

func TestRedriveAllowPolicy(t *testing.T) {
	srcArn := testArn("src")
	for _, tc := range []struct {
		name  string
		allow *RedriveAllowPolicy
		want  Code // for a source called "src"
	}{
		{"none", nil, ""},
		{"allowAll", &RedriveAllowPolicy{RedrivePermission: RedriveAllowAll}, ""},
		{"denyAll", &RedriveAllowPolicy{RedrivePermission: RedriveDenyAll}, ErrInvalidParameterValue},
		{"byQueue listing src", &RedriveAllowPolicy{RedrivePermission: RedriveByQueue, SourceQueueArns: []string{testArn("a"), srcArn}}, ""},
		{"byQueue not listing src", &RedriveAllowPolicy{RedrivePermission: RedriveByQueue, SourceQueueArns: []string{testArn("other")}}, ErrInvalidParameterValue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newTestEngine(t, Options{})
			dlq := mustCreate(t, e, "dlq", AttributeUpdate{RedriveAllowPolicy: tc.allow}, nil)
			policy := &RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 3}
			_, err := e.CreateQueue("src", AttributeUpdate{RedrivePolicy: policy}, nil)
			wantCode(t, err, tc.want)
			if err != nil {
				if _, err := e.Queue("src"); CodeOf(err) != ErrQueueDoesNotExist {
					t.Errorf("a refused CreateQueue left a queue behind")
				}
			}

			// SetAttributes on an existing source, and a policy set on the DLQ
			// after it was created.
			src2 := mustCreate(t, e, "src2", AttributeUpdate{}, nil)
			dlq2 := mustCreate(t, e, "dlq2", AttributeUpdate{}, nil)
			if tc.allow != nil {
				allow := *tc.allow
				allow.SourceQueueArns = slices.Clone(allow.SourceQueueArns)
				for i, arn := range allow.SourceQueueArns {
					if arn == srcArn {
						allow.SourceQueueArns[i] = src2.Arn()
					}
				}
				wantCode(t, dlq2.SetAttributes(AttributeUpdate{RedriveAllowPolicy: &allow}), "")
			}
			err = src2.SetAttributes(AttributeUpdate{RedrivePolicy: &RedrivePolicy{DeadLetterTargetArn: dlq2.Arn(), MaxReceiveCount: 3}})
			wantCode(t, err, tc.want)
			if err != nil && src2.Attributes().RedrivePolicy != nil {
				t.Errorf("a refused SetAttributes stored a RedrivePolicy")
			}
		})
	}
}

func TestRedriveAllowPolicyValidation(t *testing.T) {
	many := make([]string, 11)
	for i := range many {
		many[i] = testArn(fmt.Sprintf("s%d", i))
	}
	for _, tc := range []struct {
		name  string
		allow RedriveAllowPolicy
		want  Code
	}{
		{"allowAll", RedriveAllowPolicy{RedrivePermission: RedriveAllowAll}, ""},
		{"denyAll", RedriveAllowPolicy{RedrivePermission: RedriveDenyAll}, ""},
		{"byQueue 10", RedriveAllowPolicy{RedrivePermission: RedriveByQueue, SourceQueueArns: many[:10]}, ""},
		{"byQueue 11", RedriveAllowPolicy{RedrivePermission: RedriveByQueue, SourceQueueArns: many}, ErrInvalidAttributeValue},
		{"byQueue none", RedriveAllowPolicy{RedrivePermission: RedriveByQueue}, ErrInvalidAttributeValue},
		{"allowAll with arns", RedriveAllowPolicy{RedrivePermission: RedriveAllowAll, SourceQueueArns: many[:1]}, ErrInvalidAttributeValue},
		{"denyAll with arns", RedriveAllowPolicy{RedrivePermission: RedriveDenyAll, SourceQueueArns: many[:1]}, ErrInvalidAttributeValue},
		{"unknown permission", RedriveAllowPolicy{RedrivePermission: "allowSome"}, ErrInvalidAttributeValue},
		{"empty permission", RedriveAllowPolicy{}, ErrInvalidAttributeValue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newTestEngine(t, Options{})
			allow := tc.allow
			q, err := e.CreateQueue("dlq", AttributeUpdate{RedriveAllowPolicy: &allow}, nil)
			wantCode(t, err, tc.want)
			if err == nil {
				// The queue keeps its own copy of the source list.
				if len(allow.SourceQueueArns) > 0 {
					allow.SourceQueueArns[0] = "changed"
					if got := q.Attributes().RedriveAllowPolicy.SourceQueueArns[0]; got == "changed" {
						t.Errorf("the queue shares the caller's SourceQueueArns")
					}
					allow.SourceQueueArns[0] = many[0]
				}
			}
		})
	}
}

func TestDeadLetterSourceQueues(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	other := mustCreate(t, e, "other-dlq", AttributeUpdate{}, nil)
	redrive := func(target *Queue) AttributeUpdate {
		return AttributeUpdate{RedrivePolicy: &RedrivePolicy{DeadLetterTargetArn: target.Arn(), MaxReceiveCount: 5}}
	}
	b := mustCreate(t, e, "b-src", redrive(dlq), nil)
	a := mustCreate(t, e, "a-src", redrive(dlq), nil)
	mustCreate(t, e, "c-src", redrive(other), nil)
	mustCreate(t, e, "plain", AttributeUpdate{}, nil)

	if got, want := queueNames(e.DeadLetterSourceQueues(dlq)), []string{"a-src", "b-src"}; !slices.Equal(got, want) {
		t.Errorf("DeadLetterSourceQueues = %v, want %v", got, want)
	}
	wantCode(t, b.SetAttributes(AttributeUpdate{ClearRedrivePolicy: true}), "")
	if b.Attributes().RedrivePolicy != nil {
		t.Errorf("ClearRedrivePolicy left %+v", b.Attributes().RedrivePolicy)
	}
	if got, want := queueNames(e.DeadLetterSourceQueues(dlq)), []string{"a-src"}; !slices.Equal(got, want) {
		t.Errorf("after clearing b: %v, want %v", got, want)
	}
	wantCode(t, e.DeleteQueue(a), "")
	if got := e.DeadLetterSourceQueues(dlq); len(got) != 0 {
		t.Errorf("after deleting a: %v", queueNames(got))
	}
	if got, want := queueNames(e.DeadLetterSourceQueues(other)), []string{"c-src"}; !slices.Equal(got, want) {
		t.Errorf("other-dlq sources = %v, want %v", got, want)
	}
}

func queueNames(qs []*Queue) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.Name()
	}
	return out
}

func TestQueueLookups(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	var qs []*Queue
	for _, n := range []string{"beta", "alpha", "alpha-2", "gamma.fifo"} {
		u := AttributeUpdate{}
		if strings.HasSuffix(n, ".fifo") {
			u.FifoQueue = ptr(true)
		}
		qs = append(qs, mustCreate(t, e, n, u, nil))
	}
	for _, q := range qs {
		for what, lookup := range map[string]func() (*Queue, error){
			"Queue":      func() (*Queue, error) { return e.Queue(q.Name()) },
			"QueueByID":  func() (*Queue, error) { return e.QueueByID(q.ID()) },
			"QueueByArn": func() (*Queue, error) { return e.QueueByArn(q.Arn()) },
		} {
			if got, err := lookup(); err != nil || got != q {
				t.Errorf("%s(%s) = %v, %v", what, q.Name(), got, err)
			}
		}
	}
	for _, tc := range []struct {
		prefix string
		want   []string
	}{
		{"", []string{"alpha", "alpha-2", "beta", "gamma.fifo"}},
		{"alpha", []string{"alpha", "alpha-2"}},
		{"g", []string{"gamma.fifo"}},
		{"zzz", []string{}},
	} {
		if got := queueNames(e.Queues(tc.prefix)); !slices.Equal(got, tc.want) {
			t.Errorf("Queues(%q) = %v, want %v", tc.prefix, got, tc.want)
		}
	}
	for _, name := range []string{"nope", ""} {
		if _, err := e.Queue(name); CodeOf(err) != ErrQueueDoesNotExist {
			t.Errorf("Queue(%q): %v", name, err)
		}
	}
	if _, err := e.QueueByID("00000000-0000-0000-0000-000000000000"); CodeOf(err) != ErrQueueDoesNotExist {
		t.Errorf("QueueByID(unknown): %v", err)
	}
	for _, arn := range []string{"alpha", "arn:aws:sqs:us-east-1:111111111111:alpha", "arn:aws:sns:us-east-1:000000000000:alpha", testArn("nope"), ""} {
		if _, err := e.QueueByArn(arn); CodeOf(err) != ErrQueueDoesNotExist {
			t.Errorf("QueueByArn(%q): %v", arn, err)
		}
	}
}

func TestTags(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, map[string]string{"env": "test", "team": "a"})
	wantTags := func(want map[string]string) {
		t.Helper()
		if got := q.Tags(); !maps.Equal(got, want) {
			t.Fatalf("Tags = %v, want %v", got, want)
		}
	}
	wantTags(map[string]string{"env": "test", "team": "a"})

	// Tags returns a copy.
	q.Tags()["env"] = "changed"
	wantTags(map[string]string{"env": "test", "team": "a"})

	wantCode(t, q.Tag(map[string]string{"team": "b", "cost": ""}), "")
	wantTags(map[string]string{"env": "test", "team": "b", "cost": ""})
	wantCode(t, q.Untag([]string{"cost", "missing"}), "")
	wantTags(map[string]string{"env": "test", "team": "b"})

	full := map[string]string{}
	for i := range 48 {
		full[fmt.Sprintf("k%02d", i)] = "v"
	}
	for _, tc := range []struct {
		name string
		tags map[string]string
		want Code
	}{
		{"empty key", map[string]string{"": "v"}, ErrInvalidParameterValue},
		{"key 129", map[string]string{strings.Repeat("k", 129): "v"}, ErrInvalidParameterValue},
		{"value 257", map[string]string{"k": strings.Repeat("v", 257)}, ErrInvalidParameterValue},
		{"51 tags", mergeTags(full, map[string]string{"x": "1", "y": "2", "z": "3"}), ErrInvalidParameterValue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantCode(t, q.Tag(tc.tags), tc.want)
			wantTags(map[string]string{"env": "test", "team": "b"})
			_, err := e.CreateQueue("new-"+strings.ReplaceAll(tc.name, " ", "-"), AttributeUpdate{}, tc.tags)
			wantCode(t, err, tc.want)
		})
	}
	// 50 in all is the limit, not past it: the queue has 2, add 48.
	wantCode(t, q.Tag(full), "")
	if n := len(q.Tags()); n != 50 {
		t.Fatalf("%d tags, want 50", n)
	}
	wantCode(t, q.Tag(map[string]string{"one-more": "x"}), ErrInvalidParameterValue)
	wantCode(t, q.Tag(map[string]string{"env": "replace"}), "") // replacing does not add
	keys := slices.Collect(maps.Keys(q.Tags()))
	wantCode(t, q.Untag(keys), "")
	wantTags(map[string]string{})

	wantCode(t, e.DeleteQueue(q), "")
	wantCode(t, q.Tag(map[string]string{"a": "b"}), ErrQueueDoesNotExist)
	wantCode(t, q.Untag([]string{"a"}), ErrQueueDoesNotExist)
}

func mergeTags(a, b map[string]string) map[string]string {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

// The queue must keep its own copy of the tags it was created with: a
// caller reusing its map must not change the queue's tags behind its lock.
func TestCreateQueueCopiesTags(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	tags := map[string]string{"env": "test"}
	q := mustCreate(t, e, "q", AttributeUpdate{}, tags)
	tags["env"] = "prod"
	tags["added"] = "later"
	if got, want := q.Tags(), map[string]string{"env": "test"}; !maps.Equal(got, want) {
		t.Errorf("Tags = %v after the caller changed its map, want %v", got, want)
	}
}

func TestErrors(t *testing.T) {
	err := Errorf(ErrQueueDoesNotExist, "queue %s", "q")
	if err.Error() != "QueueDoesNotExist: queue q" {
		t.Errorf("Error() = %q", err.Error())
	}
	wrapped := fmt.Errorf("context: %w", err)
	if CodeOf(wrapped) != ErrQueueDoesNotExist {
		t.Errorf("CodeOf(wrapped) = %s", CodeOf(wrapped))
	}
	if CodeOf(errors.New("plain")) != ErrInternal {
		t.Errorf("CodeOf(plain) = %s", CodeOf(errors.New("plain")))
	}
}

func TestManualClock(t *testing.T) {
	clk := NewManualClock(testStart)
	a, stopA := clk.After(2 * time.Second)
	b, _ := clk.After(time.Second)
	c, stopC := clk.After(3 * time.Second)
	now, _ := clk.After(0)
	select {
	case <-now:
	default:
		t.Fatal("After(0) did not fire at once")
	}
	stopC()
	if clk.Waiters() != 2 {
		t.Fatalf("Waiters = %d, want 2", clk.Waiters())
	}
	clk.Advance(1500 * time.Millisecond)
	select {
	case <-b:
	default:
		t.Fatal("1s timer did not fire at 1.5s")
	}
	select {
	case <-a:
		t.Fatal("2s timer fired at 1.5s")
	default:
	}
	stopA()
	clk.Advance(time.Hour)
	select {
	case <-a:
		t.Fatal("a stopped timer fired")
	case <-c:
		t.Fatal("a stopped timer fired")
	default:
	}
	if !clk.Now().Equal(testStart.Add(time.Hour + 1500*time.Millisecond)) {
		t.Errorf("Now = %v", clk.Now())
	}
}

// TestPartitionsRiseWithSendRate samples the send rate as the sweeper does,
// once a second: the count rises with a sustained rate, one partition per
// 300 messages a second, and does not fall when sends stop.
func TestPartitionsRiseWithSendRate(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := mustCreate(t, e, "busy", AttributeUpdate{}, nil)
	sample := func() {
		q.mu.Lock()
		q.updatePartitionsLocked()
		q.mu.Unlock()
	}
	if got := q.Partitions(); got != 1 {
		t.Fatalf("new queue has %d partitions, want 1", got)
	}
	batch := make([]NewMessage, 10)
	for i := range batch {
		batch[i] = NewMessage{Body: "m"}
	}
	for range 60 { // a minute at 1,650 messages a second
		for range 165 {
			q.Send(batch)
		}
		sample()
	}
	// The smoothed rate approaches 1,650/s: 1 + floor(1650/300) = 6.
	if got := q.Partitions(); got != 6 {
		t.Errorf("after a minute at 1,650 messages a second: %d partitions, want 6", got)
	}
	for range 60 {
		sample()
	}
	if got := q.Partitions(); got != 6 {
		t.Errorf("after a quiet minute: %d partitions, want still 6", got)
	}
}
