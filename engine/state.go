package engine

// The engine's whole contents as one value: State reads them out and Load
// puts them back, for test fixtures and for saving a development setup.

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// State is everything an engine holds: its queues with their messages, and
// its move tasks. Times are instants of the engine's clock; State gives them
// in UTC.
type State struct {
	Queues    []QueueState
	MoveTasks []MoveTask
}

// QueueState is one queue, its settings and its messages.
type QueueState struct {
	// ID is the queue's UUID; Load makes one when it is empty.
	ID   string
	Name string
	// Account and Region are the queue's namespace; Load takes the
	// engine's own for either left empty.
	Account, Region   string
	Created, Modified time.Time
	Attributes        QueueAttributes
	Tags              map[string]string
	LastPurge         time.Time // zero when never purged
	Subscription      *Subscription
	// LastSequence is the highest sequence number the queue has given out;
	// after a restart on a store file, the highest it may have, as the file
	// reserves numbers ahead.
	// A FIFO queue's messages' SequenceNumbers are these numbers.
	LastSequence  uint64
	Messages      []MessageState // in sequence order
	Deduplication []DeduplicationState
}

// MessageStatus is where a message is in its life.
type MessageStatus string

// Message statuses.
const (
	MessageVisible  MessageStatus = "visible"
	MessageInFlight MessageStatus = "inFlight"
	MessageDelayed  MessageStatus = "delayed"
)

// MessageState is a stored message and where it is in its life.
type MessageState struct {
	Message
	Status MessageStatus
	// VisibleAt is when an in-flight or delayed message becomes visible.
	VisibleAt       time.Time
	ExpiresAt       time.Time
	ReceiveCount    int
	FirstReceivedAt time.Time // zero before the first receive
}

// DeduplicationState is a FIFO send remembered for the deduplication
// window: a send with the same ids before ExpiresAt is accepted and not
// stored.
type DeduplicationState struct {
	// GroupID is set when the queue deduplicates per message group.
	GroupID         string
	DeduplicationID string
	MessageID       string
	SequenceNumber  string
	ExpiresAt       time.Time
}

// State returns every queue, message and move task. Each queue is read
// whole under its own lock, after its due deadlines have been applied; the
// queues are not read at one instant, so take a state while nothing else
// runs when that matters.
func (e *Engine) State() (*State, error) {
	s := &State{Queues: []QueueState{}, MoveTasks: []MoveTask{}}
	for _, q := range e.AllQueues() {
		qs, err := q.state()
		if CodeOf(err) == ErrQueueDoesNotExist {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		s.Queues = append(s.Queues, qs)
	}
	e.tasks.mu.Lock()
	for _, t := range e.tasks.byHandle {
		s.MoveTasks = append(s.MoveTasks, t.MoveTask)
	}
	e.tasks.mu.Unlock()
	slices.SortFunc(s.MoveTasks, func(a, b MoveTask) int {
		return cmp.Or(cmp.Compare(a.Started, b.Started), strings.Compare(a.Handle, b.Handle))
	})
	return s, nil
}

func (q *Queue) state() (QueueState, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.deleted {
		return QueueState{}, errNoQueue()
	}
	q.advance(q.e.clock.Now().UnixNano())
	qs := QueueState{
		ID: q.id, Name: q.name, Account: q.ns.Account, Region: q.ns.Region, Created: utc(q.created), Modified: utc(q.modified),
		Attributes: q.Attributes(), Tags: maps.Clone(q.tags), LastPurge: utc(q.lastPurge),
		LastSequence: q.seq.Load(), Messages: []MessageState{},
	}
	if q.sub != nil {
		sub := *q.sub
		sub.Created = utc(sub.Created)
		if sub.LastDelivery != nil {
			d := *sub.LastDelivery
			d.At = utc(d.At)
			sub.LastDelivery = &d
		}
		qs.Subscription = &sub
	}
	for _, m := range q.msgs.ordered() {
		rec, err := decodeMessage(m, q.ids)
		if err != nil {
			q.e.log.Error("unreadable message record", "queue", q.name, "seq", m.seq, "err", err)
			continue
		}
		qs.Messages = append(qs.Messages, messageState(m, rec))
	}
	for key, d := range q.dedup.entries {
		ds := DeduplicationState{DeduplicationID: key, MessageID: d.messageID, SequenceNumber: d.sequenceNumber, ExpiresAt: utcNanos(d.expires)}
		if group, id, ok := strings.Cut(key, "\x00"); ok {
			ds.GroupID, ds.DeduplicationID = group, id
		}
		qs.Deduplication = append(qs.Deduplication, ds)
	}
	slices.SortFunc(qs.Deduplication, func(a, b DeduplicationState) int {
		return cmp.Or(a.ExpiresAt.Compare(b.ExpiresAt), strings.Compare(a.GroupID, b.GroupID), strings.Compare(a.DeduplicationID, b.DeduplicationID))
	})
	return qs, nil
}

func messageState(m *message, rec Message) MessageState {
	rec.SentAt = utc(rec.SentAt)
	r := m.receipt()
	ms := MessageState{Message: rec, Status: MessageVisible, ExpiresAt: utcNanos(m.expireAt), ReceiveCount: int(r.receiveCount)}
	switch m.state {
	case stateInFlight:
		ms.Status = MessageInFlight
	case stateDelayed:
		ms.Status = MessageDelayed
	}
	if m.state != stateReady {
		ms.VisibleAt = utcNanos(m.visibleAt)
	}
	if r.firstReceiveAt != 0 {
		ms.FirstReceivedAt = utcNanos(r.firstReceiveAt)
	}
	return ms
}

// utc gives t as State does: in UTC, without a monotonic reading, zero
// staying zero.
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return utcNanos(t.UnixNano())
}

