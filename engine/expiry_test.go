package engine

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"
)

// expiryEntries is the number of entries in q's expiry heap.
func expiryEntries(q *Queue) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.expiry.len()
}

// storedBodiesNow lists the bodies q holds, in sequence order, after
// bringing it to the clock's time.
func storedBodiesNow(t *testing.T, e *Engine, q *Queue) []string {
	t.Helper()
	q.mu.Lock()
	q.advance(e.clock.Now().UnixNano())
	ms := q.msgs.ordered()
	q.mu.Unlock()
	var bodies []string
	for _, m := range ms {
		rec, err := decodeMessage(m, q.ids)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, rec.Body)
	}
	return bodies
}

// Messages sent one after another expire in the order they came, found by
// sequence number: the heap holds no entry for them, and each expires at
// its own instant.
func TestExpiryInSendOrderKeepsNoEntries(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{MessageRetentionPeriod: ptr(60)}, nil)
	sendBodies(t, q, "a", "b")
	clk.Advance(10 * time.Second)
	sendBodies(t, q, "c")
	if n := expiryEntries(q); n != 0 {
		t.Fatalf("the expiry heap holds %d entries, want none", n)
	}
	recvOne(t, q, ReceiveOptions{VisibilityTimeout: ptr(600)}, "a")
	wantCode(t, ack(q, recvOne(t, q, ReceiveOptions{}, "b").ReceiptHandle), "")
	clk.Advance(50*time.Second - 1)
	if got := storedBodiesNow(t, e, q); !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("a nanosecond before the first expiry the queue holds %q, want [a c]", got)
	}
	clk.Advance(1) // a, in flight, expires all the same
	if got := storedBodiesNow(t, e, q); !slices.Equal(got, []string{"c"}) {
		t.Fatalf("at the first expiry the queue holds %q, want [c]", got)
	}
	q.mu.Lock()
	next := q.nextDeadlineLocked()
	q.mu.Unlock()
	if want := testStart.Add(70 * time.Second).UnixNano(); next != want {
		t.Fatalf("the next deadline is %d, want c's expiry %d", next, want)
	}
	clk.Advance(10 * time.Second)
	if got := storedBodiesNow(t, e, q); len(got) != 0 {
		t.Fatalf("after the last expiry the queue holds %q", got)
	}
}

// shrunkRetention makes queue q with a retention of from seconds, sends it
// "long", shrinks the retention to 60 s and sends it "short", which expires
// first.
func shrunkRetention(t *testing.T, e *Engine, from int) *Queue {
	t.Helper()
	q := mustCreate(t, e, "q", AttributeUpdate{MessageRetentionPeriod: ptr(from)}, nil)
	sendBodies(t, q, "long")
	wantCode(t, q.SetAttributes(AttributeUpdate{MessageRetentionPeriod: ptr(60)}), "")
	sendBodies(t, q, "short")
	return q
}

// A message that would expire before one sent earlier, after the retention
// shrank, goes in the heap, and expires at its own instant, before the
// earlier ones; those after it expire in order again.
func TestExpiryOutOfSendOrder(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := shrunkRetention(t, e, 120)
	if n := expiryEntries(q); n != 1 {
		t.Fatalf("the expiry heap holds %d entries, want the one of short", n)
	}
	clk.Advance(61 * time.Second)
	sendBodies(t, q, "later") // expires a second after long
	if got := storedBodiesNow(t, e, q); !slices.Equal(got, []string{"long", "later"}) {
		t.Fatalf("after short's expiry the queue holds %q, want [long later]", got)
	}
	clk.Advance(59 * time.Second)
	if got := storedBodiesNow(t, e, q); !slices.Equal(got, []string{"later"}) {
		t.Fatalf("after long's expiry the queue holds %q, want [later]", got)
	}
	clk.Advance(time.Second)
	if got := storedBodiesNow(t, e, q); len(got) != 0 {
		t.Fatalf("after later's expiry the queue holds %q", got)
	}
}

// Sequence numbers far apart, as a state can give a FIFO queue's messages,
// up to the largest there is, are passed in one step each, and every
// message expires when it should.
func TestExpiryAcrossSequenceGaps(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	fifo := DefaultAttributes(true)
	fifo.MessageRetentionPeriod = 60
	var ms []MessageState
	seqs := []uint64{3, 1 << 20, 1 << 40, 1<<62 + 5, math.MaxUint64 - 1, math.MaxUint64}
	for i, seq := range seqs {
		ms = append(ms, MessageState{
			Message:   Message{Body: strconv.Itoa(i), GroupID: "g", DeduplicationID: strconv.Itoa(i), SequenceNumber: strconv.FormatUint(seq, 10), SentAt: testStart.Add(time.Duration(i) * time.Second)},
			ExpiresAt: testStart.Add(time.Duration(60+i) * time.Second),
		})
	}
	wantCode(t, e.Load(&State{Queues: []QueueState{{Name: "f.fifo", Attributes: fifo, Messages: ms}}}), "")
	q := e.mustQueue(t, "f.fifo")
	clk.Advance(59 * time.Second)
	for i := range seqs {
		clk.Advance(time.Second)
		if got := storedBodiesNow(t, e, q); len(got) != len(seqs)-i-1 {
			t.Fatalf("at message %d's expiry the queue holds %q", i, got)
		}
	}
}

