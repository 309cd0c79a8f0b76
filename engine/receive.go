package engine

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"
)

// ReceiveOptions shape one receive. Nil fields take the queue's setting.
type ReceiveOptions struct {
	// MaxMessages is 1 to 10; 0 means 1.
	MaxMessages       int
	VisibilityTimeout *int
	WaitSeconds       *int
	// AttemptID, on a FIFO queue, makes a retried receive within five
	// minutes return the same messages and receipt handles.
	AttemptID string
}

func (o *ReceiveOptions) validate(l Limits) error {
	if o.MaxMessages == 0 {
		o.MaxMessages = 1
	}
	if o.MaxMessages < 1 || o.MaxMessages > l.MaxBatchEntries {
		return ErrParameterRange("MaxNumberOfMessages", o.MaxMessages, 1, l.MaxBatchEntries, true)
	}
	if v := o.VisibilityTimeout; v != nil && (*v < 0 || *v > MaxVisibilityTimeout) {
		return ErrParameterRange("VisibilityTimeout", *v, 0, MaxVisibilityTimeout, true)
	}
	if w := o.WaitSeconds; w != nil && (*w < 0 || *w > l.MaxReceiveWaitSeconds) {
		return ErrParameterRange("WaitTimeSeconds", *w, 0, l.MaxReceiveWaitSeconds, true)
	}
	if o.AttemptID != "" {
		return checkFIFOID("ReceiveRequestAttemptId", o.AttemptID)
	}
	return nil
}

// Receive leases up to MaxMessages visible messages. With a wait it is a
// long poll: it returns as soon as messages are available, or empty when the
// wait ends, the context is done or the engine closes. A message already
// received MaxReceiveCount times goes to the dead-letter queue instead of
// being returned.
func (q *Queue) Receive(ctx context.Context, opts ReceiveOptions) ([]Delivery, error) {
	if err := opts.validate(q.e.opts.Limits); err != nil {
		return nil, err
	}
	wait := q.Attributes().ReceiveMessageWaitTimeSeconds
	if opts.WaitSeconds != nil {
		wait = *opts.WaitSeconds
	}
	var pollEnd <-chan time.Time // the poll's own wait, armed at its first wait
	woken := false
	for {
		got, w, err := q.receiveOnce(opts, wait > 0)
		if woken {
			q.retried()
		}
		if err != nil || len(got) > 0 || w == nil {
			return got, err
		}
		if pollEnd == nil {
			var stopPoll func()
			pollEnd, stopPoll = q.e.pollTimer(time.Duration(wait) * time.Second)
			defer stopPoll()
		}
		// A delayed or leased message becoming visible wakes it too, through
		// the queue's timer.
		done := false
		select {
		case <-w.wake:
		case <-pollEnd:
			done = true
		case <-ctx.Done():
			done = true
		case <-q.e.closing:
			done = true
		}
		woken = q.stopWaiting(w, !done)
		if done {
			return nil, ctx.Err()
		}
	}
}

