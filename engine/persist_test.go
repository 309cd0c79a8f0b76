package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tidwall/buntdb"
)

// openAt opens an engine on the buntdb file path with clock clk. The caller
// closes it; a cleanup closes it too in case the test stops early.
func openAt(t *testing.T, path string, clk *ManualClock) *Engine {
	t.Helper()
	e, err := Open(Options{Path: path, Clock: clk, Fsync: FsyncNever})
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func reopen(t *testing.T, e *Engine, path string, clk *ManualClock) *Engine {
	t.Helper()
	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return openAt(t, path, clk)
}

func mustQueue(t *testing.T, e *Engine, name string) *Queue {
	t.Helper()
	q, err := e.Queue(name)
	if err != nil {
		t.Fatalf("Queue(%q) after reopen: %v", name, err)
	}
	return q
}

// storedKeys counts the store's keys for queue q's messages.
func storedKeys(t *testing.T, e *Engine, q *Queue) int {
	t.Helper()
	n := 0
	err := e.store.view(func(tx recordTx) error {
		for _, prefix := range []string{messagePrefix, statePrefix} {
			keys, err := keysWithPrefix(tx, recordPrefix(prefix, q.keyspace))
			if err != nil {
				return err
			}
			n += len(keys)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPersistReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)

	srcArn := testArn("persist")
	dlq := mustCreate(t, e, "persist-dlq", AttributeUpdate{
		RedriveAllowPolicy:     &RedriveAllowPolicy{RedrivePermission: RedriveByQueue, SourceQueueArns: []string{srcArn}},
		MessageRetentionPeriod: ptr(1209600),
	}, nil)
	q := mustCreate(t, e, "persist", AttributeUpdate{
		VisibilityTimeout:             ptr(45),
		MessageRetentionPeriod:        ptr(3600),
		MaximumMessageSize:            ptr(4096),
		ReceiveMessageWaitTimeSeconds: ptr(0),
		Policy:                        ptr(`{"Version":"2012-10-17","Statement":[]}`),
		KmsMasterKeyID:                ptr("alias/aws/sqs"),
		KmsDataKeyReusePeriodSeconds:  ptr(600),
		RedrivePolicy:                 &RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 5},
	}, map[string]string{"env": "test", "team": "queues"})
	fifo := mustCreate(t, e, "persist.fifo", AttributeUpdate{FifoQueue: ptr(true), ContentBasedDeduplication: ptr(true),
		DeduplicationScope: ptr("messageGroup"), FifoThroughputLimit: ptr("perMessageGroupId")}, nil)

	attrs := []MessageAttribute{
		{Name: "s", DataType: "String", StringValue: "héllo\twörld 😀"},
		{Name: "n", DataType: "Number", StringValue: "-42.5"},
		{Name: "b", DataType: "Binary", BinaryValue: []byte{0, 1, 2, 0xff}},
		{Name: "c", DataType: "String.custom", StringValue: "x"},
	}
	trace := []MessageAttribute{{Name: "AWSTraceHeader", DataType: "String", StringValue: "Root=1-abc"}}
	res := send(t, q,
		NewMessage{Body: "in flight 1", Attributes: attrs},
		NewMessage{Body: "in flight 2"},
		NewMessage{Body: "ready\r\n\"quoted\" <xml/>", Attributes: attrs, SystemAttributes: trace},
		NewMessage{Body: "delayed", DelaySeconds: ptr(120)},
	)
	leased := recvNow(t, q, ReceiveOptions{MaxMessages: 2})
	if got := bodies(leased); !slices.Equal(got, []string{"in flight 1", "in flight 2"}) {
		t.Fatalf("leased %q", got)
	}
	clk.Advance(10 * time.Second) // now +10 s; leases end at +45 s, the delay at +120 s
	wantCounts(t, q, Counts{Visible: 1, InFlight: 2, Delayed: 1})

	wantQ, wantDLQ, wantFifo := q.record(), dlq.record(), fifo.record()

	e = reopen(t, e, path, clk)
	q, dlq, fifo = mustQueue(t, e, "persist"), mustQueue(t, e, "persist-dlq"), mustQueue(t, e, "persist.fifo")
	for _, c := range []struct {
		q    *Queue
		want *queueRecord
	}{{q, wantQ}, {dlq, wantDLQ}, {fifo, wantFifo}} {
		if c.q.ID() != c.want.ID || c.q.Arn() != testArn(c.want.Name) {
			t.Errorf("%s: ID %s Arn %s", c.want.Name, c.q.ID(), c.q.Arn())
		}
		if !c.q.Created().Equal(time.Unix(0, c.want.Created)) || !c.q.Modified().Equal(time.Unix(0, c.want.Modified)) {
			t.Errorf("%s: Created %v Modified %v", c.want.Name, c.q.Created(), c.q.Modified())
		}
		if got := c.q.Attributes(); !attrsEqual(got, c.want.Attributes) {
			t.Errorf("%s: attributes after reopen\n got %+v\nwant %+v", c.want.Name, got, c.want.Attributes)
		}
		if got := c.q.Tags(); !maps.Equal(got, c.want.Tags) {
			t.Errorf("%s: tags %v, want %v", c.want.Name, got, c.want.Tags)
		}
		if byID, err := e.QueueByID(c.want.ID); err != nil || byID != c.q {
			t.Errorf("%s: QueueByID: %v", c.want.Name, err)
		}
	}
	if got := queueNames(e.DeadLetterSourceQueues(dlq)); !slices.Equal(got, []string{"persist"}) {
		t.Errorf("DeadLetterSourceQueues = %v", got)
	}

	// Each message is in the state it was in.
	wantCounts(t, q, Counts{Visible: 1, InFlight: 2, Delayed: 1})
	d := recvOne(t, q, ReceiveOptions{MaxMessages: 10}, "ready\r\n\"quoted\" <xml/>")
	if d.ID != res[2].MessageID || d.MD5OfBody != res[2].MD5OfBody || !d.SentAt.Equal(testStart) || d.ReceiveCount != 1 {
		t.Errorf("ready message: %+v", d.Message)
	}
	if !attributesEqual(d.Attributes, attrs) || !attributesEqual(d.SystemAttributes, trace) {
		t.Errorf("ready message attributes %+v system %+v", d.Attributes, d.SystemAttributes)
	}
	wantCode(t, ack(q, d.ReceiptHandle), "")

	// The leases' receipt handles survived the restart.
	wantCode(t, changeVis(q, leased[1].ReceiptHandle, 0), "")
	d2 := recvOne(t, q, ReceiveOptions{MaxMessages: 10}, "in flight 2")
	if d2.ReceiveCount != 2 || !d2.FirstReceivedAt.Equal(testStart) || d2.ID != res[1].MessageID {
		t.Errorf("re-received: ReceiveCount %d FirstReceivedAt %v ID %s", d2.ReceiveCount, d2.FirstReceivedAt, d2.ID)
	}
	wantCode(t, ack(q, leased[1].ReceiptHandle), ErrReceiptHandleStale)
	wantCode(t, ack(q, d2.ReceiptHandle), "")

	// The other lease still ends at +45 s.
	clk.Advance(34 * time.Second)
	wantCounts(t, q, Counts{InFlight: 1, Delayed: 1})
	recvNone(t, q)
	clk.Advance(time.Second)
	wantCounts(t, q, Counts{Visible: 1, Delayed: 1})
	wantCode(t, ack(q, leased[0].ReceiptHandle), "") // not received again, so still good
	wantCounts(t, q, Counts{Delayed: 1})

	// The delay still ends at +120 s.
	clk.Advance(74 * time.Second)
	recvNone(t, q)
	clk.Advance(time.Second)
	delayed := recvOne(t, q, ReceiveOptions{MaxMessages: 10, VisibilityTimeout: ptr(43200)}, "delayed")

	// A message sent after a restart sorts after the older ones and gets a
	// fresh identity.
	late := send(t, q, NewMessage{Body: "late"})
	if slices.ContainsFunc(res, func(r SendResult) bool { return r.MessageID == late[0].MessageID }) {
		t.Errorf("a message sent after reopen reuses an ID")
	}

	// Retention runs from each message's send, across restarts: "delayed" was
	// sent at 0 and expires at +3600 s, "late" at +120 s and +3720 s.
	e = reopen(t, e, path, clk)
	q = mustQueue(t, e, "persist")
	wantCounts(t, q, Counts{Visible: 1, InFlight: 1})
	clk.Advance(3600*time.Second - 120*time.Second - time.Millisecond)
	wantCounts(t, q, Counts{Visible: 1, InFlight: 1})
	clk.Advance(time.Millisecond)
	wantCounts(t, q, Counts{Visible: 1})
	wantCode(t, ack(q, delayed.ReceiptHandle), ErrReceiptHandleStale)
	clk.Advance(120 * time.Second)
	wantCounts(t, q, Counts{})
	recvNone(t, q)

	// Expired and acknowledged messages are gone from the file, not just
	// from memory.
	e = reopen(t, e, path, clk)
	q = mustQueue(t, e, "persist")
	wantCounts(t, q, Counts{})
	if n := storedKeys(t, e, q); n != 0 {
		t.Errorf("%d message keys remain in the store", n)
	}
}

func TestPersistQueueChanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	q := mustCreate(t, e, "q", AttributeUpdate{}, map[string]string{"a": "1", "b": "2"})
	gone := mustCreate(t, e, "gone", AttributeUpdate{}, nil)
	sendBodies(t, gone, "lost")
	sendBodies(t, q, "purged 1", "purged 2")

	clk.Advance(5 * time.Second)
	wantCode(t, q.SetAttributes(AttributeUpdate{VisibilityTimeout: ptr(99), DelaySeconds: ptr(3)}), "")
	wantCode(t, q.Tag(map[string]string{"c": "3"}), "")
	wantCode(t, q.Untag([]string{"a"}), "")
	wantCode(t, q.Purge(), "")
	send(t, q, NewMessage{Body: "kept", DelaySeconds: ptr(0)})
	wantCode(t, e.DeleteQueue(gone), "")
	goneID := gone.ID()

	e = reopen(t, e, path, clk)
	q = mustQueue(t, e, "q")
	if a := q.Attributes(); a.VisibilityTimeout != 99 || a.DelaySeconds != 3 {
		t.Errorf("attributes after reopen: %+v", a)
	}
	if !q.Modified().Equal(testStart.Add(5 * time.Second)) {
		t.Errorf("Modified = %v", q.Modified())
	}
	if got, want := q.Tags(), map[string]string{"b": "2", "c": "3"}; !maps.Equal(got, want) {
		t.Errorf("Tags = %v, want %v", got, want)
	}
	if _, err := e.Queue("gone"); CodeOf(err) != ErrQueueDoesNotExist {
		t.Errorf("deleted queue after reopen: %v", err)
	}
	if _, err := e.QueueByID(goneID); CodeOf(err) != ErrQueueDoesNotExist {
		t.Errorf("deleted queue by ID after reopen: %v", err)
	}
	wantCounts(t, q, Counts{Visible: 1})
	recvOne(t, q, ReceiveOptions{MaxMessages: 10}, "kept")

	// The purge cooldown is remembered: the purge was at +5 s.
	wantCode(t, q.Purge(), ErrPurgeQueueInProgress)
	clk.Advance(60*time.Second - time.Millisecond)
	wantCode(t, q.Purge(), ErrPurgeQueueInProgress)
	clk.Advance(time.Millisecond)
	wantCode(t, q.Purge(), "")

	// Queue numbers are never given out twice, not even a deleted queue's.
	fresh := mustCreate(t, e, "fresh", AttributeUpdate{}, nil)
	if fresh.num != 3 {
		t.Errorf("queue created after a restart has number %d, want 3", fresh.num)
	}
}

func TestPersistDeletedQueueStaysDeleted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	q := mustCreate(t, e, "pushed", AttributeUpdate{}, nil)
	sub, err := q.PutSubscription("http://127.0.0.1:1/hook", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, e.DeleteQueue(q), "")
	// A push delivery that ends after the delete, or a late unsubscribe,
	// must not write the queue's record back.
	q.RecordDelivery(sub.Slug, DeliveryResult{At: clk.Now(), Messages: 1, Status: 200})
	_, err = q.DeleteSubscription()
	wantCode(t, err, ErrQueueDoesNotExist)

	e = reopen(t, e, path, clk)
	if _, err := e.Queue("pushed"); CodeOf(err) != ErrQueueDoesNotExist {
		t.Errorf("deleted queue is back after a restart: %v", err)
	}
}

