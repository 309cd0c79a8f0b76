package sqs

import (
	"regexp"
	"strings"
	"testing"
)

// batchEntryID is the regular expression SQS documents, checked by hand.
func TestBatchEntryIDRule(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`)
	for _, s := range []string{"", "a", "A-z_09", strings.Repeat("x", 80), strings.Repeat("x", 81), "a b", "a.b", "é", "a\n", "\x00", "ａ", "-", "_"} {
		if got, want := batchEntryID.MatchString(s), re.MatchString(s); got != want {
			t.Errorf("batchEntryID.MatchString(%q) = %v, want %v", s, got, want)
		}
	}
}
