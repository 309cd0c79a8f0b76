package compat

// Fault rules and the request journal of the test-control API
// (/_minisqs/faults, /_minisqs/requests), driven with real clients: the
// SDKs must retry, throttle and fail on a faulted answer exactly as they
// would against AWS.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os/exec"
	"testing"
	"time"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	awsv1 "github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/awserr"
	"github.com/aws/aws-sdk-go/aws/client"
	"github.com/aws/aws-sdk-go/aws/request"
	sqsv1 "github.com/aws/aws-sdk-go/service/sqs"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/minisqs/minisqs/internal/testenv"
	"github.com/minisqs/minisqs/server"
)

// journalEntry is an entry of GET /_minisqs/requests.
type journalEntry struct {
	Time       string  `json:"time"`
	Protocol   string  `json:"protocol"`
	Action     string  `json:"action"`
	Queue      string  `json:"queue"`
	Status     int     `json:"status"`
	ErrorCode  string  `json:"errorCode"`
	DurationMs float64 `json:"durationMs"`
	FaultID    string  `json:"faultId"`
}

// faultRule is a rule as GET /_minisqs/faults lists it.
type faultRule struct {
	ID     string `json:"id"`
	Action string `json:"action"`
	Hits   int    `json:"hits"`
}

// addFault sets a fault rule and returns its id.
func addFault(t *testing.T, srv *testServer, rule map[string]any) string {
	t.Helper()
	status, body := doJSON(t, http.MethodPost, srv.URL()+"/_minisqs/faults", rule)
	var f faultRule
	if err := json.Unmarshal(body, &f); status != http.StatusCreated || err != nil || f.ID == "" {
		t.Fatalf("POST /_minisqs/faults %v: %d %s", rule, status, body)
	}
	return f.ID
}

func listFaults(t *testing.T, srv *testServer) []faultRule {
	t.Helper()
	status, body := doJSON(t, http.MethodGet, srv.URL()+"/_minisqs/faults", nil)
	var out struct{ Faults []faultRule }
	if err := json.Unmarshal(body, &out); status != http.StatusOK || err != nil {
		t.Fatalf("GET /_minisqs/faults: %d %s", status, body)
	}
	return out.Faults
}

// journal lists the journal, newest first.
func journal(t *testing.T, srv *testServer) []journalEntry {
	t.Helper()
	status, body := doJSON(t, http.MethodGet, srv.URL()+"/_minisqs/requests?limit=1000", nil)
	var out struct{ Requests []journalEntry }
	if err := json.Unmarshal(body, &out); status != http.StatusOK || err != nil {
		t.Fatalf("GET /_minisqs/requests: %d %s", status, body)
	}
	return out.Requests
}

// entriesOf keeps the entries of one action.
func entriesOf(entries []journalEntry, action string) []journalEntry {
	var out []journalEntry
	for _, e := range entries {
		if e.Action == action {
			out = append(out, e)
		}
	}
	return out
}

// quickRetries keeps the SDK's retry rules and shortens its backoff, so
// that retried tests take milliseconds.
func quickRetries(o *sqsv2.Options) {
	o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxBackoff = 5 * time.Millisecond
	})
}

// noRetries makes one attempt per call, so that the error is the first
// answer's.
func noRetries(o *sqsv2.Options) { o.RetryMaxAttempts = 1 }

func faultServer(t *testing.T) (*testServer, string) {
	t.Helper()
	t.Parallel()
	srv := startServer(t, server.Config{})
	out, err := jsonClient(t, srv.URL()).CreateQueue(context.Background(), &sqsv2.CreateQueueInput{QueueName: awsv2.String("orders")})
	if err != nil {
		t.Fatal(err)
	}
	return srv, *out.QueueUrl
}

