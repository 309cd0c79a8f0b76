package engine

// Telling work beside the engine, such as the depth sampler, when queues
// change and when they will change by themselves, so that it need not poll
// an engine that is idle.

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// changeSignal is a channel closed at the next change once someone waits
// for one. A change that nobody waits for costs one atomic load.
type changeSignal struct {
	watched atomic.Bool
	mu      sync.Mutex // guards ch
	ch      chan struct{}
}

// wait returns the channel that the next announce closes.
func (c *changeSignal) wait() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		c.ch = make(chan struct{})
	}
	c.watched.Store(true)
	return c.ch
}

// announce closes the channel of those waiting, if any.
func (c *changeSignal) announce() {
	if !c.watched.Load() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch != nil {
		close(c.ch)
		c.ch = nil
	}
	c.watched.Store(false)
}

// Changed returns a channel that is closed at the next change of any queue's
// counts or of the set of queues: a message sent, received, returned,
// deleted or expired, a queue made or deleted, the engine reset or loaded;
// and at the next Advance of its clock. Changes that time alone brings
// about are made when something looks at the queue; NextDue says when the
// next may be.
func (e *Engine) Changed() <-chan struct{} { return e.changes.wait() }

// NextDue is the soonest instant at which a message of any queue becomes
// visible or expires, and so changes the queue's counts with no request;
// the zero time if none will. It may be earlier than the true one: an
// instant that passes with no change is harmless.
func (e *Engine) NextDue() time.Time {
	next := int64(math.MaxInt64)
	for _, q := range e.AllQueues() {
		q.mu.Lock()
		q.trimLocked()
		if at := q.nextDeadlineLocked(); at != 0 {
			next = min(next, at)
		}
		q.mu.Unlock()
	}
	if next == math.MaxInt64 {
		return time.Time{}
	}
	return time.Unix(0, next)
}
