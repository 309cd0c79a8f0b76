package engine

import "testing"

func TestSeqIndex(t *testing.T) {
	var x seqIndex
	ms := make([]*message, 3*seqPageSize)
	for i := range ms {
		ms[i] = &message{seq: uint64(i + 1)}
		x.put(ms[i])
	}
	if x.len() != len(ms) || len(x.pages) != 4 {
		t.Fatalf("len %d, pages %d; want %d, 4", x.len(), len(x.pages), len(ms))
	}
	for _, m := range ms {
		if got := x.get(m.seq); got != m {
			t.Fatalf("get(%d) = %v", m.seq, got)
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

	x.reset()
	if x.len() != 0 || x.get(seqPageSize) != nil {
		t.Fatal("reset kept messages")
	}
}
