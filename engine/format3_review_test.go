package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// Tests of store format 3 and its record of version 2 against what could
// lose, revive or change a message: each change of a message of a store of
// format 2, a copy of the file taken mid-run as a kill would leave it, and
// the records' forms.

// killedCopy copies the store file at path as the engine that has it open
// leaves it now, as if the process were killed there: buntdb has written
// every committed transaction to the file. It returns the copy's path.
func killedCopy(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "killed")
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dst
}

// checkStoreAgrees fails unless the store holds just what e's queues hold:
// every message record is the record its index entry keeps, byte for
// byte; no record belongs to no queue or to no message; and each queue's
// stored bytes are its records'.
func checkStoreAgrees(t *testing.T, e *Engine) {
	t.Helper()
	recs := map[string]string{}
	err := e.store.view(func(tx recordTx) error {
		for _, prefix := range []string{messagePrefix, statePrefix} {
			if err := tx.ascend(prefix, func(k, v string) bool {
				recs[k] = v
				return true
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range e.AllQueues() {
		q.mu.Lock()
		var bytes int64
		for _, m := range q.msgs.ordered() {
			bytes += int64(len(m.record()))
			k := messageKey(q.keyspace, m.seq)
			if v, ok := recs[k]; !ok {
				t.Errorf("queue %s, message %d: no record in the store", q.name, m.seq)
			} else if v != m.record() {
				t.Errorf("queue %s, message %d: the store's record %q is not the index's %q", q.name, m.seq, v, m.record())
			}
			delete(recs, k)
			// A state record may stay beside a record rewritten in
			// version 2's form, which overrides it, until the message
			// goes.
			delete(recs, stateKey(q.keyspace, m.seq))
		}
		if bytes != q.stats.storedBytes {
			t.Errorf("queue %s: stored bytes %d, its records take %d", q.name, q.stats.storedBytes, bytes)
		}
		q.mu.Unlock()
	}
	for k := range recs {
		t.Errorf("record %s is of no message", k)
	}
}

// toFormat2 rewrites every message of e's store as format 2 wrote it: a
// record of version 1 that ends with the state the message was sent in,
// and a state record beside it once it is in another; or, with all, as
// format 1 did, with no such end and a state record for every message.
// The caller reopens e.
func toFormat2(t *testing.T, e *Engine, all bool) {
	t.Helper()
	recs := map[string]string{}
	for _, q := range e.AllQueues() {
		q.mu.Lock()
		for _, m := range q.msgs.ordered() {
			rec, err := decodeMessage(m, q.ids)
			if err != nil {
				t.Fatal(err)
			}
			v1 := appendMessageV1(nil, &rec)
			sent := m.recv == nil && (m.state == stateReady && m.visibleAt == 0 || m.state == stateDelayed)
			if !all {
				// Format 2 wrote the state a message was sent in at the end of
				// its record, and a state record at its first change.
				at := message{sentAt: m.sentAt, expireAt: m.expireAt}
				if sent {
					at = *m
				}
				v1 = appendSentStateV1(v1, &at)
			}
			if !sent || all {
				recs[stateKey(q.keyspace, m.seq)] = string(appendStateV1(nil, m))
			}
			recs[messageKey(q.keyspace, m.seq)] = string(v1)
		}
		q.mu.Unlock()
	}
	recs[formatKey] = map[bool]string{false: "2", true: "1"}[all]
	err := e.store.update(func(tx recordTx) error {
		for k, v := range recs {
			if err := tx.set(k, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// legacyFixture is a store of format 2 (or 1) with a message in each state
// a message can be in, on a standard queue with a dead-letter queue and a
// FIFO queue, and a dead-letter queue with messages to redrive.
type legacyFixture struct {
	path string
	clk  *ManualClock
	e    *Engine
}

func newLegacyFixture(t *testing.T, all bool) *legacyFixture {
	t.Helper()
	f := &legacyFixture{path: filepath.Join(t.TempDir(), "db"), clk: NewManualClock(testStart)}
	e := openAt(t, f.path, f.clk)
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{MessageRetentionPeriod: ptr(3600)}, nil)
	q := mustCreate(t, e, "q", AttributeUpdate{
		VisibilityTimeout: ptr(30), MessageRetentionPeriod: ptr(600),
		RedrivePolicy: &RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 3},
	}, nil)
	p := mustCreate(t, e, "p", AttributeUpdate{RedrivePolicy: &RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 1}}, nil)
	fifo := ffQueue(t, e, "f", AttributeUpdate{ContentBasedDeduplication: ptr(true), VisibilityTimeout: ptr(30)})
	attrs := []MessageAttribute{
		{Name: "b", DataType: "Binary.y", BinaryValue: []byte{0, 0xff, 0}},
		{Name: "n", DataType: "Number.z", StringValue: "-1.5e3"},
		{Name: "s", DataType: "String.x", StringValue: " "},
		{Name: "t", DataType: "String", StringValue: "plain"},
	}
	send(t, q,
		NewMessage{Body: "twice", Attributes: attrs, SenderID: "012345678901"},
		NewMessage{Body: "leased", SenderID: "01234567890"},
		NewMessage{Body: "returned", SenderID: "0123456789012"},
		NewMessage{Body: "sent", SenderID: "AIDAEXAMPLE"},
		NewMessage{Body: "delayed", DelaySeconds: ptr(90), SystemAttributes: []MessageAttribute{{Name: "AWSTraceHeader", DataType: "String", StringValue: "Root=1-x"}}},
	)
	// At +62 s: "twice" received twice and visible, "leased" in flight
	// until +300 s, "returned" received twice and visible, "sent" never
	// received, "delayed" until +90 s.
	recvOne(t, q, ReceiveOptions{}, "twice")
	wantCode(t, changeVis(q, recvOne(t, q, ReceiveOptions{}, "leased").ReceiptHandle, 300), "")
	wantCode(t, changeVis(q, recvOne(t, q, ReceiveOptions{}, "returned").ReceiptHandle, 0), "")
	recvOne(t, q, ReceiveOptions{}, "returned")
	f.clk.Advance(31 * time.Second)
	recvOne(t, q, ReceiveOptions{}, "twice")
	f.clk.Advance(31 * time.Second)
	for _, m := range []NewMessage{{Body: "f1", GroupID: "g"}, {Body: "f2", GroupID: "g"}, {Body: "h1", GroupID: "h", DeduplicationID: "own"}} {
		if r := ffSendOne(fifo, m); r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	recvOne(t, fifo, ReceiveOptions{MaxMessages: 1}, "f1")
	// A message moved to the dead-letter queue, to redrive.
	send(t, p, NewMessage{Body: "poison"})
	wantCode(t, changeVis(p, recvOne(t, p, ReceiveOptions{}, "poison").ReceiptHandle, 0), "")
	recvNone(t, p) // moves it
	wantCounts(t, dlq, Counts{Visible: 1})
	toFormat2(t, e, all)
	f.e = reopen(t, e, f.path, f.clk)
	if v := storeFormat(t, f.e); v != "3" {
		t.Fatalf("the legacy store opened as format %q", v)
	}
	// Format 1 gave every message a state record; format 2 those received
	// alone: "twice", "leased", "returned", "f1" and "poison".
	states := 0
	for _, q := range f.e.AllQueues() {
		_, s := recordsOf(t, f.e, q)
		states += s
	}
	if want := map[bool]int{false: 5, true: 9}[all]; states != want {
		t.Fatalf("the legacy store has %d state records, want %d", states, want)
	}
	checkStoreAgrees(t, f.e)
	return f
}

// stateOf is e's state, with the receipt-handle-free view of each message.
func stateOf(t *testing.T, e *Engine) *State {
	t.Helper()
	s, err := e.State()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// restartedState is the state of e, reopened on a store whose state was
// before, with each queue's LastSequence as before's once it is at least
// that: a store file reserves sequence numbers ahead, and a restart goes on
// past the reserve.
func restartedState(t *testing.T, e *Engine, before *State) *State {
	t.Helper()
	s := stateOf(t, e)
	last := map[string]uint64{}
	for _, q := range before.Queues {
		last[q.ID] = q.LastSequence
	}
	for i := range s.Queues {
		q := &s.Queues[i]
		if was, ok := last[q.ID]; ok && q.LastSequence >= was {
			q.LastSequence = was
		}
	}
	return s
}

// afterKill checks that a process killed now would come back as f.e is:
// the same state, and a store that agrees with it.
func (f *legacyFixture) afterKill(t *testing.T) {
	t.Helper()
	checkStoreAgrees(t, f.e)
	want := stateOf(t, f.e)
	e2 := openAt(t, killedCopy(t, f.path), f.clk)
	defer e2.Close()
	checkStoreAgrees(t, e2)
	if got := restartedState(t, e2, want); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a kill the state is not what it was: %s", stateDiff(want, got))
	}
}

func (f *legacyFixture) queue(t *testing.T, name string) *Queue { return mustQueue(t, f.e, name) }

// Every change a message of a legacy store can go through leaves the store
// as memory has it, with no state record left behind, and a kill right
// after it loses, revives and changes nothing.
func TestFormat3LegacyEveryChange(t *testing.T) {
	for _, all := range []bool{false, true} {
		for name, change := range map[string]func(t *testing.T, f *legacyFixture){
			"receive": func(t *testing.T, f *legacyFixture) {
				q := f.queue(t, "q")
				ds := recvNow(t, q, ReceiveOptions{MaxMessages: 10})
				if got := bodies(ds); !slices.Equal(got, []string{"twice", "returned", "sent"}) {
					t.Fatalf("received %q", got)
				}
				for _, d := range ds {
					if want := map[string]int{"twice": 3, "returned": 3, "sent": 1}[d.Body]; d.ReceiveCount != want {
						t.Errorf("%s received for the %dth time, want %d", d.Body, d.ReceiveCount, want)
					}
				}
				fifo := f.queue(t, "f.fifo")
				f.clk.Advance(31 * time.Second)
				if got := slices.Sorted(slices.Values(bodies(recvNow(t, fifo, ReceiveOptions{MaxMessages: 10})))); !slices.Equal(got, []string{"f1", "f2", "h1"}) {
					t.Fatalf("FIFO received %q", got)
				}
			},
			"change visibility": func(t *testing.T, f *legacyFixture) {
				q := f.queue(t, "q")
				d := recvOne(t, q, ReceiveOptions{MaxMessages: 1}, "twice")
				f.afterKill(t)
				// The lease of "leased", from before the migration, by its
				// handle of then: found through the loaded token.
				wantCode(t, changeVis(q, d.ReceiptHandle, 120), "")
				wantCode(t, changeVis(q, d.ReceiptHandle, 0), "")
			},
			"dead letter": func(t *testing.T, f *legacyFixture) {
				q, dlq := f.queue(t, "q"), f.queue(t, "dlq")
				f.clk.Advance(300 * time.Second) // "leased" returns
				recvNow(t, q, ReceiveOptions{MaxMessages: 10})
				f.clk.Advance(31 * time.Second)
				recvNow(t, q, ReceiveOptions{MaxMessages: 10})
				f.clk.Advance(31 * time.Second)
				recvNow(t, q, ReceiveOptions{MaxMessages: 10}) // moves all but "sent" and "delayed"
				if n := dlq.Counts().Visible; n != 4 {
					t.Fatalf("%d messages in the dead-letter queue", n)
				}
			},
			"expiry": func(t *testing.T, f *legacyFixture) {
				f.clk.Advance(601 * time.Second)
				wantCounts(t, f.queue(t, "q"), Counts{})
			},
			"purge": func(t *testing.T, f *legacyFixture) {
				wantCode(t, f.queue(t, "q").Purge(), "")
				wantCode(t, f.queue(t, "f.fifo").Purge(), "")
			},
			"delete queue": func(t *testing.T, f *legacyFixture) {
				wantCode(t, f.e.DeleteQueue(f.queue(t, "q")), "")
			},
			"reset": func(t *testing.T, f *legacyFixture) {
				wantCode(t, f.e.ResetQueues([]string{"q"}), "")
			},
			"acknowledge": func(t *testing.T, f *legacyFixture) {
				q := f.queue(t, "q")
				f.clk.Advance(300 * time.Second)
				ds := recvNow(t, q, ReceiveOptions{MaxMessages: 10})
				var handles []string
				for _, d := range ds {
					handles = append(handles, d.ReceiptHandle)
				}
				for i, err := range q.Acknowledge(handles) {
					if err != nil {
						t.Fatalf("acknowledge %d: %v", i, err)
					}
				}
			},
			"delete by id": func(t *testing.T, f *legacyFixture) {
				q := f.queue(t, "q")
				ms, err := q.Messages()
				wantCode(t, err, "")
				for _, m := range ms {
					wantCode(t, q.DeleteMessage(m.ID), "")
				}
				wantCounts(t, q, Counts{})
			},
			"redrive": func(t *testing.T, f *legacyFixture) {
				dlq := f.queue(t, "dlq")
				_, err := f.e.StartMoveTask(dlq.Arn(), "", nil)
				wantCode(t, err, "")
				f.e.Settle()
				wantCounts(t, dlq, Counts{})
			},
			"state load": func(t *testing.T, f *legacyFixture) {
				s := stateOf(t, f.e)
				wantCode(t, f.e.Load(s), "")
				if got := stateOf(t, f.e); !reflect.DeepEqual(got, s) {
					t.Fatalf("the state changed when loaded over a legacy store: %s", stateDiff(s, got))
				}
			},
		} {
			format := map[bool]string{false: "format 2", true: "format 1"}[all]
			t.Run(format+"/"+name, func(t *testing.T) {
				f := newLegacyFixture(t, all)
				change(t, f)
				f.afterKill(t)
				// And once more through a clean restart, then a change of
				// everything left.
				f.e = reopen(t, f.e, f.path, f.clk)
				checkStoreAgrees(t, f.e)
				f.clk.Advance(301 * time.Second)
				for _, q := range f.e.AllQueues() {
					recvNow(t, q, ReceiveOptions{MaxMessages: 10})
				}
				f.afterKill(t)
			})
		}
	}
}

// A store of format 2 keeps working across kills in the middle of its
// migration: some messages converted, some not, new ones sent, the
// process killed and the store opened again, round after round.
func TestFormat3RestartMidMigration(t *testing.T) {
	f := newLegacyFixture(t, false)
	for round := range 4 {
		q := f.queue(t, "q")
		send(t, q, NewMessage{Body: "new " + strings.Repeat("x", round), SenderID: "999999999999"})
		recvNow(t, q, ReceiveOptions{MaxMessages: 1})
		want := stateOf(t, f.e)
		killed := killedCopy(t, f.path)
		f.e.Close() // what it writes now, a killed process would not have
		f.path, f.e = killed, openAt(t, killed, f.clk)
		checkStoreAgrees(t, f.e)
		if got := restartedState(t, f.e, want); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: %s", round, stateDiff(want, got))
		}
		f.clk.Advance(31 * time.Second)
	}
}

// Near misses of the forms a version 2 record holds raw: each must read
// back as it was written, raw or not.
var (
	reviewIDs = []string{
		"5f0c3a4e-8d0b-4c47-9a61-3b1f2d7e9c10", "00000000-0000-0000-0000-000000000000",
		"ffffffff-ffff-ffff-ffff-ffffffffffff", "5F0C3A4E-8D0B-4C47-9A61-3B1F2D7E9C10",
		"5f0c3a4e8d0b4c479a613b1f2d7e9c10abcd", "5f0c3a4e-8d0b-4c47-9a61-3b1f2d7e9c1",
		"5f0c3a4e-8d0b-4c47-9a61-3b1f2d7e9c100", "5f0c3a4e-8d0b-4c47-9a613-b1f2d7e9c10",
		"5f0c3a4e-8d0b-4c47-9a61-3b1f2d7e9cg0", "", "x",
	}
	reviewSenders = []string{
		"000000000000", "012345678901", "999999999999", "123456789012", "01234567890", "0123456789012",
		"12345678901a", "+12345678901", "-12345678901", "１２３４５６７８９０１２", "AIDAEXAMPLE", "", " 23456789012",
	}
	reviewTypes = []string{"String", "Number", "Binary", "String.x", "Binary.y", "Number.z", "Strin", "StringX", "string", "Number.", strings.Repeat("T", 300)}
)

// Every combination of near misses, optional fields and attributes reads
// back from its record, in a file store's form and in memory's, and the
// index reads its group and state; a record of version 1 of the same
// message reads back the same.
func TestFormat3RecordNearMisses(t *testing.T) {
	sent := testStart.UnixNano()
	states := []message{
		{sentAt: sent, expireAt: sent + 1},
		{sentAt: sent, state: stateInFlight, visibleAt: sent + 2, expireAt: sent + 3, recv: &receipt{receivedAt: sent + 4, firstReceiveAt: sent + 5, receiveCount: 1<<31 - 1, token: [tokenLen]byte{tokenLen - 1: 1}}},
		{sentAt: -1, state: stateDelayed, visibleAt: -2, expireAt: 1<<63 - 1},
	}
	n := 0
	for i, id := range reviewIDs {
		for j := range 8 { // bodies and attributes
			for k, sender := range reviewSenders {
				n++
				rec := Message{ID: id, SenderID: sender, Body: strings.Repeat("b", (i*j*k)%7)}
				if n%3 == 0 {
					rec.Body = strings.Repeat("\U0010ffff", 1<<16) // a body past any one-byte length
				}
				rec.MD5OfBody = hexMD5(rec.Body)
				for a := range (i + j + k) % 12 {
					typ := reviewTypes[(a+n)%len(reviewTypes)]
					attr := MessageAttribute{Name: string(rune('a' + a)), DataType: typ}
					if strings.HasPrefix(typ, "Binary") {
						attr.BinaryValue = []byte{byte(a), 0, 0xff}
					} else {
						attr.StringValue = strings.Repeat("v", a)
					}
					rec.Attributes = append(rec.Attributes, attr)
				}
				if n%2 == 0 {
					rec.SystemAttributes = []MessageAttribute{{Name: "AWSTraceHeader", DataType: "String", StringValue: "Root=1"}}
				}
				if n%5 != 0 {
					rec.GroupID, rec.SequenceNumber = "g", "18446744073709551615"
				}
				if n%4 == 0 {
					rec.DeduplicationID = strings.Repeat("d", 128)
				}
				if n%7 == 0 {
					rec.DeadLetterSourceArn = "arn:aws:sqs:us-east-1:000000000000:src"
				}
				m := states[n%len(states)]
				rec.SentAt = time.Unix(0, m.sentAt)
				checkRecordForms(t, &rec, m)
			}
		}
	}
}

func checkRecordForms(t *testing.T, rec *Message, state message) {
	t.Helper()
	for _, durable := range []bool{true, false} {
		m := state
		m.setRecord(string(appendRecordState(appendMessage(nil, rec), &m, durable)))
		back, err := decodeMessage(&m, messageIDs{})
		if err != nil || !reflect.DeepEqual(back, *rec) {
			t.Fatalf("durable %v: read back as\n %+v, %v\nwant %+v", durable, back, err, *rec)
		}
		var got message
		group, has, current, err := decodeIndex(m.record(), &got)
		if err != nil || group != rec.GroupID || has != durable || current != durable {
			t.Fatalf("durable %v: decodeIndex: group %q, has %v, current %v, %v", durable, group, has, current, err)
		}
		if durable {
			got.setRecord(m.record())
			if !sameEntry(got, m) {
				t.Fatalf("state read back as\n %+v, %+v\nwant %+v, %+v", got, got.receipt(), m, m.receipt())
			}
		}
		if !recordHasID(&m, messageIDs{}, rec.ID) || recordHasID(&m, messageIDs{}, rec.ID+"0") {
			t.Fatalf("recordHasID does not tell %q", rec.ID)
		}
		// A receive renders a batch of such records into one text.
		var room []MessageAttribute
		var out [3]Message
		var raws [3]rawText
		var text []byte
		for i := range out {
			if err := decodeMessageIn(&m, messageIDs{}, &out[i], &raws[i], &room, 3); err != nil {
				t.Fatal(err)
			}
			var prev *rawText
			if i > 0 {
				prev = &raws[i-1]
			}
			text = raws[i].appendTo(text, prev)
		}
		for i := range out {
			raws[i].fill(&out[i], string(text))
			if !reflect.DeepEqual(out[i], *rec) {
				t.Fatalf("delivery %d of a batch read as\n %+v\nwant %+v", i, out[i], *rec)
			}
		}
	}
	v1 := new(message)
	v1.setRecord(string(appendMessageV1(nil, rec)))
	if back, err := decodeMessage(v1, messageIDs{}); err != nil || !reflect.DeepEqual(back, *rec) {
		t.Fatalf("version 1: read back as\n %+v, %v\nwant %+v", back, err, *rec)
	}
	if !recordHasID(v1, messageIDs{}, rec.ID) {
		t.Fatalf("recordHasID does not find %q in a version 1 record", rec.ID)
	}
}

// withoutWindows is s as a restart brings it back: the store keeps no
// deduplication window.
func withoutWindows(s *State) *State {
	c := *s
	c.Queues = slices.Clone(s.Queues)
	for i := range c.Queues {
		c.Queues[i].Deduplication = nil
	}
	return &c
}

// A state taken from a file store loads into another, and into the same,
// and survives a restart of each, unchanged; senders, ids and types near
// the raw forms included.
func TestFormat3StateRoundTripsThroughFiles(t *testing.T) {
	dir := t.TempDir()
	e := richEngine(t, Options{Path: filepath.Join(dir, "a"), Fsync: FsyncNever})
	s1 := stateOf(t, e)
	src := &s1.Queues[slicesIndex(s1.Queues, "src")]
	for i, sender := range reviewSenders {
		m := MessageState{Message: Message{
			ID: reviewIDs[i%len(reviewIDs)] + strings.Repeat("z", i/len(reviewIDs)), Body: "odd " + sender, SenderID: sender,
			Attributes: []MessageAttribute{{Name: "t", DataType: reviewTypes[i%6], StringValue: "1", BinaryValue: nil}},
			SentAt:     e.Now().Add(-time.Duration(i) * time.Second),
		}}
		if strings.HasPrefix(m.Attributes[0].DataType, "Binary") {
			m.Attributes[0].StringValue, m.Attributes[0].BinaryValue = "", []byte{0, byte(i)}
		}
		if m.ID == "" {
			m.ID = "id-" + sender
		}
		if sender == "" || strings.TrimSpace(sender) != sender {
			continue
		}
		src.Messages = append(src.Messages, m)
	}
	wantCode(t, e.Load(s1), "")
	s1 = stateOf(t, e)
	if got := len(s1.Queues[slicesIndex(s1.Queues, "src")].Messages); got < 10 {
		t.Fatalf("the source queue has %d messages", got)
	}
	for name, path := range map[string]string{"another": filepath.Join(dir, "b"), "the same": ""} {
		t.Run(name, func(t *testing.T) {
			e2, clk2 := e, NewManualClock(e.Now())
			if path != "" {
				e2 = openAt(t, path, clk2)
				wantCode(t, e2.Load(s1), "")
			} else {
				path = filepath.Join(dir, "a")
			}
			checkStoreAgrees(t, e2)
			if s2 := stateOf(t, e2); !reflect.DeepEqual(s1, s2) {
				t.Fatalf("through Load: %s", stateDiff(s1, s2))
			}
			e3 := openAt(t, killedCopy(t, path), clk2)
			checkStoreAgrees(t, e3)
			if s3 := restartedState(t, e3, s1); !reflect.DeepEqual(withoutWindows(s1), s3) {
				t.Fatalf("after a kill: %s", stateDiff(s1, s3))
			}
			e3.Close()
		})
	}
}

// A change of a legacy message that the store refuses leaves the record,
// its state record and the stored bytes as they were; the same change
// then succeeds.
func TestFormat3LegacyFailedWrites(t *testing.T) {
	f := newLegacyFixture(t, false)
	f.e.Close()
	disk := &diskFull{}
	f.e = openFaulty(t, f.path, f.clk, disk)
	q := f.queue(t, "q")
	f.clk.Advance(301 * time.Second) // "leased" returns
	failing(disk, func() {
		if _, err := q.Receive(t.Context(), ReceiveOptions{MaxMessages: 10, WaitSeconds: ptr(0)}); err == nil {
			t.Fatal("a receive the store refused succeeded")
		}
	})
	checkStoreAgrees(t, f.e)
	ds := recvNow(t, q, ReceiveOptions{MaxMessages: 10})
	if len(ds) != 5 {
		t.Fatalf("received %q", bodies(ds))
	}
	var changes []VisibilityChange
	var handles []string
	for _, d := range ds {
		changes = append(changes, VisibilityChange{ReceiptHandle: d.ReceiptHandle, Timeout: 0}, VisibilityChange{ReceiptHandle: d.ReceiptHandle, Timeout: 60})
		handles = append(handles, d.ReceiptHandle)
	}
	failing(disk, func() {
		for _, err := range q.ChangeVisibility(changes) {
			wantCode(t, err, ErrInternal)
		}
		for _, err := range q.Acknowledge(handles) {
			wantCode(t, err, ErrInternal)
		}
	})
	checkStoreAgrees(t, f.e)
	for _, err := range q.ChangeVisibility(changes) {
		wantCode(t, err, "")
	}
	wantCounts(t, q, Counts{InFlight: 5})
	f.afterKill(t)
	for _, err := range q.Acknowledge(handles) {
		wantCode(t, err, "")
	}
	f.afterKill(t)
	wantCounts(t, q, Counts{})
}

// respCommands splits b, whole buntdb commands, into those commands.
func respCommands(t *testing.T, b []byte) [][]byte {
	t.Helper()
	var cmds [][]byte
	for len(b) > 0 {
		parts, rest, ok := respNumber(b, '*')
		if !ok {
			t.Fatalf("not a command: %.40q", b)
		}
		for range parts {
			if _, rest, ok = respString(rest); !ok {
				t.Fatalf("a command cut short: %.40q", b)
			}
		}
		n := len(b) - len(rest)
		cmds, b = append(cmds, b[:n]), rest
	}
	return cmds
}

// A kill can cut the one write of a transaction short, and buntdb then
// loads the commands written whole, in the order it wrote them, which is
// its map's: any of a transaction's commands may be there without the
// others. Whichever of a receive's are, each message of a legacy store is
// there after the kill, received as before the receive or as after it.
func TestFormat3TornReceiveOfLegacyMessages(t *testing.T) {
	for _, all := range []bool{true, false} {
		path := filepath.Join(t.TempDir(), "db")
		clk := NewManualClock(testStart)
		e := openAt(t, path, clk)
		q := mustCreate(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(30)}, nil)
		sendBodies(t, q, "once", "never")
		recvOne(t, q, ReceiveOptions{}, "once")
		clk.Advance(31 * time.Second)
		toFormat2(t, e, all)
		e = reopen(t, e, path, clk)
		q = mustQueue(t, e, "q")
		before, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		was := map[string]int{"once": 1, "never": 0}
		if got := bodies(recvNow(t, q, ReceiveOptions{MaxMessages: 10})); len(got) != 2 {
			t.Fatalf("received %q", got)
		}
		after, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		e.Close()
		cmds := respCommands(t, after[len(before):])
		for subset := range 1 << len(cmds) {
			torn := slices.Clone(before)
			var kept []string
			for i, c := range cmds {
				if subset&(1<<i) != 0 {
					torn = append(torn, c...)
					kept = append(kept, strings.Fields(strings.ReplaceAll(string(c[:min(len(c), 24)]), "\r\n", " "))[4])
				}
			}
			tornPath := filepath.Join(t.TempDir(), "torn")
			if err := os.WriteFile(tornPath, torn, 0o600); err != nil {
				t.Fatal(err)
			}
			e := openAt(t, tornPath, clk)
			ms, err := mustQueue(t, e, "q").Messages()
			wantCode(t, err, "")
			got := map[string]int{}
			for _, m := range ms {
				got[m.Body] = m.ReceiveCount
			}
			for body, n := range was {
				if c, ok := got[body]; !ok || c != n && c != n+1 {
					t.Errorf("format %s, with %v of the receive written: %q has receive count %d (there: %v); want %d or %d",
						map[bool]string{true: "1", false: "2"}[all], kept, body, c, ok, n, n+1)
				}
			}
			e.Close()
		}
	}
}

// txStarts returns a FailWrites hook for a store at path that, while *on,
// notes the file's size as each transaction begins, and the sizes noted.
func txStarts(path string, on *bool) (func() error, *[]int64) {
	var starts []int64
	return func() error {
		if *on {
			fi, err := os.Stat(path)
			if err != nil {
				return err
			}
			starts = append(starts, fi.Size())
		}
		return nil
	}, &starts
}

// tornRun opens a store at a new path with clk, runs setup, then change,
// and checks ok on the store as a kill during change could leave it: with
// the transactions change wrote before the kill whole, and any of the
// commands of the one it was writing.
func tornRun(t *testing.T, clk *ManualClock, setup, change func(e *Engine), ok func(t *testing.T, e *Engine, what string)) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db")
	var recording bool
	hook, starts := txStarts(path, &recording)
	e, err := Open(Options{Path: path, Clock: clk, Fsync: FsyncNever, FailWrites: hook})
	if err != nil {
		t.Fatal(err)
	}
	setup(e)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recording = true
	change(e)
	recording = false
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if outcomes := checkTorn(t, clk, after, *starts, ok); len(before) >= len(after) || outcomes < 4 {
		t.Fatalf("the change wrote %d bytes, in %d outcomes", len(after)-len(before), outcomes)
	}
}

// checkTorn checks ok on each store a kill could leave from the file
// after, written by transactions that began at the offsets starts: with
// those before one whole, and any of that one's commands. It returns how
// many stores it checked.
func checkTorn(t *testing.T, clk *ManualClock, after []byte, starts []int64, ok func(t *testing.T, e *Engine, what string)) int {
	t.Helper()
	starts = append(starts, int64(len(after)))
	outcomes := 0
	for i := range len(starts) - 1 {
		cmds := respCommands(t, after[starts[i]:starts[i+1]])
		for subset := range 1 << len(cmds) {
			torn := slices.Clone(after[:starts[i]])
			for k, c := range cmds {
				if subset&(1<<k) != 0 {
					torn = append(torn, c...)
				}
			}
			tornPath := filepath.Join(t.TempDir(), "torn")
			if err := os.WriteFile(tornPath, torn, 0o600); err != nil {
				t.Fatal(err)
			}
			e := openAt(t, tornPath, clk)
			ok(t, e, fmt.Sprintf("transaction %d, commands %b of %d", i, subset, len(cmds)))
			e.Close()
			outcomes++
		}
	}
	return outcomes
}

// A kill while a message moves to its dead-letter queue, or back out of it
// by a move task, leaves it in one queue or both, never in neither.
func TestFormat3TornMoves(t *testing.T) {
	clk := NewManualClock(testStart)
	var src, dlq *Queue
	setup := func(e *Engine) {
		dlq = mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
		src = mustCreate(t, e, "src", AttributeUpdate{VisibilityTimeout: ptr(30), RedrivePolicy: &RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 1}}, nil)
		sendBodies(t, src, "poison", "toxic")
		recvNow(t, src, ReceiveOptions{MaxMessages: 10})
		clk.Advance(31 * time.Second)
	}
	both := func(t *testing.T, e *Engine, what string) {
		t.Helper()
		e.Settle() // a move task loaded running moves on
		found := map[string]int{}
		for _, name := range []string{"src", "dlq"} {
			ms, err := mustQueue(t, e, name).Messages()
			wantCode(t, err, "")
			for _, m := range ms {
				found[m.Body]++
			}
		}
		for _, body := range []string{"poison", "toxic"} {
			if found[body] == 0 {
				t.Errorf("%s: %q is in neither queue", what, body)
			}
		}
	}
	tornRun(t, clk, setup, func(*Engine) { recvNone(t, src) }, both)
	tornRun(t, clk, func(e *Engine) {
		setup(e)
		recvNone(t, src)
	}, func(e *Engine) {
		_, err := e.StartMoveTask(dlq.Arn(), "", nil)
		wantCode(t, err, "")
		e.Settle()
		wantCounts(t, dlq, Counts{})
	}, both)
}

// A record that does not read, in the middle of a receive's batch, is left
// out, and the deliveries around it get their own ids, MD5s, senders and
// handles, shared sender text included.
func TestFormat3ReceiveAroundUnreadableRecord(t *testing.T) {
	for _, path := range []string{"", filepath.Join(t.TempDir(), "db")} {
		e, _ := newTestEngine(t, Options{Path: path, Fsync: FsyncNever})
		q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
		var msgs []NewMessage
		for i := range 6 {
			msgs = append(msgs, NewMessage{Body: strings.Repeat("b", i+1), SenderID: "111111111111"})
		}
		sent := send(t, q, msgs...)
		q.mu.Lock()
		for i, m := range q.msgs.ordered() {
			if i == 1 || i == 4 {
				q.stats.storedBytes -= int64(len(m.record()) - 3)
				m.setRecord("\x02\x00\xff") // a raw id cut short
			}
		}
		q.mu.Unlock()
		got := recvNow(t, q, ReceiveOptions{MaxMessages: 10})
		if len(got) != 4 {
			t.Fatalf("%q: received %q", path, bodies(got))
		}
		seen := map[string]bool{}
		for _, d := range got {
			i := len(d.Body) - 1
			if d.ID != sent[i].MessageID || d.MD5OfBody != sent[i].MD5OfBody || d.SenderID != "111111111111" || seen[d.ReceiptHandle] {
				t.Errorf("%q: delivery of %q: id %s, MD5 %s, sender %q, handle %s", path, d.Body, d.ID, d.MD5OfBody, d.SenderID, d.ReceiptHandle)
			}
			seen[d.ReceiptHandle] = true
			wantCode(t, ack(q, d.ReceiptHandle), "")
		}
		wantCounts(t, q, Counts{})
	}
}

// A FIFO receive with an attempt id, around an unreadable record, delivers
// the others and records the attempt with them alone: a retry within the
// window gets them again, and the queue goes on.
func TestFIFOAttemptAroundUnreadableRecord(t *testing.T) {
	for _, path := range []string{"", filepath.Join(t.TempDir(), "db")} {
		e, _ := newTestEngine(t, Options{Path: path, Fsync: FsyncNever})
		q := mustCreate(t, e, "q.fifo", AttributeUpdate{FifoQueue: ptr(true), ContentBasedDeduplication: ptr(true)}, nil)
		send(t, q, NewMessage{Body: "a", GroupID: "g"}, NewMessage{Body: "b", GroupID: "g"}, NewMessage{Body: "c", GroupID: "g"})
		q.mu.Lock()
		m := q.msgs.ordered()[1]
		q.stats.storedBytes -= int64(len(m.record()) - 3)
		m.setRecord("\x02\x00\xff")
		q.mu.Unlock()
		opts := ReceiveOptions{MaxMessages: 10, AttemptID: "x"}
		got := recvNow(t, q, opts)
		if !slices.Equal(bodies(got), []string{"a", "c"}) {
			t.Fatalf("%q: received %q, want a, c", path, bodies(got))
		}
		again := recvNow(t, q, opts)
		if !slices.Equal(bodies(again), bodies(got)) || again[0].ReceiptHandle != got[0].ReceiptHandle {
			t.Fatalf("%q: the retry received %q", path, bodies(again))
		}
		for _, d := range got {
			wantCode(t, ack(q, d.ReceiptHandle), "")
		}
		wantCounts(t, q, Counts{})
	}
}
