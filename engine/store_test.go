package engine

import (
	"math"
	"slices"
	"testing"
)

// Message keys must sort in sending order, since a restart reloads messages
// in key order, and must give back the sequence number they hold.
func TestRecordKeysSortBySeq(t *testing.T) {
	seqs := []uint64{0, 1, 9, 15, 16, 255, 256, 1 << 32, math.MaxUint64 >> 4, math.MaxUint64}
	var keys []string
	for _, seq := range seqs {
		k := messageKey(keyspaceOf(35), seq)
		got, ok := parseSeq(k)
		if !ok || got != seq {
			t.Errorf("parseSeq(%q) = %d, %v; want %d", k, got, ok, seq)
		}
		keys = append(keys, k)
	}
	if !slices.IsSorted(keys) {
		t.Errorf("keys out of sending order: %q", keys)
	}
	for _, bad := range []string{"m:z", "m:z:", "m:z:2f", "m:z:1fg", "m:z:x0", "m:z:20f", "m:z:1F", "m:z:0", "m:z:h00000000000000000"} {
		if seq, ok := parseSeq(bad); ok {
			t.Errorf("parseSeq(%q) = %d, want a refusal", bad, seq)
		}
	}
}
