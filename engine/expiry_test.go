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
		rec, err := decodeMessage(m)
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

// A message that would expire before one sent earlier, after the retention
// shrank, goes in the heap, and expires at its own instant, before the
// earlier ones; those after it expire in order again.
func TestExpiryOutOfSendOrder(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{MessageRetentionPeriod: ptr(120)}, nil)
	sendBodies(t, q, "long")
	wantCode(t, q.SetAttributes(AttributeUpdate{MessageRetentionPeriod: ptr(60)}), "")
	sendBodies(t, q, "short")
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

// getOrNext finds the message at a number or the next number that may
// hold one, whatever the gaps between the messages.
func TestSeqIndexGetOrNext(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var x seqIndex
		var seqs []uint64
		for range r.IntN(50) {
			var seq uint64
			switch r.IntN(3) {
			case 0:
				seq = uint64(r.IntN(300))
			case 1:
				seq = uint64(r.IntN(100 * seqPageSize * seqNearPages))
			default:
				seq = r.Uint64() >> r.IntN(64)
			}
			if seq == math.MaxUint64 || slices.Contains(seqs, seq) {
				continue
			}
			seqs = append(seqs, seq)
			x.put(&message{seq: seq})
		}
		slices.Sort(seqs)
		limit := uint64(math.MaxUint64 - 1)
		if round%2 == 0 && len(seqs) > 0 {
			limit = seqs[len(seqs)/2]
		}
		// From 0, every message up to limit is found, in order, in a
		// bounded number of calls: a page's empty slots one at a time,
		// then a step to the next page.
		var found []uint64
		for at, calls := uint64(0), 0; at <= limit; calls++ {
			if calls > (len(seqs)+1)*(seqPageSize+seqNearPages+2) {
				t.Fatalf("round %d: %d calls and not past %d", round, calls, limit)
			}
			m, next := x.getOrNext(at, limit)
			if m != nil {
				if m.seq != at {
					t.Fatalf("round %d: getOrNext(%d) found %d", round, at, m.seq)
				}
				found = append(found, at)
				next = at + 1
			} else if next <= at {
				t.Fatalf("round %d: getOrNext(%d) goes back to %d", round, at, next)
			}
			// No message is passed over.
			for _, s := range seqs {
				if s > at && s < next {
					t.Fatalf("round %d: getOrNext(%d) passes %d for %d", round, at, s, next)
				}
			}
			at = next
		}
		var want []uint64
		for _, s := range seqs {
			if s <= limit {
				want = append(want, s)
			}
		}
		if !slices.Equal(found, want) {
			t.Fatalf("round %d: found %v, want %v", round, found, want)
		}
	}
}
