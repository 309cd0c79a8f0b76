package engine

import (
	"encoding/base64"
	"errors"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// diskFull fails store writes while it is on, as a full disk would.
type diskFull struct{ on atomic.Bool }

func (d *diskFull) check() error {
	if d.on.Load() {
		return errors.New("write: no space left on device")
	}
	return nil
}

// openFaulty opens a file store whose writes fail while disk is on.
func openFaulty(t *testing.T, path string, clk *ManualClock, disk *diskFull) *Engine {
	t.Helper()
	e, err := Open(Options{Path: path, Clock: clk, Fsync: FsyncNever, FailWrites: disk.check})
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// failing runs fn with the disk full.
func failing(disk *diskFull, fn func()) {
	disk.on.Store(true)
	defer disk.on.Store(false)
	fn()
}

// Every change a failed store write refuses is answered ErrInternal and
// leaves memory as the store has it: the queue looks the same before and
// after a restart, and nothing acknowledged comes back.
func TestFailedWriteChangesNothing(t *testing.T) {
	type fixture struct {
		t    *testing.T
		e    *Engine
		q    *Queue
		clk  *ManualClock
		disk *diskFull
		path string
	}
	setup := func(t *testing.T) *fixture {
		clk := NewManualClock(testStart)
		path := filepath.Join(t.TempDir(), "db")
		disk := &diskFull{}
		e := openFaulty(t, path, clk, disk)
		q := mustCreate(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(30)}, nil)
		return &fixture{t, e, q, clk, disk, path}
	}
	// restart reopens the store as it is on disk, with space again.
	restart := func(f *fixture) {
		f.t.Helper()
		f.e = reopen(f.t, f.e, f.path, f.clk)
		f.q = mustQueue(f.t, f.e, "q")
	}

	t.Run("DeleteMessage", func(t *testing.T) {
		f := setup(t)
		sendBodies(t, f.q, "m")
		d := recvOne(t, f.q, ReceiveOptions{}, "m")
		failing(f.disk, func() { wantCode(t, ack(f.q, d.ReceiptHandle), ErrInternal) })
		wantCounts(t, f.q, Counts{InFlight: 1})
		restart(f)
		wantCounts(t, f.q, Counts{InFlight: 1})
		wantCode(t, ack(f.q, d.ReceiptHandle), "") // the handle still holds
		wantCounts(t, f.q, Counts{})
	})

	t.Run("DeleteMessageBatch", func(t *testing.T) {
		f := setup(t)
		sendBodies(t, f.q, "0", "1", "2", "3", "4", "5", "6", "7", "8", "9")
		ds := recvNow(t, f.q, ReceiveOptions{MaxMessages: 10})
		handles := make([]string, len(ds))
		for i, d := range ds {
			handles[i] = d.ReceiptHandle
		}
		failing(f.disk, func() {
			for i, err := range f.q.Acknowledge(handles) {
				if CodeOf(err) != ErrInternal {
					t.Errorf("entry %d: %v, want %s", i, err, ErrInternal)
				}
			}
		})
		restart(f)
		wantCounts(t, f.q, Counts{InFlight: 10})
		for i, err := range f.q.Acknowledge(handles) {
			if err != nil {
				t.Errorf("entry %d after restart: %v", i, err)
			}
		}
	})

	t.Run("ChangeMessageVisibility", func(t *testing.T) {
		f := setup(t)
		sendBodies(t, f.q, "m")
		d := recvOne(t, f.q, ReceiveOptions{}, "m")
		failing(f.disk, func() { wantCode(t, changeVis(f.q, d.ReceiptHandle, 0), ErrInternal) })
		wantCounts(t, f.q, Counts{InFlight: 1}) // the lease holds
		f.clk.Advance(20 * time.Second)
		failing(f.disk, func() { wantCode(t, changeVis(f.q, d.ReceiptHandle, 600), ErrInternal) })
		f.clk.Advance(11 * time.Second) // the lease ends when it always would
		wantCounts(t, f.q, Counts{Visible: 1})
		restart(f)
		wantCounts(t, f.q, Counts{Visible: 1})
	})

	t.Run("ReceiveMessage", func(t *testing.T) {
		f := setup(t)
		sendBodies(t, f.q, "a", "b")
		failing(f.disk, func() {
			if _, err := f.q.Receive(t.Context(), ReceiveOptions{MaxMessages: 10, WaitSeconds: ptr(0)}); CodeOf(err) != ErrInternal {
				t.Fatalf("Receive: %v, want %s", err, ErrInternal)
			}
		})
		wantCounts(t, f.q, Counts{Visible: 2})
		ds := recvNow(t, f.q, ReceiveOptions{MaxMessages: 10})
		if got := bodies(ds); len(got) != 2 || got[0] != "a" || got[1] != "b" {
			t.Fatalf("Receive after the failure got %q, want [a b] in order", got)
		}
		for _, d := range ds {
			if d.ReceiveCount != 1 {
				t.Errorf("%s: ReceiveCount %d, want 1: the failed receive counted", d.Body, d.ReceiveCount)
			}
		}
	})

	t.Run("SendMessage", func(t *testing.T) {
		f := setup(t)
		failing(f.disk, func() {
			for _, r := range f.q.Send([]NewMessage{{Body: "a"}, {Body: "b"}}) {
				wantCode(t, r.Err, ErrInternal)
			}
		})
		wantCounts(t, f.q, Counts{})
		restart(f)
		wantCounts(t, f.q, Counts{})
	})

	t.Run("FIFO SendMessage keeps no deduplication id", func(t *testing.T) {
		f := setup(t)
		q := ffQueue(t, f.e, "f", AttributeUpdate{})
		failing(f.disk, func() { wantCode(t, ffSendOne(q, ffMsg("g", "x")).Err, ErrInternal) })
		r := ffSendOne(q, ffMsg("g", "x"))
		wantCode(t, r.Err, "")
		wantCounts(t, q, Counts{Visible: 1}) // stored, not taken for a repeat
	})

	t.Run("PurgeQueue", func(t *testing.T) {
		f := setup(t)
		sendBodies(t, f.q, "a", "b")
		failing(f.disk, func() { wantCode(t, f.q.Purge(), ErrInternal) })
		wantCounts(t, f.q, Counts{Visible: 2})
		restart(f)
		wantCounts(t, f.q, Counts{Visible: 2})
		wantCode(t, f.q.Purge(), "") // a failed purge starts no cooldown
	})

	t.Run("DeleteQueue", func(t *testing.T) {
		f := setup(t)
		sendBodies(t, f.q, "a")
		failing(f.disk, func() { wantCode(t, f.e.DeleteQueue(f.q), ErrInternal) })
		if _, err := f.e.Queue("q"); err != nil {
			t.Fatalf("queue gone after a failed delete: %v", err)
		}
		wantCounts(t, f.q, Counts{Visible: 1})
		restart(f)
		wantCounts(t, f.q, Counts{Visible: 1})
	})

	t.Run("SetQueueAttributes", func(t *testing.T) {
		f := setup(t)
		failing(f.disk, func() {
			wantCode(t, f.q.SetAttributes(AttributeUpdate{VisibilityTimeout: ptr(99)}), ErrInternal)
		})
		if got := f.q.Attributes().VisibilityTimeout; got != 30 {
			t.Errorf("VisibilityTimeout %d after a failed change, want 30", got)
		}
	})

	t.Run("dead-lettering", func(t *testing.T) {
		f := setup(t)
		dlq := mustCreate(t, f.e, "dlq", AttributeUpdate{}, nil)
		wantCode(t, f.q.SetAttributes(AttributeUpdate{RedrivePolicy: &RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 1}}), "")
		sendBodies(t, f.q, "m")
		recvOne(t, f.q, ReceiveOptions{}, "m")
		f.clk.Advance(31 * time.Second)
		failing(f.disk, func() { recvNow(t, f.q, ReceiveOptions{}) })
		wantCounts(t, f.q, Counts{Visible: 1}) // not lost between the two queues
		wantCounts(t, dlq, Counts{})
		recvNone(t, f.q) // now it moves
		wantCounts(t, dlq, Counts{Visible: 1})
		restart(f)
		wantCounts(t, f.q, Counts{})
		wantCounts(t, mustQueue(t, f.e, "dlq"), Counts{Visible: 1})
	})
}

