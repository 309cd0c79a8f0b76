package rest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/julienschmidt/httprouter"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/rest"
)

// The REST API under the SMQ limits profile (Alibaba Cloud SMQ's queue
// overview: 16 messages a call, long polls of 30 s, 64 KB messages, names
// of up to 120 letters, digits and hyphens that start with a letter or
// digit, retention and delay of 7 days, visibility from 1 s). The OpenAPI
// document states AWS's limits, so these requests go around the harness's
// checks against it.
func TestSMQLimits(t *testing.T) {
	e, err := engine.Open(engine.Options{Clock: engine.NewManualClock(start), Limits: engine.SMQLimits})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	r := httprouter.New()
	rest.New(e, rest.Options{}).Register(r)
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	call := func(method, path string, body any) (int, map[string]any) {
		t.Helper()
		b, _ := json.Marshal(body)
		req, err := http.NewRequest(method, srv.URL+path, bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		json.NewDecoder(res.Body).Decode(&out)
		return res.StatusCode, out
	}
	code := func(out map[string]any) string {
		e, _ := out["error"].(map[string]any)
		c, _ := e["code"].(string)
		return c
	}
	long := strings.Repeat("q", 120)
	if st, out := call("POST", "/v1/queues", msg{"name": long, "retentionSeconds": 604800, "delaySeconds": 604800, "receiveWaitSeconds": 30}); st != 201 {
		t.Fatalf("120-character name, 7-day settings: %d %v", st, out)
	}
	for _, bad := range []msg{
		{"name": long + "q"},
		{"name": "under_score"},
		{"name": "-hyphen-first"},
		{"name": "ok", "retentionSeconds": 604801},
		{"name": "ok", "delaySeconds": 604801},
		{"name": "ok", "receiveWaitSeconds": 31},
		{"name": "ok", "visibilityTimeoutSeconds": 0},
	} {
		if st, out := call("POST", "/v1/queues", bad); st != 400 || code(out) != "invalid_request" {
			t.Errorf("create %v: %d %v", bad, st, out)
		}
	}
	if st, out := call("POST", "/v1/queues", msg{"name": "q"}); st != 201 {
		t.Fatalf("create: %d %v", st, out)
	}
	sixteen := make([]msg, 16)
	for i := range sixteen {
		sixteen[i] = msg{"body": fmt.Sprint(i)}
	}
	if st, out := call("POST", "/v1/queues/q/messages", msg{"messages": sixteen}); st != 200 || len(out["results"].([]any)) != 16 {
		t.Fatalf("send 16: %d %v", st, out)
	}
	if st, out := call("POST", "/v1/queues/q/messages", msg{"messages": append(sixteen, msg{"body": "17"})}); st != 400 || code(out) != "invalid_request" {
		t.Errorf("send 17: %d %v", st, out)
	}
	st, out := call("POST", "/v1/queues/q/messages", msg{"messages": []msg{
		{"body": strings.Repeat("a", 64<<10)}, {"body": strings.Repeat("a", 64<<10+1)}, {"body": "late", "delaySeconds": 604800}}})
	results, _ := out["results"].([]any)
	if st != 200 || len(results) != 3 {
		t.Fatalf("send sizes: %d %v", st, out)
	}
	for i, want := range []string{"", "message_too_large", ""} {
		got := ""
		if e, ok := results[i].(map[string]any)["error"].(map[string]any); ok {
			got, _ = e["code"].(string)
		}
		if got != want {
			t.Errorf("message %d: error %q, want %q", i, got, want)
		}
	}
	st, out = call("POST", "/v1/queues/q/messages/receive", msg{"maxMessages": 16, "waitSeconds": 30})
	got, _ := out["messages"].([]any)
	if st != 200 || len(got) != 16 {
		t.Fatalf("receive 16: %d, %d messages", st, len(got))
	}
	handles := make([]string, len(got))
	for i, m := range got {
		handles[i] = m.(map[string]any)["receiptHandle"].(string)
	}
	for _, bad := range []msg{{"maxMessages": 17}, {"waitSeconds": 31}} {
		if st, out := call("POST", "/v1/queues/q/messages/receive", bad); st != 400 || code(out) != "invalid_request" {
			t.Errorf("receive %v: %d %v", bad, st, out)
		}
	}
	if st, out := call("POST", "/v1/messages/acknowledge", msg{"receiptHandles": handles}); st != 200 || len(out["results"].([]any)) != 16 {
		t.Errorf("acknowledge 16: %d %v", st, out)
	}
}