func utcNanos(ns int64) time.Time { return time.Unix(0, ns).UTC() }

// Messages returns every message of the queue, in sequence order, without
// receiving any: no receipt handle, no receive counted.
func (q *Queue) Messages() ([]MessageState, error) {
	qs, err := q.state()
	return qs.Messages, err
}

// Load replaces everything the engine holds with s, in memory and in the
// store, as Reset and then a recreation of each queue, message and task
// would. A state that breaks a rule is refused whole and nothing changes.
// In-flight messages stay in flight until their VisibleAt, but no receipt
// handle of theirs is valid: their next receive gives one.
//
// Fields that a State from State always has may be left out of one written
// by hand: a queue's ID and times, a message's ID, send time, expiry,
// sender and FIFO sequence number, a subscription's slug, a task's start.
func (e *Engine) Load(s *State) error {
	w, err := e.build(s)
	if err != nil {
		return err
	}
	before := e.AllQueues()
	if err := e.replace(w); err != nil {
		return err
	}
	e.subscriptionsChanged(append(before, w.queues...)...)
	return nil
}

// stateError places a rule a state breaks.
func stateError(where string, err error) error {
	var ee *Error
	if !errors.As(err, &ee) {
		return ErrInvalidState(where, err.Error())
	}
	if ee.Kind == KindInvalidState {
		if ee.Name != "" {
			where += ": " + ee.Name
		}
		return ErrInvalidState(where, ee.Detail)
	}
	out := ErrInvalidState(where, "")
	out.Cause = ee
	return out
}

