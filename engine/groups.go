package engine

import "time"

// Message groups. On a FIFO queue a group is the unit of ordering: its
// visible messages wait in the group's own list in sequence order, and a
// receive takes them in that order up to the group's first message in
// flight: a message in flight holds back the messages sent after it, not
// those before it (API_ReceiveMessage; "FIFO queue logic" in the SQS
// Developer Guide; LocalStack's tests validated against AWS,
// test_fifo_message_group_visibility_after_terminate_visibility_timeout and
// test_fifo_group_visibility_extends_with_change_message_visibility). On a
// standard queue a group is a fair-queue tenant: it only counts its
// messages in flight, so that a receive can pass over a noisy one.

// group is one message group of a queue.
type group struct {
	id       string
	ready    readyList // FIFO: visible messages, lowest sequence first
	held     readyList // FIFO: messages in flight, lowest sequence first
	inFlight int
	members  int // messages of the group in the queue, in any state
	// Fair queues: whether the tenant is marked noisy, and when it last
	// sent a message.
	noisy    bool
	lastSend int64
	// Place in the queue's heap of FIFO groups that can deliver now, plus
	// one (0: not in it), and the key the heap orders it by (groupBefore),
	// taken from its first visible message.
	pos int
	key groupKey
}

// groupKey orders the FIFO groups that can deliver: by when their first
// visible message became visible; at one instant, as under a stopped
// clock, one never received before one that came back, which left and
// returned after it was sent; then by sequence number.
type groupKey struct {
	since    int64
	returned bool
	seq      uint64
}

func keyOf(head *message) groupKey {
	return groupKey{since: readySince(head), returned: head.receiveCount() > 0, seq: head.seq}
}

// readySince is when a visible message became visible: its send, the end
// of its delay or lease, or the visibility change that released it.
func readySince(m *message) int64 { return max(m.sentAt, m.visibleAt) }

// insertSorted puts m in l in sequence order, searching from the front for
// a redelivery and from the back for a new message, where each belongs.
func insertSorted(l *readyList, m *message, fromFront bool) {
	if fromFront {
		at := l.front()
		for at != nil && at.seq < m.seq {
			at = l.next(at)
		}
		if at == nil {
			l.pushBack(m)
		} else {
			l.insertBefore(m, at)
		}
		return
	}
	at := l.back()
	for at != nil && at.seq > m.seq {
		at = l.prev(at)
	}
	switch {
	case at == nil:
		l.pushFront(m)
	case at.next == 0:
		l.pushBack(m)
	default:
		l.insertBefore(m, l.next(at))
	}
}

// insertHeld puts a message that goes in flight into its group's held
// list. A receive takes messages below the list's front, and a queue loads
// them in sequence order, so either end is near.
func insertHeld(l *readyList, m *message) {
	insertSorted(l, m, l.tail != 0 && m.seq < l.tail)
}

// groupLocked returns the group called id, creating it.
func (q *Queue) groupLocked(id string) *group {
	g := q.groups[id]
	if g == nil {
		g = &group{id: id, ready: newReadyList(&q.msgs), held: newReadyList(&q.msgs)}
		q.groups[id] = g
	}
	return g
}

// deliverable reports whether a FIFO group's first visible message comes
// before its first message in flight.
func (g *group) deliverable() bool {
	head, held := g.ready.front(), g.held.front()
	return head != nil && (held == nil || head.seq < held.seq)
}

// updateAvailabilityLocked keeps a FIFO group in the available heap exactly
// while it can deliver, ordered by when its first visible message became
// visible, and forgets a group that has no messages left. A group whose
// head came back from flight so goes after the groups whose heads waited
// all along, and one whose head was sent earlier before those sent later
// (LocalStack's AWS orderings in test_fifo_receive_message_with_zero_
// visibility_timeout and test_fifo_message_group_visibility_after_delete).
func (q *Queue) updateAvailabilityLocked(g *group) {
	if q.fifo {
		switch {
		case g.deliverable():
			key := keyOf(g.ready.front())
			if g.pos == 0 {
				g.key = key
				q.available.push(g)
				q.wakeLocked(1)
			} else if g.key != key {
				g.key = key
				q.available.fix(g)
			}
		case g.pos != 0:
			q.available.remove(g)
		}
	} else if g.inFlight == g.members {
		g.noisy = false // its backlog is drained
	}
	if g.members == 0 {
		delete(q.groups, g.id)
	}
}

// groupCursor is a receive's place among a FIFO queue's groups: the group
// it takes from and that group's first message in flight when the receive
// came to it, which the receive does not pass.
type groupCursor struct {
	g     *group
	limit uint64 // sequence number; 0 when none was in flight
}

// Fair queues (standard queues with message groups, 2025), after "How
// Amazon SQS fair queues work" (SQS Developer Guide): a tenant is marked
// noisy when it holds more than 10% of the queue's messages in flight and
// at least 30 of its own, and it stays marked, its messages passed over
// for other tenants', until its backlog is drained or it has sent nothing
// for 5 consecutive minutes. A message without a group is a tenant of its
// own, never noisy. The guide's second measure, a tenant's share of
// consumer processing time, is not kept.
const (
	noisyMinInFlight = 30
	noisyShare       = 10 // percent
	quietAfter       = int64(5 * time.Minute)
	// fairScanLimit bounds how far past noisy tenants' messages a receive
	// looks for another tenant's, so a receive stays O(1) at any depth.
	fairScanLimit = 100
)

// noisyLocked reports whether tenant g is noisy at now, marking it so or
// lifting the mark as the rules say.
func (q *Queue) noisyLocked(g *group, now int64) bool {
	if g == nil {
		return false
	}
	if g.noisy && now-g.lastSend >= quietAfter {
		g.noisy = false
	}
	if !g.noisy && g.inFlight >= noisyMinInFlight && g.inFlight*100 > q.inFlight*noisyShare {
		g.noisy = true
	}
	return g.noisy
}

// nextReadyLocked returns the next message a receive should consider, or
// nil. On a FIFO queue it keeps to the cursor's group until that group has
// nothing more to deliver, then moves to the next available group. On a
// standard queue it takes the oldest visible message, passing over those
// of noisy tenants when another tenant's is near.
func (q *Queue) nextReadyLocked(cur *groupCursor, now int64) *message {
	if q.fifo {
		if g := cur.g; g != nil {
			if m := g.ready.front(); m != nil && (cur.limit == 0 || m.seq < cur.limit) {
				return m
			}
		}
		g := q.available.front()
		*cur = groupCursor{g: g}
		if g == nil {
			return nil
		}
		if h := g.held.front(); h != nil {
			cur.limit = h.seq
		}
		return g.ready.front()
	}
	first := q.ready.front()
	if first == nil || !q.noisyLocked(first.group, now) {
		return first
	}
	// With only noisy tenants near, the one with the fewest in flight goes
	// first ("How Amazon SQS fair queues work").
	best := first
	m := q.ready.next(first)
	for i := 0; m != nil && i < fairScanLimit; i, m = i+1, q.ready.next(m) {
		if !q.noisyLocked(m.group, now) {
			return m
		}
		if m.group.inFlight < best.group.inFlight {
			best = m
		}
	}
	return best
}
