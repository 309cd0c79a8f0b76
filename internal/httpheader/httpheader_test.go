package httpheader

import (
	"net/http"
	"net/textproto"
	"testing"
)

// Get finds what Header.Get finds for every canonical name, whether the
// header was set, added twice, set empty or never sent.
func TestGetIsHeaderGet(t *testing.T) {
	h := http.Header{}
	h.Set("x-amz-target", "AmazonSQS.SendMessage")
	h.Add("Authorization", "first")
	h.Add("authorization", "second")
	h.Set("X-Amzn-Trace-Id", "")
	h["X-Empty"] = []string{}
	for _, key := range []string{"X-Amz-Target", "Authorization", "X-Amzn-Trace-Id", "X-Empty", "Content-Type"} {
		if key != textproto.CanonicalMIMEHeaderKey(key) {
			t.Fatalf("%q is not canonical", key)
		}
		if got, want := Get(h, key), h.Get(key); got != want {
			t.Errorf("Get(%q) = %q, want %q", key, got, want)
		}
	}
}