// build checks s and makes its queues, messages and tasks, shared with no
// one yet.
func (e *Engine) build(s *State) (*world, error) {
	now := e.clock.Now()
	if max := e.opts.Limits.MaxQueues; max > 0 && len(s.Queues) > max {
		return nil, ErrInvalidState(fmt.Sprintf("%d queues", len(s.Queues)), fmt.Sprintf("more than the limit of %d", max))
	}
	settings := map[queueRef]QueueAttributes{}
	for i := range s.Queues {
		qs := &s.Queues[i]
		ref := queueRef{e.Namespace(qs.Account, qs.Region), qs.Name}
		where := fmt.Sprintf("queue %d (%s)", i, qs.Name)
		if !e.opts.Limits.ValidQueueName(qs.Name) {
			return nil, ErrInvalidState(where, "the name is not a valid queue name")
		}
		if _, dup := settings[ref]; dup {
			return nil, ErrInvalidState(where, "a second queue of that name")
		}
		a := qs.Attributes
		if strings.HasSuffix(qs.Name, ".fifo") && !a.FifoQueue {
			return nil, ErrInvalidState(where, "a name ending in .fifo is a FIFO queue's")
		}
		u := a.asUpdate()
		if err := u.validate(a.FifoQueue, e.opts.Limits); err != nil {
			return nil, stateError(where, err)
		}
		if err := a.check(); err != nil {
			return nil, stateError(where, err)
		}
		settings[ref] = a
	}
	lookup := func(ns Namespace, name string) (QueueAttributes, bool) {
		a, ok := settings[queueRef{ns, name}]
		return a, ok
	}
	w := &world{}
	ids := map[string]bool{}
	for i := range s.Queues {
		qs := &s.Queues[i]
		where := "queue " + qs.Name
		q, msgs, err := e.buildQueue(qs, now, lookup)
		if err != nil {
			return nil, stateError(where, err)
		}
		if ids[q.id] {
			return nil, ErrInvalidState(where, fmt.Sprintf("the id %s is another queue's", q.id))
		}
		ids[q.id] = true
		w.queues = append(w.queues, q)
		w.records = append(w.records, msgs)
	}
	tasks, err := e.buildTasks(s.MoveTasks, now)
	if err != nil {
		return nil, err
	}
	w.tasks = tasks
	return w, nil
}

// asUpdate names every setting of a, for validate. A standard queue names
// FIFO settings only when they are set, which validate then refuses.
func (a QueueAttributes) asUpdate() AttributeUpdate {
	u := AttributeUpdate{
		DelaySeconds: &a.DelaySeconds, MaximumMessageSize: &a.MaximumMessageSize,
		MessageRetentionPeriod: &a.MessageRetentionPeriod, ReceiveMessageWaitTimeSeconds: &a.ReceiveMessageWaitTimeSeconds,
		VisibilityTimeout: &a.VisibilityTimeout, RedrivePolicy: a.RedrivePolicy, RedriveAllowPolicy: a.RedriveAllowPolicy,
		Policy: &a.Policy, KmsMasterKeyID: &a.KmsMasterKeyID, KmsDataKeyReusePeriodSeconds: &a.KmsDataKeyReusePeriodSeconds,
		SqsManagedSseEnabled: &a.SqsManagedSseEnabled,
	}
	if a.FifoQueue || a.ContentBasedDeduplication {
		u.ContentBasedDeduplication = &a.ContentBasedDeduplication
	}
	if a.FifoQueue || a.DeduplicationScope != "" {
		u.DeduplicationScope = &a.DeduplicationScope
	}
	if a.FifoQueue || a.FifoThroughputLimit != "" {
		u.FifoThroughputLimit = &a.FifoThroughputLimit
	}
	return u
}

func (e *Engine) buildQueue(qs *QueueState, now time.Time, settings func(Namespace, string) (QueueAttributes, bool)) (*Queue, []*message, error) {
	a := qs.Attributes
	ns := e.Namespace(qs.Account, qs.Region)
	if err := e.checkRedrive(ns.Arn(qs.Name), a.RedrivePolicy, a.FifoQueue, settings); err != nil {
		return nil, nil, err
	}
	if err := validateTags(qs.Tags); err != nil {
		return nil, nil, err
	}
	id := qs.ID
	if id == "" {
		var err error
		if id, err = e.newID(); err != nil {
			return nil, nil, err
		}
	} else if u, err := uuid.Parse(id); err != nil || u.String() != id {
		return nil, nil, ErrInvalidState("", fmt.Sprintf("the id %q is not a UUID in its canonical form", id))
	}
	key, err := newIDKey(e.opts.Random)
	if err != nil {
		return nil, nil, err
	}
	created, modified := orNow(qs.Created, now), orNow(qs.Modified, now)
	rec := &queueRecord{ID: id, Name: qs.Name, Account: ns.Account, Region: ns.Region, Created: created.UnixNano(), Modified: modified.UnixNano(), Attributes: a, Tags: maps.Clone(qs.Tags), IDKey: key}
	if !qs.LastPurge.IsZero() {
		rec.LastPurge = qs.LastPurge.UnixNano()
	}
	if sub := qs.Subscription; sub != nil {
		if err := validateSubscription(sub.Endpoint, sub.BatchSize, sub.MaxWaitSeconds); err != nil {
			return nil, nil, fmt.Errorf("subscription: %w", err)
		}
		s := *sub
		if s.Slug == "" {
			var err error
			if s.Slug, err = e.newSubscriptionSlug(); err != nil {
				return nil, nil, err
			}
		}
		s.Created = orNow(s.Created, now)
		if s.LastDelivery != nil {
			d := *s.LastDelivery
			s.LastDelivery = &d
		}
		rec.Subscription = &s
	}
	// No one else has q yet; its lock is taken for the *Locked methods.
	q := newQueue(e, rec)
	q.mu.Lock()
	defer q.mu.Unlock()
	msgs, err := q.buildMessagesLocked(qs.Messages, qs.LastSequence, now)
	if err != nil {
		return nil, nil, err
	}
	if err := q.buildDeduplication(qs.Deduplication); err != nil {
		return nil, nil, err
	}
	last := qs.LastSequence
	if len(msgs) > 0 {
		last = max(last, msgs[len(msgs)-1].seq)
	}
	q.seq.Store(last)
	for i, m := range msgs {
		msgs[i] = q.insertLocked(m)
	}
	return q, msgs, nil
}

