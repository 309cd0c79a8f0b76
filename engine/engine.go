// Package engine is minisqs's queue engine: queues, messages, leases, delays,
// retention and dead-lettering, in memory or persisted in a buntdb file. It
// knows nothing of HTTP or of any wire format; every front end drives the
// same methods.
package engine

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
)

// Options configure an Engine. The zero value is an in-memory engine on the
// wall clock, which Advance can move forward, with AWS's defaults.
type Options struct {
	// Path is the buntdb file; empty keeps everything in memory.
	Path  string
	Fsync FsyncPolicy
	Clock Clock
	// Random supplies message ids and receipt-handle tokens.
	Random    io.Reader
	Region    string
	AccountID string
	// SkipCooldowns lifts the 60-second rules on PurgeQueue and on reusing a
	// deleted queue's name, for suites that purge or recreate queues often.
	SkipCooldowns bool
	Logger        *slog.Logger
	// FailWrites, when set, is asked before every store write; an error it
	// returns fails that write as a full disk would. Tests use it to prove
	// that a change the store did not record is neither answered as done
	// nor kept in memory.
	FailWrites func() error
	// Limits is the profile of limits to enforce; the zero value is
	// AWSLimits.
	Limits Limits
}

// Defaults for Options.
const (
	DefaultRegion    = "us-east-1"
	DefaultAccountID = "000000000000"
	sweepInterval    = time.Second
)

// Engine owns every queue. Lock order: a goroutine holding a Queue.mu may
// take Engine.mu or the tasks' lock, never the reverse, and never holds two
// Queue.mu at once; the store's own lock is innermost.
type Engine struct {
	opts    Options
	clock   Clock
	store   *store
	handles *handleSigner
	log     *slog.Logger

	mu        sync.RWMutex // guards queues, byID, deletedAt and lastNum
	queues    map[queueRef]*Queue
	byID      map[string]*Queue
	deletedAt map[queueRef]time.Time
	lastNum   uint64 // highest queue number ever given out, as stored

	tasks moveTasks

	watchMu  sync.Mutex // guards watchers
	watchers []func(*Queue)

	// sweepAt is when the sweeper runs next, in the clock's Unix
	// nanoseconds: math.MaxInt64 while nothing is due, math.MinInt64 until
	// its first run. dueAt lowers it and wakes the sweeper through sweepWake.
	sweepAt   atomic.Int64
	sweepWake chan struct{} // holds at most one wake-up

	changes changeSignal

	closing     chan struct{} // closed to end long polls and the sweeper
	closingOnce sync.Once
	closeOnce   sync.Once
	sweeperWG   sync.WaitGroup
}

// Open opens the store, loads every queue and message, and starts the
// sweeper that expires messages and ends leases on idle queues.
func Open(opts Options) (*Engine, error) {
	if opts.Clock == nil {
		opts.Clock = NewOffsetClock()
	}
	if opts.Random == nil {
		opts.Random = &randomBuffer{src: rand.Reader}
	}
	if opts.Region == "" {
		opts.Region = DefaultRegion
	}
	if opts.AccountID == "" {
		opts.AccountID = DefaultAccountID
	}
	if opts.Limits == (Limits{}) {
		opts.Limits = AWSLimits
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	st, err := openStore(opts.Path, opts.Fsync, opts.Logger, opts.FailWrites)
	if err != nil {
		return nil, err
	}
	handles, err := loadHandleSigner(st, opts.Random)
	if err != nil {
		st.close()
		return nil, fmt.Errorf("receipt handle key: %w", err)
	}
	e := &Engine{
		handles:   handles,
		opts:      opts,
		clock:     opts.Clock,
		store:     st,
		log:       opts.Logger,
		queues:    map[queueRef]*Queue{},
		byID:      map[string]*Queue{},
		deletedAt: map[queueRef]time.Time{},
		sweepWake: make(chan struct{}, 1),
		closing:   make(chan struct{}),
	}
	e.sweepAt.Store(math.MinInt64)
	if err := e.restoreOffset(); err != nil {
		st.close()
		return nil, fmt.Errorf("load clock offset: %w", err)
	}
	if err := e.load(); err != nil {
		st.close()
		return nil, err
	}
	if err := e.loadTasks(); err != nil {
		st.close()
		return nil, fmt.Errorf("load move tasks: %w", err)
	}
	e.sweeperWG.Add(1)
	go e.sweep()
	return e, nil
}

// EndLongPolls makes every waiting receive, and every later one, answer at
// once with what is available; a server calls it before draining requests.
func (e *Engine) EndLongPolls() {
	e.closingOnce.Do(func() { close(e.closing) })
}

// Close stops background work, ends waiting receives and closes the store,
// flushing it to disk.
func (e *Engine) Close() error {
	var err error
	e.closeOnce.Do(func() {
		e.EndLongPolls()
		e.sweeperWG.Wait()
		e.tasks.wg.Wait()
		err = e.store.close()
	})
	return err
}

// Region and AccountID name where queues live, for ARNs and URLs.
func (e *Engine) Region() string    { return e.opts.Region }
func (e *Engine) AccountID() string { return e.opts.AccountID }

// Limits is the profile of limits the engine enforces, which front ends
// enforce too.
func (e *Engine) Limits() Limits { return e.opts.Limits }

// Now is the engine clock's current time.
func (e *Engine) Now() time.Time { return e.clock.Now() }

// Clock is the engine's clock, for work beside the engine that must keep
// the same time.
func (e *Engine) Clock() Clock { return e.clock }

// randomBuffer reads ahead from a source of randomness, so that the ids and
// nonces of messages, 24 bytes a message, do not cost a system call each.
type randomBuffer struct {
	mu   sync.Mutex // guards buf and left
	src  io.Reader
	buf  [512]byte
	left int // unread bytes, at the end of buf
}

func (r *randomBuffer) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for n < len(p) {
		if r.left == 0 {
			if _, err := io.ReadFull(r.src, r.buf[:]); err != nil {
				return n, err
			}
			r.left = len(r.buf)
		}
		k := copy(p[n:], r.buf[len(r.buf)-r.left:])
		r.left -= k
		n += k
	}
	return n, nil
}

