package engine

// Inspection: reading a queue's messages in every state without receiving
// them, and deleting one message by its id, for the REST API's peek and the
// web console. Neither is an SQS action; both leave every other message,
// lease and receive count as it was.

import (
	"cmp"
	"slices"
)

// InspectOptions say which messages Inspect returns.
type InspectOptions struct {
	// Limit caps the messages returned; it must be positive.
	Limit int
	// Which states to include; none at all means visible only.
	Visible, InFlight, Delayed bool
}

// Peek returns up to limit visible messages in delivery order without
// leasing them: no receipt handle, no receive counted.
func (q *Queue) Peek(limit int) ([]Message, error) {
	got, err := q.Inspect(InspectOptions{Limit: limit, Visible: true})
	if err != nil {
		return nil, err
	}
	out := make([]Message, len(got))
	for i, m := range got {
		out[i] = m.Message
	}
	return out, nil
}

// Inspect returns up to opts.Limit messages of the chosen states without
// leasing them, in the order they would be delivered: visible messages first
// in delivery order (on a FIFO queue, the groups a receive could take from
// now, then the groups held by a message in flight), then in-flight and
// delayed ones by the instant they become visible.
func (q *Queue) Inspect(opts InspectOptions) ([]MessageState, error) {
	if !opts.Visible && !opts.InFlight && !opts.Delayed {
		opts.Visible = true
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.deleted {
		return nil, errNoQueue()
	}
	q.advance(q.e.clock.Now().UnixNano())
	var picked []*message
	if opts.Visible {
		picked = q.visibleLocked(opts.Limit)
	}
	if len(picked) < opts.Limit && (opts.InFlight || opts.Delayed) {
		picked = append(picked, q.waitingLocked(opts.Limit-len(picked), opts.InFlight, opts.Delayed)...)
	}
	out := make([]MessageState, 0, len(picked))
	for _, m := range picked {
		rec, err := decodeMessage(m, q.ids)
		if err != nil {
			continue
		}
		out = append(out, messageState(m, rec))
	}
	return out, nil
}

// visibleLocked returns up to limit visible messages in delivery order.
func (q *Queue) visibleLocked(limit int) []*message {
	var picked []*message
	add := func(l *readyList) {
		for m := l.front(); m != nil && len(picked) < limit; m = l.next(m) {
			picked = append(picked, m)
		}
	}
	if !q.fifo {
		add(&q.ready)
		return picked
	}
	// Groups that can deliver, in the order they would: each up to its
	// first message in flight.
	q.available.ordered(func(g *group) bool {
		held := g.held.front()
		for m := g.ready.front(); m != nil && (held == nil || m.seq < held.seq) && len(picked) < limit; m = g.ready.next(m) {
			picked = append(picked, m)
		}
		return len(picked) < limit
	})
	// Then the visible messages a message in flight holds back, oldest first.
	var blocked []*message
	for _, g := range q.groups {
		held := g.held.front()
		if held == nil {
			continue
		}
		for m := g.ready.front(); m != nil; m = g.ready.next(m) {
			if m.seq > held.seq {
				blocked = append(blocked, m)
			}
		}
	}
	slices.SortFunc(blocked, func(a, b *message) int { return cmp.Compare(a.seq, b.seq) })
	for _, m := range blocked {
		if len(picked) == limit {
			break
		}
		picked = append(picked, m)
	}
	return picked
}

// waitingLocked returns up to limit in-flight or delayed messages, as
// chosen, soonest visible first. They are the live entries of the timers
// heap, which holds every such message; reading it walks the heap, which is
// proportional to the messages waiting, not to the queue's depth.
func (q *Queue) waitingLocked(limit int, inFlight, delayed bool) []*message {
	seen := map[*message]bool{}
	var out []*message
	for _, e := range q.timers.items {
		m := e.m
		if !timerLive(e) || seen[m] || m.state == stateInFlight && !inFlight || m.state == stateDelayed && !delayed {
			continue
		}
		seen[m] = true
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b *message) int {
		if c := cmp.Compare(a.visibleAt, b.visibleAt); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	return out[:min(len(out), limit)]
}

// DeleteMessage deletes the message with the given id, whatever its state;
// a receipt handle of it goes stale. It fails with ErrResourceNotFound when
// the queue holds no such message. Finding a message by id reads every
// message's record, since ids are not indexed: it is meant for people
// inspecting a queue, not for consumers, who acknowledge.
func (q *Queue) DeleteMessage(id string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.deleted {
		return errNoQueue()
	}
	q.advance(q.e.clock.Now().UnixNano())
	m := q.findMessageLocked(id)
	if m == nil {
		return ErrMessageMissing(q.name, id)
	}
	// The store first: a delete it did not record is not done.
	if err := q.deleteStored([]*message{m}); err != nil {
		return err
	}
	q.removeLocked(m)
	return nil
}

// findMessageLocked looks through the queue's messages for the one with
// the given id.
func (q *Queue) findMessageLocked(id string) *message {
	for _, m := range q.msgs.ordered() {
		if recordHasID(m, q.ids, id) {
			return m
		}
	}
	return nil
}
