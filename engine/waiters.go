package engine

// The long polls waiting on a queue, and how they are woken: a message that
// becomes deliverable wakes one of them, the one that has waited longest,
// rather than all, so that a thousand idle polls cost one wake-up a message.
// A woken poll that takes nothing (another receive was quicker, or it takes
// more than one message) hands the wake-up on when it is the last awake:
// whenever no woken poll is left, either nothing is deliverable or no poll
// waits. The ends of delays and leases wake them the same way, through one
// timer for the queue rather than one for each poll.

import "time"

// waiter is one long poll blocked on its queue.
type waiter struct {
	link  link[waiter]
	wake  chan struct{} // closed when the poll is woken
	woken bool          // taken off the queue's waiters by a wake-up
}

func (w *waiter) links() *link[waiter] { return &w.link }

// waiterList holds a queue's waiting polls, longest waiting first.
type waiterList = list[waiter, *waiter]

// waitLocked registers a poll that found nothing.
func (q *Queue) waitLocked() *waiter {
	w := &waiter{wake: make(chan struct{})}
	q.waiters.pushBack(w)
	if t, ok := q.timers.peek(); ok {
		q.armWaitTimerLocked(t.at)
	}
	return w
}

// removeWaiterLocked takes w off the waiters, and lets the queue's timer go
// when none is left.
func (q *Queue) removeWaiterLocked(w *waiter) {
	q.waiters.remove(w)
	if q.waiters.n == 0 && q.waitTimer != nil {
		close(q.waitTimer.stop)
		q.waitTimer = nil
	}
}

// wakeLocked wakes up to n waiting polls, longest waiting first, to try
// again. Settle waits until each of them has (see stopWaiting).
func (q *Queue) wakeLocked(n int) {
	for ; n > 0 && q.waiters.n > 0; n-- {
		w := q.waiters.front()
		q.removeWaiterLocked(w)
		w.woken = true
		close(w.wake)
		q.woken++
	}
}

// wakeAllLocked wakes every waiting poll: the queue is gone or emptied.
func (q *Queue) wakeAllLocked() { q.wakeLocked(q.waiters.n) }

// deliverableLocked reports whether a receive would find a message to take:
// a visible one on a standard queue, a group that can deliver on a FIFO
// queue.
func (q *Queue) deliverableLocked() bool {
	if q.fifo {
		return q.available.front() != nil
	}
	return q.ready.front() != nil
}

// waitTimer fires when the soonest delay or lease of its queue ends while
// polls wait, to make the message visible and so wake one of them.
type waitTimer struct {
	at   int64         // the deadline, in the clock's Unix nanoseconds
	stop chan struct{} // closed when the timer is let go
}

// armWaitTimerLocked sets the queue's timer for a message that becomes
// visible at at, if polls wait and the timer is not already set as soon.
func (q *Queue) armWaitTimerLocked(at int64) {
	if q.waiters.n == 0 {
		return
	}
	if t := q.waitTimer; t != nil {
		if t.at <= at {
			return
		}
		close(t.stop)
	}
	t := &waitTimer{at: at, stop: make(chan struct{})}
	q.waitTimer = t
	fire, release := q.e.clock.After(time.Duration(at - q.e.clock.Now().UnixNano()))
	go q.runWaitTimer(t, fire, release)
}

// runWaitTimer waits for t, then advances the queue, which wakes a poll for
// each message that became visible, and sets the timer again for the next
// deadline while polls still wait.
func (q *Queue) runWaitTimer(t *waitTimer, fire <-chan time.Time, release func()) {
	select {
	case <-fire:
	case <-t.stop:
		release()
		return
	case <-q.e.closing:
		release()
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.waitTimer != t {
		return // let go of, or replaced by a sooner one, as it fired
	}
	q.waitTimer = nil
	if q.deleted {
		return
	}
	q.advance(q.e.clock.Now().UnixNano())
	if e, ok := q.timers.peek(); ok {
		q.armWaitTimerLocked(e.at)
	}
}
