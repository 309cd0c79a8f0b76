package compat

import (
	"net/http"
	"testing"
	"time"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	awsv1 "github.com/aws/aws-sdk-go/aws"
	sqsv1 "github.com/aws/aws-sdk-go/service/sqs"

	"github.com/minisqs/minisqs/server"
)

// fdTraceTransport adds an X-Amzn-Trace-Id header to every request, as an
// X-Ray-instrumented client does.
type fdTraceTransport struct{ trace string }

func (t fdTraceTransport) RoundTrip(r *http.Request) (*http.Response, error) {
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
	e := newFDEnv(t, server.Config{})
	traced := &http.Client{Timeout: 30 * time.Second, Transport: fdTraceTransport{trace}}
	js := jsonClient(t, e.srv.URL(), func(o *sqsv2.Options) { o.HTTPClient = traced })
	q := queryClient(t, e.srv.URL(), &awsv1.Config{HTTPClient: traced})

	for _, p := range fdProtocols {
		url := e.create("traced-"+p, nil)
		// One message, then a batch of a plain entry and one with its own
		// AWSTraceHeader, all sent with the header; then one without it.
		if p == "json" {
			if _, err := js.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: jStr(url), MessageBody: jStr("single")}); err != nil {
				t.Fatal(err)
			}
			out, err := js.SendMessageBatch(e.ctx, &sqsv2.SendMessageBatchInput{QueueUrl: jStr(url), Entries: []types.SendMessageBatchRequestEntry{
				{Id: jStr("plain"), MessageBody: jStr("batched")},
				{Id: jStr("own"), MessageBody: jStr("own trace"), MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{
					"AWSTraceHeader": {DataType: jStr("String"), StringValue: jStr(explicit)}}},
			}})
			if err != nil || len(out.Successful) != 2 {
				t.Fatalf("batch: %v %v", out, err)
			}
			for _, s := range out.Successful {
				// Only the attribute the entry gave is digested.
				if got := s.MD5OfMessageSystemAttributes != nil; got != (awsv2.ToString(s.Id) == "own") {
					t.Errorf("entry %s: MD5OfMessageSystemAttributes %v", awsv2.ToString(s.Id), awsv2.ToString(s.MD5OfMessageSystemAttributes))
				}
			}
			if _, err := e.js.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: jStr(url), MessageBody: jStr("untraced")}); err != nil {
				t.Fatal(err)
			}
		} else {
			if _, err := q.SendMessage(&sqsv1.SendMessageInput{QueueUrl: qStr(url), MessageBody: qStr("single")}); err != nil {
				t.Fatal(err)
			}
			out, err := q.SendMessageBatch(&sqsv1.SendMessageBatchInput{QueueUrl: qStr(url), Entries: []*sqsv1.SendMessageBatchRequestEntry{
				{Id: qStr("plain"), MessageBody: qStr("batched")},
				{Id: qStr("own"), MessageBody: qStr("own trace"), MessageSystemAttributes: map[string]*sqsv1.MessageSystemAttributeValue{
					"AWSTraceHeader": {DataType: qStr("String"), StringValue: qStr(explicit)}}},
			}})
			if err != nil || len(out.Successful) != 2 {
				t.Fatalf("batch: %v %v", out, err)
			}
			if _, err := e.q.SendMessage(&sqsv1.SendMessageInput{QueueUrl: qStr(url), MessageBody: qStr("untraced")}); err != nil {
				t.Fatal(err)
			}
		}

		got := map[string]string{} // body to AWSTraceHeader
		if p == "json" {
			out, err := e.js.ReceiveMessage(e.ctx, &sqsv2.ReceiveMessageInput{QueueUrl: jStr(url), MaxNumberOfMessages: 10,
				MessageSystemAttributeNames: []types.MessageSystemAttributeName{"SentTimestamp", "AWSTraceHeader"}})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range out.Messages {
				got[awsv2.ToString(m.Body)] = m.Attributes["AWSTraceHeader"]
				if m.Attributes["SentTimestamp"] == "" {
					t.Errorf("%s: no SentTimestamp", awsv2.ToString(m.Body))
				}
			}
		} else {
			out, err := e.q.ReceiveMessage(&sqsv1.ReceiveMessageInput{QueueUrl: qStr(url), MaxNumberOfMessages: awsv1.Int64(10),
				AttributeNames: awsv1.StringSlice([]string{"SentTimestamp", "AWSTraceHeader"})})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range out.Messages {
				got[awsv1.StringValue(m.Body)] = awsv1.StringValue(m.Attributes["AWSTraceHeader"])
			}
		}
		want := map[string]string{"single": trace, "batched": trace, "own trace": explicit, "untraced": ""}
		if len(got) != len(want) {
			t.Fatalf("%s: received %v", p, got)
		}
		for body, w := range want {
			if got[body] != w {
				t.Errorf("%s: %q has AWSTraceHeader %q, want %q", p, body, got[body], w)
			}
		}
	}
}
