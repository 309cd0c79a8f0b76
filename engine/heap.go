package engine

// The index structures a queue keeps over its messages. Both are built so
// that the cost of an operation does not grow with the queue's depth:
// readyList is an intrusive list (list.go), and deadlineHeap removes lazily,
// so acknowledging a message never walks a heap.

// readyList holds visible messages in delivery order.
type readyList = list[message, *message]

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
