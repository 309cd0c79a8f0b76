package metrics

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

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

// Requests of many actions at once, each action first seen by several
// goroutines together, are all counted, under one series per action.
func TestRequestsConcurrentActions(t *testing.T) {
	m := NewRequests()
	ok := func(any, error) (int, string) { return 200, "" }
	const actions, workers, each = 8, 4, 25
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range actions * each {
				action := "Action" + strconv.Itoa((i+w)%actions)
				m.Step()(func(context.Context, *dispatch.Request) (any, error) { return nil, nil })(
					context.Background(), &dispatch.Request{Protocol: dispatch.JSON, Action: action, Classify: ok})
			}
		}()
	}
	wg.Wait()
	reg := prometheus.NewRegistry()
	reg.MustRegister(m)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counted := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "minisqs_requests_total" {
			continue
		}
		for _, s := range f.GetMetric() {
			labels := ""
			for _, l := range s.GetLabel() {
				labels += l.GetName() + "=" + l.GetValue() + " "
			}
			counted[labels] = s.GetCounter().GetValue()
		}
	}
	for a := range actions {
		key := "action=Action" + strconv.Itoa(a) + " outcome=ok protocol=json "
		if got := counted[key]; got != workers*each {
			t.Errorf("%scounted %v times, want %d", key, got, workers*each)
		}
	}
	if len(counted) != actions {
		t.Errorf("%d series, want %d: %v", len(counted), actions, counted)
	}
	if n := len(*m.byAction[protocolIndex(dispatch.JSON)].Load()); n != actions {
		t.Errorf("%d actions kept, want %d", n, actions)
	}
}
