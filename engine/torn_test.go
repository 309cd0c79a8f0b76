package engine

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Tests of what a kill in the middle of a transaction's one write leaves:
// any of its commands, as tornRun and checkTorn replay them. A torn
// transaction was never acknowledged, but what was acknowledged before it
// must all be there.

// A kill during the first open of a store from before namespaces and queue
// numbers, which moves the queue's record and its messages' to new keys,
// loses neither: the next open finds the queue, in the default namespace,
// with both messages, and finishes the move, leaving no old key behind.
func TestTornMigration(t *testing.T) {
	clk := NewManualClock(testStart)
	path := filepath.Join(t.TempDir(), "db")
	writeOldStore(t, path, "a")
	recording := true
	hook, starts := txStarts(path, &recording)
	e, err := Open(Options{Path: path, Clock: clk, Fsync: FsyncNever, FailWrites: hook})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	outcomes := checkTorn(t, clk, after, *starts, func(t *testing.T, e *Engine, what string) {
		t.Helper()
		q, err := e.LookupQueueIn(e.DefaultNamespace(), "a")
		if err != nil {
			t.Errorf("%s: queue a: %v", what, err)
			return
		}
		if got := storedBodies(t, q); !slices.Equal(got, []string{"a-1", "a-2"}) {
			t.Errorf("%s: queue a holds %q", what, got)
		}
		if c := q.Counts(); c != (Counts{Visible: 1, Delayed: 1}) {
			t.Errorf("%s: counts %+v", what, c)
		}
		checkStoreAgrees(t, e)
		err = e.store.view(func(tx recordTx) error {
			old, err := keysWithPrefix(tx, queuePrefix+"a")
			if len(old) > 0 {
				t.Errorf("%s: old queue record left: %q", what, old)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	if outcomes < 16 {
		t.Fatalf("the first open wrote %d outcomes", outcomes)
	}
}

// A kill while messages leave a FIFO queue, which may store its sequence
// counter, never lets a restart hand out a sequence number again, whichever
// of the deletes the store keeps: acknowledged, deleted by id, purged,
// expired or dead-lettered.
func TestTornDeleteKeepsSequence(t *testing.T) {
	for name, change := range map[string]func(t *testing.T, clk *ManualClock, q *Queue){
		"acknowledge": func(t *testing.T, clk *ManualClock, q *Queue) {
			var handles []string
			for _, d := range recvNow(t, q, ReceiveOptions{MaxMessages: 10}) {
				handles = append(handles, d.ReceiptHandle)
			}
			for _, err := range q.Acknowledge(handles) {
				wantCode(t, err, "")
			}
		},
		"delete by id": func(t *testing.T, clk *ManualClock, q *Queue) {
			ms, err := q.Messages()
			wantCode(t, err, "")
			wantCode(t, q.DeleteMessage(ms[len(ms)-1].ID), "")
		},
		"purge": func(t *testing.T, clk *ManualClock, q *Queue) { wantCode(t, q.Purge(), "") },
		"expiry": func(t *testing.T, clk *ManualClock, q *Queue) {
			clk.Advance(61 * time.Second)
			recvNone(t, q)
		},
		"dead letter": func(t *testing.T, clk *ManualClock, q *Queue) {
			recvNow(t, q, ReceiveOptions{MaxMessages: 10})
			clk.Advance(31 * time.Second)
			recvNone(t, q) // moves both
		},
	} {
		t.Run(name, func(t *testing.T) {
			clk := NewManualClock(testStart)
			var top uint64
			setup := func(e *Engine) {
				dlq := ffQueue(t, e, "dlq", AttributeUpdate{})
				q := ffQueue(t, e, "q", AttributeUpdate{
					VisibilityTimeout: ptr(30), MessageRetentionPeriod: ptr(60),
					RedrivePolicy: &RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 1},
				})
				for _, body := range []string{"m1", "m2"} {
					top = seqOf(t, ffSendOne(q, NewMessage{Body: body, GroupID: body, DeduplicationID: body}))
				}
			}
			tornRun(t, clk, setup, func(e *Engine) { change(t, clk, mustQueue(t, e, "q.fifo")) }, func(t *testing.T, e *Engine, what string) {
				t.Helper()
				if n := seqOf(t, ffSendOne(mustQueue(t, e, "q.fifo"), ffMsg("g", "after"))); n <= top {
					t.Errorf("%s: SequenceNumber %d after a restart, but %d was handed out before", what, n, top)
				}
			})
		})
	}
}
