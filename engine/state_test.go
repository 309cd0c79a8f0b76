package engine

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// richEngine holds one of everything a state carries.
func richEngine(t testing.TB, opts Options) *Engine {
	t.Helper()
	e, clk := newTestEngine(t, opts)
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{RedriveAllowPolicy: &RedriveAllowPolicy{RedrivePermission: RedriveAllowAll}}, nil)
	src := mustCreate(t, e, "src", AttributeUpdate{
		VisibilityTimeout: ptr(40), DelaySeconds: ptr(0), Policy: ptr(`{"Version":"2012-10-17"}`),
		RedrivePolicy: &RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 1},
	}, map[string]string{"team": "a", "env": "test"})
	send(t, src, NewMessage{
		Body: "dead",
		Attributes: []MessageAttribute{
			{Name: "bin", DataType: "Binary", BinaryValue: []byte{0, 1, 2}},
			{Name: "n", DataType: "Number.int", StringValue: "42"},
		},
		SystemAttributes: []MessageAttribute{{Name: "AWSTraceHeader", DataType: "String", StringValue: "Root=1-abc"}},
	})
	d := recvOne(t, src, ReceiveOptions{}, "dead")
	wantCode(t, changeVis(src, d.ReceiptHandle, 0), "")
	recvNone(t, src) // moves it to the dead-letter queue
	clk.Advance(time.Second)
	sendBodies(t, src, "leased", "waiting")
	send(t, src, NewMessage{Body: "delayed", DelaySeconds: ptr(120)})
	recvOne(t, src, ReceiveOptions{}, "leased")
	sub, err := src.PutSubscription("http://127.0.0.1:9/hook", 3, 2)
	wantCode(t, err, "")
	src.RecordDelivery(sub.Slug, DeliveryResult{At: e.Now(), Messages: 2, Status: 503, Error: "503 Service Unavailable"})

	f := ffQueue(t, e, "f", AttributeUpdate{ContentBasedDeduplication: ptr(true), DeduplicationScope: ptr(DeduplicationScopeMessageGroup)})
	for _, m := range []NewMessage{{Body: "a1", GroupID: "a"}, {Body: "a2", GroupID: "a"}, {Body: "b1", GroupID: "b", DeduplicationID: "own"}} {
		if r := ffSendOne(f, m); r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	recvNow(t, f, ReceiveOptions{})
	empty := mustCreate(t, e, "empty", AttributeUpdate{}, nil)
	wantCode(t, empty.Purge(), "")

	// A finished move task. (A running one moves a batch as soon as it is
	// loaded, so the state would not stay still.)
	dlq2 := mustCreate(t, e, "dlq2", AttributeUpdate{}, nil)
	mustCreate(t, e, "src2", AttributeUpdate{RedrivePolicy: &RedrivePolicy{DeadLetterTargetArn: dlq2.Arn(), MaxReceiveCount: 5}}, nil)
	_, err = e.StartMoveTask(dlq2.Arn(), "", nil)
	wantCode(t, err, "")
	e.Settle()
	clk.Advance(time.Second)
	return e
}

func TestStateRoundTrips(t *testing.T) {
	e := richEngine(t, Options{})
	s1, err := e.State()
	wantCode(t, err, "")
	if n := len(s1.Queues); n != 6 {
		t.Fatalf("%d queues in the state", n)
	}
	src := s1.Queues[slicesIndex(s1.Queues, "src")]
	if got := statuses(src.Messages); got != "inFlight visible delayed" {
		t.Fatalf("src's messages are %s", got)
	}
	dlq := s1.Queues[slicesIndex(s1.Queues, "dlq")]
	if m := dlq.Messages[0]; m.DeadLetterSourceArn == "" || m.ReceiveCount != 1 || len(m.Attributes) != 2 || len(m.SystemAttributes) != 1 {
		t.Fatalf("the dead-lettered message is %+v", m)
	}
	f := s1.Queues[slicesIndex(s1.Queues, "f.fifo")]
	if len(f.Deduplication) != 3 || f.Deduplication[0].GroupID != "a" || f.LastSequence != 3 {
		t.Fatalf("the FIFO queue's state: %+v", f)
	}

	// Into another engine at the same instant, and back out.
	e2, clk2 := newTestEngine(t, Options{})
	clk2.Advance(e.Now().Sub(clk2.Now()))
	wantCode(t, e2.Load(s1), "")
	s2, err := e2.State()
	wantCode(t, err, "")
	if !reflect.DeepEqual(s1, s2) {
		t.Fatalf("the state changed on the way through Load: %s", stateDiff(s1, s2))
	}
	// And into the first engine itself, over what it holds.
	wantCode(t, e.Load(s1), "")
	s3, err := e.State()
	wantCode(t, err, "")
	if !reflect.DeepEqual(s1, s3) {
		t.Fatal("the state changed when loaded over itself")
	}
}

