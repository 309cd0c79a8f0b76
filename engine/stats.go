package engine

import (
	"encoding/base32"
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

// Peek returns up to limit visible messages in delivery order without
// leasing them: no receipt handle, no receive counted.
func (q *Queue) Peek(limit int) ([]Message, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.deleted {
		return nil, errNoQueue()
	}
	q.advance(q.e.clock.Now().UnixNano())
	var picked []*message
	add := func(l *readyList) {
		for m := l.front(); m != nil && len(picked) < limit; m = m.link.next {
			picked = append(picked, m)
		}
	}
	if q.fifo {
		q.available.ordered(func(g *group) bool {
			held := g.held.front()
			for m := g.ready.front(); m != nil && (held == nil || m.seq < held.seq) && len(picked) < limit; m = m.link.next {
				picked = append(picked, m)
			}
			return len(picked) < limit
		})
	} else {
		add(&q.ready)
	}
	out := make([]Message, 0, len(picked))
	for _, m := range picked {
		rec, err := q.recordLocked(m)
		if err != nil {
			continue
		}
		out = append(out, rec)
	}
	return out, nil
}

// Slug is the queue's short identity: "que_" and its id in 26 characters
// of Crockford base32.
func (q *Queue) Slug() string { return slugPrefix + slugEncoding.EncodeToString(q.uuid[:]) }

const slugPrefix = "que_"

// LookupQueue finds a queue by its id, its slug or its name.
func (e *Engine) LookupQueue(ref string) (*Queue, error) {
	if u, err := uuid.Parse(ref); err == nil && len(ref) == 36 {
		return e.QueueByID(u.String())
	}
	if rest, ok := strings.CutPrefix(ref, slugPrefix); ok {
		if b, err := slugEncoding.DecodeString(rest); err == nil && len(b) == 16 {
			return e.QueueByID(uuid.UUID(b).String())
		}
	}
	return e.Queue(ref)
}

func (q *Queue) countEnqueuedLocked(m *message) {
	q.stats.enqueued++
	q.stats.bytesEnqueued += int64(m.size)
}

// slugEncoding is Crockford's base32 in lower case, without padding.
var slugEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// Partitions: a queue starts with one and gains more, up to 64, as its send
// rate grows; it never loses them. Each partition is taken to carry 300
// messages a second, the figure SQS gives per partition for FIFO queues
// ("Partitions and data distribution for high throughput for SQS FIFO
// queues"). The rate is an average over about the last ten seconds, taken
// at each sweep.
const (
	MaxPartitions        = 64
	messagesPerPartition = 300
	rateSmoothing        = 0.1 // weight of the newest one-second sample
)

type partitioning struct {
	count        int
	rate         float64 // messages a second, smoothed
	lastEnqueued int64
}

// Partitions returns the queue's partition count.
func (q *Queue) Partitions() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return max(1, q.parts.count)
}

// updatePartitionsLocked takes one sample of the send rate; the sweeper
// calls it once per sweep interval.
func (q *Queue) updatePartitionsLocked() {
	p := &q.parts
	sample := float64(q.stats.enqueued-p.lastEnqueued) / sweepInterval.Seconds()
	p.lastEnqueued = q.stats.enqueued
	p.rate += rateSmoothing * (sample - p.rate)
	need := int(p.rate/messagesPerPartition) + 1
	p.count = min(MaxPartitions, max(p.count, need))
}