// wantRetried checks the journal after a call that a ServiceUnavailable
// rule with count 2 hit: three attempts, newest first, the two older
// answered by the rule with 503.
func wantRetried(t *testing.T, srv *testServer, protocol, faultID string) {
	t.Helper()
	got := entriesOf(journal(t, srv), "ReceiveMessage")
	if len(got) != 3 {
		t.Fatalf("journal has %d ReceiveMessage requests, want 3: %+v", len(got), got)
	}
	for i, e := range got {
		faulted := i > 0
		if e.Protocol != protocol || e.Queue != "orders" {
			t.Errorf("attempt %d: %+v", 3-i, e)
		}
		if faulted && (e.FaultID != faultID || e.Status != 503 || e.ErrorCode != "ServiceUnavailable") {
			t.Errorf("attempt %d is not the fault's: %+v", 3-i, e)
		}
		if !faulted && (e.FaultID != "" || e.Status != 200 || e.ErrorCode != "") {
			t.Errorf("attempt %d did not succeed: %+v", 3-i, e)
		}
	}
	if f := listFaults(t, srv); len(f) != 1 || f[0].ID != faultID || f[0].Hits != 2 {
		t.Errorf("faults %+v, want one with 2 hits", f)
	}
}

// TestFaultServiceUnavailableRetriedJSON: aws-sdk-go-v2 retries a 503
// ServiceUnavailable twice and then succeeds.
func TestFaultServiceUnavailableRetriedJSON(t *testing.T) {
	srv, url := faultServer(t)
	c := jsonClient(t, srv.URL(), quickRetries)
	if _, err := c.SendMessage(context.Background(), &sqsv2.SendMessageInput{QueueUrl: &url, MessageBody: awsv2.String("m")}); err != nil {
		t.Fatal(err)
	}
	id := addFault(t, srv, map[string]any{"action": "ReceiveMessage", "error": "ServiceUnavailable", "count": 2})
	out, err := c.ReceiveMessage(context.Background(), &sqsv2.ReceiveMessageInput{QueueUrl: &url})
	if err != nil {
		t.Fatalf("the SDK gave up: %v", err)
	}
	if len(out.Messages) != 1 || *out.Messages[0].Body != "m" {
		t.Fatalf("received %+v", out.Messages)
	}
	if attempts, ok := retry.GetAttemptResults(out.ResultMetadata); !ok || len(attempts.Results) != 3 {
		t.Errorf("the SDK reports %d attempts, want 3", len(attempts.Results))
	}
	wantRetried(t, srv, "json", id)
}

// TestFaultServiceUnavailableRetriedQuery: aws-sdk-go v1 over the query
// protocol does the same.
func TestFaultServiceUnavailableRetriedQuery(t *testing.T) {
	srv, url := faultServer(t)
	c := queryClient(t, srv.URL())
	if _, err := (v1Client{c: c}).SendMessage(url, sendIn{Body: "m"}); err != nil {
		t.Fatal(err)
	}
	id := addFault(t, srv, map[string]any{"action": "ReceiveMessage", "error": "ServiceUnavailable", "count": 2})
	req, out := c.ReceiveMessageRequest(&sqsv1.ReceiveMessageInput{QueueUrl: &url})
	if err := req.Send(); err != nil {
		t.Fatalf("the SDK gave up: %v", err)
	}
	if len(out.Messages) != 1 || *out.Messages[0].Body != "m" {
		t.Fatalf("received %+v", out.Messages)
	}
	if req.RetryCount != 2 {
		t.Errorf("the SDK retried %d times, want 2", req.RetryCount)
	}
	wantRetried(t, srv, "query", id)
}