func slicesIndex(qs []QueueState, name string) int {
	for i, q := range qs {
		if q.Name == name {
			return i
		}
	}
	return -1
}

func statuses(ms []MessageState) string {
	var out []string
	for _, m := range ms {
		out = append(out, string(m.Status))
	}
	return strings.Join(out, " ")
}

// A loaded in-flight message stays in flight until its deadline, and no
// receipt handle of it works, not even the one it had.
func TestLoadedInFlightMessage(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(30)}, nil)
	sendBodies(t, q, "m")
	d := recvOne(t, q, ReceiveOptions{}, "m")
	s, err := e.State()
	wantCode(t, err, "")
	wantCode(t, e.Load(s), "")
	q = e.mustQueue(t, "q")
	wantCounts(t, q, Counts{InFlight: 1})
	recvNone(t, q)
	wantCode(t, ack(q, d.ReceiptHandle), ErrReceiptHandleStale)
	wantCode(t, changeVis(q, d.ReceiptHandle, 0), ErrReceiptHandleStale)
	var zero [tokenLen]byte
	wantCode(t, ack(q, encodeReceiptHandle(q.uuid, 1, zero)), ErrReceiptHandleIsInvalid) // never issued
	wantCode(t, e.Advance(30*time.Second), "")
	again := recvOne(t, q, ReceiveOptions{}, "m")
	if again.ReceiveCount != 2 || !again.FirstReceivedAt.Equal(d.FirstReceivedAt) {
		t.Fatalf("the redelivery: count %d, first received %v (was %v)", again.ReceiveCount, again.FirstReceivedAt, d.FirstReceivedAt)
	}
	wantCode(t, ack(q, again.ReceiptHandle), "")
}

func TestLoadPersists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	e := richEngine(t, Options{})
	s, err := e.State()
	wantCode(t, err, "")
	e2, clk := newTestEngine(t, Options{Path: path})
	clk.Advance(e.Now().Sub(clk.Now()))
	mustCreate(t, e2, "replaced", AttributeUpdate{}, nil)
	wantCode(t, e2.Load(s), "")
	if err := e2.Close(); err != nil {
		t.Fatal(err)
	}
	e3, clk3 := newTestEngine(t, Options{Path: path})
	clk3.Advance(e.Now().Sub(clk3.Now()))
	got, err := e3.State()
	wantCode(t, err, "")
	// The store keeps no deduplication windows: a restart ends them.
	for i := range s.Queues {
		s.Queues[i].Deduplication = nil
		got.Queues[i].Deduplication = nil
	}
	if !reflect.DeepEqual(s, got) {
		t.Fatalf("after a restart the state differs: %s", stateDiff(s, got))
	}
}

