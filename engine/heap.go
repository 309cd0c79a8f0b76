package engine

// msgHeap is a binary min-heap of messages that records each message's
// position in a slot of the message, so removing any message is O(log n).
// A queue keeps three: ready (by sequence), timers (by visibleAt) and expiry
// (by expireAt).
type msgHeap struct {
	items []*message
	less  func(a, b *message) bool
	slot  func(m *message) *int
}

func (h *msgHeap) len() int { return len(h.items) }

func (h *msgHeap) peek() *message {
	if len(h.items) == 0 {
		return nil
	}
	return h.items[0]
}

func (h *msgHeap) push(m *message) {
	*h.slot(m) = len(h.items)
	h.items = append(h.items, m)
	h.up(len(h.items) - 1)
}

func (h *msgHeap) pop() *message {
	if len(h.items) == 0 {
		return nil
	}
	m := h.items[0]
	h.remove(m)
	return m
}

// remove takes m out of the heap; it does nothing if m is not in it.
func (h *msgHeap) remove(m *message) {
	i := *h.slot(m)
	if i < 0 || i >= len(h.items) || h.items[i] != m {
		return
	}
	last := len(h.items) - 1
	if i != last {
		h.swap(i, last)
	}
	h.items[last] = nil
	h.items = h.items[:last]
	*h.slot(m) = -1
	if i != last {
		h.down(i)
		h.up(i)
	}
}

func (h *msgHeap) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	*h.slot(h.items[i]) = i
	*h.slot(h.items[j]) = j
}

func (h *msgHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.items[i], h.items[p]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *msgHeap) down(i int) {
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && h.less(h.items[r], h.items[l]) {
			c = r
		}
		if !h.less(h.items[c], h.items[i]) {
			return
		}
		h.swap(i, c)
		i = c
	}
}

// reset drops every message.
func (h *msgHeap) reset() {
	clear(h.items)
	h.items = h.items[:0]
}
