package engine

// The long polls waiting on a queue, and how they are woken: a message that
// becomes deliverable wakes one of them, the one that has waited longest,
// rather than all, so that a thousand idle polls cost one wake-up a message.
// A woken poll that takes nothing (another receive was quicker, or it takes
// more than one message) hands the wake-up on when it is the last awake:
// whenever no woken poll is left, either nothing is deliverable or no poll
// waits.

// waiter is one long poll blocked on its queue.
type waiter struct {
	link link[waiter]
	wake chan struct{} // closed when the poll is woken
	// due is the deadline its own timer is armed for, the soonest of the
	// queue's delays and leases when it began to wait; 0 for none.
	due   int64
	woken bool // taken off the queue's waiters by a wake-up
}

func (w *waiter) links() *link[waiter] { return &w.link }

// waiterList holds a queue's waiting polls, longest waiting first.
type waiterList = list[waiter, *waiter]

// waitLocked registers a poll that found nothing and whose own timer will
// fire at due (0 for none).
func (q *Queue) waitLocked(due int64) *waiter {
	w := &waiter{wake: make(chan struct{}), due: due}
	q.waiters.pushBack(w)
	return w
}

// wakeLocked wakes up to n waiting polls, longest waiting first, to try
// again. Settle waits until each of them has (see stopWaiting).
func (q *Queue) wakeLocked(n int) {
	for ; n > 0 && q.waiters.n > 0; n-- {
		w := q.waiters.front()
		q.waiters.remove(w)
		q.wokeLocked(w)
	}
}

// wakeAllLocked wakes every waiting poll: the queue is gone or emptied.
func (q *Queue) wakeAllLocked() { q.wakeLocked(q.waiters.n) }

// wakeBeforeLocked wakes the polls whose own timers would fire after at, or
// never, so that they arm them again for a message that becomes visible at
// at.
func (q *Queue) wakeBeforeLocked(at int64) {
	for w := q.waiters.front(); w != nil; {
		next := w.link.next
		if w.due == 0 || w.due > at {
			q.waiters.remove(w)
			q.wokeLocked(w)
		}
		w = next
	}
}

func (q *Queue) wokeLocked(w *waiter) {
	w.woken = true
	close(w.wake)
	q.woken++
}

// deliverableLocked reports whether a receive would find a message to take:
// a visible one on a standard queue, a group that can deliver on a FIFO
// queue.
func (q *Queue) deliverableLocked() bool {
	if q.fifo {
		return q.available.front() != nil
	}
	return q.ready.front() != nil
}