func orNow(t, now time.Time) time.Time {
	if t.IsZero() {
		return now
	}
	return t
}

// buildMessagesLocked checks a queue's messages and makes their index
// entries. On a FIFO queue the sequence numbers must rise; elsewhere the
// messages are numbered in the order given, up to lastSeq, so that the
// store's highest number is the queue's.
func (q *Queue) buildMessagesLocked(in []MessageState, lastSeq uint64, now time.Time) ([]*message, error) {
	a := q.Attributes()
	out := make([]*message, 0, len(in))
	ids := map[string]bool{}
	var seq uint64
	if !a.FifoQueue {
		seq = max(lastSeq, uint64(len(in))) - uint64(len(in))
	}
	for i, ms := range in {
		where := fmt.Sprintf("message %d", i)
		rec := ms.Message
		rec.Attributes = slices.Clone(rec.Attributes)
		slices.SortFunc(rec.Attributes, func(x, y MessageAttribute) int { return strings.Compare(x.Name, y.Name) })
		if rec.ID == "" {
			id, err := q.e.newID()
			if err != nil {
				return nil, err
			}
			rec.ID = id
		}
		if ids[rec.ID] {
			return nil, ErrInvalidState(where, fmt.Sprintf("the id %s is another message's", rec.ID))
		}
		ids[rec.ID] = true
		if err := q.checkStoredMessage(&rec, a); err != nil {
			return nil, stateError(where, err)
		}
		switch {
		case !a.FifoQueue && rec.SequenceNumber != "":
			return nil, ErrInvalidState(where, "only a FIFO queue's messages have sequence numbers")
		case rec.SequenceNumber == "":
			if seq == math.MaxUint64 {
				return nil, ErrInvalidState(where, "no sequence number follows the last one's")
			}
			seq++
		default:
			n, err := strconv.ParseUint(rec.SequenceNumber, 10, 64)
			if err != nil || n <= seq {
				return nil, ErrInvalidState(where, fmt.Sprintf("sequence number %s does not follow %d", rec.SequenceNumber, seq))
			}
			seq = n
		}
		if a.FifoQueue {
			rec.SequenceNumber = formatSequenceNumber(seq)
		}
		rec.SentAt = orNow(rec.SentAt, now)
		m := &message{seq: seq, sentAt: rec.SentAt.UnixNano()}
		m.expireAt = rec.SentAt.UnixNano() + int64(a.MessageRetentionPeriod)*1e9
		if !ms.ExpiresAt.IsZero() {
			m.expireAt = ms.ExpiresAt.UnixNano()
		}
		if err := q.placeMessage(m, ms, now); err != nil {
			return nil, stateError(where, err)
		}
		if rec.GroupID != "" {
			m.group = q.groupLocked(rec.GroupID)
		}
		var scratch []byte
		q.e.store.encodeMessage(m, &rec, nil, &scratch)
		out = append(out, m)
	}
	return out, nil
}

