package engine

import (
	"cmp"
	"errors"
	"maps"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
)

// Queue is one queue. Its settings are read without locks through an atomic
// pointer, so a receive can consult its dead-letter target without holding
// two locks.
type Queue struct {
	e        *Engine
	id       string
	uuid     [16]byte // id, parsed
	num      uint64   // names its keyspace in the store
	keyspace string   // num as store keys spell it, kept for the hot paths
	name     string
	ns       Namespace
	arn      string
	created  time.Time
	fifo     bool
	attrs    atomic.Pointer[QueueAttributes]
	seq      atomic.Uint64 // last sequence number handed out
	seqSaved atomic.Uint64 // at most the counter the store holds under seqKey
	idKey    []byte        // makes ids, and the ids of the records that hold none
	ids      messageIDs

	mu        sync.Mutex // guards every field below
	modified  time.Time
	tags      map[string]string
	lastPurge time.Time
	deleted   bool
	msgs      seqIndex
	ready     readyList // standard: visible messages, new ones at the back, redeliveries at the front
	visible   int       // visible messages, in ready or in FIFO groups' lists
	groups    map[string]*group
	available groupHeap // FIFO: groups that can deliver, by when their first visible message became visible
	dedup     dedupWindow
	attempts  attemptCache
	timers    deadlineHeap // visibleAt of delayed and in-flight messages
	// Most messages expire in the order they were sent, since a queue's
	// retention seldom changes and its clock moves forward: those are
	// inOrder, with no expiry entry each, their expireAts rising with
	// their sequence numbers, so that the first of them still there is
	// the next to expire. expiry holds the others: moved in with an
	// earlier send time, given an expiry by a fixture, or sent after the
	// retention shrank or the clock went back while a message sent before
	// is still there.
	expiry    deadlineHeap // expireAt of the messages not inOrder
	orderSeq  uint64       // sequence number of the latest inOrder message
	orderAt   int64        // its expireAt
	orderNext uint64       // no inOrder message is left below it
	// orderPages are the seqIndex pages, from orderNext's on, that inOrder
	// messages went into, each once, in order (and some gone since), so
	// that firstInOrderLocked steps from one to the next however far apart
	// their numbers are.
	orderPages []uint64
	delayed    int
	inFlight   int
	scratch    []byte // encoding buffer for store records
	// rewrites are the records a write's putStateTx calls return, in
	// order, for setRecordLocked once the write is done.
	rewrites  []string
	stats     queueStats
	sub       *Subscription
	parts     partitioning
	waiters   waiterList    // receives blocked until a message may be theirs
	waitTimer *waitTimer    // set while receives wait and a delay or lease is to end
	woken     int           // receives that have left their wait and not yet tried again
	settled   sync.Cond     // on mu; broadcast when woken falls to zero
	watching  int           // waits blocked on the current changed
	changed   chan struct{} // closed and replaced when any message changes state
}

// newQueue makes the queue of rec, whose IDKey its maker checked.
func newQueue(e *Engine, rec *queueRecord) *Queue {
	ids, err := newMessageIDs(rec.IDKey)
	if err != nil {
		panic("engine: queue " + rec.Name + ": " + err.Error())
	}
	q := &Queue{
		idKey:     rec.IDKey,
		ids:       ids,
		e:         e,
		id:        rec.ID,
		num:       rec.Num,
		keyspace:  keyspaceOf(rec.Num),
		name:      rec.Name,
		ns:        rec.namespace(),
		arn:       rec.namespace().Arn(rec.Name),
		created:   time.Unix(0, rec.Created),
		modified:  time.Unix(0, rec.Modified),
		tags:      rec.Tags,
		lastPurge: time.Unix(0, rec.LastPurge),
		sub:       rec.Subscription,
		groups:    map[string]*group{},
		changed:   make(chan struct{}),
		fifo:      rec.Attributes.FifoQueue,
	}
	q.settled.L = &q.mu
	q.ready = newReadyList(&q.msgs)
	if rec.LastPurge == 0 {
		q.lastPurge = time.Time{}
	}
	if u, err := uuid.Parse(rec.ID); err == nil {
		q.uuid = u
	}
	a := rec.Attributes
	q.attrs.Store(&a)
	return q
}

// Namespace is the account and region the queue lives in.
func (q *Queue) Namespace() Namespace { return q.ns }

func (q *Queue) ref() queueRef { return queueRef{q.ns, q.name} }

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
	return Counts{Visible: q.visible, InFlight: q.inFlight, Delayed: q.delayed}
}

