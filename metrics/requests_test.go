package metrics

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/dispatch"
)

// TestRequests counts requests through the step and finds them, by
// protocol, action and outcome, in the scrape.
func TestRequests(t *testing.T) {
	e, err := engine.Open(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	m := NewRequests()
	classify := func(_ any, err error) (int, string) {
		if err != nil {
			return 400, "ThrottlingException"
		}
		return 200, ""
	}
	serve := func(p dispatch.Protocol, action string, err error) {
		m.Step()(func(context.Context, *dispatch.Request) (any, error) { return nil, err })(
			context.Background(), &dispatch.Request{Protocol: p, Action: action, Classify: classify})
	}
	serve(dispatch.JSON, "SendMessage", nil)
	serve(dispatch.JSON, "SendMessage", nil)
	serve(dispatch.JSON, "SendMessage", errors.New("throttled"))
	serve(dispatch.Query, "ReceiveMessage", dispatch.ErrDropped)
	serve(dispatch.REST, "SendMessages", nil)

	rec := httptest.NewRecorder()
	Handler(e, m).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	text := string(body)
	for _, want := range []string{
		`minisqs_requests_total{action="SendMessage",outcome="ok",protocol="json"} 2`,
		`minisqs_requests_total{action="SendMessage",outcome="ThrottlingException",protocol="json"} 1`,
		`minisqs_requests_total{action="ReceiveMessage",outcome="dropped",protocol="query"} 1`,
		`minisqs_requests_total{action="SendMessages",outcome="ok",protocol="rest"} 1`,
		`minisqs_request_duration_seconds_count{action="SendMessage",protocol="json"} 3`,
		`minisqs_request_duration_seconds_count{action="SendMessages",protocol="rest"} 1`,
		`# TYPE minisqs_request_duration_seconds histogram`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("scrape lacks %q", want)
		}
	}
	// An action that never succeeded has no "ok" series.
	if strings.Contains(text, `action="ReceiveMessage",outcome="ok"`) {
		t.Error(`scrape has an "ok" series of ReceiveMessage, which only failed`)
	}
}
