package engine

import (
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/buntdb"
)

// Queue is one queue. Its settings are read without locks through an atomic
// pointer, so a receive can consult its dead-letter target without holding
// two locks.
type Queue struct {
	e       *Engine
	id      string
	name    string
	arn     string
	created time.Time
	attrs   atomic.Pointer[QueueAttributes]
	seq     atomic.Uint64 // last sequence number handed out

	mu        sync.Mutex // guards every field below
	modified  time.Time
	tags      map[string]string
	lastPurge time.Time
	deleted   bool
	msgs      map[uint64]*message
	ready     msgHeap // visible messages, oldest sequence first
	timers    msgHeap // delayed and in-flight messages, soonest visibleAt first
	expiry    msgHeap // every message, soonest expireAt first
	delayed   int
	inFlight  int
	waiting   int           // receives blocked on notify
	notify    chan struct{} // closed and replaced when messages may have become visible
}

func newQueue(e *Engine, rec *queueRecord) *Queue {
	q := &Queue{
		e:         e,
		id:        rec.ID,
		name:      rec.Name,
		arn:       e.arn(rec.Name),
		created:   time.Unix(0, rec.Created),
		modified:  time.Unix(0, rec.Modified),
		tags:      rec.Tags,
		lastPurge: time.Unix(0, rec.LastPurge),
		msgs:      map[uint64]*message{},
		notify:    make(chan struct{}),
	}
	if rec.LastPurge == 0 {
		q.lastPurge = time.Time{}
	}
	a := rec.Attributes
	q.attrs.Store(&a)
	q.ready = msgHeap{
		less: func(a, b *message) bool { return a.seq < b.seq },
		slot: func(m *message) *int { return &m.readyOrTimer },
	}
	q.timers = msgHeap{
		less: func(a, b *message) bool { return a.visibleAt < b.visibleAt },
		slot: func(m *message) *int { return &m.readyOrTimer },
	}
	q.expiry = msgHeap{
		less: func(a, b *message) bool { return a.expireAt < b.expireAt },
		slot: func(m *message) *int { return &m.expirySlot },
	}
	return q
}

// ID, Name, Arn and Created identify the queue.
func (q *Queue) ID() string         { return q.id }
func (q *Queue) Name() string       { return q.name }
func (q *Queue) Arn() string        { return q.arn }
func (q *Queue) Created() time.Time { return q.created }
func (q *Queue) IsFIFO() bool       { return q.Attributes().FifoQueue }

// Attributes returns a copy of the queue's settings.
func (q *Queue) Attributes() QueueAttributes { return *q.attrs.Load() }

// Modified is when the queue's settings last changed.
func (q *Queue) Modified() time.Time {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.modified
}

// Counts are the numbers of messages in each state.
type Counts struct {
	Visible, InFlight, Delayed int
}

// Counts returns how many messages are visible, in flight and delayed now.
func (q *Queue) Counts() Counts {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.advance(q.e.clock.Now().UnixNano())
	return Counts{Visible: q.ready.len(), InFlight: q.inFlight, Delayed: q.delayed}
}

func (q *Queue) record() *queueRecord {
	rec := &queueRecord{
		ID: q.id, Name: q.name, Created: q.created.UnixNano(), Modified: q.modified.UnixNano(),
		Attributes: q.Attributes(), Tags: q.tags,
	}
	if !q.lastPurge.IsZero() {
		rec.LastPurge = q.lastPurge.UnixNano()
	}
	return rec
}

// SetAttributes changes the named settings. A new visibility timeout applies
// to later receives, a new retention to later sends.
func (q *Queue) SetAttributes(u AttributeUpdate) error {
	a := q.Attributes()
	if u.FifoQueue != nil && *u.FifoQueue != a.FifoQueue {
		return Errorf(ErrInvalidAttributeValue, "Invalid value for the parameter FifoQueue. Reason: a queue's type is fixed at creation.")
	}
	if err := u.validate(a.FifoQueue); err != nil {
		return err
	}
	q.e.mu.RLock()
	err := q.e.checkRedriveLocked(q.arn, u.RedrivePolicy, a.FifoQueue)
	q.e.mu.RUnlock()
	if err != nil {
		return err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.deleted {
		return errNoQueue()
	}
	a = q.Attributes()
	u.apply(&a)
	q.attrs.Store(&a)
	q.modified = q.e.clock.Now()
	return q.e.store.putQueue(q.record())
}

// Tags returns a copy of the queue's tags.
func (q *Queue) Tags() map[string]string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return maps.Clone(q.tags)
}

// Tag adds or replaces tags.
func (q *Queue) Tag(tags map[string]string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	next := maps.Clone(q.tags)
	if next == nil {
		next = map[string]string{}
	}
	maps.Copy(next, tags)
	if err := validateTags(next); err != nil {
		return err
	}
	return q.saveTagsLocked(next)
}

// Untag removes the named tags; names without a tag are ignored.
func (q *Queue) Untag(keys []string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	next := maps.Clone(q.tags)
	for _, k := range keys {
		delete(next, k)
	}
	return q.saveTagsLocked(next)
}

