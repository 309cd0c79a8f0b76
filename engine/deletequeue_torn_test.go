package engine

import "testing"

// A kill while a FIFO queue is deleted, which may leave the queue with any
// of its messages, never lets it hand out a sequence number again.
func TestTornDeleteQueueKeepsSequence(t *testing.T) {
	clk := NewManualClock(testStart)
	var top uint64
	tornRun(t, clk, func(e *Engine) {
		q := ffQueue(t, e, "q", AttributeUpdate{})
		for _, body := range []string{"m1", "m2"} {
			top = seqOf(t, ffSendOne(q, NewMessage{Body: body, GroupID: body, DeduplicationID: body}))
		}
	}, func(e *Engine) {
		wantCode(t, e.DeleteQueue(mustQueue(t, e, "q.fifo")), "")
	}, func(t *testing.T, e *Engine, what string) {
		t.Helper()
		q, err := e.LookupQueue("q.fifo")
		if err != nil {
			return // deleted
		}
		if n := seqOf(t, ffSendOne(q, ffMsg("g", "after"))); n <= top {
			t.Errorf("%s: SequenceNumber %d after a restart, but %d was handed out before", what, n, top)
		}
	})
}
