package queueconfig

import (
	"errors"
	"testing"

	"github.com/minisqs/minisqs/engine"
)

// FuzzParse checks that no input makes Parse panic, that every failure is a
// located *Error, and that whatever parses can be applied without panicking.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		sample,
		"",
		"queues:\n  - name: a\n",
		"{\"queues\": [{\"name\": \"a\", \"attributes\": {\"VisibilityTimeout\": 10}}]}",
		"x-d: &d\n  DelaySeconds: 1\nqueues:\n  - name: a\n    attributes:\n      <<: *d\n",
		"queues:\n  - name: a\n    deadLetterQueue: {name: a, maxReceiveCount: 1}\n",
		"queues:\n  - name: a\n    attributes:\n      Policy: {Statement: [{Effect: Allow}]}\n",
		"a: &a [*a]\n",
	} {
		f.Add([]byte(seed))
	}
	e, err := engine.Open(engine.Options{SkipCooldowns: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { e.Close() })
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("fuzz.yaml", data)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T %v is not an *Error", err, err)
			}
			return
		}
		if _, err := c.order(); err != nil {
			t.Fatalf("parsed, but order fails: %v", err)
		}
		Apply(e, c)
	})
}
