package wordscan

import (
	"strings"
	"testing"
)

// The word tests agree with byte tests for every byte value below 0x80 at
// every place in the word.
func TestWordTests(t *testing.T) {
	for at := range 8 {
		for b := range 0x80 {
			s := []byte("aaaaaaaa")
			s[at] = byte(b)
			w := Word(string(s))
			if w&Highs != 0 {
				t.Fatalf("%q has a high byte", s)
			}
			for _, c := range []byte{'"', '\\', '&', 0} {
				if got, want := NotByte(w, c)&Highs == Highs, b != int(c); got != want {
					t.Errorf("NotByte(%q, %q) says none is %q: %v", s, c, c, got)
				}
			}
			for _, n := range []byte{0x20, 0x80, 0x61} {
				all := true
				for _, x := range s {
					all = all && x >= n
				}
				if got := NotBelow(w, n)&Highs == Highs; got != all {
					t.Errorf("NotBelow(%q, %#x) = %v, want %v", s, n, got, all)
				}
			}
		}
	}
	if w := Word("\x01\x02\x03\x04\x05\x06\x07\x08"); w != 0x0807060504030201 {
		t.Errorf("Word = %#x", w)
	}
}

func TestPrintableRun(t *testing.T) {
	for _, c := range []string{"\x00", "\x1f", "\x80", "\xff", "é"} {
		for at := range 20 {
			s := "  " + strings.Repeat("~", at) + c + "\x7f"
			if got := PrintableRun(s, 2); got != 2+at {
				t.Errorf("PrintableRun(%q, 2) = %d, want %d", s, got, 2+at)
			}
		}
	}
	if s := strings.Repeat("\x7f ~", 7); PrintableRun(s, 0) != len(s) {
		t.Errorf("PrintableRun stops in %q", s)
	}
	// Runs long enough for the four-word loop, stopped at every place in
	// it and in the words and bytes after it.
	for _, c := range []byte{0, 0x1f, 0x80, 0xff} {
		for n := range 160 {
			for at := range n {
				b := []byte(strings.Repeat("~ ", 80)[:n])
				b[at] = c
				if got := PrintableRun(string(b), 0); got != at {
					t.Fatalf("PrintableRun(%q, 0) = %d, want %d", b, got, at)
				}
			}
			if s := strings.Repeat("~ ", 80)[:n]; PrintableRun(s, 0) != n {
				t.Fatalf("PrintableRun stops in %q", s)
			}
		}
	}
}

func TestFirstHigh(t *testing.T) {
	for at := range 8 {
		w := uint64(0x80) << (8 * at)
		if got := FirstHigh(w | Highs<<(8*(at+1))&Highs); got != at {
			t.Errorf("FirstHigh(%#x) = %d, want %d", w, got, at)
		}
	}
	if got := FirstHigh(0); got != 8 {
		t.Errorf("FirstHigh(0) = %d, want 8", got)
	}
}
