package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestFIFOConcurrentConsumers runs many consumers against a FIFO queue with
// many groups and checks, for every receive, that each group's messages come
// in send order and that no two consumers ever hold messages of the same
// group at once. Consumers acknowledge what they got, or part of it, and
// release the rest with ChangeVisibility 0 so that messages are redelivered.
// The clock never moves: only releases make messages visible again.
func TestFIFOConcurrentConsumers(t *testing.T) {
	const (
		groups    = 20
		perGroup  = 50
		consumers = 8
		total     = groups * perGroup
		// maxReceives bounds each consumer's receives that return
		// messages; safetyTimeout bounds the empty ones in real time.
		maxReceives = 10000
	)
	e, _ := newTestEngine(t, Options{})
	q := ffQueue(t, e, "race", AttributeUpdate{VisibilityTimeout: ptr(300)})

	// Sent in order per group, groups interleaved, in batches of ten.
	var batch []NewMessage
	for i := range perGroup {
		for g := range groups {
			batch = append(batch, NewMessage{
				Body:            fmt.Sprintf("%d", i),
				GroupID:         fmt.Sprintf("g%02d", g),
				DeduplicationID: fmt.Sprintf("g%02d-%d", g, i),
			})
			if len(batch) == MaxMessagesPerReceive {
				send(t, q, batch...)
				batch = batch[:0]
			}
		}
	}
	send(t, q, batch...)
	wantCounts(t, q, Counts{Visible: total})

	type groupState struct {
		next   int // index of the first message not yet acknowledged
		holder int // consumer holding the group's messages, -1 for none
	}
	var (
		mu          sync.Mutex
		state       = map[string]*groupState{}
		failures    []string
		acked       atomic.Int64
		released    atomic.Int64
		redelivered atomic.Int64
	)
	for g := range groups {
		state[fmt.Sprintf("g%02d", g)] = &groupState{holder: -1}
	}
	fail := func(format string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var wg sync.WaitGroup
	for c := range consumers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 42))
			deadline := time.Now().Add(safetyTimeout)
			for n := 0; n < maxReceives && acked.Load() < total && ctx.Err() == nil; {
				ds, err := q.Receive(ctx, ReceiveOptions{MaxMessages: 1 + rng.IntN(MaxMessagesPerReceive), WaitSeconds: ptr(0)})
				if err != nil {
					fail("consumer %d: receive: %v", c, err)
					cancel()
					return
				}
				if len(ds) == 0 {
					if time.Now().After(deadline) {
						fail("consumer %d: no progress within %v, %d acknowledged", c, safetyTimeout, acked.Load())
						cancel()
						return
					}
					runtime.Gosched()
					continue
				}
				n++

				// Check and claim every group in this receive.
				byGroup := map[string][]Delivery{}
				var order []string
				for _, d := range ds {
					if _, ok := byGroup[d.GroupID]; !ok {
						order = append(order, d.GroupID)
					}
					byGroup[d.GroupID] = append(byGroup[d.GroupID], d)
				}
				mu.Lock()
				for _, g := range order {
					st := state[g]
					if st == nil {
						failures = append(failures, fmt.Sprintf("unknown group %q", g))
						continue
					}
					if st.holder != -1 {
						failures = append(failures, fmt.Sprintf("group %s delivered to consumer %d while consumer %d holds it", g, c, st.holder))
					}
					st.holder = c
					for k, d := range byGroup[g] {
						if want := fmt.Sprint(st.next + k); d.Body != want {
							failures = append(failures, fmt.Sprintf("group %s: consumer %d got message %s at position %d, want %s", g, c, d.Body, k, want))
						}
						if d.ReceiveCount > 1 {
							redelivered.Add(1)
						}
					}
				}
				mu.Unlock()
				if ctx.Err() != nil {
					return
				}

				// Per group, acknowledge a prefix and release the rest. The
				// shared state is updated first, while the engine still
				// holds the whole group in flight.
				var ackHandles []string
				var release []VisibilityChange
				mu.Lock()
				for _, g := range order {
					msgs := byGroup[g]
					keep := len(msgs)
					switch r := rng.IntN(10); {
					case r < 2:
						keep = 0
					case r < 4:
						keep = rng.IntN(len(msgs) + 1)
					}
					for _, d := range msgs[:keep] {
						ackHandles = append(ackHandles, d.ReceiptHandle)
					}
					for _, d := range msgs[keep:] {
						release = append(release, VisibilityChange{ReceiptHandle: d.ReceiptHandle})
					}
					st := state[g]
					if st.holder == c {
						st.next += keep
						st.holder = -1
					}
				}
				mu.Unlock()
				// Acknowledge before releasing: a group becomes available
				// again only once its last in-flight message is handled.
				for i, err := range q.Acknowledge(ackHandles) {
					if err != nil {
						fail("consumer %d: acknowledge %d: %v", c, i, err)
					}
				}
				acked.Add(int64(len(ackHandles)))
				for i, err := range q.ChangeVisibility(release) {
					if err != nil {
						fail("consumer %d: release %d: %v", c, i, err)
					}
				}
				released.Add(int64(len(release)))
			}
		}()
	}
	wg.Wait()

	for i, f := range failures {
		if i == 20 {
			t.Errorf("... and %d more", len(failures)-i)
			break
		}
		t.Error(f)
	}
	if got := acked.Load(); got != total {
		t.Fatalf("acknowledged %d of %d messages", got, total)
	}
	for g, st := range state {
		if st.next != perGroup || st.holder != -1 {
			t.Errorf("group %s ended at %d of %d, holder %d", g, st.next, perGroup, st.holder)
		}
	}
	if released.Load() == 0 || redelivered.Load() == 0 {
		t.Errorf("no redeliveries exercised: released %d, redelivered %d", released.Load(), redelivered.Load())
	}
	wantCounts(t, q, Counts{})
	recvNone(t, q)
	t.Logf("%d consumers: %d acknowledged, %d released, %d redeliveries", consumers, acked.Load(), released.Load(), redelivered.Load())
}