// A state written by hand may leave out what follows from the rest.
func TestLoadFillsDefaults(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	fifo := DefaultAttributes(true)
	fifo.ContentBasedDeduplication = true
	err := e.Load(&State{Queues: []QueueState{
		{Name: "plain", Attributes: DefaultAttributes(false), Messages: []MessageState{{Message: Message{Body: "hello"}}}},
		{Name: "f.fifo", Attributes: fifo, Messages: []MessageState{
			{Message: Message{Body: "one", GroupID: "g"}},
			{Message: Message{Body: "two", GroupID: "g", SequenceNumber: "10"}},
			{Message: Message{Body: "three", GroupID: "g"}},
		}},
	}})
	wantCode(t, err, "")
	d := recvOne(t, e.mustQueue(t, "plain"), ReceiveOptions{}, "hello")
	if d.ID == "" || d.SenderID != testAccount || !d.SentAt.Equal(testStart) || d.MD5OfBody != "5d41402abc4b2a76b9719d911017c592" {
		t.Fatalf("the defaults: %+v", d.Message)
	}
	f := e.mustQueue(t, "f.fifo")
	ds := recvNow(t, f, ReceiveOptions{MaxMessages: 10})
	var seqs []string
	for _, d := range ds {
		seqs = append(seqs, d.SequenceNumber)
	}
	if strings.Join(seqs, ",") != "00000000000000000001,00000000000000000010,00000000000000000011" {
		t.Fatalf("sequence numbers %v", seqs)
	}
	if ds[0].DeduplicationID != contentDeduplicationID("one") {
		t.Fatal("content-based deduplication id not filled in")
	}
	if r := ffSendOne(f, NewMessage{Body: "four", GroupID: "g"}); r.SequenceNumber != "00000000000000000012" {
		t.Fatalf("the next send got sequence number %s", r.SequenceNumber)
	}
}

func TestLoadRefusesBrokenStates(t *testing.T) {
	good := func() *State {
		fifo := DefaultAttributes(true)
		return &State{
			Queues: []QueueState{
				{Name: "dlq", Attributes: DefaultAttributes(false)},
				{Name: "q", Attributes: DefaultAttributes(false), Messages: []MessageState{{Message: Message{Body: "b"}}}},
				{Name: "f.fifo", Attributes: fifo, Messages: []MessageState{{Message: Message{Body: "b", GroupID: "g", DeduplicationID: "d"}}}},
			},
			MoveTasks: []MoveTask{{Handle: "h", SourceArn: testArn("dlq"), Status: TaskCompleted}},
		}
	}
	at := testStart.Add(time.Minute)
	for name, breakIt := range map[string]func(s *State){
		"bad name":            func(s *State) { s.Queues[1].Name = "no spaces" },
		"same name twice":     func(s *State) { s.Queues[1].Name = "dlq" },
		"fifo name, standard": func(s *State) { s.Queues[1].Name = "q.fifo" },
		"attribute range":     func(s *State) { s.Queues[1].Attributes.VisibilityTimeout = 50000 },
		"fifo attr, standard": func(s *State) { s.Queues[1].Attributes.ContentBasedDeduplication = true },
		"fifo without scope":  func(s *State) { s.Queues[2].Attributes.DeduplicationScope = "" },
		"missing dlq":         func(s *State) { s.Queues[1].Attributes.RedrivePolicy = &RedrivePolicy{testArn("nope"), 3} },
		"dlq of another type": func(s *State) { s.Queues[2].Attributes.RedrivePolicy = &RedrivePolicy{testArn("dlq"), 3} },
		"bad queue id":        func(s *State) { s.Queues[1].ID = "not-a-uuid" },
		"same id twice":       func(s *State) { s.Queues[0].ID, s.Queues[1].ID = testUUID, testUUID },
		"empty tag key":       func(s *State) { s.Queues[1].Tags = map[string]string{"": "x"} },
		"bad subscription":    func(s *State) { s.Queues[1].Subscription = &Subscription{Endpoint: "ftp://x", BatchSize: 1} },
		"empty body":          func(s *State) { s.Queues[1].Messages[0].Body = "" },
		"bad body":            func(s *State) { s.Queues[1].Messages[0].Body = "\x01" },
		"bad attribute": func(s *State) {
			s.Queues[1].Messages[0].Attributes = []MessageAttribute{{Name: "a", DataType: "Bogus"}}
		},
		"bad system attribute": func(s *State) { s.Queues[1].Messages[0].SystemAttributes = []MessageAttribute{{Name: "Other"}} },
		"unknown state":        func(s *State) { s.Queues[1].Messages[0].Status = "lost" },
		"in flight, no deadline": func(s *State) {
			m := &s.Queues[1].Messages[0]
			m.Status, m.ReceiveCount, m.FirstReceivedAt = MessageInFlight, 1, at
		},
		"in flight, never received": func(s *State) {
			m := &s.Queues[1].Messages[0]
			m.Status, m.VisibleAt = MessageInFlight, at
		},
		"received, no first receive": func(s *State) { s.Queues[1].Messages[0].ReceiveCount = 2 },
		"visible with a deadline":    func(s *State) { s.Queues[1].Messages[0].VisibleAt = at },
		"same message id twice": func(s *State) {
			q := &s.Queues[1]
			q.Messages = append(q.Messages, q.Messages[0])
			q.Messages[0].ID, q.Messages[1].ID = "x", "x"
		},
		"dedup id, standard":    func(s *State) { s.Queues[1].Messages[0].DeduplicationID = "d" },
		"sequence, standard":    func(s *State) { s.Queues[1].Messages[0].SequenceNumber = "1" },
		"fifo without group":    func(s *State) { s.Queues[2].Messages[0].GroupID = "" },
		"fifo without dedup id": func(s *State) { s.Queues[2].Messages[0].DeduplicationID = "" },
		"sequence going back":   func(s *State) { q := &s.Queues[2]; q.Messages[0].SequenceNumber = "0" },
		"window on standard": func(s *State) {
			s.Queues[1].Deduplication = []DeduplicationState{{DeduplicationID: "d", MessageID: "m", ExpiresAt: at}}
		},
		"window entry, no id": func(s *State) { s.Queues[2].Deduplication = []DeduplicationState{{MessageID: "m", ExpiresAt: at}} },
		"task status":         func(s *State) { s.MoveTasks[0].Status = "LOST" },
		"task arn":            func(s *State) { s.MoveTasks[0].SourceArn = "dlq" },
		"task without handle": func(s *State) { s.MoveTasks[0].Handle = "" },
		"two active tasks": func(s *State) {
			s.MoveTasks = append(s.MoveTasks, s.MoveTasks[0], s.MoveTasks[0])
			s.MoveTasks[1].Handle, s.MoveTasks[1].Status, s.MoveTasks[2].Handle, s.MoveTasks[2].Status = "h2", TaskRunning, "h3", TaskRunning
		},
		"task handle twice": func(s *State) { s.MoveTasks = append(s.MoveTasks, s.MoveTasks[0]) },
	} {
		t.Run(name, func(t *testing.T) {
			e, _ := newTestEngine(t, Options{})
			wantCode(t, e.Load(good()), "")
			before, _ := e.State()
			s := good()
			breakIt(s)
			wantCode(t, e.Load(s), ErrInvalidParameterValue)
			after, _ := e.State()
			if !reflect.DeepEqual(before, after) {
				t.Fatal("a refused Load changed the engine")
			}
		})
	}
}