// TestFaultThrottling: ThrottlingException and RequestThrottled answer in
// each protocol as AWS does, and the SDKs take them for throttling.
func TestFaultThrottling(t *testing.T) {
	srv, url := faultServer(t)
	ctx := context.Background()
	v2 := jsonClient(t, srv.URL(), noRetries)
	v1 := queryClient(t, srv.URL(), awsv1.NewConfig().WithMaxRetries(0))
	for _, tc := range []struct {
		code   string
		status int
	}{
		{"ThrottlingException", 400},
		{"RequestThrottled", 403}, // the SQS model's status for it
	} {
		addFault(t, srv, map[string]any{"action": "SendMessage", "error": tc.code, "count": 2})

		_, err := v2.SendMessage(ctx, &sqsv2.SendMessageInput{QueueUrl: &url, MessageBody: awsv2.String("x")})
		var api smithy.APIError
		var re *awshttp.ResponseError
		switch {
		case !errors.As(err, &api) || api.ErrorCode() != tc.code || api.ErrorFault() != smithy.FaultClient:
			t.Errorf("%s: aws-sdk-go-v2 got %v", tc.code, err)
		case !errors.As(err, &re) || re.HTTPStatusCode() != tc.status:
			t.Errorf("%s: aws-sdk-go-v2 status %v, want %d", tc.code, err, tc.status)
		case retry.IsErrorThrottles(retry.DefaultThrottles).IsErrorThrottle(err) != awsv2.TrueTernary:
			t.Errorf("%s: aws-sdk-go-v2 does not take %v for throttling", tc.code, err)
		case !retry.NewStandard().IsErrorRetryable(err):
			t.Errorf("%s: aws-sdk-go-v2 would not retry %v", tc.code, err)
		}

		req, _ := v1.SendMessageRequest(&sqsv1.SendMessageInput{QueueUrl: &url, MessageBody: awsv1.String("x")})
		err = req.Send()
		var rf awserr.RequestFailure
		switch {
		case !errors.As(err, &rf) || rf.Code() != tc.code || rf.StatusCode() != tc.status:
			t.Errorf("%s: aws-sdk-go got %v", tc.code, err)
		case !req.IsErrorThrottle():
			t.Errorf("%s: aws-sdk-go does not take %v for a throttle", tc.code, err)
		}
		// The retryer the SDK uses by default, asked afresh (this client
		// makes no retries, so it settled on none).
		req.Retryable = nil
		if !(client.DefaultRetryer{NumMaxRetries: client.DefaultRetryerMaxNumRetries}).ShouldRetry(req) {
			t.Errorf("%s: aws-sdk-go would not retry %v", tc.code, err)
		}
	}
	// Four throttled sends stored nothing.
	if n := (&env{t: t, srv: srv, c: v1Client{c: v1}}).counts(url); n != [3]int{} {
		t.Errorf("throttled sends stored messages: counts %v", n)
	}
}

// botoThrottleScript sends with boto3 against a ThrottlingException rule: once
// with a single attempt, to classify the error as botocore's standard
// retry mode does, and once with three, which botocore retries.
const botoThrottleScript = `
import json, sys
import boto3
from botocore.config import Config
from botocore.exceptions import ClientError
from botocore.retries.standard import RetryContext, ThrottledRetryableChecker

endpoint, queue_url = sys.argv[1], sys.argv[2]

def client(attempts):
    return boto3.client("sqs", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id="test", aws_secret_access_key="test",
                        config=Config(retries={"mode": "standard", "total_max_attempts": attempts}))

out = {}
try:
    client(1).send_message(QueueUrl=queue_url, MessageBody="x")
except ClientError as e:
    out["code"] = e.response["Error"]["Code"]
    out["status"] = e.response["ResponseMetadata"]["HTTPStatusCode"]
    ctx = RetryContext(attempt_number=1, parsed_response=e.response)
    out["throttle"] = ThrottledRetryableChecker().is_retryable(ctx)
r = client(3).send_message(QueueUrl=queue_url, MessageBody="x")
out["retries"] = r["ResponseMetadata"]["RetryAttempts"]
print(json.dumps(out))
`

