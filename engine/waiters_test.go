package engine

import (
	"context"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// pollers are long polls on one queue, each in its own goroutine, which
// report to one channel.
type pollers struct {
	results chan recvResult
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// startPollers starts n long polls of 20 s on q and returns once they and
// the receives already there all wait. They end with the test.
func startPollers(t *testing.T, clk *ManualClock, q *Queue, n int, opts ReceiveOptions) *pollers {
	t.Helper()
	before, _ := waitState(q)
	ctx, cancel := context.WithCancel(context.Background())
	ps := &pollers{results: make(chan recvResult, n), cancel: cancel}
	t.Cleanup(func() {
		cancel()
		ps.wg.Wait()
	})
	opts.WaitSeconds = ptr(20)
	for range n {
		ps.wg.Add(1)
		go func() {
			defer ps.wg.Done()
			ds, err := q.Receive(ctx, opts)
			ps.results <- recvResult{ds, err}
		}()
	}
	awaitParked(t, clk, q, before+n)
	return ps
}

// take returns the next n results, each of one message, by body.
func (ps *pollers) take(t *testing.T, n int) []string {
	t.Helper()
	var got []string
	for range n {
		select {
		case r := <-ps.results:
			if r.err != nil || len(r.ds) != 1 {
				t.Fatalf("a poll returned %q, %v; want one message", bodies(r.ds), r.err)
			}
			got = append(got, r.ds[0].Body)
		case <-time.After(safetyTimeout):
			t.Fatalf("%d of %d polls returned within %v", len(got), n, safetyTimeout)
		}
	}
	slices.Sort(got)
	return got
}

// waitState is how many receives wait on q and how many were woken and
// have not tried again.
func waitState(q *Queue) (waiting, woken int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.waiters.n, q.woken
}

func TestSendWakesOneWaiterAMessage(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	const n = 1000
	ps := startPollers(t, clk, q, n, ReceiveOptions{})

	sendBodies(t, q, "one")
	if waiting, _ := waitState(q); waiting != n-1 {
		t.Fatalf("after one send, %d receives wait, want %d: one woken", waiting, n-1)
	}
	if got := ps.take(t, 1); !slices.Equal(got, []string{"one"}) {
		t.Fatalf("got %q", got)
	}
	e.Settle()
	if waiting, woken := waitState(q); waiting != n-1 || woken != 0 {
		t.Fatalf("after the receive: %d wait and %d are woken, want %d and 0", waiting, woken, n-1)
	}

	batch := make([]string, 10)
	for i := range batch {
		batch[i] = "b" + strconv.Itoa(i)
	}
	sendBodies(t, q, batch...)
	if waiting, _ := waitState(q); waiting != n-11 {
		t.Fatalf("after a batch of 10, %d receives wait, want %d", waiting, n-11)
	}
	if got := ps.take(t, 10); !slices.Equal(got, batch) {
		t.Fatalf("the batch's receives got %q, want %q", got, batch)
	}
	e.Settle()
	if waiting, woken := waitState(q); waiting != n-11 || woken != 0 {
		t.Fatalf("after the batch: %d wait and %d are woken, want %d and 0", waiting, woken, n-11)
	}
	if len(ps.results) != 0 {
		t.Fatalf("%d more polls returned", len(ps.results))
	}
}

func TestLeaseEndWakesAWaiter(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	// On a ManualClock the polls' 20 s are the clock's: the lease ends first.
	q := mustCreate(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(10)}, nil)
	sendBodies(t, q, "m")
	recvOne(t, q, ReceiveOptions{}, "m")
	ps := startPollers(t, clk, q, 5, ReceiveOptions{})

	// Advance settles: the message back from flight has been taken by the
	// time it returns.
	if err := e.Advance(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	wantCounts(t, q, Counts{InFlight: 1})
	// Only the poll woken for it left its wait.
	if waiting, woken := waitState(q); waiting != 4 || woken != 0 {
		t.Fatalf("after the lease's end, %d receives wait and %d are woken, want 4 and 0", waiting, woken)
	}
	if got := ps.take(t, 1); !slices.Equal(got, []string{"m"}) {
		t.Fatalf("got %q", got)
	}
}

func TestDelayEndsWakeOneWaiterEach(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
	const n = 5
	ps := startPollers(t, clk, q, n, ReceiveOptions{})

	// Delayed messages wake no poll; the queue sets one timer for the
	// soonest, beside the polls' own and the sweeper's.
	send(t, q, NewMessage{Body: "in 10", DelaySeconds: ptr(10)})
	send(t, q, NewMessage{Body: "in 5", DelaySeconds: ptr(5)})
	if waiting, woken := waitState(q); waiting != n || woken != 0 {
		t.Fatalf("after delayed sends, %d receives wait and %d are woken, want %d and 0", waiting, woken, n)
	}
	awaitTimers(t, clk, n+2)

	// The polls' 20 s are the clock's: both delays end before them.
	for _, body := range []string{"in 5", "in 10"} {
		if err := e.Advance(5 * time.Second); err != nil {
			t.Fatal(err)
		}
		if got := ps.take(t, 1); !slices.Equal(got, []string{body}) {
			t.Fatalf("got %q, want %q", got, body)
		}
	}
	if waiting, woken := waitState(q); waiting != n-2 || woken != 0 {
		t.Fatalf("after both delays, %d receives wait and %d are woken, want %d and 0", waiting, woken, n-2)
	}
}

// awaitTimers returns once at least n timers wait on clk.
func awaitTimers(t *testing.T, clk *ManualClock, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), safetyTimeout)
	defer cancel()
	if err := clk.AwaitWaiters(ctx, n); err != nil {
		t.Fatalf("%d clock timers, want %d", clk.Waiters(), n)
	}
}