func seqOf(t *testing.T, r SendResult) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(r.SequenceNumber, 10, 64)
	if err != nil || r.Err != nil {
		t.Fatalf("send: %v, SequenceNumber %q", r.Err, r.SequenceNumber)
	}
	return n
}

// A FIFO queue's sequence numbers only increase, across restarts too, even
// once every message that carried the highest one is gone.
func TestSequenceNumbersSurviveRestarts(t *testing.T) {
	empty := map[string]func(t *testing.T, e *Engine, q *Queue){
		"deleted": func(t *testing.T, e *Engine, q *Queue) {
			for _, d := range recvNow(t, q, ReceiveOptions{MaxMessages: 10}) {
				wantCode(t, ack(q, d.ReceiptHandle), "")
			}
		},
		"purged": func(t *testing.T, e *Engine, q *Queue) { wantCode(t, q.Purge(), "") },
		"dead-lettered": func(t *testing.T, e *Engine, q *Queue) {
			dlq := ffQueue(t, e, "dlq", AttributeUpdate{})
			wantCode(t, q.SetAttributes(AttributeUpdate{RedrivePolicy: &RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 1}}), "")
			for range 3 {
				recvNow(t, q, ReceiveOptions{MaxMessages: 10, VisibilityTimeout: ptr(0)})
			}
			wantCounts(t, q, Counts{})
		},
	}
	for name, drain := range empty {
		t.Run(name, func(t *testing.T) {
			clk := NewManualClock(testStart)
			path := filepath.Join(t.TempDir(), "db")
			e := openAt(t, path, clk)
			q := ffQueue(t, e, "q", AttributeUpdate{})
			var last uint64
			for _, body := range []string{"a", "b", "c"} {
				last = seqOf(t, ffSendOne(q, ffMsg("g", body)))
			}
			drain(t, e, q)
			e = reopen(t, e, path, clk)
			q = mustQueue(t, e, "q.fifo")
			if next := seqOf(t, ffSendOne(q, ffMsg("g", "d"))); next <= last {
				t.Fatalf("SequenceNumber %d after a restart, want more than %d", next, last)
			}
		})
	}
}

