package engine

import (
	"path/filepath"
	"testing"
	"time"
)

// A message on its way to a queue deleted meanwhile stays where it was:
// a receive or a move task takes it out of its queue, looks its target up
// and adopts it there without holding either lock throughout, and the
// target may be deleted in between. The message is in the source queue
// still, in memory and in the store, and comes back after a restart.
func TestAdoptIntoDeletedQueueKeepsMessages(t *testing.T) {
	for name, how := range map[string]arrival{"dead letter": deadLettered, "redrive": redriven} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db")
			clk := NewManualClock(testStart)
			e := openAt(t, path, clk)
			dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
			src := mustCreate(t, e, "src", AttributeUpdate{VisibilityTimeout: ptr(30)}, nil)
			sendBodies(t, src, "kept")
			recvOne(t, src, ReceiveOptions{}, "kept")
			clk.Advance(30 * time.Second)

			// What a receive does with a message received too often, or a
			// move task with the message it takes: out of src first.
			src.mu.Lock()
			src.advance(clk.Now().UnixNano())
			var cur groupCursor
			m := src.nextReadyLocked(&cur, clk.Now().UnixNano())
			if m == nil {
				src.mu.Unlock()
				t.Fatal("no message to move")
			}
			was := src.removeLocked(m)
			src.mu.Unlock()
			wantCode(t, e.DeleteQueue(dlq), "")
			if n, err := dlq.adopt(src, []message{was}, how); n != 0 || CodeOf(err) != ErrQueueDoesNotExist {
				t.Errorf("a deleted queue adopted %d messages (%v)", n, err)
			}

			wantCounts(t, src, Counts{Visible: 1})
			checkStoreAgrees(t, e)
			e = reopen(t, e, path, clk)
			src = mustQueue(t, e, "src")
			d := recvOne(t, src, ReceiveOptions{}, "kept")
			if d.ReceiveCount != 2 {
				t.Errorf("after a restart the message has been received %d times, want 2", d.ReceiveCount)
			}
		})
	}
}

// A dead-lettered message keeps its receive count but has had no delivery
// in its dead-letter queue, so no receipt handle names it there: not even
// one with the empty token the message carries until its first receive
// there, before or after a restart.
func TestDeadLetteredMessageHasNoHandle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	dlq := mustCreate(t, e, "dlq", AttributeUpdate{}, nil)
	src := mustCreate(t, e, "src", AttributeUpdate{
		VisibilityTimeout: ptr(30),
		RedrivePolicy:     &RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 1},
	}, nil)
	sendBodies(t, src, "poison")
	recvOne(t, src, ReceiveOptions{}, "poison")
	clk.Advance(30 * time.Second)
	recvNone(t, src) // moves it
	for _, restart := range []bool{false, true} {
		if restart {
			e = reopen(t, e, path, clk)
			dlq = mustQueue(t, e, "dlq")
		}
		ms, err := dlq.Messages()
		wantCode(t, err, "")
		if len(ms) != 1 || ms[0].ReceiveCount != 1 {
			t.Fatalf("restart %v: the dead-letter queue holds %+v", restart, ms)
		}
		dlq.mu.Lock()
		m := dlq.msgs.ordered()[0]
		forged := encodeReceiptHandle(dlq.uuid, m.seq, [tokenLen]byte{})
		dlq.mu.Unlock()
		wantCode(t, dlq.Acknowledge([]string{forged})[0], ErrReceiptHandleIsInvalid)
		wantCode(t, changeVis(dlq, forged, 60), ErrReceiptHandleIsInvalid)
		wantCounts(t, dlq, Counts{Visible: 1})
	}
}