// TestFaultThrottlingBoto3: botocore takes the JSON protocol's
// ThrottlingException for throttling and retries it.
func TestFaultThrottlingBoto3(t *testing.T) {
	if err := exec.Command("python3", "-c", "import boto3").Run(); err != nil {
		testenv.Missing(t, "boto3 is not installed for python3: %v", err)
	}
	srv, url := faultServer(t)
	addFault(t, srv, map[string]any{"action": "SendMessage", "error": "ThrottlingException", "count": 2})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	raw, err := exec.CommandContext(ctx, "python3", "-c", botoThrottleScript, srv.URL(), url).CombinedOutput()
	if err != nil {
		t.Fatalf("boto3: %v\n%s", err, raw)
	}
	var got struct {
		Code     string
		Status   int
		Throttle bool
		Retries  int
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("boto3 said %s: %v", raw, err)
	}
	if got.Code != "ThrottlingException" || got.Status != 400 || !got.Throttle || got.Retries != 1 {
		t.Errorf("boto3: %+v, want ThrottlingException 400, a throttle, retried once", got)
	}
	sends := entriesOf(journal(t, srv), "SendMessage")
	if len(sends) != 3 || sends[0].Status != 200 || sends[1].ErrorCode != "ThrottlingException" || sends[2].ErrorCode != "ThrottlingException" {
		t.Errorf("journal: %+v", sends)
	}
}

// TestFaultLatency: a latency rule delays the call by at least its time,
// and the call then succeeds.
func TestFaultLatency(t *testing.T) {
	srv, url := faultServer(t)
	const ms = 150
	id := addFault(t, srv, map[string]any{"action": "GetQueueAttributes", "latencyMs": ms})
	c := jsonClient(t, srv.URL(), noRetries)
	start := time.Now()
	if _, err := c.GetQueueAttributes(context.Background(), &sqsv2.GetQueueAttributesInput{QueueUrl: &url}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < ms*time.Millisecond {
		t.Errorf("the call took %v, less than the rule's %d ms", took, ms)
	}
	got := entriesOf(journal(t, srv), "GetQueueAttributes")
	if len(got) != 1 || got[0].Status != 200 || got[0].FaultID != id || got[0].DurationMs < ms {
		t.Errorf("journal: %+v", got)
	}
}

// TestFaultDrop: a dropped connection is a connection error to the SDKs,
// and the send it dropped stored nothing.
func TestFaultDrop(t *testing.T) {
	srv, url := faultServer(t)
	id := addFault(t, srv, map[string]any{"action": "SendMessage", "drop": true})

	_, err := jsonClient(t, srv.URL(), noRetries).SendMessage(context.Background(), &sqsv2.SendMessageInput{QueueUrl: &url, MessageBody: awsv2.String("x")})
	var api smithy.APIError
	var send *smithyhttp.RequestSendError
	if err == nil || errors.As(err, &api) {
		t.Errorf("aws-sdk-go-v2 got an answer: %v", err)
	} else if !errors.As(err, &send) || (retry.RetryableConnectionError{}).IsErrorRetryable(err) != awsv2.TrueTernary {
		t.Errorf("aws-sdk-go-v2 does not see a connection error: %v", err)
	}

	v1 := queryClient(t, srv.URL(), awsv1.NewConfig().WithMaxRetries(0))
	_, err = v1.SendMessage(&sqsv1.SendMessageInput{QueueUrl: &url, MessageBody: awsv1.String("x")})
	var rf awserr.RequestFailure
	var ae awserr.Error
	if errors.As(err, &rf) || !errors.As(err, &ae) || ae.Code() != request.ErrCodeRequestError {
		t.Errorf("aws-sdk-go got %v, want a request error without an answer", err)
	}

	if n := (&env{t: t, srv: srv, c: v1Client{c: v1}}).counts(url); n != [3]int{} {
		t.Errorf("%d messages stored by dropped sends", n)
	}
	got := entriesOf(journal(t, srv), "SendMessage")
	if len(got) != 2 || got[0].Status != 0 || got[0].FaultID != id || got[1].FaultID != id {
		t.Errorf("journal: %+v", got)
	}
}

// TestFaultedSendStoresNothing: a send answered by a rule never reaches the
// queue; the next, past the rule's count, does.
func TestFaultedSendStoresNothing(t *testing.T) {
	srv, url := faultServer(t)
	addFault(t, srv, map[string]any{"action": "SendMessage", "error": "InternalError", "count": 1})
	c := jsonClient(t, srv.URL(), noRetries)
	ctx := context.Background()
	_, err := c.SendMessage(ctx, &sqsv2.SendMessageInput{QueueUrl: &url, MessageBody: awsv2.String("lost")})
	var api smithy.APIError
	if !errors.As(err, &api) || api.ErrorCode() != "InternalError" || api.ErrorFault() != smithy.FaultServer {
		t.Fatalf("got %v", err)
	}
	out, err := c.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{QueueUrl: &url})
	if err != nil || len(out.Messages) != 0 {
		t.Fatalf("the faulted send stored %+v (%v)", out.Messages, err)
	}
	if _, err := c.SendMessage(ctx, &sqsv2.SendMessageInput{QueueUrl: &url, MessageBody: awsv2.String("kept")}); err != nil {
		t.Fatal(err)
	}
	out, err = c.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{QueueUrl: &url, MaxNumberOfMessages: 10})
	if err != nil || len(out.Messages) != 1 || *out.Messages[0].Body != "kept" {
		t.Fatalf("received %+v (%v)", out.Messages, err)
	}
}

