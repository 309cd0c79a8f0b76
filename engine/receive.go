package engine

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"io"
	"time"

	"github.com/google/uuid"
	"github.com/tidwall/buntdb"
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

func (o *ReceiveOptions) validate() error {
	if o.MaxMessages == 0 {
		o.MaxMessages = 1
	}
	if o.MaxMessages < 1 || o.MaxMessages > MaxMessagesPerReceive {
		return Errorf(ErrInvalidParameterValue, "Value %d for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.", o.MaxMessages)
	}
	if v := o.VisibilityTimeout; v != nil && (*v < 0 || *v > MaxVisibilityTimeout) {
		return Errorf(ErrInvalidParameterValue, "Value %d for parameter VisibilityTimeout is invalid. Reason: Must be >= 0 and <= %d, if provided.", *v, MaxVisibilityTimeout)
	}
	if w := o.WaitSeconds; w != nil && (*w < 0 || *w > MaxReceiveWaitSeconds) {
		return Errorf(ErrInvalidParameterValue, "Value %d for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= %d, if provided.", *w, MaxReceiveWaitSeconds)
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
	if err := opts.validate(); err != nil {
		return nil, err
	}
	wait := q.Attributes().ReceiveMessageWaitTimeSeconds
	if opts.WaitSeconds != nil {
		wait = *opts.WaitSeconds
	}
	var pollEnd <-chan time.Time // the poll's own wait, armed at its first wait
	woken := false
	for {
		got, wake, nextDue, err := q.receiveOnce(opts, wait > 0)
		if woken {
			q.retried()
		}
		if err != nil || len(got) > 0 || wake == nil {
			return got, err
		}
		if pollEnd == nil {
			var stopPoll func()
			pollEnd, stopPoll = q.e.pollTimer(time.Duration(wait) * time.Second)
			defer stopPoll()
		}
		// A delayed or leased message becoming visible wakes the poll too.
		var due <-chan time.Time
		stopDue := func() {}
		if nextDue != 0 {
			due, stopDue = q.e.clock.After(time.Duration(nextDue - q.e.clock.Now().UnixNano()))
		}
		done := false
		select {
		case <-wake:
		case <-due:
		case <-pollEnd:
			done = true
		case <-ctx.Done():
			done = true
		case <-q.e.closing:
			done = true
		}
		stopDue()
		woken = q.stopWaiting(wake, !done)
		if done {
			return nil, ctx.Err()
		}
	}
}

// receiveOnce takes what is available now. When it takes nothing and wait is
// set, it registers a waiter and returns the channel that signals a change,
// and the instant the next delayed or leased message becomes visible.
func (q *Queue) receiveOnce(opts ReceiveOptions, wait bool) (out []Delivery, wake chan struct{}, nextDue int64, err error) {
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
		return nil, nil, 0, errNoQueue()
	}
	now := q.e.clock.Now().UnixNano()
	q.advance(now)
	if again := q.retryAttemptLocked(opts.AttemptID, now, vis); len(again) > 0 {
		q.stats.received += int64(len(again))
		out, err = q.loadDeliveries(again)
		q.mu.Unlock()
		return out, nil, 0, err
	}
	var picked, dead []*message
	var cur *group
	for len(picked) < opts.MaxMessages {
		m := q.nextReadyLocked(&cur)
		if m == nil {
			break
		}
		if dlq != nil && m.receiveCount >= a.RedrivePolicy.MaxReceiveCount {
			q.removeLocked(m)
			dead = append(dead, m)
			continue
		}
		if q.inFlight >= limit {
			if len(picked) == 0 {
				err = Errorf(ErrOverLimit, "Maximum number of in-flight messages (%d) reached for queue %s.", limit, q.name)
			}
			break
		}
		if err := q.newToken(m); err != nil {
			q.mu.Unlock()
			return nil, nil, 0, Errorf(ErrInternal, "receipt token: %v", err)
		}
		q.unstateLocked(m)
		m.receiveCount++
		if m.firstReceiveAt == 0 {
			m.firstReceiveAt = now
		}
		m.receivedAt = now
		m.visibleAt = now + int64(vis)*1e9
		q.setStateLocked(m, stateInFlight, false)
		picked = append(picked, m)
	}
	if len(picked) > 0 {
		q.stats.received += int64(len(picked))
		q.recordAttemptLocked(opts.AttemptID, picked, now)
		out, err = q.loadDeliveries(picked)
	}
	if len(out) == 0 && err == nil && wait {
		q.waiting++
		wake = q.notify
		if t, ok := q.timers.peek(); ok {
			nextDue = t.at
		}
	}
	q.mu.Unlock()
	if len(dead) > 0 {
		dlq.adopt(q, dead, deadLettered)
	}
	return out, wake, nextDue, err
}

