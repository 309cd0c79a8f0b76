package engine

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRandomBufferReadsAhead(t *testing.T) {
	src := strings.NewReader(strings.Repeat("0123456789abcdef", 64)) // two buffers' worth
	r := &randomBuffer{src: src}
	var got []byte
	for _, n := range []int{8, 16, 500, 24, 1, 475} {
		p := make([]byte, n)
		if k, err := r.Read(p); k != n || err != nil {
			t.Fatalf("Read(%d) = %d, %v", n, k, err)
		}
		got = append(got, p...)
	}
	if want := strings.Repeat("0123456789abcdef", 64); string(got) != want {
		t.Fatalf("read %q, want the source in order", got)
	}
	if _, err := r.Read(make([]byte, 1)); err == nil {
		t.Fatal("no error from an exhausted source")
	}
}

// validText reads printable ASCII eight bytes at a time: every character
// at every place in a word is judged as one at a time would be.
func TestValidTextAtEveryOffset(t *testing.T) {
	oneByOne := func(s string) bool {
		if !utf8.ValidString(s) {
			return false
		}
		for _, r := range s {
			if !validBodyRune(r) {
				return false
			}
		}
		return true
	}
	for _, c := range []string{"\x00", "\x08", "\t", "\n", "\r", "\x1f", " ", "~", "\x7f", "é", "\ufffe", "\U0001F600", "\xff", "\xc3"} {
		for at := range 20 {
			s := strings.Repeat("a", at) + c + strings.Repeat("b", 19-at)
			if got, want := validText(s), oneByOne(s); got != want {
				t.Errorf("validText(%q) = %v, want %v", s, got, want)
			}
		}
	}
}

// A token checks for the message it was issued for, and for no other, and
// no change of any of its bytes checks.
func TestTokensCheck(t *testing.T) {
	key := []byte(strings.Repeat("k", handleKeyLen))
	h, err := newHandleSigner(key)
	if err != nil {
		t.Fatal(err)
	}
	qid := [16]byte{1, 2, 3}
	const seq = 42
	token, err := h.newToken(strings.NewReader("noncenon"), qid, seq)
	if err != nil {
		t.Fatal(err)
	}
	if !h.valid(qid, seq, token) {
		t.Fatal("a token just issued does not check")
	}
	for i := range tokenLen {
		forged := token
		forged[i] ^= 1
		if h.valid(qid, seq, forged) {
			t.Fatalf("a token with byte %d changed checks", i)
		}
	}
	if h.valid(qid, seq+1, token) || h.valid([16]byte{9}, seq, token) {
		t.Fatal("a token checks for another message")
	}
}
