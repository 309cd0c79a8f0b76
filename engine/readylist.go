package engine

// readyList is a doubly linked list of a queue's indexed messages: the
// queue's visible ones, or a FIFO group's visible or held ones. Its links
// are sequence numbers, each message carrying its neighbours', which the
// list finds in the queue's index: pointers there would be a million more
// for the collector to follow in a deep queue (see seqIndex). Adding,
// taking and removing any message is O(1) and allocates nothing; a message
// is in at most one list at a time, and leaves it before it leaves the
// index.
type readyList struct {
	msgs       *seqIndex
	head, tail uint64 // sequence numbers, 0 for none: no message has 0
}

func newReadyList(msgs *seqIndex) readyList { return readyList{msgs: msgs} }

func (l *readyList) front() *message { return l.at(l.head) }
func (l *readyList) back() *message  { return l.at(l.tail) }

// next and prev return m's neighbours in l, nil at its ends.
func (l *readyList) next(m *message) *message { return l.at(m.next) }
func (l *readyList) prev(m *message) *message { return l.at(m.prev) }

func (l *readyList) at(seq uint64) *message {
	if seq == 0 {
		return nil
	}
	return l.msgs.get(seq)
}

func (l *readyList) reset() { *l = newReadyList(l.msgs) }

func (l *readyList) pushBack(m *message) {
	m.prev, m.next = l.tail, 0
	if t := l.back(); t != nil {
		t.next = m.seq
	} else {
		l.head = m.seq
	}
	l.tail = m.seq
}

func (l *readyList) pushFront(m *message) {
	if h := l.front(); h != nil {
		l.insertBefore(m, h)
		return
	}
	l.pushBack(m)
}

// insertBefore puts m just before at, which is in l.
func (l *readyList) insertBefore(m, at *message) {
	m.prev, m.next = at.prev, at.seq
	if p := l.prev(at); p != nil {
		p.next = m.seq
	} else {
		l.head = m.seq
	}
	at.prev = m.seq
}

func (l *readyList) remove(m *message) {
	if p := l.prev(m); p != nil {
		p.next = m.next
	} else {
		l.head = m.next
	}
	if n := l.next(m); n != nil {
		n.prev = m.prev
	} else {
		l.tail = m.prev
	}
	m.prev, m.next = 0, 0
}
