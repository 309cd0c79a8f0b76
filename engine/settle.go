package engine

// Moving the clock at run time, and settling: running at once everything
// that has come due, so that a test which moves time sees every rule apply
// before it takes its next step.

import (
	"math"
	"slices"
	"strconv"
	"time"
)

// clockOffsetKey keeps an OffsetClock's offset across restarts: deadlines in
// the store are in the engine's time, which must not go back.
const clockOffsetKey = "c:clock"

// Offset is how far the engine's clock has been moved forward in all; zero
// for a clock that cannot be moved.
func (e *Engine) Offset() time.Duration {
	if c, ok := e.clock.(AdjustableClock); ok {
		return c.Offset()
	}
	return 0
}

// Advance moves the engine's clock forward by d and then settles. Time never
// goes back: d must be positive. An engine whose clock cannot be moved (a
// SystemClock) refuses.
func (e *Engine) Advance(d time.Duration) error {
	c, ok := e.clock.(AdjustableClock)
	if !ok {
		return ErrClockFixed()
	}
	if d <= 0 {
		return ErrInvalidParameter("seconds", d.Seconds(), ReasonNegative)
	}
	c.Advance(d)
	e.changes.announce()
	if _, ok := c.(*OffsetClock); ok {
		if err := e.saveOffset(c.Offset()); err != nil {
			e.log.Error("saving the clock offset", "err", err)
		}
	}
	e.Settle()
	return nil
}

// Settle runs at once, before it returns, everything due at the clock's
// current time: move tasks move the batches they are owed, delays and
// visibility timeouts end, retention expires messages, deduplication
// windows and receive attempts lapse, and the cooldowns of deleted queues
// end. Receives waiting on a queue whose messages became visible have
// taken them by the time it returns. Purge cooldowns need nothing: they
// are read against the clock.
//
// The sweeper and the timer each queue sets for its waiting receives reach
// the same results within a second or so; Settle is for a caller, such as a test after moving the
// clock, that must not wait for them.
func (e *Engine) Settle() {
	e.catchUpTasks()
	now := e.clock.Now()
	for _, q := range e.AllQueues() {
		q.settle(now.UnixNano())
	}
	e.expireCooldowns(now)
}

// settle advances q to now and waits until every receive that this woke has
// tried again.
func (q *Queue) settle(now int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.advance(now)
	for q.woken > 0 {
		q.settled.Wait()
	}
}

// stopWaiting ends a receive's registration w. From then until it has
// tried again (retried), the receive counts in woken, whether a wake-up
// woke it or it is leaving, so that Settle waits for it. It reports whether
// the caller, retrying, must call retried after its try.
func (q *Queue) stopWaiting(w *waiter, retrying bool) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !w.woken { // else wakeLocked counted it when it woke it
		q.removeWaiterLocked(w)
		q.woken++
	}
	if !retrying {
		q.retriedLocked()
	}
	return retrying
}

// retried records that a woken receive has tried again.
func (q *Queue) retried() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.retriedLocked()
}

// The last woken receive to try hands the wake-up on if messages are still
// there to take: one woken for a message that another receive took finds
// nothing, one woken as it gives up takes nothing, and one may take several.
func (q *Queue) retriedLocked() {
	if q.woken == 1 && q.waiters.n > 0 && q.deliverableLocked() {
		q.wakeLocked(1)
	}
	if q.woken--; q.woken == 0 {
		q.settled.Broadcast()
	}
}

// pollTimer fires when a long poll of d has waited its time out. On a clock
// that Advance moves as well as time, that is real time, so that moving the
// clock ends the poll only by making messages visible; on a ManualClock,
// where no real time passes, it is the clock's time.
func (e *Engine) pollTimer(d time.Duration) (<-chan time.Time, func()) {
	if c, ok := e.clock.(interface {
		realAfter(time.Duration) (<-chan time.Time, func())
	}); ok {
		return c.realAfter(d)
	}
	return e.clock.After(d)
}

// expireCooldowns forgets deleted queues whose names may be used again, and
// returns when the next cooldown ends, or math.MaxInt64 for none.
func (e *Engine) expireCooldowns(now time.Time) int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	next := int64(math.MaxInt64)
	for name, at := range e.deletedAt {
		if now.Sub(at) >= DeleteQueueCooldown {
			delete(e.deletedAt, name)
		} else {
			next = min(next, at.Add(DeleteQueueCooldown).UnixNano())
		}
	}
	return next
}

// catchUpTasks runs the batches that running move tasks are owed by now.
func (e *Engine) catchUpTasks() {
	e.tasks.mu.Lock()
	var running []*moveTask
	for _, t := range e.tasks.byHandle {
		if t.Status == TaskRunning {
			running = append(running, t)
		}
	}
	e.tasks.mu.Unlock()
	slices.SortFunc(running, func(a, b *moveTask) int { return int(a.Started - b.Started) })
	for _, t := range running {
		e.runDueBatches(t)
	}
}

// runDueBatches moves the batches of t that are due, one for each tick since
// the last, so that a task catches up with a clock moved forward. It
// reports how long until the next batch is due and whether the task has
// ended. A task's own goroutine and Settle both call it; t.runMu keeps them
// from moving the same batch twice.
func (e *Engine) runDueBatches(t *moveTask) (time.Duration, bool) {
	t.runMu.Lock()
	defer t.runMu.Unlock()
	for {
		e.tasks.mu.Lock()
		status, halted := t.Status, t.halted
		e.tasks.mu.Unlock()
		switch {
		case halted || status == TaskCancelling:
			return moveTaskTickInterval, false
		case status != TaskRunning:
			return 0, true
		}
		now := e.clock.Now().UnixNano()
		if t.nextAt > now {
			return time.Duration(t.nextAt - now), false
		}
		if e.moveBatch(t) {
			return 0, true
		}
		t.nextAt += int64(moveTaskTickInterval)
	}
}

// saveOffset records the clock's offset in the store.
func (e *Engine) saveOffset(d time.Duration) error {
	return e.store.update(func(tx recordTx) error {
		return tx.set(clockOffsetKey, strconv.FormatInt(int64(d), 10))
	})
}

// restoreOffset puts an OffsetClock back where the store last had it.
func (e *Engine) restoreOffset() error {
	c, ok := e.clock.(*OffsetClock)
	if !ok {
		return nil
	}
	return e.store.view(func(tx recordTx) error {
		v, ok, err := tx.get(clockOffsetKey)
		if !ok || err != nil {
			return err
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return err
		}
		c.SetOffset(time.Duration(n))
		return nil
	})
}