// newID makes a random (version 4) UUID.
func (e *Engine) newID() (string, error) {
	var u [16]byte
	if err := e.putRawIDs(u[:]); err != nil {
		return "", err
	}
	var b [uuidLen]byte
	return string(appendUUID(b[:0], u[:])), nil
}

// uuidLen is the length of a UUID's text.
const uuidLen = 36

// putRawIDs fills b, whose length is a multiple of 16, with random
// (version 4) UUIDs, raw, which appendUUID renders as newID returns them.
// The randomness for all is read at once.
func (e *Engine) putRawIDs(b []byte) error {
	r, ok := e.opts.Random.(*randomBuffer)
	if ok {
		// Read directly, not through io.Reader, so that b stays on the
		// caller's stack.
		if _, err := r.Read(b); err != nil {
			return err
		}
	}
	for i := 0; i+16 <= len(b); i += 16 {
		u := b[i : i+16]
		if !ok {
			v, err := uuid.NewRandomFromReader(e.opts.Random)
			if err != nil {
				return err
			}
			copy(u, v[:])
		}
		u[6] = u[6]&0x0f | 0x40 // the version, as uuid.NewRandom sets it
		u[8] = u[8]&0x3f | 0x80 // and the variant
	}
	return nil
}

func (e *Engine) load() error {
	var recs []*queueRecord
	err := e.store.view(func(tx recordTx) error {
		return tx.ascend(queuePrefix, func(k, v string) bool {
			rec := &queueRecord{}
			if err := json.Unmarshal([]byte(v), rec); err != nil {
				e.log.Error("skipping unreadable queue record", "key", k, "err", err)
				return true
			}
			recs = append(recs, rec)
			return true
		})
	})
	if err != nil {
		return fmt.Errorf("load queues: %w", err)
	}
	if e.lastNum, err = e.store.lastNum(); err != nil {
		return fmt.Errorf("load queue counter: %w", err)
	}
	for _, rec := range recs {
		e.lastNum = max(e.lastNum, rec.Num)
	}
	// A queue stored before namespaces that is stored in the default one
	// too was placed there by a load killed before it dropped the old
	// record: the new record counts.
	ns := e.DefaultNamespace()
	placed := map[string]bool{}
	for _, rec := range recs {
		if rec.Account != "" {
			placed[queueKey(rec.namespace(), rec.Name)] = true
		}
	}
	now := e.clock.Now().UnixNano()
	for _, rec := range recs {
		if rec.Account == "" {
			if placed[queueKey(ns, rec.Name)] {
				if err := e.store.dropOldQueue(rec.Name); err != nil {
					return fmt.Errorf("drop the old record of queue %s: %w", rec.Name, err)
				}
				continue
			}
			if err := e.store.placeQueue(rec, ns); err != nil {
				return fmt.Errorf("place queue %s in the default namespace: %w", rec.Name, err)
			}
			rec.Account, rec.Region = ns.Account, ns.Region
		}
		if rec.Num == 0 {
			if err := e.numberQueue(rec); err != nil {
				return fmt.Errorf("number queue %s: %w", rec.Name, err)
			}
		}
		if _, err := newMessageIDs(rec.IDKey); err != nil {
			if len(rec.IDKey) != 0 {
				e.log.Warn("queue record with a bad message-id key; it gets a new one", "queue", rec.Name, "err", err)
			}
			if err := e.keyQueue(rec); err != nil {
				return fmt.Errorf("key queue %s: %w", rec.Name, err)
			}
		}
		if err := e.store.migrateKeys(rec.ID, keyspaceOf(rec.Num)); err != nil {
			return fmt.Errorf("move the messages of queue %s to its keyspace: %w", rec.Name, err)
		}
		q := newQueue(e, rec)
		if err := q.loadMessages(now); err != nil {
			return fmt.Errorf("load queue %s: %w", rec.Name, err)
		}
		e.queues[q.ref()] = q
		e.byID[q.id] = q
	}
	return nil
}