// checkStoredMessage applies the rules a stored message keeps, and fills in
// what follows from the others. The size limit is not among them: a queue
// keeps a message sent before its limit was lowered, or moved in from a
// queue with a higher one.
func (q *Queue) checkStoredMessage(rec *Message, a QueueAttributes) error {
	if rec.Body == "" {
		return ErrInvalidState("", "the body is empty")
	}
	if !validText(rec.Body) {
		return ErrInvalidState("", "the body has characters SQS does not allow")
	}
	if err := validateAttributes(rec.Attributes); err != nil {
		return err
	}
	if err := validateSystemAttributes(rec.SystemAttributes); err != nil {
		return err
	}
	if rec.SenderID == "" {
		rec.SenderID = q.ns.Account
	}
	if rec.DeadLetterSourceArn != "" {
		if _, _, _, ok := parseQueueArn(rec.DeadLetterSourceArn); !ok {
			return ErrInvalidState("", fmt.Sprintf("deadLetterSourceArn %s is not a queue ARN", rec.DeadLetterSourceArn))
		}
	}
	if rec.GroupID != "" {
		if err := checkFIFOID("MessageGroupId", rec.GroupID); err != nil {
			return err
		}
	}
	if !a.FifoQueue {
		if rec.DeduplicationID != "" {
			return ErrInvalidState("", "only a FIFO queue's messages have deduplication ids")
		}
		return nil
	}
	if rec.GroupID == "" {
		return ErrInvalidState("", "a FIFO queue's message needs a group id")
	}
	if rec.DeduplicationID == "" {
		if !a.ContentBasedDeduplication {
			return ErrInvalidState("", "a FIFO queue's message needs a deduplication id unless the queue deduplicates by content")
		}
		rec.DeduplicationID = contentDeduplicationID(rec.Body)
	}
	return checkFIFOID("MessageDeduplicationId", rec.DeduplicationID)
}

// placeMessage sets m's state and its deadlines. A message received before
// gets a delivery token that no receipt handle carries, so that none is
// valid until its next receive.
func (q *Queue) placeMessage(m *message, ms MessageState, now time.Time) error {
	if ms.ReceiveCount < 0 {
		return ErrInvalidState("", "receiveCount may not be negative")
	}
	if ms.ReceiveCount > math.MaxInt32 {
		return ErrInvalidState("", fmt.Sprintf("receiveCount may not be above %d", math.MaxInt32))
	}
	switch {
	case ms.ReceiveCount > 0 && ms.FirstReceivedAt.IsZero():
		return ErrInvalidState("", "a message received before needs firstReceivedAt")
	case ms.ReceiveCount == 0 && !ms.FirstReceivedAt.IsZero():
		return ErrInvalidState("", "a message never received has no firstReceivedAt")
	}
	switch ms.Status {
	case MessageVisible, "":
		m.state = stateReady
		if !ms.VisibleAt.IsZero() {
			return ErrInvalidState("", "a visible message has no visibleAt")
		}
	case MessageDelayed, MessageInFlight:
		m.state = stateDelayed
		if ms.Status == MessageInFlight {
			if ms.ReceiveCount == 0 {
				return ErrInvalidState("", "a message in flight has been received at least once")
			}
			m.state = stateInFlight
		}
		if ms.VisibleAt.IsZero() {
			return ErrInvalidState("", fmt.Sprintf("a message %s needs visibleAt", ms.Status))
		}
		m.visibleAt = ms.VisibleAt.UnixNano()
	default:
		return ErrInvalidState("", fmt.Sprintf("unknown state %q: want visible, inFlight or delayed", ms.Status))
	}
	if ms.ReceiveCount > 0 {
		token, err := q.e.handles.newToken(q.e.opts.Random, q.uuid, m.seq)
		if err != nil {
			return ErrInternalFailure("delivery token: " + err.Error())
		}
		m.recv = &receipt{firstReceiveAt: ms.FirstReceivedAt.UnixNano(), receiveCount: int32(ms.ReceiveCount), token: token}
		if m.state == stateInFlight {
			m.recv.receivedAt = now.UnixNano()
		}
	}
	return nil
}

