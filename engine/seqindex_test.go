package engine

import (
	"slices"
	"testing"
)

func TestSeqIndex(t *testing.T) {
	var x seqIndex
	ms := make([]*message, 3*seqPageSize)
	for i := range ms {
		m := &message{seq: uint64(i + 1), recv: &receipt{}, group: &group{}}
		m.setRecord("record")
		ms[i] = x.put(m)
	}
	if x.len() != len(ms) || len(x.pages) != 4 {
		t.Fatalf("len %d, pages %d; want %d, 4", x.len(), len(x.pages), len(ms))
	}
	for i, m := range ms {
		if got := x.get(uint64(i + 1)); got != m || got.seq != uint64(i+1) {
			t.Fatalf("get(%d) = %v, want the message put", i+1, got)
		}
	}
	if x.get(0) != nil || x.get(uint64(len(ms)+1)) != nil {
		t.Fatal("get of a number never put found a message")
	}

	// Emptying the first page frees it; a repeated remove changes nothing.
	for seq := uint64(1); seq < seqPageSize; seq++ {
		x.remove(seq)
		x.remove(seq)
	}
	if x.len() != len(ms)-(seqPageSize-1) || len(x.pages) != 3 {
		t.Fatalf("after emptying page 0: len %d, pages %d", x.len(), len(x.pages))
	}
	if x.get(1) != nil || x.get(seqPageSize) != ms[seqPageSize-1] {
		t.Fatal("remove dropped the wrong message")
	}
	// A message removed is still where it was for whoever points to it,
	// gone, and holding nothing more.
	if ms[0].seq != 1 || !ms[0].gone || ms[0].record() != "" || ms[0].recv != nil || ms[0].group != nil {
		t.Fatalf("a removed message's slot holds %+v", *ms[0])
	}
	// Its number put again goes to a page of its own.
	if again := x.put(&message{seq: 1}); again == ms[0] || again.gone || x.get(1) != again {
		t.Fatal("a number put after its page went shared the old page")
	}
	x.remove(1)

	x.reset()
	if x.len() != 0 || x.get(seqPageSize) != nil {
		t.Fatal("reset kept messages")
	}
}

// A readyList links messages by number, through the index: pushes at both
// ends, inserts and removes keep its order and its ends.
func TestReadyList(t *testing.T) {
	var x seqIndex
	l := newReadyList(&x)
	m := func(seq uint64) *message { return x.get(seq) }
	for seq := uint64(1); seq <= 2*seqPageSize; seq++ {
		x.put(&message{seq: seq})
	}
	order := func() []uint64 {
		var fwd, back []uint64
		for at := l.front(); at != nil; at = l.next(at) {
			fwd = append(fwd, at.seq)
		}
		for at := l.back(); at != nil; at = l.prev(at) {
			back = append([]uint64{at.seq}, back...)
		}
		if !slices.Equal(fwd, back) {
			t.Fatalf("forward %v, backward %v", fwd, back)
		}
		return fwd
	}
	l.pushBack(m(2))
	l.pushBack(m(seqPageSize + 1)) // in another page
	l.pushFront(m(1))
	l.insertBefore(m(3), m(seqPageSize+1))
	if got, want := order(), []uint64{1, 2, 3, seqPageSize + 1}; !slices.Equal(got, want) {
		t.Fatalf("list %v, want %v", got, want)
	}
	l.remove(m(1))
	l.remove(m(seqPageSize + 1))
	l.remove(m(2))
	if got := order(); !slices.Equal(got, []uint64{3}) {
		t.Fatalf("list %v after removes, want [3]", got)
	}
	l.remove(m(3))
	if l.front() != nil || l.back() != nil || len(order()) != 0 {
		t.Fatal("an emptied list kept an end")
	}
	l.pushBack(m(5))
	l.reset()
	if l.front() != nil || l.msgs != &x {
		t.Fatal("reset kept a message or lost its index")
	}
}