// storedSeq reads q's stored sequence counter.
func storedSeq(t *testing.T, q *Queue) uint64 {
	t.Helper()
	var n uint64
	err := q.e.store.view(func(tx recordTx) error {
		v, ok, err := tx.get(seqKey(q.keyspace))
		if !ok || err != nil {
			return err
		}
		n, err = strconv.ParseUint(v, 10, 64)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Deleting the newest message writes the counter with room reserved past
// the count, so the next deletes write nothing; a restart numbers on past
// the reserve, and once the messages sent outrun it, a delete reserves
// again.
func TestSequenceCounterReserves(t *testing.T) {
	clk := NewManualClock(testStart)
	path := filepath.Join(t.TempDir(), "db")
	e := openAt(t, path, clk)
	q := ffQueue(t, e, "q", AttributeUpdate{})
	sent := 0
	cycle := func() uint64 {
		sent++
		last := seqOf(t, ffSendOne(q, ffMsg("g", "m"+strconv.Itoa(sent))))
		for _, d := range recvNow(t, q, ReceiveOptions{MaxMessages: 10}) {
			wantCode(t, ack(q, d.ReceiptHandle), "")
		}
		return last
	}
	first := cycle()
	reserved := storedSeq(t, q)
	if reserved != first+seqReserve {
		t.Fatalf("stored counter %d after deleting message %d, want %d", reserved, first, first+seqReserve)
	}
	for range 5 {
		cycle()
	}
	if got := storedSeq(t, q); got != reserved {
		t.Fatalf("stored counter %d after deletes within the reserve, want %d still", got, reserved)
	}

	e = reopen(t, e, path, clk)
	q = mustQueue(t, e, "q.fifo")
	next := cycle()
	if next != reserved+1 {
		t.Fatalf("SequenceNumber %d after a restart, want %d, past the reserve", next, reserved+1)
	}
	q.seq.Store(next + seqReserve) // as if the sends had outrun the reserve
	last := cycle()
	if got := storedSeq(t, q); got != last+seqReserve {
		t.Fatalf("stored counter %d after deleting message %d past the reserve, want %d", got, last, last+seqReserve)
	}
}

// tamper changes one byte of a handle's delivery token.
func tamper(t *testing.T, h string) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-tokenLen] ^= 1
	return base64.RawURLEncoding.EncodeToString(b)
}

// A handle minisqs never issued is ReceiptHandleIsInvalid and changes
// nothing; one it issued whose delivery ended is stale, and one issued
// before a restart still holds after it.
func TestNeverIssuedHandles(t *testing.T) {
	clk := NewManualClock(testStart)
	path := filepath.Join(t.TempDir(), "db")
	e := openAt(t, path, clk)
	q := mustCreate(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(30)}, nil)
	sendBodies(t, q, "m")
	first := recvOne(t, q, ReceiveOptions{}, "m")
	forged := tamper(t, first.ReceiptHandle)
	wantCode(t, ack(q, forged), ErrReceiptHandleIsInvalid)
	wantCode(t, changeVis(q, forged, 0), ErrReceiptHandleIsInvalid)
	if _, err := e.QueueOfReceiptHandle(forged); CodeOf(err) != ErrReceiptHandleIsInvalid {
		t.Errorf("QueueOfReceiptHandle(forged): %v, want %s", err, ErrReceiptHandleIsInvalid)
	}
	wantCounts(t, q, Counts{InFlight: 1})

	clk.Advance(31 * time.Second)
	second := recvOne(t, q, ReceiveOptions{}, "m")
	wantCode(t, ack(q, first.ReceiptHandle), ErrReceiptHandleStale)

	e = reopen(t, e, path, clk)
	q = mustQueue(t, e, "q")
	wantCode(t, ack(q, tamper(t, second.ReceiptHandle)), ErrReceiptHandleIsInvalid)
	wantCode(t, ack(q, second.ReceiptHandle), "")
	wantCounts(t, q, Counts{})
}