// TestFaultQueueScoped: a rule for one queue leaves the others alone, in
// both SQS protocols.
func TestFaultQueueScoped(t *testing.T) {
	srv, orders := faultServer(t)
	ctx := context.Background()
	v2 := jsonClient(t, srv.URL(), noRetries)
	out, err := v2.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("events")})
	if err != nil {
		t.Fatal(err)
	}
	events := *out.QueueUrl
	addFault(t, srv, map[string]any{"action": "*", "queue": "orders", "error": "AWS.SimpleQueueService.NonExistentQueue"})

	_, err = v2.SendMessage(ctx, &sqsv2.SendMessageInput{QueueUrl: &orders, MessageBody: awsv2.String("x")})
	wantErr(t, err, "AWS.SimpleQueueService.NonExistentQueue", 400)
	if _, err := v2.SendMessage(ctx, &sqsv2.SendMessageInput{QueueUrl: &events, MessageBody: awsv2.String("x")}); err != nil {
		t.Errorf("events: %v", err)
	}
	v1 := queryClient(t, srv.URL(), awsv1.NewConfig().WithMaxRetries(0))
	_, err = v1.GetQueueAttributes(&sqsv1.GetQueueAttributesInput{QueueUrl: &orders})
	wantErr(t, err, "AWS.SimpleQueueService.NonExistentQueue", 400)
	if _, err := v1.GetQueueAttributes(&sqsv1.GetQueueAttributesInput{QueueUrl: &events}); err != nil {
		t.Errorf("events: %v", err)
	}
	// A rule for a queue also hits the actions that name it by name.
	_, err = v1.GetQueueUrl(&sqsv1.GetQueueUrlInput{QueueName: awsv1.String("orders")})
	wantErr(t, err, "AWS.SimpleQueueService.NonExistentQueue", 400)
	if _, err := v1.ListQueues(&sqsv1.ListQueuesInput{}); err != nil {
		t.Errorf("ListQueues names no queue: %v", err)
	}
}

