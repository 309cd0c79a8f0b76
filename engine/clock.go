package engine

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Clock is the engine's only source of time. A server uses an OffsetClock,
// the wall clock that the control API can move forward; tests use
// ManualClock so timeouts, delays and retention are reached by advancing
// time rather than sleeping. This file is the only one in the engine that
// reads the wall clock or starts a timer.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once d has passed on this clock,
	// and a function that releases the timer early.
	After(d time.Duration) (<-chan time.Time, func())
}

// AdjustableClock is a Clock that can be moved forward while it runs, as
// Engine.Advance does.
type AdjustableClock interface {
	Clock
	// Advance moves the clock forward by d and fires the timers now due.
	Advance(d time.Duration)
	// Offset is how far Advance has moved the clock in all.
	Offset() time.Duration
}

// SystemClock reads the wall clock. It cannot be moved.
type SystemClock struct{}

// Now returns the current wall-clock time.
func (SystemClock) Now() time.Time { return time.Now() }

// After starts a real timer.
func (SystemClock) After(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTimer(d)
	return t.C, func() { t.Stop() }
}

// ManualClock is a Clock that moves only when Advance is called.
type ManualClock struct {
	mu      sync.Mutex // guards now, waiters and added
	start   time.Time
	now     time.Time
	waiters []*manualWaiter
	added   chan struct{} // closed and cleared when a timer is added
}

type manualWaiter struct {
	at time.Time
	ch chan time.Time
}

// NewManualClock returns a clock stopped at start.
func NewManualClock(start time.Time) *ManualClock {
	return &ManualClock{start: start, now: start}
}

// Offset is how far the clock has been advanced since it was made.
func (c *ManualClock) Offset() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now.Sub(c.start)
}

// Now returns the clock's current instant.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After fires once the clock has been advanced by at least d.
func (c *ManualClock) After(d time.Duration) (<-chan time.Time, func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := &manualWaiter{at: c.now.Add(d), ch: make(chan time.Time, 1)}
	if d <= 0 {
		w.ch <- c.now
		return w.ch, func() {}
	}
	c.waiters = append(c.waiters, w)
	if c.added != nil {
		close(c.added)
		c.added = nil
	}
	return w.ch, func() { c.remove(w) }
}

// AwaitWaiters returns once at least n timers wait on the clock, or with
// ctx's error when it ends first: a test learns so that a long poll has
// started waiting before it advances the clock past it. It waits for the
// clock's own signal, not on a polling interval.
func (c *ManualClock) AwaitWaiters(ctx context.Context, n int) error {
	for {
		c.mu.Lock()
		if len(c.waiters) >= n {
			c.mu.Unlock()
			return nil
		}
		if c.added == nil {
			c.added = make(chan struct{})
		}
		added := c.added
		c.mu.Unlock()
		select {
		case <-added:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (c *ManualClock) remove(w *manualWaiter) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, x := range c.waiters {
		if x == w {
			c.waiters = append(c.waiters[:i], c.waiters[i+1:]...)
			return
		}
	}
}

// Advance moves the clock forward by d and fires every timer now due, in
// deadline order.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	now := c.now
	var due, rest []*manualWaiter
	for _, w := range c.waiters {
		if !w.at.After(now) {
			due = append(due, w)
		} else {
			rest = append(rest, w)
		}
	}
	c.waiters = rest
	c.mu.Unlock()
	fireInOrder(due, now)
}

// fireInOrder delivers now to each due timer, earliest deadline first.
func fireInOrder(due []*manualWaiter, now time.Time) {
	sort.Slice(due, func(i, j int) bool { return due[i].at.Before(due[j].at) })
	for _, w := range due {
		w.ch <- now
	}
}

// Waiters reports how many timers are pending; tests use it to know that a
// long poll has started waiting before they advance the clock.
func (c *ManualClock) Waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}

// OffsetClock is the wall clock plus an offset that only grows: Advance
// moves it forward at run time, and its timers fire when either real time or
// an advance reaches their deadline. It is the server's clock, so that a
// test suite can skip a visibility timeout or a retention period without
// sleeping.
type OffsetClock struct {
	offset  atomic.Int64 // nanoseconds; read on every Now, so kept lock-free
	mu      sync.Mutex   // guards waiters and serialises Advance
	waiters map[*offsetWaiter]struct{}
}

// offsetWaiter is one pending After: a real timer set for the time left,
// reset whenever an advance shortens it.
type offsetWaiter struct {
	manualWaiter
	timer *time.Timer
}

// NewOffsetClock returns a clock on the wall clock's time, offset by zero.
func NewOffsetClock() *OffsetClock {
	return &OffsetClock{waiters: map[*offsetWaiter]struct{}{}}
}

// Now is the wall clock's time plus the offset.
func (c *OffsetClock) Now() time.Time {
	return time.Now().Add(time.Duration(c.offset.Load()))
}

// Offset is how far the clock is ahead of the wall clock.
func (c *OffsetClock) Offset() time.Duration { return time.Duration(c.offset.Load()) }

// SetOffset puts the clock at the given offset if that is ahead of where it
// is: an engine reopening a store restores the offset it had, so that its
// time does not go back.
func (c *OffsetClock) SetOffset(d time.Duration) {
	c.mu.Lock()
	if d <= c.Offset() {
		c.mu.Unlock()
		return
	}
	due, now := c.advanceLocked(d - c.Offset())
	c.mu.Unlock()
	fireInOrder(due, now)
}

// After fires once the clock reaches d from now, by real time or advance.
func (c *OffsetClock) After(d time.Duration) (<-chan time.Time, func()) {
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.Now()
		return ch, func() {}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	w := &offsetWaiter{manualWaiter: manualWaiter{at: c.Now().Add(d), ch: ch}}
	w.timer = time.AfterFunc(d, func() { c.fire(w) })
	c.waiters[w] = struct{}{}
	return ch, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if _, ok := c.waiters[w]; ok {
			delete(c.waiters, w)
			w.timer.Stop()
		}
	}
}

// realAfter fires once d of real time has passed, whatever Advance does:
// a long poll's own wait is real time.
func (c *OffsetClock) realAfter(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTimer(d)
	return t.C, func() { t.Stop() }
}

// fire runs on w's real timer.
func (c *OffsetClock) fire(w *offsetWaiter) {
	c.mu.Lock()
	if _, ok := c.waiters[w]; !ok {
		c.mu.Unlock()
		return
	}
	now := c.Now()
	if left := w.at.Sub(now); left > 0 {
		w.timer.Reset(left)
		c.mu.Unlock()
		return
	}
	delete(c.waiters, w)
	c.mu.Unlock()
	w.ch <- now
}

// Advance moves the clock forward by d, fires every timer now due, in
// deadline order, and shortens the others.
func (c *OffsetClock) Advance(d time.Duration) {
	if d <= 0 {
		return
	}
	c.mu.Lock()
	due, now := c.advanceLocked(d)
	c.mu.Unlock()
	fireInOrder(due, now)
}

func (c *OffsetClock) advanceLocked(d time.Duration) ([]*manualWaiter, time.Time) {
	c.offset.Add(int64(d))
	now := c.Now()
	var due []*manualWaiter
	for w := range c.waiters {
		if left := w.at.Sub(now); left > 0 {
			w.timer.Reset(left)
			continue
		}
		delete(c.waiters, w)
		w.timer.Stop()
		due = append(due, &w.manualWaiter)
	}
	return due, now
}
