package engine

import "slices"

// seqPageBits sets a page to 64 slots: 512 bytes, so a message left alone
// in its page costs little, while a page map of a million messages stays
// small enough to sit in cache.
const (
	seqPageBits = 6
	seqPageSize = 1 << seqPageBits
)

// seqIndex finds a queue's messages by sequence number. Sequence numbers
// rise with each send and messages mostly leave in the order they came, so
// the index keeps them in pages of consecutive numbers: a lookup reads a
// small map and one slot, neighbours share cache lines, and a page goes
// when its last message does. A map keyed by sequence number would scatter
// them over a table as large as the queue, missing the cache on every
// acknowledge of a deep queue.
type seqIndex struct {
	pages map[uint64]*seqPage
	n     int
}

type seqPage struct {
	slots [seqPageSize]*message
	live  int
}

func (x *seqIndex) len() int { return x.n }

func (x *seqIndex) get(seq uint64) *message {
	if p := x.pages[seq>>seqPageBits]; p != nil {
		return p.slots[seq&(seqPageSize-1)]
	}
	return nil
}

// page returns the page numbered k (seq>>seqPageBits), nil when none of
// its numbers is indexed.
func (x *seqIndex) page(k uint64) *seqPage { return x.pages[k] }

// pageCount is the number of pages indexed.
func (x *seqIndex) pageCount() int { return len(x.pages) }

// put indexes m, which must not be indexed yet.
func (x *seqIndex) put(m *message) {
	if x.pages == nil {
		x.pages = map[uint64]*seqPage{}
	}
	p := x.pages[m.seq>>seqPageBits]
	if p == nil {
		p = &seqPage{}
		x.pages[m.seq>>seqPageBits] = p
	}
	p.slots[m.seq&(seqPageSize-1)] = m
	p.live++
	x.n++
}

// remove drops the message numbered seq, if indexed.
func (x *seqIndex) remove(seq uint64) {
	p := x.pages[seq>>seqPageBits]
	if p == nil || p.slots[seq&(seqPageSize-1)] == nil {
		return
	}
	p.slots[seq&(seqPageSize-1)] = nil
	x.n--
	if p.live--; p.live == 0 {
		delete(x.pages, seq>>seqPageBits)
	}
}

func (x *seqIndex) reset() { *x = seqIndex{} }

// ordered returns every indexed message, lowest sequence number first.
func (x *seqIndex) ordered() []*message {
	keys := make([]uint64, 0, len(x.pages))
	for k := range x.pages {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]*message, 0, x.n)
	for _, k := range keys {
		for _, m := range x.pages[k].slots {
			if m != nil {
				out = append(out, m)
			}
		}
	}
	return out
}