// numberQueue gives a queue stored before queues had numbers the next one.
// Its messages move to its keyspace afterwards (store.migrateKeys), so that
// a kill that leaves the number unstored leaves no record in a keyspace
// that no queue then has.
func (e *Engine) numberQueue(rec *queueRecord) error {
	rec.Num = e.lastNum + 1
	if err := e.store.createQueue(rec); err != nil {
		rec.Num = 0
		return err
	}
	e.lastNum = rec.Num
	return nil
}

// keyQueue gives a queue stored before message-id keys one, and stores it.
// Its messages then all hold their ids.
func (e *Engine) keyQueue(rec *queueRecord) error {
	key, err := newIDKey(e.opts.Random)
	if err != nil {
		return err
	}
	keyed := *rec
	keyed.IDKey = key
	if err := e.store.putQueue(&keyed); err != nil {
		return err
	}
	rec.IDKey = key
	return nil
}

// The sweeper does what falls due while no request asks: it makes delayed
// messages and ended leases visible, waking the long polls that wait for
// them, expires messages, and ends deduplication windows and the cooldowns
// of deleted names. It sleeps until the soonest of those deadlines, never
// sooner than sweepInterval after its last run, and with nothing due it
// sleeps until something is: whatever sets a deadline earlier than its next
// run tells it through dueAt. Receive attempts are checked against the
// clock when used, so their windows need no run of their own; one ends at
// the next sweep or operation of its queue.
func (e *Engine) sweep() {
	defer e.sweeperWG.Done()
	for {
		// From here until the next run is set, every new deadline lowers
		// sweepAt, so none set while the queues are being swept is lost.
		e.sweepAt.Store(math.MaxInt64)
		now := e.clock.Now()
		next := e.sweepQueues(now.UnixNano())
		next = min(next, e.expireCooldowns(now))
		if !e.sleepUntil(next, now.UnixNano()+int64(sweepInterval)) {
			return
		}
	}
}

// sweepQueues advances every queue to now and returns the soonest deadline
// left in any of them, or math.MaxInt64.
func (e *Engine) sweepQueues(now int64) int64 {
	next := int64(math.MaxInt64)
	for _, q := range e.AllQueues() {
		q.mu.Lock()
		q.advance(now)
		next = min(next, q.dueLocked())
		q.mu.Unlock()
	}
	return next
}

// sleepUntil waits until the clock reaches next, or notBefore if that is
// later, lowering next as dueAt reports earlier deadlines. It reports false
// when the engine closes.
func (e *Engine) sleepUntil(next, notBefore int64) bool {
	for {
		// A wake-up still pending has lowered sweepAt already.
		select {
		case <-e.sweepWake:
		default:
		}
		e.dueAt(next)
		next = e.sweepAt.Load()
		tick, stop := e.clock.After(time.Duration(max(next, notBefore) - e.clock.Now().UnixNano()))
		select {
		case <-e.closing:
			stop()
			return false
		case <-tick:
			return true
		case <-e.sweepWake:
			stop()
		}
	}
}

// ValidQueueName reports whether name is an SQS queue name: 1 to 80
// letters, digits, hyphens and underscores, with an optional ".fifo" suffix
// counted in the 80. An engine checks the names of new queues against its
// own Limits.
func ValidQueueName(name string) bool { return AWSLimits.ValidQueueName(name) }

// dueAt tells the sweeper that something falls due at the clock's instant
// at (Unix nanoseconds), and wakes it if that is before its next run. It
// takes no lock, so holders of any lock may call it.
func (e *Engine) dueAt(at int64) {
	for {
		next := e.sweepAt.Load()
		if at >= next {
			return
		}
		if e.sweepAt.CompareAndSwap(next, at) {
			break
		}
	}
	select {
	case e.sweepWake <- struct{}{}:
	default:
	}
}

