package engine

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/uuid"
)

// The messages a queue sends get ids from their sequence numbers: version
// 4 UUIDs, each its own, which their records do not hold, the same in a
// receive, a peek, a state and DeleteMessage, and after a restart. Another
// queue, or one of the same name made again, gives its messages of the
// same numbers other ids.
func TestMessageIDsFromSequenceNumbers(t *testing.T) {
	for _, path := range []string{"", filepath.Join(t.TempDir(), "db")} {
		clk := NewManualClock(testStart)
		e := openAt(t, path, clk)
		q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
		var sent []string
		for _, r := range sendBodies(t, q, "a", "b", "c") {
			u, err := uuid.Parse(r.MessageID)
			if err != nil || u.Version() != 4 || u.Variant() != uuid.RFC4122 || u.String() != r.MessageID || slices.Contains(sent, r.MessageID) {
				t.Fatalf("%q: id %q (%v), after %q", path, r.MessageID, err, sent)
			}
			sent = append(sent, r.MessageID)
		}
		q.mu.Lock()
		for _, m := range q.msgs.ordered() {
			if rec := m.record(); rec[1]&rawID != 0 || rec[2] != 0 {
				t.Errorf("%q: message %d's record %x holds its id", path, m.seq, rec)
			}
		}
		q.mu.Unlock()
		if path != "" {
			e = reopen(t, e, path, clk)
			q = mustQueue(t, e, "q")
		}
		peeked, err := q.Inspect(InspectOptions{Limit: 10})
		if err != nil || len(peeked) != 3 {
			t.Fatalf("%q: peek: %d messages, %v", path, len(peeked), err)
		}
		for i, ms := range peeked {
			if ms.ID != sent[i] {
				t.Errorf("%q: peeked %q as %q, sent as %q", path, ms.Body, ms.ID, sent[i])
			}
		}
		st, err := e.State()
		if err != nil || len(st.Queues) != 1 || len(st.Queues[0].Messages) != 3 || st.Queues[0].Messages[2].ID != sent[2] {
			t.Fatalf("%q: the state does not give the ids sent: %+v, %v", path, st, err)
		}
		wantCode(t, q.DeleteMessage(sent[1]), "")
		var got []string
		for _, d := range recvNow(t, q, ReceiveOptions{MaxMessages: 10}) {
			got = append(got, d.ID)
		}
		if want := []string{sent[0], sent[2]}; !slices.Equal(got, want) {
			t.Errorf("%q: received %q, want %q", path, got, want)
		}

		other := mustCreate(t, e, "other", AttributeUpdate{}, nil)
		if id := sendBodies(t, other, "a")[0].MessageID; slices.Contains(sent, id) {
			t.Errorf("%q: another queue's first message has the id %s", path, id)
		}
		wantCode(t, e.DeleteQueue(q), "")
		clk.Advance(DeleteQueueCooldown)
		again := mustCreate(t, e, "q", AttributeUpdate{}, nil)
		if id := sendBodies(t, again, "a")[0].MessageID; slices.Contains(sent, id) {
			t.Errorf("%q: the queue made again gave its first message the id %s", path, id)
		}
	}
}

// A queue that has handed out the last sequence number refuses sends, with
// its messages all still there to receive, rather than number one 0; a
// state whose FIFO messages go past the last number is refused.
func TestSequenceNumbersRunOut(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	wantCode(t, e.Load(&State{Queues: []QueueState{{Name: "q", Attributes: DefaultAttributes(false), LastSequence: math.MaxUint64 - 1,
		Messages: []MessageState{{Message: Message{Body: "a"}}}}}}), "")
	q := mustQueue(t, e, "q")
	sendBodies(t, q, "b") // numbered math.MaxUint64
	for _, r := range q.Send([]NewMessage{{Body: "c"}, {Body: "d"}}) {
		wantCode(t, r.Err, ErrInternal)
	}
	if got := bodies(recvNow(t, q, ReceiveOptions{MaxMessages: 10})); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("received %q, want a, b", got)
	}

	last := MessageState{Message: Message{Body: "last", GroupID: "g", DeduplicationID: "1", SequenceNumber: "18446744073709551615"}}
	next := MessageState{Message: Message{Body: "next", GroupID: "g", DeduplicationID: "2"}}
	err := e.Load(&State{Queues: []QueueState{{Name: "f.fifo", Attributes: DefaultAttributes(true), Messages: []MessageState{last, next}}}})
	wantCode(t, err, ErrInvalidParameterValue)
}

// Near the last sequence number, the counter that a delete stores stops at
// it rather than wrap to a low one: a restart numbers no message as one
// deleted before it.
func TestSequenceCounterStopsAtTheLast(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	wantCode(t, e.Load(&State{Queues: []QueueState{{Name: "q", Attributes: DefaultAttributes(false), LastSequence: math.MaxUint64 - 100}}}), "")
	q := mustQueue(t, e, "q")
	sendBodies(t, q, "a")
	wantCode(t, ack(q, recvOne(t, q, ReceiveOptions{}, "a").ReceiptHandle), "")
	deleted := q.seq.Load()
	e = reopen(t, e, path, clk)
	if q = mustQueue(t, e, "q"); q.seq.Load() < deleted {
		t.Fatalf("after a restart the count is %d, below the deleted message's %d", q.seq.Load(), deleted)
	}
}

// Two messages of one number, which a store that lost its last writes to
// a power cut can hand out again, get ids of their own by their sending
// instants; another key gives other ids.
func TestMessageIDsOfNumberAndInstant(t *testing.T) {
	key := make([]byte, idKeyLen)
	ids, err := newMessageIDs(key)
	if err != nil {
		t.Fatal(err)
	}
	key[0] = 1
	other, err := newMessageIDs(key)
	if err != nil {
		t.Fatal(err)
	}
	at := testStart.UnixNano()
	first := ids.of(7, at)
	for _, id := range [][16]byte{ids.of(7, at+1), ids.of(8, at), other.of(7, at)} {
		if id == first {
			t.Fatalf("two messages share the id %x", id)
		}
	}
	if first != ids.of(7, at) {
		t.Fatal("a message's id changed")
	}
	if _, err := newMessageIDs(key[:15]); err == nil {
		t.Fatal("a key of 15 bytes was taken")
	}
}
