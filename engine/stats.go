package engine

import (
	"encoding/base32"
	"math"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Stats are a queue's gauges and counters, for metrics. Counters start when
// the engine opens.
type Stats struct {
	Counts
	StoredBytes int64
	// OldestAvailableAge is how long ago the oldest visible message was
	// sent; zero when none is visible.
	OldestAvailableAge time.Duration
	Enqueued           int64 // messages stored, redriven ones included, deduplicated sends not
	Received           int64 // deliveries, redeliveries included
	Removed            int64 // acknowledged, expired, purged or moved away
	BytesEnqueued      int64
}

// queueStats is what a queue counts as it goes; guarded by Queue.mu.
type queueStats struct {
	storedBytes, enqueued, received, removed, bytesEnqueued int64
}

// Stats returns the queue's figures now.
func (q *Queue) Stats() Stats {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.e.clock.Now().UnixNano()
	q.advance(now)
	s := Stats{
		Counts:        Counts{Visible: q.visible, InFlight: q.inFlight, Delayed: q.delayed},
		StoredBytes:   q.stats.storedBytes,
		Enqueued:      q.stats.enqueued,
		Received:      q.stats.received,
		Removed:       q.stats.removed,
		BytesEnqueued: q.stats.bytesEnqueued,
	}
	if oldest := q.oldestVisibleLocked(); oldest != nil {
		s.OldestAvailableAge = time.Duration(now - oldest.sentAt)
	}
	return s
}

// oldestVisibleLocked returns the visible message sent first. On a standard
// queue that is near the ready list's front, which holds redeliveries and
// then messages in sending order; the front is taken as the answer. On a
// FIFO queue it is the earliest head of a group.
func (q *Queue) oldestVisibleLocked() *message {
	if !q.fifo {
		return q.ready.front()
	}
	var oldest *message
	for _, g := range q.groups {
		if m := g.ready.front(); m != nil && (oldest == nil || m.sentAt < oldest.sentAt) {
			oldest = m
		}
	}
	return oldest
}

// Slug is the queue's short identity: "que_" and its id in 26 characters
// of Crockford base32.
func (q *Queue) Slug() string { return slugPrefix + slugEncoding.EncodeToString(q.uuid[:]) }

const slugPrefix = "que_"

// LookupQueue is LookupQueueIn the default namespace.
func (e *Engine) LookupQueue(ref string) (*Queue, error) {
	return e.LookupQueueIn(e.DefaultNamespace(), ref)
}

// LookupQueueIn finds a queue by its id or its slug, which name it in any
// namespace, or by its name in ns.
func (e *Engine) LookupQueueIn(ns Namespace, ref string) (*Queue, error) {
	if u, err := uuid.Parse(ref); err == nil && len(ref) == 36 {
		return e.QueueByID(u.String())
	}
	if rest, ok := strings.CutPrefix(ref, slugPrefix); ok {
		if b, err := slugEncoding.DecodeString(rest); err == nil && len(b) == 16 {
			return e.QueueByID(uuid.UUID(b).String())
		}
	}
	return e.QueueIn(ns, ref)
}

func (q *Queue) countEnqueuedLocked(m *message) {
	q.stats.enqueued++
	q.stats.bytesEnqueued += int64(len(m.record()))
}

// slugEncoding is Crockford's base32 in lower case, without padding.
var slugEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// Partitions: a queue starts with one and gains more, up to 64, as its send
// rate grows; it never loses them. Each partition is taken to carry 300
// messages a second, the figure SQS gives per partition for FIFO queues
// ("Partitions and data distribution for high throughput for SQS FIFO
// queues"). The rate is an average over about the last ten seconds, sampled
// once per sweepInterval of the clock; the samples are taken when the queue
// is next used, so an idle queue costs nothing.
const (
	MaxPartitions        = 64
	messagesPerPartition = 300
	rateSmoothing        = 0.1 // weight of the newest one-second sample
)

type partitioning struct {
	count        int
	rate         float64 // messages a second, smoothed
	lastEnqueued int64
	sampledAt    int64 // the clock's Unix nanoseconds at the last sample; 0 before the first
}

// Partitions returns the queue's partition count.
func (q *Queue) Partitions() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.samplePartitionsLocked(q.e.clock.Now().UnixNano())
	return max(1, q.parts.count)
}

// samplePartitionsLocked takes the samples of the send rate due by now, one
// for each sweepInterval since the last: the first counts the sends since
// then, and any others none, so they only let the rate decay.
func (q *Queue) samplePartitionsLocked(now int64) {
	p := &q.parts
	if p.sampledAt == 0 {
		p.sampledAt = now
		return
	}
	n := (now - p.sampledAt) / int64(sweepInterval)
	if n <= 0 {
		return
	}
	p.sampledAt += n * int64(sweepInterval)
	q.updatePartitionsLocked()
	if n > 1 {
		p.rate *= math.Pow(1-rateSmoothing, float64(n-1))
	}
}

// updatePartitionsLocked takes one sample of the send rate.
func (q *Queue) updatePartitionsLocked() {
	p := &q.parts
	sample := float64(q.stats.enqueued-p.lastEnqueued) / sweepInterval.Seconds()
	p.lastEnqueued = q.stats.enqueued
	p.rate += rateSmoothing * (sample - p.rate)
	need := int(p.rate/messagesPerPartition) + 1
	p.count = min(MaxPartitions, max(p.count, need))
}
