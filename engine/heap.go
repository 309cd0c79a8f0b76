package engine

import "container/heap"

// The index structures a queue keeps over its messages and groups. They are
// built so that the cost of an operation does not grow with the queue's
// depth: readyList is an intrusive list (readylist.go), deadlineHeap removes
// lazily, so acknowledging a message never walks a heap, and groupHeap
// keeps each group's place, so a group moves in O(log n).

// deadlineEntry says that m may be due at the instant at. An entry goes
// stale when the message's deadline changes or the message goes; the heap's
// owner decides which entries still hold.
type deadlineEntry struct {
	at int64
	m  *message
}

// deadlineHeap is a binary min-heap of deadlines. Entries are never removed
// from the middle: stale ones are skipped when they reach the top, and
// compact drops them all once they outnumber the live ones, which keeps the
// heap's size proportional to the live entries at O(1) amortized cost.
type deadlineHeap struct {
	items []deadlineEntry
}

func (h *deadlineHeap) len() int { return len(h.items) }

func (h *deadlineHeap) push(at int64, m *message) {
	h.items = append(h.items, deadlineEntry{at, m})
	h.up(len(h.items) - 1)
}

func (h *deadlineHeap) peek() (deadlineEntry, bool) {
	if len(h.items) == 0 {
		return deadlineEntry{}, false
	}
	return h.items[0], true
}

func (h *deadlineHeap) pop() {
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items[last] = deadlineEntry{}
	h.items = h.items[:last]
	if last > 0 {
		h.down(0)
	}
}

// compact keeps the entries for which live holds and restores heap order.
func (h *deadlineHeap) compact(live func(deadlineEntry) bool) {
	kept := h.items[:0]
	for _, e := range h.items {
		if live(e) {
			kept = append(kept, e)
		}
	}
	clear(h.items[len(kept):])
	h.items = kept
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *deadlineHeap) reset() {
	clear(h.items)
	h.items = h.items[:0]
}

func (h *deadlineHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h.items[p].at <= h.items[i].at {
			return
		}
		h.items[p], h.items[i] = h.items[i], h.items[p]
		i = p
	}
}

func (h *deadlineHeap) down(i int) {
	n := len(h.items)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if r := c + 1; r < n && h.items[r].at < h.items[c].at {
			c = r
		}
		if h.items[i].at <= h.items[c].at {
			return
		}
		h.items[i], h.items[c] = h.items[c], h.items[i]
		i = c
	}
}

// groupHeap is a binary min-heap of the FIFO groups that can deliver,
// ordered by each group's key. Each group keeps its
// place in pos, so one that stops delivering or whose first message changes
// is removed or moved in O(log n), however many groups wait.
type groupHeap struct {
	items []*group
}

func groupBefore(a, b *group) bool {
	x, y := a.key, b.key
	switch {
	case x.since != y.since:
		return x.since < y.since
	case x.returned != y.returned:
		return !x.returned
	}
	return x.seq < y.seq
}

func (h *groupHeap) front() *group {
	if len(h.items) == 0 {
		return nil
	}
	return h.items[0]
}

func (h *groupHeap) push(g *group) {
	h.items = append(h.items, g)
	g.pos = len(h.items)
	h.up(len(h.items) - 1)
}

func (h *groupHeap) remove(g *group) {
	i, last := g.pos-1, len(h.items)-1
	if i != last {
		h.swap(i, last)
	}
	h.items[last] = nil
	h.items = h.items[:last]
	g.pos = 0
	if i != last {
		h.fixAt(i)
	}
}

// fix restores g's place after its key changed.
func (h *groupHeap) fix(g *group) { h.fixAt(g.pos - 1) }

func (h *groupHeap) fixAt(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

func (h *groupHeap) reset() {
	for _, g := range h.items {
		g.pos = 0
	}
	clear(h.items)
	h.items = h.items[:0]
}

func (h *groupHeap) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].pos, h.items[j].pos = i+1, j+1
}

func (h *groupHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !groupBefore(h.items[i], h.items[p]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

// down moves item i towards the leaves and reports whether it moved.
func (h *groupHeap) down(i int) bool {
	start, n := i, len(h.items)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && groupBefore(h.items[r], h.items[c]) {
			c = r
		}
		if !groupBefore(h.items[c], h.items[i]) {
			break
		}
		h.swap(i, c)
		i = c
	}
	return i > start
}

// ordered calls visit with the groups in heap order until it returns
// false. It walks the heap with a frontier of candidates, so visiting k
// groups costs O(k log k) whatever the heap's size.
func (h *groupHeap) ordered(visit func(*group) bool) {
	if len(h.items) == 0 {
		return
	}
	f := &groupFrontier{h: h, at: []int{0}}
	for f.Len() > 0 {
		i := heap.Pop(f).(int)
		if !visit(h.items[i]) {
			return
		}
		for _, c := range [2]int{2*i + 1, 2*i + 2} {
			if c < len(h.items) {
				heap.Push(f, c)
			}
		}
	}
}

// groupFrontier is a container/heap of indexes into a groupHeap's items.
type groupFrontier struct {
	h  *groupHeap
	at []int
}

func (f *groupFrontier) Len() int { return len(f.at) }
func (f *groupFrontier) Less(i, j int) bool {
	return groupBefore(f.h.items[f.at[i]], f.h.items[f.at[j]])
}
func (f *groupFrontier) Swap(i, j int) { f.at[i], f.at[j] = f.at[j], f.at[i] }
func (f *groupFrontier) Push(x any)    { f.at = append(f.at, x.(int)) }
func (f *groupFrontier) Pop() any {
	x := f.at[len(f.at)-1]
	f.at = f.at[:len(f.at)-1]
	return x
}