// trimLocked drops the stale entries from the tops of q's deadline heaps,
// so that their tops are deadlines still to come.
func (q *Queue) trimLocked() {
	for d, ok := q.timers.peek(); ok && !timerLive(d); d, ok = q.timers.peek() {
		q.timers.pop()
	}
	for d, ok := q.expiry.peek(); ok && !expiryLive(d); d, ok = q.expiry.peek() {
		q.expiry.pop()
	}
}

// dueLocked returns the soonest instant at which something of q falls due:
// a message becoming visible or expiring, or a deduplication window or
// receive attempt ending; math.MaxInt64 for none.
func (q *Queue) dueLocked() int64 {
	q.trimLocked()
	next := int64(math.MaxInt64)
	if at := q.nextDeadlineLocked(); at != 0 {
		next = at
	}
	if len(q.dedup.order) > 0 {
		next = min(next, q.dedup.order[0].expires)
	}
	if len(q.attempts.order) > 0 {
		next = min(next, q.attempts.order[0].expires)
	}
	return next
}

// CreateQueue is CreateQueueIn the default namespace.
func (e *Engine) CreateQueue(name string, attrs AttributeUpdate, tags map[string]string) (*Queue, error) {
	return e.CreateQueueIn(e.DefaultNamespace(), name, attrs, tags)
}

// CreateQueueIn creates a queue in ns, or returns the existing one of that
// name when every attribute the call names has the value it already has.
func (e *Engine) CreateQueueIn(ns Namespace, name string, attrs AttributeUpdate, tags map[string]string) (*Queue, error) {
	if !e.opts.Limits.ValidQueueName(name) {
		return nil, ErrQueueName(name, e.opts.Limits)
	}
	// A ".fifo" name is a FIFO queue's; a FIFO queue made outside SQS (the
	// REST API) may have any name.
	fifo := attrs.FifoQueue != nil && *attrs.FifoQueue
	switch {
	case strings.HasSuffix(name, ".fifo") && attrs.FifoQueue == nil:
		return nil, ErrInvalidParameter("FifoQueue", nil, ReasonFifoAttrMissing)
	case strings.HasSuffix(name, ".fifo") && !fifo:
		return nil, ErrInvalidAttribute("FifoQueue", false, ReasonFifoName)
	}
	if err := attrs.validate(fifo, e.opts.Limits); err != nil {
		return nil, err
	}
	if err := validateTags(tags); err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	ref := queueRef{ns, name}
	if q, ok := e.queues[ref]; ok {
		if diff := attrs.differing(q.Attributes()); len(diff) > 0 {
			return nil, ErrQueueConflict(diff)
		}
		return q, nil
	}
	if max := e.opts.Limits.MaxQueues; max > 0 && e.countQueuesLocked(ns) >= max {
		return nil, ErrQueueLimit(max)
	}
	if at, ok := e.deletedAt[ref]; ok && !e.opts.SkipCooldowns && e.clock.Now().Sub(at) < DeleteQueueCooldown {
		return nil, ErrNameDeletedRecently()
	}
	a := e.opts.Limits.DefaultAttributes(fifo)
	if err := e.checkRedriveLocked(ns.Arn(name), attrs.RedrivePolicy, fifo); err != nil {
		return nil, err
	}
	attrs.apply(&a)
	if err := a.check(); err != nil {
		return nil, err
	}
	id, err := e.newID()
	if err != nil {
		return nil, err
	}
	key, err := newIDKey(e.opts.Random)
	if err != nil {
		return nil, err
	}
	now := e.clock.Now().UnixNano()
	rec := &queueRecord{ID: id, Name: name, Account: ns.Account, Region: ns.Region, Num: e.lastNum + 1, Created: now, Modified: now, Attributes: a, Tags: maps.Clone(tags), IDKey: key}
	if err := e.store.createQueue(rec); err != nil {
		return nil, err
	}
	e.lastNum = rec.Num
	q := newQueue(e, rec)
	e.queues[ref] = q
	e.byID[id] = q
	delete(e.deletedAt, ref)
	e.changes.announce()
	return q, nil
}

// checkRedriveLocked checks that a redrive policy names an existing queue of
// the right type whose RedriveAllowPolicy admits the source. e.mu is held.
func (e *Engine) checkRedriveLocked(sourceArn string, p *RedrivePolicy, fifo bool) error {
	return e.checkRedrive(sourceArn, p, fifo, func(ns Namespace, name string) (QueueAttributes, bool) {
		q, ok := e.queues[queueRef{ns, name}]
		if !ok {
			return QueueAttributes{}, false
		}
		return q.Attributes(), true
	})
}

