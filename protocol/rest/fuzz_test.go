package rest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/julienschmidt/httprouter"
	"github.com/minisqs/minisqs/engine"
)

// FuzzRequests sends arbitrary bodies to every operation that decodes one:
// the answer is JSON, a success or an error with a known code, never a 5xx
// or a panic.
func FuzzRequests(f *testing.F) {
	for _, seed := range []string{
		`{"name":"orders","type":"fifo","visibilityTimeoutSeconds":60,"redrive":{"deadLetterQueue":"dlq","maxReceiveCount":3}}`,
		`{"redrive":null,"delaySeconds":5,"contentBasedDedup":true}`,
		`{"messages":[{"body":"hello","attributes":{"k":"v"},"delaySeconds":1,"groupId":"g","dedupId":"d"}]}`,
		`{"maxMessages":10,"waitSeconds":0,"visibilityTimeoutSeconds":30}`,
		`{"receiptHandles":["AAAA","not-a-handle"]}`,
		`{"receiptHandle":"x","visibilityTimeoutSeconds":0}`,
		`{"endpoint":"http://127.0.0.1:1/hook","batchSize":10,"maxWaitSeconds":0}`,
		`{"name":"x"} {}`, `[`, `null`, ``, `{"messages":null}`,
	} {
		f.Add(seed)
	}
	clock := engine.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	e, err := engine.Open(engine.Options{Clock: clock, SkipCooldowns: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { e.Close() })
	// Receives answer at once: nothing advances the clock here.
	e.EndLongPolls()
	for _, name := range []string{"dlq", "q"} {
		if _, err := e.CreateQueue(name, engine.AttributeUpdate{}, nil); err != nil {
			f.Fatal(err)
		}
	}
	r := httprouter.New()
	New(e, Options{}).Register(r)
	targets := []struct{ method, path string }{
		{"POST", "/v1/queues"},
		{"PATCH", "/v1/queues/q"},
		{"POST", "/v1/queues/q/messages"},
		{"POST", "/v1/queues/q/messages/receive"},
		{"POST", "/v1/messages/acknowledge"},
		{"POST", "/v1/messages/visibility"},
		{"PUT", "/v1/queues/q/subscription"},
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, tg := range targets {
			w := httptest.NewRecorder()
			r.ServeHTTP(w, httptest.NewRequest(tg.method, tg.path, strings.NewReader(body)))
			if w.Code >= 500 {
				t.Fatalf("%s %s %q: %d %s", tg.method, tg.path, body, w.Code, w.Body)
			}
			if w.Code >= 400 {
				var eb struct{ Error apiError }
				if err := json.Unmarshal(w.Body.Bytes(), &eb); err != nil || statuses[eb.Error.Code] != w.Code {
					t.Fatalf("%s %s %q: %d %s", tg.method, tg.path, body, w.Code, w.Body)
				}
			} else if w.Code != http.StatusNoContent && !json.Valid(w.Body.Bytes()) {
				t.Fatalf("%s %s %q: invalid JSON %s", tg.method, tg.path, body, w.Body)
			}
		}
	})
}
