package compat

import (
	"net/http"
	"testing"
	"time"
)

// traceTransport adds an X-Amzn-Trace-Id header to every request, as an
// X-Ray-instrumented client does.
type traceTransport struct{ trace string }

func (t traceTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Amzn-Trace-Id", t.trace)
	return http.DefaultTransport.RoundTrip(r)
}

// The X-Amzn-Trace-Id header of a send becomes the AWSTraceHeader system
// attribute of its message: localstack/localstack
// tests/aws/services/sqs/test_sqs.snapshot.json,
// TestSqsProvider::test_aws_trace_header_propagation[sqs] and [sqs_query]
// (recorded 27-06-2025). The header "corresponds to all messages included
// in a SendMessage or SendMessageBatch request", and "the message system
// attribute overrides the HTTP trace header" (X-Ray Developer Guide,
// "Amazon SQS and AWS X-Ray"). A send without the header leaves the
// attribute out.
func TestFidelityTraceHeader(t *testing.T) {
	const trace = "Root=1-3152b799-8954dae64eda91bc9a23a7e8;Parent=7fa8c0f79203be72;Sampled=1"
	const explicit = "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1"
	runCases(t, []actionCase{{name: "X-Amzn-Trace-Id", run: func(e *env) {
		traced := e.clientWith(clientOpts{http: &http.Client{Timeout: 30 * time.Second, Transport: traceTransport{trace}}})
		url := e.createQueue("traced", nil)
		// One message, then a batch of a plain entry and one with its own
		// AWSTraceHeader, all sent with the header; then one without it.
		if _, err := traced.SendMessage(url, sendIn{Body: "single"}); err != nil {
			e.t.Fatal(err)
		}
		ok, _, err := traced.SendMessageBatch(url, []sendIn{entry("plain", "batched"), {ID: "own", Body: "own trace", SysAttrs: traceHeader(explicit)}})
		if err != nil || len(ok) != 2 {
			e.t.Fatalf("batch: %v %v", ok, err)
		}
		for _, s := range ok {
			// Only the attribute the entry gave is digested.
			if got := s.MD5SysAttrs != ""; got != (s.ID == "own") {
				e.t.Errorf("entry %s: MD5OfMessageSystemAttributes %q", s.ID, s.MD5SysAttrs)
			}
		}
		e.send(url, "untraced")

		got := map[string]string{} // body to AWSTraceHeader
		for _, m := range e.receive(url, receiveIn{Max: ptr(10), SysNames: []string{"SentTimestamp", "AWSTraceHeader"}}) {
			got[m.Body] = m.Attrs["AWSTraceHeader"]
			if m.Attrs["SentTimestamp"] == "" {
				e.t.Errorf("%s: no SentTimestamp", m.Body)
			}
		}
		want := map[string]string{"single": trace, "batched": trace, "own trace": explicit, "untraced": ""}
		if len(got) != len(want) {
			e.t.Fatalf("received %v", got)
		}
		for body, w := range want {
			if got[body] != w {
				e.t.Errorf("%q has AWSTraceHeader %q, want %q", body, got[body], w)
			}
		}
	}}})
}
