package engine

// Waiting for a queue to reach a condition, for tests that must not sleep:
// a wait looks again only when a message of the queue changes state, or at
// the next deadline of one of its messages, never on a polling interval.

import (
	"context"
	"strings"
	"time"
)

// WaitCondition is what Wait waits for. Exactly one of its fields is set.
type WaitCondition struct {
	Visible  *int // at least this many messages visible
	InFlight *int // at least this many in flight
	Empty    bool // nothing visible, in flight or delayed
	// BodyContains holds when a visible or in-flight message's body
	// contains it.
	BodyContains string
}

func (c WaitCondition) validate() error {
	n := 0
	for _, set := range []bool{c.Visible != nil, c.InFlight != nil, c.Empty, c.BodyContains != ""} {
		if set {
			n++
		}
	}
	switch {
	case n != 1:
		return ErrInvalidParameter("condition", nil, ReasonOneCondition)
	case c.Visible != nil && *c.Visible < 0, c.InFlight != nil && *c.InFlight < 0:
		return ErrInvalidParameter("count", nil, ReasonNegative)
	}
	return nil
}

// Wait returns as soon as the condition holds, with the queue's counts and
// true, or when ctx ends or the engine closes, with the counts then and
// false. The caller bounds the wait through ctx.
func (q *Queue) Wait(ctx context.Context, c WaitCondition) (Counts, bool, error) {
	if err := c.validate(); err != nil {
		return Counts{}, false, err
	}
	for {
		q.mu.Lock()
		if q.deleted {
			q.mu.Unlock()
			return Counts{}, false, errNoQueue()
		}
		now := q.e.clock.Now().UnixNano()
		q.advance(now)
		counts := Counts{Visible: q.visible, InFlight: q.inFlight, Delayed: q.delayed}
		if q.holdsLocked(c, counts) {
			q.mu.Unlock()
			return counts, true, nil
		}
		changed := q.changed
		q.watching++
		next := q.nextDeadlineLocked()
		q.mu.Unlock()

		var due <-chan time.Time
		stop := func() {}
		if next != 0 {
			due, stop = q.e.clock.After(time.Duration(next - now))
		}
		done := false
		select {
		case <-changed:
		case <-due:
		case <-ctx.Done():
			done = true
		case <-q.e.closing:
			done = true
		}
		stop()
		q.mu.Lock()
		select {
		case <-changed: // changedLocked let go of this wait when it closed changed
		default:
			q.watching--
		}
		q.mu.Unlock()
		if done {
			return q.Counts(), false, nil
		}
	}
}

// changedLocked wakes the waits on q: a message changed state.
func (q *Queue) changedLocked() {
	q.e.changes.announce()
	if q.watching > 0 {
		q.watching = 0
		close(q.changed)
		q.changed = make(chan struct{})
	}
}

// nextDeadlineLocked is the soonest instant at which a message becomes
// visible or expires, or 0 if none will. After advance, every entry left is
// in the future, though it may be stale; a stale one only wakes a wait that
// finds nothing new.
func (q *Queue) nextDeadlineLocked() int64 {
	var next int64
	for _, h := range []*deadlineHeap{&q.timers, &q.expiry} {
		if e, ok := h.peek(); ok && (next == 0 || e.at < next) {
			next = e.at
		}
	}
	if m := q.firstInOrderLocked(); m != nil && (next == 0 || m.expireAt < next) {
		next = m.expireAt
	}
	return next
}

func (q *Queue) holdsLocked(c WaitCondition, n Counts) bool {
	switch {
	case c.Visible != nil:
		return n.Visible >= *c.Visible
	case c.InFlight != nil:
		return n.InFlight >= *c.InFlight
	case c.Empty:
		return n == Counts{}
	}
	return q.bodyContainsLocked(c.BodyContains)
}

// bodyContainsLocked reads the bodies of the visible and in-flight messages
// until one contains text. It reads the whole queue in the worst case: a
// wait on a body is for the small queues of a test.
func (q *Queue) bodyContainsLocked(text string) bool {
	for _, m := range q.msgs.ordered() {
		if m.state == stateDelayed {
			continue
		}
		rec, err := decodeMessageContent(m, q.ids)
		if err == nil && strings.Contains(rec.Body, text) {
			return true
		}
	}
	return false
}
