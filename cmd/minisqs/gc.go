package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The collector's policy: how far the heap may grow past its live part
// before the next collection. GOGC=100 lets it double, which for the few
// MB a server in use but holding few messages keeps live means a
// collection every few MB allocated, a few thousand instructions a
// message; and for a deep queue lets the process take about twice its
// live heap. So a small heap gets a fixed headroom, and a large one a
// share of it. A deep queue's collection is cheap for its size, since the
// engine's index holds few pointers (engine/seqindex.go): at a million
// queued messages, 290 MiB live, one takes about 60 ms of CPU, and a
// headroom of 24 MiB, a collection every 16,000 messages received, costs
// receives there about 5% more than at 1,000 queued (scripts/bench),
// where it keeps the process within 350 MiB.
const (
	// gcMinHeadroom is the least a heap may grow between collections.
	gcMinHeadroom = 24 << 20
	// gcLivePercent is the headroom, in percent of the live heap, once
	// that is more than gcMinHeadroom.
	gcLivePercent = 8
	// gcHeapMinimum is the runtime's least heap goal at GOGC=100; it
	// scales with GOGC.
	gcHeapMinimum = 4 << 20
)

// gcPercent returns the GOGC that lets a heap of live bytes grow by
// max(gcMinHeadroom, gcLivePercent% of live) before it is collected. The
// runtime's goal is live + (live+roots)*GOGC/100, with roots the stacks
// and globals it scanned, and at least gcHeapMinimum*GOGC/100; the
// percent is held so that this least goal is within the headroom too.
func gcPercent(live, roots uint64) int {
	headroom := max(gcMinHeadroom, live*gcLivePercent/100)
	p := headroom * 100 / max(live+roots, 1)
	p = min(p, (live+headroom)*100/gcHeapMinimum)
	return int(max(p, 1)) // 0 would collect all the time
}

// gcPolicy sets GOGC by gcPercent after each collection, from what that
// collection found live. It runs only when a collection has: a cleanup on
// an object nothing refers to, made again each time it runs.
type gcPolicy struct {
	mu     sync.Mutex
	paused bool // the collector is off (pause)
}

// gcSentinel is the object whose collection runs the policy. It holds a
// pointer so that the runtime does not batch it with other small objects.
type gcSentinel struct{ _ *byte }

// newGCPolicy applies the policy, unless the environment sets GOGC: then
// that is the user's policy and it returns nil. A memory limit
// (GOMEMLIMIT) does not turn the policy off: the runtime collects as the
// heap nears the limit whatever GOGC says.
func newGCPolicy(getenv func(string) string) *gcPolicy {
	if getenv("GOGC") != "" {
		return nil
	}
	p := &gcPolicy{}
	p.collected(struct{}{})
	return p
}

// collected sets GOGC for the live heap of the last collection, unless the
// collector is paused, and arms the policy for the next collection.
func (p *gcPolicy) collected(struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.paused {
		p.apply()
	}
	runtime.AddCleanup(new(gcSentinel), p.collected, struct{}{})
}

// apply sets GOGC by gcPercent. p.mu must be held.
func (p *gcPolicy) apply() {
	s := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/scan/stack:bytes"},
		{Name: "/gc/scan/globals:bytes"},
	}
	metrics.Read(s)
	debug.SetGCPercent(gcPercent(s[0].Value.Uint64(), s[1].Value.Uint64()+s[2].Value.Uint64()))
}

// pause turns the collector off until resume is called, when the policy,
// or without one (p nil) the GOGC in force before, applies again.
func (p *gcPolicy) pause() (resume func()) {
	if p == nil {
		old := debug.SetGCPercent(-1)
		return func() { debug.SetGCPercent(old) }
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paused = true
	debug.SetGCPercent(-1)
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.paused = false
		p.apply()
	}
}
