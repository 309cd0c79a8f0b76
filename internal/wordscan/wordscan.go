// Package wordscan tests the bytes of a string eight at a time, as one
// little-endian 64-bit word, for the loops that check long strings byte by
// byte: message bodies on their way in and out.
//
// For a word whose bytes are all below 0x80 (Word(s)&Highs == 0), adding a
// value below 0x80 to every byte carries out of none of them, so each
// byte's top bit then answers a question about that byte alone: after
// Word ^ c*Ones + 0x7f*Ones it is clear where the byte was c, and after
// Word + (0x80-n)*Ones it is clear where the byte was below n.
package wordscan

import "math/bits"

// Ones has 1 in every byte; Highs has the top bit of every byte set.
const (
	Ones  = 0x0101010101010101
	Highs = 0x8080808080808080
)

// Word is the first eight bytes of s, little-endian; s has at least eight.
func Word(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// PrintableRun returns the index of the first byte of s from i on that is
// not printable ASCII (0x20 to 0x7f), or len(s).
func PrintableRun(s string, i int) int {
	// Eight words at a time while all are printable (NotBelow is exact
	// for each when none has a high byte), then one at a time for the
	// word that stops the run.
	for ; i+64 <= len(s); i += 64 {
		t := s[i : i+64]
		a, b, c, d := Word(t[:8]), Word(t[8:16]), Word(t[16:24]), Word(t[24:32])
		e, f, g, h := Word(t[32:40]), Word(t[40:48]), Word(t[48:56]), Word(t[56:])
		if (a|b|c|d|e|f|g|h)&Highs != 0 || NotBelow(a, ' ')&NotBelow(b, ' ')&NotBelow(c, ' ')&NotBelow(d, ' ')&
			NotBelow(e, ' ')&NotBelow(f, ' ')&NotBelow(g, ' ')&NotBelow(h, ' ')&Highs != Highs {
			break
		}
	}
	for ; i+8 <= len(s); i += 8 {
		w := Word(s[i : i+8])
		if w&Highs != 0 || NotBelow(w, ' ')&Highs != Highs {
			break
		}
	}
	for ; i < len(s) && s[i] >= ' ' && s[i] < 0x80; i++ {
	}
	return i
}

// FirstHigh is the index of the first byte of w, little-endian, whose top
// bit is set, or 8 if none is; w has no other bits set.
func FirstHigh(w uint64) int { return bits.TrailingZeros64(w) / 8 }

// NotByte has the top bit of each byte of w set unless that byte is c;
// every byte of w must be below 0x80.
func NotByte(w uint64, c byte) uint64 { return (w ^ Ones*uint64(c)) + 0x7f*Ones }

// NotBelow has the top bit of each byte of w set unless that byte is below
// n, which is at most 0x80; every byte of w must be below 0x80.
func NotBelow(w uint64, n byte) uint64 { return w + (0x80-uint64(n))*Ones }