// Messages each alone in its page, far apart, as a state of a FIFO queue
// taken from SQS numbers them, expire together in one step that goes from
// each one's page to the next's: a search that looked through all the
// queue's pages for each would take some N² steps here, minutes under the
// queue's lock.
func TestExpiryOfFarApartMessagesAtOnce(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{MessageRetentionPeriod: ptr(60)}, nil)
	const n = 1 << 16
	at := clk.Now().Add(time.Minute).UnixNano()
	q.mu.Lock()
	for i := range uint64(n) {
		q.insertLocked(&message{seq: (i + 1) << 20, state: stateReady, expireAt: at + int64(i)})
	}
	q.mu.Unlock()
	if got := expiryEntries(q); got != 0 {
		t.Fatalf("the expiry heap holds %d entries, want none", got)
	}
	clk.Advance(time.Minute + n)
	q.mu.Lock()
	q.advance(clk.Now().UnixNano())
	left, next := q.msgs.len(), q.nextDeadlineLocked()
	q.mu.Unlock()
	if left != 0 || next != 0 {
		t.Fatalf("after the last expiry %d messages are left and the next deadline is %d", left, next)
	}
}

// Whatever is put in and taken out, in whatever order, the first inOrder
// message firstInOrderLocked finds is the one of the lowest sequence number
// there, the inOrder messages' expiries rise with their numbers, and the
// pages kept to step between them stay in proportion to the queue's.
func TestFirstInOrderFollowsTheIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 50 {
		e, _ := newTestEngine(t, Options{})
		q := mustCreate(t, e, "q"+strconv.Itoa(round), AttributeUpdate{}, nil)
		var seq uint64
		var at int64
		var live []*message
		q.mu.Lock()
		for step := range 2000 {
			switch op := r.IntN(10); {
			case op < 5 || len(live) == 0:
				// Mostly the next numbers, sometimes far on; mostly later
				// expiries, sometimes earlier ones.
				switch r.IntN(8) {
				case 0:
					seq += uint64(r.IntN(100 * seqPageSize))
				case 1:
					seq += min(r.Uint64()>>(10+r.IntN(54)), math.MaxUint64-2-seq)
				}
				seq = min(seq+1, math.MaxUint64-1)
				at += int64(r.IntN(3)) - 1
				if q.msgs.get(seq) != nil {
					continue
				}
				m := &message{seq: seq, state: stateReady, expireAt: at}
				q.insertLocked(m)
				live = append(live, m)
			case op < 6:
				// A message taken out and put back, as a move the store
				// refused gives it back.
				m := live[r.IntN(len(live))]
				q.removeLocked(m)
				m.gone = false
				q.insertLocked(m)
			default:
				k := r.IntN(len(live))
				q.removeLocked(live[k])
				live = slices.Delete(live, k, k+1)
			}
			var want *message
			last := int64(math.MinInt64)
			for _, m := range q.msgs.ordered() {
				if !m.inOrder {
					continue
				}
				if want == nil {
					want = m
				}
				if m.expireAt < last {
					t.Fatalf("round %d, step %d: inOrder message %d expires at %d, before %d", round, step, m.seq, m.expireAt, last)
				}
				last = m.expireAt
			}
			if got := q.firstInOrderLocked(); got != want {
				t.Fatalf("round %d, step %d: firstInOrderLocked found %v, want %v", round, step, got, want)
			}
			if n, most := len(q.orderPages), 2*q.msgs.pageCount()+compactSlack+1; n > most {
				t.Fatalf("round %d, step %d: %d pages kept for %d indexed", round, step, n, q.msgs.pageCount())
			}
		}
		q.mu.Unlock()
	}
}

// Once no message that expires in send order is left, the next one sent
// starts their run again, whatever the expiries of those before: after the
// retention shrank and the queue emptied, messages take no expiry entry.
func TestExpiryInSendOrderAgainOnceEmptied(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := shrunkRetention(t, e, 3600)
	wantCode(t, ack(q, recvOne(t, q, ReceiveOptions{}, "long").ReceiptHandle), "")
	wantCode(t, ack(q, recvOne(t, q, ReceiveOptions{}, "short").ReceiptHandle), "")
	sendBodies(t, q, "a", "b")
	if n := expiryEntries(q); n != 0 {
		t.Fatalf("the expiry heap holds %d entries, want none", n)
	}
	clk.Advance(60 * time.Second)
	if got := storedBodiesNow(t, e, q); len(got) != 0 {
		t.Fatalf("after their expiry the queue holds %q", got)
	}
}
