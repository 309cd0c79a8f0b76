package engine

import (
	"math/bits"
	"slices"
)

// seqPageBits sets a page to 64 slots, which a bit mask of one word
// tells apart, while a page map of a million messages stays small enough
// to sit in cache.
const (
	seqPageBits = 6
	seqPageSize = 1 << seqPageBits
)

// seqIndex holds a queue's messages, found by sequence number. Sequence
// numbers rise with each send and messages mostly leave in the order they
// came, so the index keeps them in pages of consecutive numbers: a lookup
// reads a small map and one slot, neighbours share cache lines, and a page
// goes when its last message does. A map keyed by sequence number would
// scatter them over a table as large as the queue, missing the cache on
// every acknowledge of a deep queue.
//
// The pages hold the messages themselves, not pointers to them: a million
// messages are then some sixteen thousand objects for the collector to
// find, not a million more, which makes each collection of a deep queue
// several times cheaper. A *message is a slot's address, and stays valid
// after its message leaves: a slot is written only by a put of its own
// sequence number, and a page that goes stays allocated for as long as
// anything points into it; what left the index holds no more than that it
// is gone (remove).
type seqIndex struct {
	pages map[uint64]*seqPage
	n     int
}

type seqPage struct {
	slots [seqPageSize]message
	live  uint64 // bit i: slots[i] is indexed
}

// at returns the message in slot i, nil when none is indexed there.
func (p *seqPage) at(i uint64) *message {
	if p.live&(1<<i) == 0 {
		return nil
	}
	return &p.slots[i]
}

func (x *seqIndex) len() int { return x.n }

func (x *seqIndex) get(seq uint64) *message {
	if p := x.pages[seq>>seqPageBits]; p != nil {
		return p.at(seq & (seqPageSize - 1))
	}
	return nil
}

// page returns the page numbered k (seq>>seqPageBits), nil when none of
// its numbers is indexed.
func (x *seqIndex) page(k uint64) *seqPage { return x.pages[k] }

// pageCount is the number of pages indexed.
func (x *seqIndex) pageCount() int { return len(x.pages) }

// put indexes a copy of m, whose number must not be indexed yet, and
// returns it: the message from then on, where m was only its value.
func (x *seqIndex) put(m *message) *message {
	if x.pages == nil {
		x.pages = map[uint64]*seqPage{}
	}
	k, i := m.seq>>seqPageBits, m.seq&(seqPageSize-1)
	p := x.pages[k]
	if p == nil {
		p = new(seqPage)
		x.pages[k] = p
	}
	p.slots[i] = *m
	p.live |= 1 << i
	x.n++
	return &p.slots[i]
}

// remove drops the message numbered seq, if indexed. Its slot keeps only
// the number and that it is gone, for those that still point to it: not
// its record, receipt or group, which nothing else may need.
func (x *seqIndex) remove(seq uint64) {
	k, i := seq>>seqPageBits, seq&(seqPageSize-1)
	p := x.pages[k]
	if p == nil || p.live&(1<<i) == 0 {
		return
	}
	p.live &^= 1 << i
	p.slots[i] = message{seq: seq, gone: true}
	x.n--
	if p.live == 0 {
		delete(x.pages, k)
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
		p := x.pages[k]
		for live := p.live; live != 0; live &= live - 1 {
			out = append(out, &p.slots[bits.TrailingZeros64(live)])
		}
	}
	return out
}