func (q *Queue) buildDeduplication(in []DeduplicationState) error {
	if len(in) > 0 && !q.fifo {
		return ErrInvalidState("", "only a FIFO queue has a deduplication window")
	}
	sorted := slices.Clone(in)
	slices.SortStableFunc(sorted, func(a, b DeduplicationState) int { return a.ExpiresAt.Compare(b.ExpiresAt) })
	for i, d := range sorted {
		where := fmt.Sprintf("deduplication entry %s", d.DeduplicationID)
		if err := checkFIFOID("MessageDeduplicationId", d.DeduplicationID); err != nil {
			return stateError(where, err)
		}
		key := d.DeduplicationID
		if d.GroupID != "" {
			if err := checkFIFOID("MessageGroupId", d.GroupID); err != nil {
				return stateError(where, err)
			}
			key = d.GroupID + "\x00" + d.DeduplicationID
		}
		if d.MessageID == "" || d.ExpiresAt.IsZero() {
			return ErrInvalidState(fmt.Sprintf("%s (entry %d)", where, i), "needs a message id and an expiry")
		}
		q.dedup.add(key, dedupEntry{messageID: d.MessageID, sequenceNumber: d.SequenceNumber, expires: d.ExpiresAt.UnixNano()})
	}
	return nil
}

func (e *Engine) buildTasks(in []MoveTask, now time.Time) ([]*moveTask, error) {
	out := make([]*moveTask, 0, len(in))
	handles := map[string]bool{}
	active := map[string]bool{}
	for i, t := range in {
		where := fmt.Sprintf("move task %d (%s)", i, t.Handle)
		switch {
		case t.Handle == "":
			return nil, ErrInvalidState(where, "needs a handle")
		case handles[t.Handle]:
			return nil, ErrInvalidState(where, "a second task with that handle")
		case !validArn(t.SourceArn) || t.DestinationArn != "" && !validArn(t.DestinationArn):
			return nil, ErrInvalidState(where, "sourceArn and destinationArn must be queue ARNs")
		case t.MaxPerSecond < 0 || t.MaxPerSecond > MaxMovePerSecond:
			return nil, ErrInvalidState(where, fmt.Sprintf("maxPerSecond must be from 0 to %d", MaxMovePerSecond))
		case t.Moved < 0 || t.ToMove < 0:
			return nil, ErrInvalidState(where, "counts may not be negative")
		}
		handles[t.Handle] = true
		switch t.Status {
		case TaskRunning, TaskCancelling:
			if active[t.SourceArn] {
				return nil, ErrInvalidState(where, "a source queue has at most one active task")
			}
			active[t.SourceArn] = true
		case TaskCompleted, TaskCancelled, TaskFailed:
		default:
			return nil, ErrInvalidState(where, fmt.Sprintf("unknown status %q", t.Status))
		}
		// A task being cancelled has no one left to finish it: it ends
		// cancelled, as after a restart.
		if t.Status == TaskCancelling {
			t.Status = TaskCancelled
		}
		if t.Started == 0 {
			t.Started = now.UnixMilli()
		}
		out = append(out, &moveTask{MoveTask: t})
	}
	return out, nil
}

func validArn(arn string) bool {
	_, _, _, ok := parseQueueArn(arn)
	return ok
}

// writeWorldTx stores a loaded state's queues, messages and tasks, each
// queue's sequence counter, and the last queue number given out.
func (e *Engine) writeWorldTx(tx recordTx, w *world, lastNum uint64) error {
	for i, q := range w.queues {
		if err := putQueueTx(tx, q.record()); err != nil {
			return err
		}
		for _, m := range w.records[i] {
			if err := e.store.putMessageTx(tx, q.keyspace, m); err != nil {
				return err
			}
		}
		// The loaded counter is kept whole, whatever messages carry it,
		// and as it is, with nothing reserved past it: a restart numbers
		// on from it.
		if e.store.durable {
			if err := q.putSeqTx(tx, q.seq.Load()); err != nil {
				return err
			}
		}
	}
	for _, t := range w.tasks {
		if err := putTaskTx(tx, t.MoveTask); err != nil {
			return err
		}
	}
	return tx.set(lastNumKey, strconv.FormatUint(lastNum, 10))
}
