package engine

import (
	"slices"
)

// Acknowledge deletes the messages whose current deliveries the handles
// name, one result per handle. A handle of an earlier delivery, or of a
// message that is gone, fails with ErrReceiptHandleStale and changes
// nothing. A handle still works after its visibility timeout ends, until
// another receive takes the message.
func (q *Queue) Acknowledge(handles []string) []error { return q.acknowledge(handles, false) }

// AcknowledgeInFlight is Acknowledge for handles whose visibility timeout
// has not ended: SQS's FIFO queues refuse any other.
func (q *Queue) AcknowledgeInFlight(handles []string) []error { return q.acknowledge(handles, true) }

func (q *Queue) acknowledge(handles []string, inFlightOnly bool) []error {
	errs := make([]error, len(handles))
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.deleted {
		return fillErrors(errs, errNoQueue())
	}
	q.advance(q.e.clock.Now().UnixNano()) // an expired message is gone, not acknowledged
	gone := make([]*message, 0, len(handles))
	goneAt := make([]int, 0, len(handles)) // gone[k] is named by handles[goneAt[k]]
	for i, h := range handles {
		m, err := q.leaseLocked(h, ReasonExpired)
		if err == nil && inFlightOnly && m.state != stateInFlight {
			err = ErrHandleStale(h, ReasonExpired)
		}
		if err == nil && slices.Contains(gone, m) {
			err = ErrHandleStale(h, ReasonExpired) // the batch deletes it already
		}
		if err != nil {
			errs[i] = err
			continue
		}
		gone = append(gone, m)
		goneAt = append(goneAt, i)
	}
	if len(gone) == 0 {
		return errs
	}
	// The store first: a delete it did not record is not done.
	if err := q.deleteStored(gone); err != nil {
		for _, i := range goneAt {
			errs[i] = err
		}
		return errs
	}
	for _, m := range gone {
		q.removeLocked(m)
	}
	return errs
}

// leaseLocked finds the message whose current delivery handle h names.
func (q *Queue) leaseLocked(h string, staleReason Reason) (*message, error) {
	qid, seq, token, err := decodeReceiptHandle(h)
	if err != nil {
		return nil, err
	}
	// A message never received has no delivery to name, whatever the token;
	// nor has one dead-lettered, which keeps its receive count with an
	// empty token, which is never issued, until its next receive.
	m := q.msgs.get(seq)
	var r *receipt
	if m != nil {
		r = m.recv
	}
	current := qid == q.uuid && r != nil && r.receiveCount > 0 && r.token == token && token != [tokenLen]byte{}
	// The current delivery's token is one this engine issued; any other
	// token's MAC tells a stale handle from one never issued.
	if !current && !q.e.handles.valid(qid, seq, token) {
		return nil, errHandleNeverIssued(h)
	}
	if qid != q.uuid {
		// AWS's words (aws/aws-sdk-java-v2#3101, spulec/PyQS#24).
		return nil, ErrHandleInvalid(h, ReasonOtherQueue)
	}
	if !current {
		return nil, ErrHandleStale(h, staleReason)
	}
	return m, nil
}

// VisibilityChange sets a leased message's remaining visibility timeout.
type VisibilityChange struct {
	ReceiptHandle string
	Timeout       int // seconds from now; 0 makes the message visible at once
}

// ChangeVisibility applies each change, one result per change. A message
// stays in flight at most 12 hours from its receive. A handle whose lease
// has ended but whose message has not been received again starts a new
// lease of the given length, as SQS allows.
func (q *Queue) ChangeVisibility(changes []VisibilityChange) []error {
	errs := make([]error, len(changes))
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.deleted {
		return fillErrors(errs, errNoQueue())
	}
	now := q.e.clock.Now().UnixNano()
	q.advance(now)
	type change struct {
		m     *message
		at    int // index in changes
		end   int64
		state uint8
	}
	var planned []change
	for i, c := range changes {
		if c.Timeout < 0 || c.Timeout > MaxVisibilityTimeout {
			errs[i] = ErrParameterRange("VisibilityTimeout", c.Timeout, 0, MaxVisibilityTimeout, false)
			continue
		}
		m, err := q.leaseLocked(c.ReceiptHandle, ReasonNotAvailable)
		if err != nil {
			errs[i] = err
			continue
		}
		end := now + int64(c.Timeout)*1e9
		if end > m.recv.receivedAt+int64(MaxInFlightDuration) {
			errs[i] = ErrVisibilityBeyondLimit(c.Timeout)
			continue
		}
		state := uint8(stateInFlight)
		if c.Timeout == 0 {
			state = stateReady
		}
		planned = append(planned, change{m, i, end, state})
	}
	if len(planned) == 0 {
		return errs
	}
	// The store first, from what each message will be: memory changes only
	// once the store holds the change.
	q.rewrites = q.rewrites[:0]
	err := q.e.store.update(func(tx recordTx) error {
		for _, p := range planned {
			next := *p.m
			next.visibleAt, next.state = p.end, p.state
			rec, err := q.e.store.putStateTx(tx, q.keyspace, &next, &q.scratch)
			if err != nil {
				return err
			}
			q.rewrites = append(q.rewrites, rec)
		}
		return nil
	})
	defer clear(q.rewrites)
	if err != nil {
		for _, p := range planned {
			errs[p.at] = err
		}
		return errs
	}
	for i, p := range planned {
		q.setRecordLocked(p.m, q.rewrites[i])
		if p.m.state == stateInFlight && p.state == stateInFlight {
			q.extendLocked(p.m, p.end)
			continue
		}
		q.unstateLocked(p.m)
		p.m.visibleAt = p.end
		q.setStateLocked(p.m, p.state, p.state == stateReady)
	}
	return errs
}

// fillErrors sets every element of errs to err.
func fillErrors(errs []error, err error) []error {
	for i := range errs {
		errs[i] = err
	}
	return errs
}