const testUUID = "0b9a7a4e-3c55-4d1c-9a57-1f2f0e1c7a11"

// A running task in a loaded state carries on.
func TestLoadResumesMoveTasks(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	dead := MessageState{Message: Message{Body: "dead", DeadLetterSourceArn: testArn("src")}, ReceiveCount: 3, FirstReceivedAt: testStart}
	err := e.Load(&State{
		Queues: []QueueState{
			{Name: "dlq", Attributes: DefaultAttributes(false), Messages: []MessageState{dead, dead}},
			{Name: "src", Attributes: func() QueueAttributes {
				a := DefaultAttributes(false)
				a.RedrivePolicy = &RedrivePolicy{testArn("dlq"), 3}
				return a
			}()},
		},
		MoveTasks: []MoveTask{{Handle: "h", SourceArn: testArn("dlq"), Status: TaskRunning, ToMove: 2, MaxPerSecond: 1, Started: testStart.UnixMilli()}},
	})
	wantCode(t, err, "")
	wantCode(t, e.Advance(2*time.Second), "")
	tasks, err := e.MoveTasks(testArn("dlq"), 1)
	wantCode(t, err, "")
	if tasks[0].Status != TaskCompleted || tasks[0].Moved != 2 {
		t.Fatalf("the loaded task: %+v", tasks[0])
	}
	wantCounts(t, e.mustQueue(t, "src"), Counts{Visible: 2})
}

// stateDiff names the first line where two states' JSON forms differ.
func stateDiff(want, got *State) string {
	a, _ := json.MarshalIndent(want, "", " ")
	b, _ := json.MarshalIndent(got, "", " ")
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d: want %s, got %s", i, strings.TrimSpace(al[i]), strings.TrimSpace(bl[i]))
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(bl), len(al))
}