func TestFIFODeleteWakesWaiterForTheGroupsNext(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	q := ffQueue(t, e, "q", AttributeUpdate{})
	send(t, q, ffMsg("g", "a1"), ffMsg("g", "a2"))
	first := recvOne(t, q, ReceiveOptions{}, "a1")
	// a2 waits behind a1 in flight; deleting a1 makes the group deliver.
	ps := startPollers(t, clk, q, 2, ReceiveOptions{})
	if err := ack(q, first.ReceiptHandle); err != nil {
		t.Fatal(err)
	}
	if got := ps.take(t, 1); !slices.Equal(got, []string{"a2"}) {
		t.Fatalf("got %q", got)
	}
	awaitParked(t, clk, q, 1)
}

// A receive woken for a message as it gives up hands the wake-up on to the
// next: the message is not left while another receive waits.
func TestWokenReceiveGivingUpHandsOn(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	for i := range 50 {
		q := mustCreate(t, e, "q"+strconv.Itoa(i), AttributeUpdate{}, nil)
		ctxA, cancelA := context.WithCancel(context.Background())
		a := startReceive(ctxA, q, ReceiveOptions{WaitSeconds: ptr(20)})
		awaitParked(t, clk, q, 1)
		b := startPollers(t, clk, q, 1, ReceiveOptions{})

		// A sees its context end while the send's wake-up may come first.
		q.mu.Lock()
		cancelA()
		sent := make(chan error)
		go func() { sent <- q.Send([]NewMessage{{Body: "m"}})[0].Err }()
		runtime.Gosched()
		q.mu.Unlock()
		if err := <-sent; err != nil {
			t.Fatal(err)
		}

		r := awaitResult(t, a)
		if len(r.ds) == 0 {
			if got := b.take(t, 1); !slices.Equal(got, []string{"m"}) {
				t.Fatalf("round %d: the next receive got %q", i, got)
			}
		} else if bodies(r.ds)[0] != "m" {
			t.Fatalf("round %d: the giving up receive got %q", i, bodies(r.ds))
		}
		e.Settle()
		wantCounts(t, q, Counts{InFlight: 1})
		b.cancel()
	}
}
