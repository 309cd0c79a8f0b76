package engine

// Message groups. On a FIFO queue a group is the unit of ordering: its
// visible messages wait in the group's own list in sequence order, and the
// group can be delivered from only while none of its messages is in flight
// (API_ReceiveMessage; "FIFO queue logic" in the SQS Developer Guide). On a
// standard queue a group is a fair-queue tenant: it only counts its
// messages in flight, so that a receive can pass over a noisy one.

// group is one message group of a queue.
type group struct {
	id       string
	ready    readyList // FIFO: visible messages, lowest sequence first
	inFlight int
	members  int // messages of the group in the queue, in any state
	// Place in the queue's list of FIFO groups that can deliver now.
	link      link[group]
	available bool
}

// groupList holds groups in the order they became available.
type groupList = list[group, *group]

func (g *group) links() *link[group] { return &g.link }

// insertSorted puts m in l in sequence order, searching from the front for
// a redelivery and from the back for a new message, where each belongs.
func insertSorted(l *readyList, m *message, fromFront bool) {
	if fromFront {
		at := l.front()
		for at != nil && at.seq < m.seq {
			at = at.link.next
		}
		if at == nil {
			l.pushBack(m)
		} else {
			l.insertBefore(m, at)
		}
		return
	}
	at := l.tail
	for at != nil && at.seq > m.seq {
		at = at.link.prev
	}
	switch {
	case at == nil:
		l.pushFront(m)
	case at.link.next == nil:
		l.pushBack(m)
	default:
		l.insertBefore(m, at.link.next)
	}
}

// groupLocked returns the group called id, creating it.
func (q *Queue) groupLocked(id string) *group {
	g := q.groups[id]
	if g == nil {
		g = &group{id: id}
		q.groups[id] = g
	}
	return g
}

// updateAvailabilityLocked keeps a FIFO group in the available list exactly
// while it has visible messages and none in flight, and forgets a group
// that has no messages left.
func (q *Queue) updateAvailabilityLocked(g *group) {
	can := q.fifo && g.inFlight == 0 && g.ready.len() > 0
	switch {
	case can && !g.available:
		q.available.pushBack(g)
		g.available = true
	case !can && g.available:
		q.available.remove(g)
		g.available = false
	}
	if g.members == 0 {
		delete(q.groups, g.id)
	}
}

// Fair queues (standard queues with message groups, 2025): a tenant is noisy
// when it holds more than 10% of the queue's messages in flight and at
// least 30 of its own ("Amazon SQS fair queues", SQS Developer Guide).
const (
	noisyMinInFlight = 30
	noisyShare       = 10 // percent
	// fairScanLimit bounds how far past noisy tenants' messages a receive
	// looks for another tenant's, so a receive stays O(1) at any depth.
	fairScanLimit = 100
)

func (q *Queue) noisyLocked(g *group) bool {
	return g != nil && g.inFlight >= noisyMinInFlight && g.inFlight*100 > q.inFlight*noisyShare
}

// nextReadyLocked returns the next message a receive should consider, or
// nil. On a FIFO queue it keeps to *cur, the group this receive is taking
// from, until that group has nothing more visible, then moves to the next
// available group. On a standard queue it takes the oldest visible message,
// passing over those of noisy tenants when another tenant's is near.
func (q *Queue) nextReadyLocked(cur **group) *message {
	if q.fifo {
		if *cur != nil {
			if m := (*cur).ready.front(); m != nil {
				return m
			}
		}
		*cur = q.available.front()
		if *cur == nil {
			return nil
		}
		return (*cur).ready.front()
	}
	first := q.ready.front()
	if first == nil || !q.noisyLocked(first.group) {
		return first
	}
	// With only noisy tenants near, the one with the fewest in flight goes
	// first ("How Amazon SQS fair queues work").
	best := first
	m := first.link.next
	for i := 0; m != nil && i < fairScanLimit; i, m = i+1, m.link.next {
		if !q.noisyLocked(m.group) {
			return m
		}
		if m.group.inFlight < best.group.inFlight {
			best = m
		}
	}
	return best
}