// receiveOnce takes what is available now. When it takes nothing and wait is
// set, it registers a waiter.
func (q *Queue) receiveOnce(opts ReceiveOptions, wait bool) (out []Delivery, w *waiter, err error) {
	a := q.Attributes()
	dlq := q.e.deadLetterTarget(a)
	vis := a.VisibilityTimeout
	if opts.VisibilityTimeout != nil {
		vis = *opts.VisibilityTimeout
	}
	limit := MaxInFlightStandard
	if a.FifoQueue {
		limit = MaxInFlightFIFO
	}

	q.mu.Lock()
	if q.deleted {
		q.mu.Unlock()
		return nil, nil, errNoQueue()
	}
	now := q.e.clock.Now().UnixNano()
	q.advance(now)
	if again, was := q.retryAttemptLocked(opts.AttemptID, now, vis); len(again) > 0 {
		out, err = q.loadDeliveries(again)
		if err != nil {
			for i, m := range again {
				if !m.gone {
					q.extendLocked(m, was[i])
				}
			}
		} else {
			q.stats.received += int64(len(out))
		}
		q.mu.Unlock()
		return out, nil, err
	}
	var picked []*message
	var dead []message                        // dead-lettered, as they were
	var undo [maxBatchEntriesAnyProfile]lease // picked[i]'s lease before this receive
	var cur groupCursor
	for len(picked) < opts.MaxMessages {
		m := q.nextReadyLocked(&cur, now)
		if m == nil {
			break
		}
		if dlq != nil && int(m.receiveCount()) >= a.RedrivePolicy.MaxReceiveCount {
			dead = append(dead, q.removeLocked(m))
			continue
		}
		if q.inFlight >= limit {
			if len(picked) == 0 {
				err = ErrInFlightLimit(limit, q.name)
			}
			break
		}
		token, terr := q.e.handles.newToken(q.e.opts.Random, q.uuid, m.seq)
		if terr != nil {
			err = ErrInternalFailure("receipt token: " + terr.Error())
			break
		}
		undo[len(picked)] = leaseOf(m)
		q.unstateLocked(m)
		r := m.received()
		r.token = token
		r.receiveCount++
		if r.firstReceiveAt == 0 {
			r.firstReceiveAt = now
		}
		r.receivedAt = now
		m.visibleAt = now + int64(vis)*1e9
		q.setStateLocked(m, stateInFlight, false)
		if picked == nil {
			picked = make([]*message, 0, opts.MaxMessages)
		}
		picked = append(picked, m)
	}
	if err == nil && len(picked) > 0 {
		out, err = q.loadDeliveries(picked)
		if err == nil {
			q.stats.received += int64(len(out))
			q.recordAttemptLocked(opts.AttemptID, picked, now)
		}
	}
	if err != nil {
		// The store kept none of the leases, or was not asked to: the
		// messages are as they were.
		for i := len(picked) - 1; i >= 0; i-- {
			if !picked[i].gone {
				q.restoreLeaseLocked(picked[i], undo[i])
			}
		}
	}
	if len(out) == 0 && err == nil && wait {
		w = q.waitLocked()
	}
	q.mu.Unlock()
	if len(dead) > 0 {
		// Messages the dead-letter queue could not take stay here, as
		// they were, and the next receive tries again.
		_, _ = dlq.adopt(q, dead, deadLettered)
	}
	return out, w, err
}

// retryAttemptLocked answers a FIFO receive retried with the same attempt
// id: the messages it returned that are still in that delivery, with their
// visibility timeouts started again, and the instants those ended before.
func (q *Queue) retryAttemptLocked(id string, now int64, vis int) (again []*message, was []int64) {
	if !q.fifo || id == "" {
		return nil, nil
	}
	at := q.attempts.lookup(id, now)
	if at == nil {
		return nil, nil
	}
	for i, seq := range at.seqs {
		m := q.msgs.get(seq)
		if m == nil || m.state != stateInFlight || m.receipt().token != at.tokens[i] {
			continue
		}
		was = append(was, m.visibleAt)
		q.extendLocked(m, now+int64(vis)*1e9)
		again = append(again, m)
	}
	return again, was
}

func (q *Queue) recordAttemptLocked(id string, picked []*message, now int64) {
	if !q.fifo || id == "" {
		return
	}
	at := &attempt{expires: now + int64(ReceiveAttemptWindow)}
	for _, m := range picked {
		if m.gone { // unreadable: loadDeliveries dropped it
			continue
		}
		at.seqs = append(at.seqs, m.seq)
		at.tokens = append(at.tokens, m.recv.token)
	}
	q.attempts.add(id, at)
}

