package sqs

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/minisqs/minisqs/engine"
)

// plainJSON agrees with a byte-by-byte scan for strings of every length
// up to past two of its 32-byte steps, whatever byte stops them and
// wherever it falls.
func TestPlainJSONAtEveryLengthAndOffset(t *testing.T) {
	for n := range 72 {
		s := strings.Repeat("abcdefgh", 9)[:n]
		if !plainJSON(s) {
			t.Fatalf("plainJSON(%q) = false", s)
		}
		for at := range n {
			for c := range 256 {
				b := []byte(s)
				b[at] = byte(c)
				if got, want := plainJSON(string(b)), plainRunByByte(string(b), 0, true) == n; got != want {
					t.Fatalf("plainJSON(%q) = %v, want %v", b, got, want)
				}
			}
		}
	}
}

// The text that answers write without an escaping scan is what the engine
// makes it: digests in hex, receipt handles in URL-safe base64, for any
// body, FIFO or not.
func TestServerMadeTextNeedsNoEscaping(t *testing.T) {
	e, err := engine.Open(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	serverMade := regexp.MustCompile(`^[0-9A-Za-z_-]+$`)
	for _, name := range []string{"plain", "plain.fifo"} {
		var attrs engine.AttributeUpdate
		if strings.HasSuffix(name, ".fifo") {
			yes := true
			attrs = engine.AttributeUpdate{FifoQueue: &yes, ContentBasedDeduplication: &yes}
		}
		q, err := e.CreateQueue(name, attrs, nil)
		if err != nil {
			t.Fatal(err)
		}
		var msgs []engine.NewMessage
		for _, body := range jsonTrickyStrings[1:] {
			m := engine.NewMessage{Body: body}
			if q.IsFIFO() {
				m.GroupID, m.GroupIDGiven = "g", true
			}
			msgs = append(msgs, m)
		}
		var digests []string
		for _, r := range q.Send(msgs) {
			if r.Err == nil {
				digests = append(digests, r.MD5OfBody)
			}
		}
		got, err := q.Receive(context.Background(), engine.ReceiveOptions{MaxMessages: 10})
		if err != nil || len(got) == 0 {
			t.Fatalf("%s: received %d, %v", name, len(got), err)
		}
		for _, d := range got {
			digests = append(digests, d.MD5OfBody, d.ReceiptHandle)
		}
		for _, s := range digests {
			if !serverMade.MatchString(s) || !plainJSON(s) {
				t.Errorf("%s: %q is not plain server-made text", name, s)
			}
		}
	}
}

// Answers carry their own type and length, whichever answers came before
// them in the same slot of recentHeaderValues, from many goroutines.
func TestWriteBodyHeaders(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				n := (i * 37) % 200 // lengths 64 apart share a slot
				ct := []string{jsonContentType, "text/xml"}[(i+g)%2]
				w := httptest.NewRecorder()
				writeBody(w, http.StatusOK, ct, []byte(strings.Repeat("x", n)))
				if got := w.Header().Get("Content-Length"); got != strconv.Itoa(n) {
					t.Errorf("Content-Length %s, want %d", got, n)
				}
				if got := w.Header().Get("Content-Type"); got != ct {
					t.Errorf("Content-Type %s, want %s", got, ct)
				}
				if w.Body.Len() != n {
					t.Errorf("body of %d bytes, want %d", w.Body.Len(), n)
				}
			}
		}()
	}
	wg.Wait()
}
