package engine

// link is an element's place in a list.
type link[T any] struct {
	prev, next *T
}

// list is an intrusive doubly linked list: its elements carry their own
// links, so adding, taking and removing any element is O(1) and allocates
// nothing. An element is in at most one list at a time.
type list[T any, P interface {
	*T
	links() *link[T]
}] struct {
	head, tail *T
	n          int
}

func (l *list[T, P]) front() *T { return l.head }
func (l *list[T, P]) reset()    { *l = list[T, P]{} }

func (l *list[T, P]) pushBack(x P) {
	lk := x.links()
	lk.prev, lk.next = l.tail, nil
	if l.tail != nil {
		P(l.tail).links().next = x
	} else {
		l.head = x
	}
	l.tail = x
	l.n++
}

func (l *list[T, P]) remove(x P) {
	lk := x.links()
	if lk.prev != nil {
		P(lk.prev).links().next = lk.next
	} else {
		l.head = lk.next
	}
	if lk.next != nil {
		P(lk.next).links().prev = lk.prev
	} else {
		l.tail = lk.prev
	}
	lk.prev, lk.next = nil, nil
	l.n--
}