func (q *Queue) saveTagsLocked(tags map[string]string) error {
	if q.deleted {
		return errNoQueue()
	}
	old := q.tags
	q.tags = tags
	if err := q.e.store.putQueue(q.record()); err != nil {
		q.tags = old
		return err
	}
	return nil
}

// Purge deletes every message in the queue, in flight or not. It may run
// once per PurgeCooldown unless the engine skips cooldowns.
func (q *Queue) Purge() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.deleted {
		return errNoQueue()
	}
	now := q.e.clock.Now()
	if !q.e.opts.SkipCooldowns && !q.lastPurge.IsZero() && now.Sub(q.lastPurge) < PurgeCooldown {
		return Errorf(ErrPurgeQueueInProgress, "Only one PurgeQueue operation on %s is allowed every 60 seconds.", q.name)
	}
	q.clearLocked()
	q.lastPurge = now
	if err := q.e.store.purge(q.id); err != nil {
		return err
	}
	return q.e.store.putQueue(q.record())
}

// clearLocked drops every message from memory; the caller removes them from
// the store.
func (q *Queue) clearLocked() {
	clear(q.msgs)
	q.ready.reset()
	q.timers.reset()
	q.expiry.reset()
	q.delayed, q.inFlight = 0, 0
}

// wakeLocked tells waiting receives to look again.
func (q *Queue) wakeLocked() {
	if q.waiting > 0 {
		close(q.notify)
		q.notify = make(chan struct{})
	}
}

// insertLocked indexes m by its state.
func (q *Queue) insertLocked(m *message) {
	q.msgs[m.seq] = m
	q.expiry.push(m)
	switch m.state {
	case stateReady:
		q.ready.push(m)
	case stateDelayed:
		q.delayed++
		q.timers.push(m)
	case stateInFlight:
		q.inFlight++
		q.timers.push(m)
	}
}

// unindexLocked takes m out of the state heaps and counts, leaving msgs and
// expiry to the caller.
func (q *Queue) unstateLocked(m *message) {
	switch m.state {
	case stateReady:
		q.ready.remove(m)
	case stateDelayed:
		q.delayed--
		q.timers.remove(m)
	case stateInFlight:
		q.inFlight--
		q.timers.remove(m)
	}
}

// removeLocked forgets m entirely.
func (q *Queue) removeLocked(m *message) {
	q.unstateLocked(m)
	q.expiry.remove(m)
	delete(q.msgs, m.seq)
}

// advance makes due messages visible and drops expired ones. It is a pure
// function of now over the deadline heaps: no state is written for a lease
// that ends, since a restart reaches the same conclusion from visibleAt.
func (q *Queue) advance(now int64) {
	woke := false
	for m := q.timers.peek(); m != nil && m.visibleAt <= now; m = q.timers.peek() {
		q.unstateLocked(m)
		m.state = stateReady
		q.ready.push(m)
		woke = true
	}
	var expired []string
	for m := q.expiry.peek(); m != nil && m.expireAt <= now; m = q.expiry.peek() {
		q.removeLocked(m)
		expired = append(expired, seqSuffix(q.id, m.seq))
	}
	if len(expired) > 0 {
		err := q.e.store.db.Update(func(tx *buntdb.Tx) error {
			for _, s := range expired {
				if err := deleteKey(tx, messageKey(s)); err != nil {
					return err
				}
				if err := deleteKey(tx, stateKey(s)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			q.e.log.Error("deleting expired messages", "queue", q.name, "err", err)
		}
	}
	if woke {
		q.wakeLocked()
	}
}

// loadMessages rebuilds the in-memory index from the store.
func (q *Queue) loadMessages(now int64) error {
	prefix := statePrefix + q.id + ":"
	return q.e.store.db.View(func(tx *buntdb.Tx) error {
		var ferr error
		err := tx.AscendGreaterOrEqual("", prefix, func(k, v string) bool {
			if !strings.HasPrefix(k, prefix) {
				return false
			}
			suffix := k[len(statePrefix):]
			body, err := tx.Get(messageKey(suffix))
			if err != nil {
				q.e.log.Warn("state without message record", "key", k)
				return true
			}
			m := &message{size: len(body)}
			if err := decodeState(v, m); err != nil {
				q.e.log.Error("skipping unreadable message state", "key", k, "err", err)
				return true
			}
			seq, ok := parseSeq(suffix)
			if !ok {
				return true
			}
			m.seq = seq
			if seq > q.seq.Load() {
				q.seq.Store(seq)
			}
			if m.state != stateReady && m.visibleAt <= now {
				m.state = stateReady
			}
			q.insertLocked(m)
			return true
		})
		if err != nil {
			return err
		}
		return ferr
	})
}

func parseSeq(suffix string) (uint64, bool) {
	i := strings.LastIndexByte(suffix, ':')
	if i < 0 {
		return 0, false
	}
	var seq uint64
	for _, c := range suffix[i+1:] {
		switch {
		case c >= '0' && c <= '9':
			seq = seq<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			seq = seq<<4 | uint64(c-'a'+10)
		default:
			return 0, false
		}
	}
	return seq, true
}