// TestFaultREST: REST operations are faulted in the REST API's shape.
func TestFaultREST(t *testing.T) {
	srv, _ := faultServer(t)
	for _, tc := range []struct {
		code   string
		status int
		rest   string
	}{
		{"ThrottlingException", 429, "too_many_requests"},
		{"RequestThrottled", 429, "too_many_requests"},
		{"ServiceUnavailable", 503, "service_unavailable"},
		{"InternalError", 500, "internal_error"},
		{"QueueDoesNotExist", 500, "internal_error"},
	} {
		id := addFault(t, srv, map[string]any{"action": "SendMessages", "queue": "orders", "error": tc.code, "count": 1})
		status, body := doJSON(t, http.MethodPost, srv.URL()+"/v1/queues/orders/messages", map[string]any{"messages": []any{map[string]any{"body": "x"}}})
		var e struct {
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal(body, &e); err != nil || status != tc.status || e.Error.Code != tc.rest || e.Error.Message == "" {
			t.Errorf("%s: %d %s, want %d %s", tc.code, status, body, tc.status, tc.rest)
		}
		last := journal(t, srv)[0]
		if last.Protocol != "rest" || last.Action != "SendMessages" || last.Queue != "orders" || last.Status != tc.status || last.ErrorCode != tc.rest || last.FaultID != id {
			t.Errorf("%s: journal %+v", tc.code, last)
		}
	}
	// Nothing was stored; with the rules spent, a send goes through.
	status, body := doJSON(t, http.MethodGet, srv.URL()+"/v1/queues/orders", nil)
	var q struct{ Counts struct{ Visible int } }
	if json.Unmarshal(body, &q); status != 200 || q.Counts.Visible != 0 {
		t.Errorf("GET queue: %d %s", status, body)
	}
	if status, body := doJSON(t, http.MethodPost, srv.URL()+"/v1/queues/orders/messages", map[string]any{"messages": []any{map[string]any{"body": "x"}}}); status != 200 {
		t.Errorf("send after the rules: %d %s", status, body)
	}
}

// TestJournalAllProtocols: the journal lists requests of the three
// protocols, newest first, with their statuses and error codes.
func TestJournalAllProtocols(t *testing.T) {
	t.Parallel()
	srv := startServer(t, server.Config{})
	ctx := context.Background()
	v1 := queryClient(t, srv.URL(), awsv1.NewConfig().WithMaxRetries(0))
	if _, err := (v1Client{c: v1}).CreateQueue("orders", nil, nil); err != nil {
		t.Fatal(err)
	}
	missing := srv.URL() + "/000000000000/missing"
	_, err := jsonClient(t, srv.URL(), noRetries).SendMessage(ctx, &sqsv2.SendMessageInput{QueueUrl: &missing, MessageBody: awsv2.String("x")})
	wantErr(t, err, "AWS.SimpleQueueService.NonExistentQueue", 400)
	if status, body := doJSON(t, http.MethodGet, srv.URL()+"/v1/queues/orders", nil); status != 200 {
		t.Fatalf("GET queue: %d %s", status, body)
	}
	if status, body := doJSON(t, http.MethodGet, srv.URL()+"/v1/queues/nope", nil); status != 404 {
		t.Fatalf("GET missing queue: %d %s", status, body)
	}

	got := journal(t, srv)
	want := []journalEntry{
		{Protocol: "rest", Action: "GetQueue", Queue: "nope", Status: 404, ErrorCode: "queue_not_found"},
		{Protocol: "rest", Action: "GetQueue", Queue: "orders", Status: 200},
		{Protocol: "json", Action: "SendMessage", Queue: "missing", Status: 400, ErrorCode: "AWS.SimpleQueueService.NonExistentQueue"},
		{Protocol: "query", Action: "CreateQueue", Queue: "orders", Status: 200},
	}
	if len(got) != len(want) {
		t.Fatalf("journal has %d entries, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if _, err := time.Parse(time.RFC3339, g.Time); err != nil || len(g.Time) != len("2026-01-02T03:04:05.000Z") {
			t.Errorf("entry %d: time %q", i, g.Time)
		}
		if g.DurationMs < 0 {
			t.Errorf("entry %d: duration %v", i, g.DurationMs)
		}
		g.Time, g.DurationMs = "", 0
		if g != w {
			t.Errorf("entry %d: %+v, want %+v", i, g, w)
		}
	}
}