// loadDeliveries reads the messages' records and records the new leases in
// one store transaction. The deliveries' attributes share one allocation,
// and so does their text: the receipt handles, then the ids, MD5s and
// senders the records hold raw.
func (q *Queue) loadDeliveries(picked []*message) ([]Delivery, error) {
	out := make([]Delivery, 0, len(picked))
	var missing []*message
	var attrs []MessageAttribute
	var room [maxBatchEntriesAnyProfile * (receiptHandleTextLen + recordTextLen)]byte
	var rawRoom [maxBatchEntriesAnyProfile]rawText
	raws := rawRoom[:0]                             // by out's index
	text := room[:len(picked)*receiptHandleTextLen] // the handles, by out's index
	for i, m := range picked {
		k := len(out)
		r := m.recv // a delivery's message has been received
		out = append(out, Delivery{ReceiveCount: int(r.receiveCount), FirstReceivedAt: time.Unix(0, r.firstReceiveAt)})
		raws = append(raws, rawText{})
		if err := decodeMessageIn(m, q.ids, &out[k].Message, &raws[k], &attrs, len(picked)-i); err != nil {
			q.e.log.Error("unreadable message record", "queue", q.name, "seq", m.seq, "err", err)
			missing = append(missing, m)
			out, raws = out[:k], raws[:k]
			continue
		}
		appendReceiptHandle(text[k*receiptHandleTextLen:k*receiptHandleTextLen], q.uuid, m.seq, r.token) // in place
		var prev *rawText
		if k > 0 {
			prev = &raws[k-1]
		}
		text = raws[k].appendTo(text, prev)
	}
	q.rewrites = q.rewrites[:0]
	err := q.e.store.update(func(tx recordTx) error {
		for _, m := range picked {
			rec := m.record()
			if !slices.Contains(missing, m) {
				var err error
				if rec, err = q.e.store.putStateTx(tx, q.keyspace, m, &q.scratch); err != nil {
					return err
				}
			}
			q.rewrites = append(q.rewrites, rec)
		}
		return nil
	})
	if err == nil {
		for i, m := range picked {
			q.setRecordLocked(m, q.rewrites[i])
		}
	}
	clear(q.rewrites)
	for _, m := range missing {
		q.removeLocked(m)
	}
	if err != nil {
		return nil, err
	}
	whole := string(text)
	for i := range out {
		out[i].ReceiptHandle = whole[i*receiptHandleTextLen : (i+1)*receiptHandleTextLen]
		raws[i].fill(&out[i].Message, whole)
	}
	return out, nil
}

// lease is what a receive changes in a message, kept to undo it.
type lease struct {
	receipt   receipt
	received  bool // whether the message had a receipt
	visibleAt int64
}

func leaseOf(m *message) lease {
	return lease{m.receipt(), m.recv != nil, m.visibleAt}
}

// restoreLeaseLocked puts a message a receive leased back as it was: ready,
// at the front, with its earlier delivery, or with none.
func (q *Queue) restoreLeaseLocked(m *message, l lease) {
	q.unstateLocked(m)
	if l.received {
		*m.recv = l.receipt
	} else {
		m.recv = nil
	}
	m.visibleAt = l.visibleAt
	q.setStateLocked(m, stateReady, true)
}

// deadLetterTarget returns the queue a's RedrivePolicy names, or nil.
func (e *Engine) deadLetterTarget(a QueueAttributes) *Queue {
	if a.RedrivePolicy == nil {
		return nil
	}
	dlq, err := e.QueueByArn(a.RedrivePolicy.DeadLetterTargetArn)
	if err != nil {
		return nil
	}
	return dlq
}

// QueueOfReceiptHandle returns the queue a receipt handle belongs to. A
// well-formed handle of a queue that no longer exists is stale.
func (e *Engine) QueueOfReceiptHandle(h string) (*Queue, error) {
	qid, seq, token, err := decodeReceiptHandle(h)
	if err != nil {
		return nil, err
	}
	if !e.handles.valid(qid, seq, token) {
		return nil, errHandleNeverIssued(h)
	}
	q, err := e.QueueByID(uuid.UUID(qid).String())
	if err != nil {
		return nil, ErrHandleStale("", ReasonQueueGone)
	}
	return q, nil
}
