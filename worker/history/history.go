// Package history keeps each queue's recent depth, sampled at a fixed
// interval, for the REST API's GetQueueHistory and the web console's
// sparklines. Samples carry the engine's time, so that a test that moves
// the engine's clock sees its own timeline, while the sampler itself keeps
// real time: it lives beside the engine, never in it.
//
// An idle engine costs the sampler nothing: after each sample it sleeps
// until a queue changes (engine.Changed) or may change by itself
// (engine.NextDue), and the ticks it slept through get the sample that
// still held at them, written when it wakes or when someone reads.
//
// A running server has one Sampler: server.Start makes it with New and
// starts it with Start once the engine is open, hands it to the REST API
// (HandlerOptions.History), and Server.Shutdown stops it before the engine.
package history

import (
	"sync"
	"time"

	"github.com/minisqs/minisqs/engine"
)

// The sampling: every 5 seconds over the last 15 minutes is enough for a
// sparkline to show a backlog building or draining, and it costs one count
// per queue per tick.
const (
	DefaultInterval = 5 * time.Second
	DefaultWindow   = 15 * time.Minute
)

// Sample is a queue's counts at one instant of the engine's clock.
type Sample struct {
	At time.Time
	engine.Counts
}

// sample is a Sample as a ring keeps it, small for many queues.
type sample struct {
	at                         int64 // unix nanoseconds
	visible, inFlight, delayed int32
}

// ring holds a queue's latest samples, oldest overwritten first.
type ring struct {
	items []sample
	next  int
	full  bool
}

// Sampler samples every queue of an engine.
type Sampler struct {
	e        *engine.Engine
	interval time.Duration
	keep     int

	mu   sync.Mutex       // guards byID and the fields below it
	byID map[string]*ring // by queue id: a queue recreated under its name starts afresh
	// held is set while no queue has changed since the sample of the tick
	// at lastTick (real time), which the engine stamped lastAt: every
	// later tick's sample would be the same counts again.
	held     bool
	lastTick time.Time
	lastAt   int64

	now func() time.Time // real time; tests stop it

	started  bool // set by Start, before any Stop
	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

// New returns a sampler of e's queues that keeps the samples of window,
// taken every interval; zero values take the defaults. It takes no sample
// until Sample is called or Start starts it.
func New(e *engine.Engine, interval, window time.Duration) *Sampler {
	if interval <= 0 {
		interval = DefaultInterval
	}
	if window <= 0 {
		window = DefaultWindow
	}
	return &Sampler{
		e: e, interval: interval, keep: max(1, int(window/interval)),
		byID: map[string]*ring{}, now: time.Now, stop: make(chan struct{}), done: make(chan struct{}),
	}
}

// Interval is the time between samples.
func (s *Sampler) Interval() time.Duration { return s.interval }

// Start takes a sample now and then one every interval until Stop.
func (s *Sampler) Start() {
	s.started = true
	tick := s.now()
	changed := s.e.Changed()
	s.sampleTick(tick)
	go func() {
		defer close(s.done)
		for {
			if !s.hold(changed) {
				return
			}
			// The counts changed, or may have, at about now: the ticks
			// before now had the last sample's, the next one is taken.
			now := s.now()
			s.mu.Lock()
			s.fillLocked(now)
			s.held = false
			tick = s.lastTick.Add(s.interval)
			s.mu.Unlock()
			t := time.NewTimer(tick.Sub(now))
			select {
			case <-t.C:
			case <-s.stop:
				t.Stop()
				return
			}
			changed = s.e.Changed()
			s.sampleTick(tick)
		}
	}()
}

// hold waits, after a sample, until changed is closed or the next instant
// at which a queue changes by itself comes. It reports false on Stop.
//
// That instant is on the engine's clock, and waited for in real time, as
// the clock runs when no one moves it: moving the clock is a change, and
// the engine's own timers are its business (tests count them). A wait
// that ends early only takes a sample.
func (s *Sampler) hold(changed <-chan struct{}) bool {
	var due <-chan time.Time
	if next := s.e.NextDue(); !next.IsZero() {
		t := time.NewTimer(next.Sub(s.e.Now()))
		defer t.Stop()
		due = t.C
	}
	select {
	case <-changed:
	case <-due:
	case <-s.stop:
		return false
	}
	return true
}

// Stop ends sampling started by Start and waits for its goroutine.
func (s *Sampler) Stop() {
	s.stopOnce.Do(func() { close(s.stop) })
	if s.started {
		<-s.done
	}
}

// Sample records every queue's counts now, and forgets the queues that are
// gone.
func (s *Sampler) Sample() { s.sample() }

// sampleTick is Sample for the tick at the real time tick, which then holds
// until the next change.
func (s *Sampler) sampleTick(tick time.Time) {
	at := s.sample()
	s.mu.Lock()
	s.held, s.lastTick, s.lastAt = true, tick, at
	s.mu.Unlock()
}

// sample records every queue's counts and returns the engine's time of it.
func (s *Sampler) sample() int64 {
	queues := s.e.Queues("")
	at := s.e.Now().UnixNano()
	counts := make([]engine.Counts, len(queues))
	for i, q := range queues {
		counts[i] = q.Counts()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	live := make(map[string]bool, len(queues))
	for i, q := range queues {
		live[q.ID()] = true
		r := s.byID[q.ID()]
		if r == nil {
			r = &ring{items: make([]sample, s.keep)}
			s.byID[q.ID()] = r
		}
		c := counts[i]
		r.add(sample{at: at, visible: clamp(c.Visible), inFlight: clamp(c.InFlight), delayed: clamp(c.Delayed)})
	}
	for id := range s.byID {
		if !live[id] {
			delete(s.byID, id)
		}
	}
	return at
}

// fillLocked writes, while the last sample holds, its counts again for each
// tick up to now that was not sampled: what sampling at each would have
// found. Only the last keep of them can stay in a ring.
func (s *Sampler) fillLocked(now time.Time) {
	if !s.held {
		return
	}
	n := int(now.Sub(s.lastTick) / s.interval)
	if n <= 0 {
		return
	}
	for k := max(1, n-s.keep+1); k <= n; k++ {
		at := s.lastAt + int64(k)*int64(s.interval)
		for _, r := range s.byID {
			x := r.last()
			x.at = at
			r.add(x)
		}
	}
	s.lastTick = s.lastTick.Add(time.Duration(n) * s.interval)
	s.lastAt += int64(n) * int64(s.interval)
}

func (r *ring) add(x sample) {
	r.items[r.next] = x
	if r.next++; r.next == len(r.items) {
		r.next, r.full = 0, true
	}
}

// last is the latest sample of a ring that has one.
func (r *ring) last() sample {
	return r.items[(r.next+len(r.items)-1)%len(r.items)]
}

func clamp(n int) int32 { return int32(min(n, 1<<31-1)) }

// Queue returns the samples of the queue with the given id, oldest first;
// none for a queue not sampled yet.
func (s *Sampler) Queue(id string) []Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fillLocked(s.now())
	r := s.byID[id]
	if r == nil {
		return []Sample{}
	}
	n, first := r.next, 0
	if r.full {
		n, first = len(r.items), r.next
	}
	out := make([]Sample, n)
	for i := range out {
		x := r.items[(first+i)%len(r.items)]
		out[i] = Sample{
			At:     time.Unix(0, x.at),
			Counts: engine.Counts{Visible: int(x.visible), InFlight: int(x.inFlight), Delayed: int(x.delayed)},
		}
	}
	return out
}
