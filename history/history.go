// Package history keeps each queue's recent depth, sampled at a fixed
// interval, for the REST API's GetQueueHistory and the web console's
// sparklines. Samples carry the engine's time, so that a test that moves
// the engine's clock sees its own timeline, while the sampler itself ticks
// on a real ticker: it lives beside the engine, never in it.
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

	mu   sync.Mutex       // guards byID
	byID map[string]*ring // by queue id: a queue recreated under its name starts afresh

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
		byID: map[string]*ring{}, stop: make(chan struct{}), done: make(chan struct{}),
	}
}

// Interval is the time between samples.
func (s *Sampler) Interval() time.Duration { return s.interval }

// Start takes a sample now and then one every interval, on a real ticker,
// until Stop.
func (s *Sampler) Start() {
	s.started = true
	s.Sample()
	go func() {
		defer close(s.done)
		t := time.NewTicker(s.interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				s.Sample()
			case <-s.stop:
				return
			}
		}
	}()
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
func (s *Sampler) Sample() {
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
		r.items[r.next] = sample{at: at, visible: clamp(c.Visible), inFlight: clamp(c.InFlight), delayed: clamp(c.Delayed)}
		if r.next++; r.next == len(r.items) {
			r.next, r.full = 0, true
		}
	}
	for id := range s.byID {
		if !live[id] {
			delete(s.byID, id)
		}
	}
}

func clamp(n int) int32 { return int32(min(n, 1<<31-1)) }

// Queue returns the samples of the queue with the given id, oldest first;
// none for a queue not sampled yet.
func (s *Sampler) Queue(id string) []Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
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