// checkRedrive is checkRedriveLocked over the queues that settings finds by
// namespace and name, which may be queues not yet made (Load). The
// dead-letter queue may be in another account or region: SQS's guide only
// advises keeping them together ("Using dead-letter queues in Amazon SQS").
func (e *Engine) checkRedrive(sourceArn string, p *RedrivePolicy, fifo bool, settings func(ns Namespace, name string) (QueueAttributes, bool)) error {
	if p == nil {
		return nil
	}
	region, account, name, _ := parseQueueArn(p.DeadLetterTargetArn)
	dlqNS := Namespace{Account: account, Region: region}
	da, ok := settings(dlqNS, name)
	if !ok {
		return ErrRedrivePolicy(p.DeadLetterTargetArn, ReasonTargetMissing, "")
	}
	if da.FifoQueue != fifo {
		return ErrRedrivePolicy(p.DeadLetterTargetArn, ReasonTargetMismatch, "")
	}
	if !da.RedriveAllowPolicy.allows(sourceArn) {
		return ErrRedrivePolicy(p.DeadLetterTargetArn, ReasonTargetRefuses, dlqNS.Arn(name))
	}
	return nil
}

// Queue returns the queue called name in the default namespace.
func (e *Engine) Queue(name string) (*Queue, error) {
	return e.QueueIn(e.DefaultNamespace(), name)
}

// QueueByID returns the queue with the given UUID.
func (e *Engine) QueueByID(id string) (*Queue, error) {
	e.mu.RLock()
	q, ok := e.byID[id]
	e.mu.RUnlock()
	if !ok {
		return nil, errNoQueue()
	}
	return q, nil
}

// QueueByArn returns the queue an ARN names.
func (e *Engine) QueueByArn(arn string) (*Queue, error) {
	region, account, name, ok := parseQueueArn(arn)
	if !ok {
		return nil, errNoQueue()
	}
	return e.QueueIn(Namespace{Account: account, Region: region}, name)
}

func errNoQueue() error {
	return ErrQueueMissing("")
}

// Queues lists the queues of the default namespace whose names start with
// prefix, sorted by name.
func (e *Engine) Queues(prefix string) []*Queue {
	return e.QueuesIn(e.DefaultNamespace(), prefix)
}

// DeleteQueue deletes q and its messages. Waiting receives on it end with
// QueueDoesNotExist and its receipt handles go stale.
func (e *Engine) DeleteQueue(q *Queue) error {
	if err := e.deleteQueue(q); err != nil {
		return err
	}
	e.subscriptionsChanged(q)
	return nil
}

func (e *Engine) deleteQueue(q *Queue) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.deleted {
		return errNoQueue()
	}
	// The store first: a queue it still holds would come back at the next
	// start, with the sequence counter its messages' deletes need (saveSeq),
	// in case a kill keeps the queue.
	if err := q.saveSeq(q.seq.Load()); err != nil {
		return err
	}
	if err := e.store.deleteQueue(q.ns, q.name, q.id, q.keyspace); err != nil {
		return err
	}
	e.mu.Lock()
	if e.queues[q.ref()] == q {
		delete(e.queues, q.ref())
	}
	delete(e.byID, q.id)
	now := e.clock.Now()
	e.deletedAt[q.ref()] = now
	e.mu.Unlock()
	e.dueAt(now.Add(DeleteQueueCooldown).UnixNano())
	q.deleted = true
	q.clearLocked()
	q.wakeAllLocked()
	return nil
}

// DeadLetterSourceQueues lists the queues whose RedrivePolicy names q.
func (e *Engine) DeadLetterSourceQueues(q *Queue) []*Queue {
	var out []*Queue
	for _, src := range e.AllQueues() {
		if p := src.Attributes().RedrivePolicy; p != nil && p.DeadLetterTargetArn == q.arn {
			out = append(out, src)
		}
	}
	return out
}

func validateTags(tags map[string]string) error {
	if len(tags) > MaxTagsPerQueue {
		return ErrInvalidTags(ReasonTooMany, MaxTagsPerQueue)
	}
	for k, v := range tags {
		if k == "" || len(k) > MaxTagKeyLen {
			return ErrInvalidTags(ReasonKeyLength, MaxTagKeyLen)
		}
		if len(v) > MaxTagValueLen {
			return ErrInvalidTags(ReasonValueLength, MaxTagValueLen)
		}
		if !validText(k) || !validText(v) {
			return ErrInvalidTags(ReasonCharacters, 0)
		}
	}
	return nil
}