// saveLocked writes the queue's record. A deleted queue's record is never
// written again: it would bring the queue back at the next start.
func (q *Queue) saveLocked() error {
	if q.deleted {
		return errNoQueue()
	}
	return q.e.store.putQueue(q.record())
}

func (q *Queue) record() *queueRecord {
	rec := &queueRecord{
		ID: q.id, Name: q.name, Account: q.ns.Account, Region: q.ns.Region, Num: q.num, Created: q.created.UnixNano(), Modified: q.modified.UnixNano(),
		Attributes: q.Attributes(), Tags: q.tags, Subscription: q.sub, IDKey: q.idKey,
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
	if err := u.validate(a.FifoQueue, q.e.opts.Limits); err != nil {
		return err
	}
	if u.FifoQueue != nil && !*u.FifoQueue {
		return ErrInvalidAttribute("FifoQueue", *u.FifoQueue, ReasonTypeFixed)
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
	if err := a.check(); err != nil {
		return err
	}
	now := q.e.clock.Now()
	rec := q.record()
	rec.Attributes, rec.Modified = a, now.UnixNano()
	if err := q.e.store.putQueue(rec); err != nil {
		return err
	}
	q.attrs.Store(&a)
	q.modified = now
	return nil
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

// ReplaceTags makes tags the queue's whole set of tags, in one change:
// tags that are not named are removed.
func (q *Queue) ReplaceTags(tags map[string]string) error {
	next := maps.Clone(tags)
	if err := validateTags(next); err != nil {
		return err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.saveTagsLocked(next)
}

func (q *Queue) saveTagsLocked(tags map[string]string) error {
	if q.deleted {
		return errNoQueue()
	}
	old := q.tags
	q.tags = tags
	if err := q.saveLocked(); err != nil {
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
		return ErrPurgeTooSoon(q.name)
	}
	if err := q.emptyLocked(now); err != nil {
		return err
	}
	q.clearLocked()
	return nil
}

// emptyLocked deletes every message of q from the store, with lastPurge
// (the zero time for none) in its record and its sequence counter kept, in
// one transaction; then lastPurge is set in memory too. The caller clears
// the messages from memory once it succeeds.
func (q *Queue) emptyLocked(lastPurge time.Time) error {
	rec := q.record()
	rec.LastPurge = 0
	if !lastPurge.IsZero() {
		rec.LastPurge = lastPurge.UnixNano()
	}
	if err := q.saveSeq(q.seq.Load()); err != nil { // sequence numbers go on increasing
		return err
	}
	err := q.e.store.update(func(tx recordTx) error {
		if err := deleteMessagesTx(tx, q.keyspace); err != nil {
			return err
		}
		return putQueueTx(tx, rec)
	})
	if err != nil {
		return err
	}
	q.lastPurge = lastPurge
	return nil
}

// clearLocked drops every message from memory; the caller removes them from
// the store.
func (q *Queue) clearLocked() {
	q.stats.removed += int64(q.msgs.len())
	q.stats.storedBytes = 0
	q.msgs.reset()
	clear(q.groups)
	q.attempts = attemptCache{}
	q.available.reset()
	q.visible = 0
	q.ready.reset()
	q.timers.reset()
	q.expiry.reset()
	q.orderNext, q.orderPages = q.orderSeq+1, nil
	q.delayed, q.inFlight = 0, 0
	q.changedLocked()
}

// insertLocked indexes a copy of entry, a new message, by its state, and
// returns the message indexed, which stands for it from then on.
func (q *Queue) insertLocked(entry *message) *message {
	// A message expiring before the latest inOrder one starts their run
	// again if none is left.
	entry.inOrder = entry.seq > q.orderSeq && entry.seq < math.MaxUint64 && (entry.expireAt >= q.orderAt || q.firstInOrderLocked() == nil)
	m := q.msgs.put(entry)
	q.stats.storedBytes += int64(len(m.record()))
	if m.group != nil {
		m.group.members++
	}
	if m.inOrder {
		q.orderSeq, q.orderAt = m.seq, m.expireAt
		if k := m.seq >> seqPageBits; len(q.orderPages) == 0 || q.orderPages[len(q.orderPages)-1] != k {
			if len(q.orderPages) > 2*q.msgs.pageCount()+compactSlack {
				// Most are pages gone since: at most pageCount are not.
				q.orderPages = slices.DeleteFunc(q.orderPages, func(k uint64) bool { return q.msgs.page(k) == nil })
			}
			q.orderPages = append(q.orderPages, k)
		}
	} else {
		q.expiry.push(m.expireAt, m)
	}
	q.e.dueAt(m.expireAt)
	q.setStateLocked(m, m.state, false)
	return m
}

// setStateLocked puts m, which is in no state, into state s: a ready message
// joins the ready list (at the front if it is a redelivery), a delayed or
// leased one waits in timers until its visibleAt.
func (q *Queue) setStateLocked(m *message, s uint8, redelivery bool) {
	q.changedLocked()
	m.state = s
	switch s {
	case stateReady:
		q.visible++
		switch {
		case q.fifo:
			insertSorted(&m.group.ready, m, redelivery)
		case redelivery:
			q.ready.pushFront(m)
		default:
			q.ready.pushBack(m)
		}
		if !q.fifo { // a FIFO queue's groups wake receives as they become available
			q.wakeLocked(1)
		}
	case stateDelayed:
		q.delayed++
		q.timers.push(m.visibleAt, m)
		q.e.dueAt(m.visibleAt)
		q.armWaitTimerLocked(m.visibleAt)
	case stateInFlight:
		q.inFlight++
		q.timers.push(m.visibleAt, m)
		q.e.dueAt(m.visibleAt)
		q.armWaitTimerLocked(m.visibleAt)
		if m.group != nil {
			m.group.inFlight++
			if q.fifo {
				insertHeld(&m.group.held, m)
			}
		}
	}
	if m.group != nil {
		q.updateAvailabilityLocked(m.group)
	}
}

// extendLocked moves the deadline of m, which is in flight and stays so.
// Unlike unstateLocked and setStateLocked it leaves m's place in its
// group's held list alone, so extending a lease costs O(log n) however many
// of the group's messages are in flight.
func (q *Queue) extendLocked(m *message, visibleAt int64) {
	q.changedLocked()
	m.visibleAt = visibleAt
	q.timers.push(visibleAt, m)
	q.armWaitTimerLocked(visibleAt)
}

// unstateLocked takes m out of its state's list and count; its timers entry,
// if any, goes stale.
func (q *Queue) unstateLocked(m *message) {
	q.changedLocked()
	switch m.state {
	case stateReady:
		q.visible--
		if q.fifo {
			m.group.ready.remove(m)
		} else {
			q.ready.remove(m)
		}
	case stateDelayed:
		q.delayed--
	case stateInFlight:
		q.inFlight--
		if m.group != nil {
			m.group.inFlight--
			if q.fifo {
				m.group.held.remove(m)
			}
		}
	}
	if m.group != nil {
		q.updateAvailabilityLocked(m.group)
	}
}

// setRecordLocked gives m the record rec, which a change of its state
// rewrote.
func (q *Queue) setRecordLocked(m *message, rec string) {
	q.stats.storedBytes += int64(len(rec) - len(m.record()))
	m.setRecord(rec)
}

// removeLocked forgets m entirely, and returns what it was: m itself then
// holds only its number.
func (q *Queue) removeLocked(m *message) message {
	q.unstateLocked(m)
	m.gone = true
	was := *m
	q.msgs.remove(m.seq)
	q.stats.storedBytes -= int64(len(was.record()))
	q.stats.removed++
	if g := was.group; g != nil {
		g.members--
		q.updateAvailabilityLocked(g)
	}
	// Messages mostly go in the order they came, so m's entries are often
	// at the heaps' tops: dropping them now keeps the tops live for the
	// sweeper and for waits, at the cost they would have later.
	q.trimLocked()
	q.compactLocked()
	return was
}

// A timers entry holds while its message waits for that very instant; an
// expiry entry while its message is still there.
func timerLive(e deadlineEntry) bool {
	return !e.m.gone && e.m.state != stateReady && e.m.visibleAt == e.at
}

func expiryLive(e deadlineEntry) bool { return !e.m.gone }

// firstInOrderLocked returns the inOrder message that expires first, the
// one of the lowest sequence number still there, or nil for none. The
// search goes on from where the last one ended, since no inOrder message
// is ever added below the latest: through the slots of orderNext's page,
// then to the next of orderPages, so that a search costs at most a page's
// slots for each page an inOrder message went into.
func (q *Queue) firstInOrderLocked() *message {
	for q.orderNext <= q.orderSeq {
		k := q.orderNext >> seqPageBits
		if p := q.msgs.page(k); p != nil {
			if m := p.at(q.orderNext & (seqPageSize - 1)); m != nil && m.inOrder {
				return m
			}
			if (q.orderNext+1)>>seqPageBits == k {
				q.orderNext++
				continue
			}
		}
		for len(q.orderPages) > 0 && q.orderPages[0] <= k {
			q.orderPages = q.orderPages[1:]
		}
		if len(q.orderPages) == 0 {
			q.orderNext = q.orderSeq + 1
		} else {
			q.orderNext = q.orderPages[0] << seqPageBits
		}
	}
	return nil
}

// compactSlack keeps small heaps from being compacted over and over.
const compactSlack = 64

// compactLocked drops stale heap entries once they outnumber live ones.
func (q *Queue) compactLocked() {
	if q.timers.len() > 2*(q.inFlight+q.delayed)+compactSlack {
		q.timers.compact(timerLive)
	}
	if q.expiry.len() > 2*q.msgs.len()+compactSlack {
		q.expiry.compact(expiryLive)
	}
}

// advance makes due messages visible and drops expired ones. It is a pure
// function of now over the deadline heaps: no state is written for a lease
// that ends, since a restart reaches the same conclusion from visibleAt.
func (q *Queue) advance(now int64) {
	q.samplePartitionsLocked(now)
	var returned []*message
	for e, ok := q.timers.peek(); ok && e.at <= now; e, ok = q.timers.peek() {
		q.timers.pop()
		if !timerLive(e) {
			continue
		}
		if e.m.state == stateInFlight {
			returned = append(returned, e.m)
			continue
		}
		q.unstateLocked(e.m)
		q.setStateLocked(e.m, stateReady, false)
	}
	// Messages whose leases ended go to the front, oldest first.
	slices.SortFunc(returned, func(a, b *message) int { return cmp.Compare(b.seq, a.seq) })
	for _, m := range returned {
		q.unstateLocked(m)
		q.setStateLocked(m, stateReady, true)
	}
	q.dedup.expire(now)
	q.attempts.expire(now)
	var expired []*message
	for e, ok := q.expiry.peek(); ok && e.at <= now; e, ok = q.expiry.peek() {
		q.expiry.pop()
		if !expiryLive(e) {
			continue
		}
		q.removeLocked(e.m)
		expired = append(expired, e.m)
	}
	for m := q.firstInOrderLocked(); m != nil && m.expireAt <= now; m = q.firstInOrderLocked() {
		q.removeLocked(m)
		expired = append(expired, m)
	}
	if len(expired) > 0 {
		// An expired message is gone whether or not the store forgets it now:
		// one left behind by a failed write expires again when loaded.
		q.deleteStored(expired)
	}
}

// loadMessages rebuilds the in-memory index from the store. A store of
// format 3 has message records alone, which hold their states; one of
// format 1 or 2 may have state records too, which count until each
// message's next change rewrites its record, and stay until it goes.
// Message and state records both sort by sequence number, so one pass
// over each pairs them, with no lookup a message; a record is read for
// what the index keeps alone. A deep queue's records are decoded by two
// goroutines, each over a range of keys (see splitLoad), while this one
// indexes them in order.
func (q *Queue) loadMessages(now int64) error {
	return q.e.store.view(func(tx recordTx) error {
		if err := q.loadSeqTx(tx); err != nil {
			return err
		}
		states, err := stateRecordsTx(tx, q.keyspace)
		if err != nil {
			return err
		}
		if len(states) > 0 {
			q.e.store.legacy = true
		}
		first, last, err := seqRangeTx(tx, q.keyspace)
		if err != nil {
			return err
		}
		n, err := tx.count()
		if err != nil {
			return err
		}
		most := 0 // there are at most `most` records
		if first <= last {
			most = int(min(uint64(n), last-first+1))
		}
		split := q.splitLoad(first, last)
		at := len(states) // states[:at] are those of the records before split
		if split != 0 {
			at, _ = slices.BinarySearchFunc(states, split, func(st storedState, seq uint64) int { return cmp.Compare(st.seq, seq) })
		}
		var (
			chunks  chan []loadedEntry // of the records from split on
			tailErr error
		)
		if split != 0 {
			// Room for every chunk, so that the decoding never waits.
			chunks = make(chan []loadedEntry, most/loadChunk+1)
			go func() {
				defer close(chunks)
				chunk := make([]loadedEntry, 0, loadChunk)
				tailErr = q.decodeMessages(tx, split, 0, states[at:], func(e loadedEntry) {
					if chunk = append(chunk, e); len(chunk) == cap(chunk) {
						chunks <- chunk
						chunk = make([]loadedEntry, 0, loadChunk)
					}
				})
				chunks <- chunk
			}()
		}
		err = q.decodeMessages(tx, 0, split, states[:at], func(e loadedEntry) { q.loadEntryLocked(e, now) })
		if chunks != nil {
			for chunk := range chunks {
				for _, e := range chunk {
					q.loadEntryLocked(e, now)
				}
			}
		}
		return errors.Join(err, tailErr)
	})
}

// The split of a deep queue's load: loadSplitSpan is the least span of
// sequence numbers split, and loadHeadShare the share of the span that
// the loading goroutine decodes itself, as it indexes every message too.
// The other's records come in chunks of loadChunk.
var loadSplitSpan uint64 = 1 << 14

const (
	loadHeadShare = 0.45
	loadChunk     = 1024
)

// splitLoad returns the sequence number from which a second goroutine
// decodes the records of a keyspace whose sequence numbers go from first
// to last, which is past first; 0 when it is not worth one. Only a file store holds message
// records, and its transactions can be read from two goroutines at once.
func (q *Queue) splitLoad(first, last uint64) uint64 {
	if !q.e.store.durable || last < first || last-first < loadSplitSpan {
		return 0
	}
	return first + uint64(float64(last-first)*loadHeadShare)
}

// seqRangeTx returns the first and last sequence numbers of the message
// records of keyspace; first is above last when there are none.
func seqRangeTx(tx recordTx, keyspace string) (first, last uint64, err error) {
	found := false
	err = tx.ascendMessages(keyspace, 0, func(seq uint64, _ string) bool {
		first, found = seq, true
		return false
	})
	if err != nil || !found {
		return 1, 0, err
	}
	k, _, err := tx.last(recordPrefix(messagePrefix, keyspace))
	if err != nil {
		return 1, 0, err
	}
	if _, seq, ok := splitMessageKey(k); ok {
		return first, seq, nil
	}
	// A key of another form sorts last: the records' own end, the long way.
	last = first
	err = tx.ascendMessages(keyspace, first, func(seq uint64, _ string) bool {
		last = seq
		return true
	})
	return first, last, err
}

// loadedEntry is a message's index entry as decoded from its record, with
// its group id.
type loadedEntry struct {
	m     message
	group string
}

// decodeMessages decodes the records of q's messages numbered from from
// up to, not including, to (0 for no end), pairing each with its state
// record in states, which holds those of the range, and calls fn with each
// entry in order.
func (q *Queue) decodeMessages(tx recordTx, from, to uint64, states []storedState, fn func(loadedEntry)) error {
	next := 0 // the first of states not yet paired with a message
	err := tx.ascendMessages(q.keyspace, from, func(seq uint64, v string) bool {
		if to != 0 && seq >= to {
			return false
		}
		if seq == 0 { // never a message's: a readyList's end
			q.e.log.Error("skipping a message record numbered 0", "key", messageKey(q.keyspace, seq))
			return true
		}
		for ; next < len(states) && states[next].seq < seq; next++ {
			q.e.log.Warn("state without message record", "key", stateKey(q.keyspace, states[next].seq))
		}
		state := ""
		if next < len(states) && states[next].seq == seq {
			state = states[next].v
			next++
		}
		e := loadedEntry{m: message{seq: seq}}
		m := &e.m
		m.setRecord(v) // the string the store holds
		group, has, current, err := decodeIndex(v, m)
		switch {
		case err != nil:
			q.e.log.Error("skipping unreadable message", "key", messageKey(q.keyspace, seq), "err", err)
			return true
		case current:
			// A state record beside it is older: putStateTx leaves it.
		case state != "":
			if err := decodeState(state, m); err != nil {
				q.e.log.Error("skipping unreadable message state", "key", messageKey(q.keyspace, seq), "err", err)
				return true
			}
		case !has:
			q.e.log.Warn("message record without state", "key", messageKey(q.keyspace, seq))
			return true
		}
		e.group = group
		fn(e)
		return true
	})
	for _, st := range states[next:] {
		q.e.log.Warn("state without message record", "key", stateKey(q.keyspace, st.seq))
	}
	return err
}

// loadEntryLocked indexes a loaded message, which is due now if its
// visibility timeout or delay ran out while the store was closed.
func (q *Queue) loadEntryLocked(e loadedEntry, now int64) {
	m := &e.m
	if e.group != "" {
		m.group = q.groupLocked(e.group)
	}
	if m.seq > q.seq.Load() {
		q.seq.Store(m.seq)
	}
	if m.state != stateReady && m.visibleAt <= now {
		m.state = stateReady
	}
	q.insertLocked(m)
}

// storedState is a state record as loadMessages pairs it.
type storedState struct {
	seq uint64
	v   string
}

// stateRecordsTx lists a keyspace's state records in key order, which is
// the order of their sequence numbers.
func stateRecordsTx(tx recordTx, keyspace string) ([]storedState, error) {
	var states []storedState
	err := tx.ascend(recordPrefix(statePrefix, keyspace), func(k, v string) bool {
		if seq, ok := parseSeq(k); ok {
			states = append(states, storedState{seq, v})
		}
		return true
	})
	return states, err
}