// retryAttemptLocked answers a FIFO receive retried with the same attempt
// id: the messages it returned that are still in that delivery, with their
// visibility timeouts started again.
func (q *Queue) retryAttemptLocked(id string, now int64, vis int) []*message {
	if !q.fifo || id == "" {
		return nil
	}
	at := q.attempts.lookup(id, now)
	if at == nil {
		return nil
	}
	var again []*message
	for i, seq := range at.seqs {
		m := q.msgs.get(seq)
		if m == nil || m.state != stateInFlight || m.token != at.tokens[i] {
			continue
		}
		q.unstateLocked(m)
		m.visibleAt = now + int64(vis)*1e9
		q.setStateLocked(m, stateInFlight, false)
		again = append(again, m)
	}
	return again
}

func (q *Queue) recordAttemptLocked(id string, picked []*message, now int64) {
	if !q.fifo || id == "" {
		return
	}
	at := &attempt{expires: now + int64(ReceiveAttemptWindow)}
	for _, m := range picked {
		at.seqs = append(at.seqs, m.seq)
		at.tokens = append(at.tokens, m.token)
	}
	q.attempts.add(id, at)
}

// loadDeliveries records the new leases and reads the messages' records in
// one store transaction.
func (q *Queue) loadDeliveries(picked []*message) ([]Delivery, error) {
	out := make([]Delivery, 0, len(picked))
	var missing []*message
	err := q.e.store.db.Update(func(tx *buntdb.Tx) error {
		for _, m := range picked {
			raw, err := tx.Get(messageKey(q.keyspace, m.seq))
			if err != nil {
				missing = append(missing, m)
				continue
			}
			rec, err := decodeMessage(raw)
			if err != nil {
				q.e.log.Error("unreadable message record", "queue", q.name, "seq", m.seq, "err", err)
				missing = append(missing, m)
				continue
			}
			if err := q.e.store.putStateTx(tx, q.keyspace, m, &q.scratch); err != nil {
				return err
			}
			out = append(out, Delivery{
				Message:         rec,
				ReceiptHandle:   encodeReceiptHandle(q.uuid, m.seq, m.token),
				ReceiveCount:    m.receiveCount,
				FirstReceivedAt: time.Unix(0, m.firstReceiveAt),
			})
		}
		return nil
	})
	for _, m := range missing {
		q.removeLocked(m)
	}
	if err != nil {
		return nil, Errorf(ErrInternal, "recording receive: %v", err)
	}
	return out, nil
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

const tokenLen = 16

func (q *Queue) newToken(m *message) error {
	_, err := io.ReadFull(q.e.opts.Random, m.token[:])
	return err
}

// A receipt handle is a version byte, the queue's id, the message's
// sequence number and its delivery token: it names its queue, so that it
// works without one, and is unguessable and bound to one delivery. The
// version byte also makes every handle start with "A", never with "-",
// which a command line would read as a flag.
const (
	receiptHandleVersion = 1
	receiptHandleLen     = 1 + 16 + 8 + tokenLen
)

func encodeReceiptHandle(qid [16]byte, seq uint64, token [tokenLen]byte) string {
	var b [receiptHandleLen]byte
	b[0] = receiptHandleVersion
	copy(b[1:17], qid[:])
	binary.BigEndian.PutUint64(b[17:25], seq)
	copy(b[25:], token[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func decodeReceiptHandle(h string) (qid [16]byte, seq uint64, token [tokenLen]byte, err error) {
	b, derr := base64.RawURLEncoding.DecodeString(h)
	if derr != nil || len(b) != receiptHandleLen || b[0] != receiptHandleVersion {
		return qid, 0, token, Errorf(ErrReceiptHandleIsInvalid, "The input receipt handle \"%s\" is not a valid receipt handle.", h)
	}
	copy(qid[:], b[1:17])
	copy(token[:], b[25:])
	return qid, binary.BigEndian.Uint64(b[17:25]), token, nil
}

// QueueOfReceiptHandle returns the queue a receipt handle belongs to. A
// well-formed handle of a queue that no longer exists is stale.
func (e *Engine) QueueOfReceiptHandle(h string) (*Queue, error) {
	qid, _, _, err := decodeReceiptHandle(h)
	if err != nil {
		return nil, err
	}
	q, err := e.QueueByID(uuid.UUID(qid).String())
	if err != nil {
		return nil, Errorf(ErrReceiptHandleStale, "The receipt handle's queue no longer exists.")
	}
	return q, nil
}
