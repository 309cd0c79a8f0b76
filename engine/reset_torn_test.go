package engine

import (
	"testing"
	"time"
)

// A kill during a reset, whose one transaction empties the store but for
// the records a reset keeps, leaves those records as they were, whichever
// of its commands the store keeps: the clock's offset, the receipt-handle
// key, the last queue number and the format record.
func TestTornResetKeepsKeptRecords(t *testing.T) {
	kept := map[string]string{}
	tornRun(t, NewManualClock(testStart), func(e *Engine) {
		if err := e.saveOffset(5 * time.Hour); err != nil {
			t.Fatal(err)
		}
		sendBodies(t, mustCreate(t, e, "q", AttributeUpdate{}, nil), "m")
		err := e.store.view(func(tx recordTx) error {
			for _, k := range keptKeys {
				v, ok, err := tx.get(k)
				if !ok || err != nil {
					t.Fatalf("no record %s before the reset: %v", k, err)
				}
				kept[k] = v
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}, func(e *Engine) {
		wantCode(t, e.Reset(), "")
	}, func(t *testing.T, e *Engine, what string) {
		t.Helper()
		err := e.store.view(func(tx recordTx) error {
			for k, want := range kept {
				if v, ok, err := tx.get(k); err != nil || v != want {
					t.Errorf("%s: record %s is %q (%v), want %q", what, k, v, ok, want)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// A kill while a state loads never leaves messages of its queues for a
// queue created later, which a restart would load into it: however much of
// the load the store keeps, a new queue's number is one no stored message
// has.
func TestTornLoadLeavesNoMessagesToNewQueues(t *testing.T) {
	clk := NewManualClock(testStart)
	state := &State{Queues: []QueueState{{Name: "w", Attributes: DefaultAttributes(false), Messages: []MessageState{
		{Message: Message{Body: "one"}}, {Message: Message{Body: "two"}},
	}}}}
	tornRun(t, clk, func(e *Engine) {
		sendBodies(t, mustCreate(t, e, "q", AttributeUpdate{}, nil), "m")
	}, func(e *Engine) {
		wantCode(t, e.Load(state), "")
	}, func(t *testing.T, e *Engine, what string) {
		t.Helper()
		q, err := e.CreateQueue("fresh", AttributeUpdate{}, nil)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		// A restart would load them.
		err = e.store.view(func(tx recordTx) error {
			keys, err := keysWithPrefix(tx, recordPrefix(messagePrefix, q.keyspace))
			if len(keys) > 0 {
				t.Errorf("%s: the new queue's keyspace holds %q", what, keys)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// A kill during a reset, a queue's deletion or a state's load, which may
// leave a FIFO queue with any of its messages, never lets the queue there
// after a restart hand out a sequence number given out before: the state
// loaded is the queue's own, so the loaded queue says it gave them out too.
func TestTornChangesKeepSequence(t *testing.T) {
	for name, change := range map[string]func(e *Engine, state *State) error{
		"reset":        func(e *Engine, _ *State) error { return e.Reset() },
		"delete queue": func(e *Engine, _ *State) error { return e.DeleteQueue(mustQueue(t, e, "q.fifo")) },
		"load":         func(e *Engine, state *State) error { return e.Load(state) },
	} {
		t.Run(name, func(t *testing.T) {
			clk := NewManualClock(testStart)
			var top uint64
			var state *State
			tornRun(t, clk, func(e *Engine) {
				q := ffQueue(t, e, "q", AttributeUpdate{})
				for _, body := range []string{"m1", "m2"} {
					top = seqOf(t, ffSendOne(q, NewMessage{Body: body, GroupID: body, DeduplicationID: body}))
				}
				state = stateOf(t, e)
			}, func(e *Engine) {
				wantCode(t, change(e, state), "")
			}, func(t *testing.T, e *Engine, what string) {
				t.Helper()
				q, err := e.LookupQueue("q.fifo")
				if err != nil {
					return // no queue there: the change went far enough
				}
				if n := seqOf(t, ffSendOne(q, ffMsg("g", "after"))); n <= top {
					t.Errorf("%s: SequenceNumber %d after a restart, but %d was handed out before", what, n, top)
				}
			})
		})
	}
}