// Deleting a queue leaves alone the record of a queue of the same name
// created since, as a create racing a delete can make.
func TestStoreDeleteQueueKeepsNewerRecord(t *testing.T) {
	e, _ := newTestEngine(t, Options{SkipCooldowns: true})
	old := mustCreate(t, e, "x", AttributeUpdate{}, nil)
	newer := &queueRecord{ID: "newer", Name: "x", Account: DefaultAccountID, Region: DefaultRegion, Num: old.num + 1}
	if err := e.store.createQueue(newer); err != nil {
		t.Fatal(err)
	}
	if err := e.store.deleteQueue(e.DefaultNamespace(), "x", old.id, old.keyspace); err != nil {
		t.Fatal(err)
	}
	err := e.store.view(func(tx recordTx) error {
		if _, ok, err := tx.get(queueKey(e.DefaultNamespace(), "x")); !ok || err != nil {
			t.Errorf("the newer queue's record is gone: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// writeOldStore writes, at path, a store from before namespaces and queue
// numbers: each named queue under "q:NAME", with no number, and its
// messages NAME-1, ready, and NAME-2, delayed, under "m:ID:SEQ" and
// "s:ID:SEQ".
func writeOldStore(t *testing.T, path string, names ...string) {
	t.Helper()
	now := testStart.UnixNano()
	db, err := buntdb.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *buntdb.Tx) error {
		for i, name := range names {
			rec := queueRecord{ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i+1), Name: name, Created: now, Modified: now, Attributes: DefaultAttributes(false)}
			b, err := json.Marshal(rec)
			if err != nil {
				return err
			}
			if _, _, err := tx.Set(oldQueueKey(name), string(b), nil); err != nil {
				return err
			}
			for seq := uint64(1); seq <= 2; seq++ {
				m := &message{seq: seq, sentAt: now, visibleAt: now, expireAt: now + int64(time.Hour)}
				if seq == 2 {
					m.state, m.visibleAt = stateDelayed, now+int64(time.Minute)
				}
				old := fmt.Sprintf("%s:%016x", rec.ID, seq)
				body := appendMessageV1(nil, &Message{ID: fmt.Sprint(name, seq), Body: fmt.Sprint(name, "-", seq), MD5OfBody: "x", SentAt: time.Unix(0, now)})
				if _, _, err := tx.Set(messagePrefix+old, string(body), nil); err != nil {
					return err
				}
				if _, _, err := tx.Set(statePrefix+old, string(appendStateV1(nil, m)), nil); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// A data file written before queues had numbers opens with every message,
// lease and delay in place, under the queues' new keyspaces.
func TestPersistNumbersOldQueues(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	writeOldStore(t, path, "a", "b")

	e := openAt(t, path, clk)
	a, b := mustQueue(t, e, "a"), mustQueue(t, e, "b")
	if a.num == 0 || b.num == 0 || a.num == b.num {
		t.Fatalf("numbers %d and %d", a.num, b.num)
	}
	for _, q := range []*Queue{a, b} {
		wantCounts(t, q, Counts{Visible: 1, Delayed: 1})
		if n := storedKeys(t, e, q); n != 4 {
			t.Errorf("%s: %d records in its keyspace, want 4", q.name, n)
		}
	}
	// Their messages keep the ids they hold, and new ones get their
	// queue's, which the load gave it a key for.
	if d := recvOne(t, a, ReceiveOptions{VisibilityTimeout: ptr(3600)}, "a-1"); d.ID != "a1" {
		t.Errorf("a-1 received with the id %q, want a1", d.ID)
	}
	newID := sendBodies(t, b, "b-3")[0].MessageID
	c := mustCreate(t, e, "c", AttributeUpdate{}, nil)
	sendBodies(t, c, "c-1")

	e = reopen(t, e, path, clk)
	clk.Advance(time.Minute)
	for name, want := range map[string][]string{"a": {"a-2"}, "b": {"b-1", "b-3", "b-2"}, "c": {"c-1"}} {
		q := mustQueue(t, e, name)
		got := recvNow(t, q, ReceiveOptions{MaxMessages: 10})
		if !slices.Equal(bodies(got), want) {
			t.Errorf("%s after two restarts: %q, want %q", name, bodies(got), want)
		}
		for _, d := range got {
			if d.Body == "b-3" && d.ID != newID {
				t.Errorf("b-3 sent with the id %s, received after a restart with %s", newID, d.ID)
			}
		}
	}
}

func TestPersistDeadLetter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	src := mustCreate(t, e, "src", AttributeUpdate{
		VisibilityTimeout: ptr(30),
		RedrivePolicy:     &RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 1},
	}, nil)
	res := sendBodies(t, src, "poison")
	recvOne(t, src, ReceiveOptions{}, "poison")
	clk.Advance(30 * time.Second)
	recvNone(t, src) // moves it
	wantCounts(t, dlq, Counts{Visible: 1})

	e = reopen(t, e, path, clk)
	src, dlq = mustQueue(t, e, "src"), mustQueue(t, e, "dlq")
	wantCounts(t, src, Counts{})
	if n := storedKeys(t, e, src); n != 0 {
		t.Errorf("%d message keys remain for the source queue", n)
	}
	d := recvOne(t, dlq, ReceiveOptions{}, "poison")
	if d.ID != res[0].MessageID || d.DeadLetterSourceArn != src.Arn() {
		t.Errorf("DLQ message ID %s source %q", d.ID, d.DeadLetterSourceArn)
	}
}

func TestPersistLeaseAcrossRestarts(t *testing.T) {
	// A lease that ends while the engine is closed is over when it reopens,
	// and the handle still works until another receive.
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	q := mustCreate(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(30)}, nil)
	sendBodies(t, q, "a", "b")
	ds := recvNow(t, q, ReceiveOptions{MaxMessages: 2})
	wantCode(t, changeVis(q, ds[1].ReceiptHandle, 300), "")
	wantCode(t, e.Close(), "")
	clk.Advance(time.Minute)

	e = openAt(t, path, clk)
	q = mustQueue(t, e, "q")
	wantCounts(t, q, Counts{Visible: 1, InFlight: 1})
	d := recvOne(t, q, ReceiveOptions{}, "a")
	if d.ReceiveCount != 2 {
		t.Errorf("ReceiveCount = %d", d.ReceiveCount)
	}
	wantCode(t, ack(q, ds[0].ReceiptHandle), ErrReceiptHandleStale)
	wantCode(t, ack(q, d.ReceiptHandle), "")
	// The extended lease ends at +300 s.
	clk.Advance(4*time.Minute - time.Second)
	wantCounts(t, q, Counts{InFlight: 1})
	recvNone(t, q)
	clk.Advance(time.Second)
	wantCounts(t, q, Counts{Visible: 1})
	wantCode(t, ack(q, ds[1].ReceiptHandle), "")
	wantCounts(t, q, Counts{})
}

func TestOpenBadPath(t *testing.T) {
	_, err := Open(Options{Path: filepath.Join(t.TempDir(), "missing", "dir", "db"), Clock: NewManualClock(testStart)})
	if err == nil {
		t.Fatal("Open in a missing directory succeeded")
	}
}

func TestParseFsyncPolicy(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want FsyncPolicy
		ok   bool
	}{
		{"always", FsyncAlways, true},
		{"everysec", FsyncEverySecond, true},
		{"", FsyncEverySecond, true},
		{"never", FsyncNever, true},
		{"sometimes", 0, false},
	} {
		got, err := ParseFsyncPolicy(tc.in)
		if (err == nil) != tc.ok || tc.ok && got != tc.want {
			t.Errorf("ParseFsyncPolicy(%q) = %v, %v", tc.in, got, err)
		}
		if tc.ok && tc.in != "" && got.String() != tc.in {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
	for _, p := range []FsyncPolicy{FsyncAlways, FsyncEverySecond, FsyncNever} {
		path := filepath.Join(t.TempDir(), "db")
		e, err := Open(Options{Path: path, Fsync: p, Clock: NewManualClock(testStart)})
		if err != nil {
			t.Fatalf("Open with %v: %v", p, err)
		}
		mustCreate(t, e, "q", AttributeUpdate{}, nil)
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		e, err = Open(Options{Path: path, Fsync: p, Clock: NewManualClock(testStart)})
		if err != nil {
			t.Fatalf("reopen with %v: %v", p, err)
		}
		if _, err := e.Queue("q"); err != nil {
			t.Errorf("fsync %v: queue lost: %v", p, err)
		}
		e.Close()
	}
}
