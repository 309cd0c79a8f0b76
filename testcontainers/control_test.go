package minisqs_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	minisqs "github.com/minisqs/minisqs/testcontainers"
)

// wantAPIError checks that err is the control API's error with that status
// and code.
func wantAPIError(t *testing.T, err error, status int, code string) {
	t.Helper()
	var ae *minisqs.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("got %v (%T), want an APIError %d %s", err, err, status, code)
	}
	if ae.Status != status || ae.Code != code || ae.Message == "" {
		t.Fatalf("got %+v, want status %d, code %s and a message", ae, status, code)
	}
}

// receiveOne receives one message, hidden for visibility seconds.
func receiveOne(t *testing.T, c *sqs.Client, queue string, visibility int32) *types.Message {
	t.Helper()
	out, err := c.ReceiveMessage(t.Context(), &sqs.ReceiveMessageInput{
		QueueUrl: aws.String(queue), VisibilityTimeout: visibility, WaitTimeSeconds: 1,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameApproximateReceiveCount},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Messages) == 0 {
		return nil
	}
	return &out.Messages[0]
}

func TestAdvanceEndsVisibilityTimeout(t *testing.T) {
	needDocker(t)
	t.Parallel()
	ctr := run(t, minisqs.WithQueues("orders"))
	c := client(t, ctr)
	orders := queueURL(t, ctr, "orders")

	send(t, c, orders, "order 1", false)
	if m := receiveOne(t, c, orders, 30); m == nil || aws.ToString(m.Body) != "order 1" {
		t.Fatalf("first receive: %+v", m)
	}
	if m := receiveOne(t, c, orders, 30); m != nil {
		t.Fatalf("received %q while it was in flight", aws.ToString(m.Body))
	}

	before, err := ctr.Clock(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	after, err := ctr.Advance(t.Context(), 31*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.Now.Sub(before.Now); got < 31*time.Second {
		t.Errorf("the clock moved %v, want at least 31s (%v, then %v)", got, before.Now, after.Now)
	}
	if after.OffsetSeconds < before.OffsetSeconds+31 {
		t.Errorf("offset %v after %v, want 31 more", after.OffsetSeconds, before.OffsetSeconds)
	}
	m := receiveOne(t, c, orders, 30)
	if m == nil || aws.ToString(m.Body) != "order 1" {
		t.Fatalf("after Advance: %+v, want order 1 visible again", m)
	}
	if got := m.Attributes[string(types.MessageSystemAttributeNameApproximateReceiveCount)]; got != "2" {
		t.Errorf("ApproximateReceiveCount %s, want 2", got)
	}
	t.Logf("a 30 s visibility timeout ended %v after Advance was called", time.Since(start))

	if _, err := ctr.Advance(t.Context(), 0); err == nil {
		t.Error("Advance by 0 succeeded")
	}
}

func TestFaultsFailTheSDK(t *testing.T) {
	needDocker(t)
	t.Parallel()
	ctr := run(t, minisqs.WithQueues("orders", "audit"))
	c := client(t, ctr)
	once, err := ctr.SQSClient(t.Context(), func(o *sqs.Options) { o.RetryMaxAttempts = 1 })
	if err != nil {
		t.Fatal(err)
	}
	orders, audit := queueURL(t, ctr, "orders"), queueURL(t, ctr, "audit")

	rule := minisqs.Fault{Action: "SendMessage", Queue: "orders", Error: "ServiceUnavailable", Count: 2}
	f, err := ctr.AddFault(t.Context(), rule)
	if err != nil {
		t.Fatal(err)
	}
	if f.ID == "" || f.Action != rule.Action || f.Queue != rule.Queue || f.Error != rule.Error || f.Count != 2 {
		t.Fatalf("added %+v for %+v", f, rule)
	}

	// Without retries the SDK sees AWS's error; nothing is sent.
	_, err = once.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(orders), MessageBody: aws.String("lost")})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "ServiceUnavailable" {
		t.Fatalf("send with the fault: %v, want ServiceUnavailable", err)
	}
	// The rule is for orders only.
	send(t, c, audit, "audited", false)

	// With the SDK's retries the second attempt is the rule's last hit and
	// the third gets through.
	send(t, c, orders, "kept", false)
	if m := receiveOne(t, c, orders, 30); m == nil || aws.ToString(m.Body) != "kept" {
		t.Fatalf("received %+v, want only the message sent once the fault was spent", m)
	}

	faults, err := ctr.Faults(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(faults) != 1 || faults[0].ID != f.ID || faults[0].Hits != 2 {
		t.Errorf("faults %+v, want %s with 2 hits", faults, f.ID)
	}
	requests, err := ctr.Requests(t.Context(), 20)
	if err != nil {
		t.Fatal(err)
	}
	var hit []minisqs.Request
	for _, r := range requests {
		if r.FaultID == f.ID {
			hit = append(hit, r)
		}
	}
	if len(hit) != 2 {
		t.Fatalf("requests %+v: want 2 answered by fault %s", requests, f.ID)
	}
	for _, r := range hit {
		if r.Action != "SendMessage" || r.Queue != "orders" || r.Status != http.StatusServiceUnavailable || r.ErrorCode != "ServiceUnavailable" || r.Protocol != "json" || r.Time.IsZero() {
			t.Errorf("request %+v", r)
		}
	}
	if last, err := ctr.Requests(t.Context(), 1); err != nil || len(last) != 1 {
		t.Errorf("Requests(1): %+v, %v", last, err)
	}

	// An error the SDK does not retry comes back as its typed error.
	f2, err := ctr.AddFault(t.Context(), minisqs.Fault{Action: "ReceiveMessage", Error: "QueueDoesNotExist"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ReceiveMessage(t.Context(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(audit)})
	var missing *types.QueueDoesNotExist
	if !errors.As(err, &missing) {
		t.Fatalf("receive with the fault: %v, want QueueDoesNotExist", err)
	}
	if err := ctr.DeleteFault(t.Context(), f2.ID); err != nil {
		t.Fatal(err)
	}
	if m := receiveOne(t, c, audit, 30); m == nil || aws.ToString(m.Body) != "audited" {
		t.Fatalf("received %+v after the rule was deleted", m)
	}
	wantAPIError(t, ctr.DeleteFault(t.Context(), f2.ID), http.StatusNotFound, "not_found")

	if _, err := ctr.AddFault(t.Context(), minisqs.Fault{Action: "SendMessage"}); err == nil {
		t.Error("a rule with no effect was accepted")
	} else {
		wantAPIError(t, err, http.StatusBadRequest, "invalid_request")
	}

	if _, err := ctr.AddFault(t.Context(), minisqs.Fault{Action: "*", LatencyMs: 1}); err != nil {
		t.Fatal(err)
	}
	if err := ctr.ClearFaults(t.Context()); err != nil {
		t.Fatal(err)
	}
	if faults, err := ctr.Faults(t.Context()); err != nil || len(faults) != 0 {
		t.Errorf("faults after ClearFaults: %+v, %v", faults, err)
	}
}

func TestResetEmpties(t *testing.T) {
	needDocker(t)
	t.Parallel()
	ctr := run(t, minisqs.WithQueues("orders", "events.fifo"))
	c := client(t, ctr)
	orders, events := queueURL(t, ctr, "orders"), queueURL(t, ctr, "events.fifo")
	send(t, c, orders, "o1", false)
	send(t, c, events, "e1", true)

	if err := ctr.ResetQueues(t.Context(), "orders"); err != nil {
		t.Fatal(err)
	}
	if m := receiveOne(t, c, orders, 30); m != nil {
		t.Errorf("orders after ResetQueues: %q", aws.ToString(m.Body))
	}
	// The deduplication window went too: the same id is a new message.
	send(t, c, events, "e1", true)
	if got := receive(t, c, events, 10, 30); !slices.Equal(got, []string{"e1"}) {
		t.Errorf("events.fifo, not reset: %v, want the one e1", got)
	}
	wantAPIError(t, ctr.ResetQueues(t.Context(), "orders", "nope"), http.StatusNotFound, "queue_not_found")

	if err := ctr.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := listQueues(t, c); len(got) != 0 {
		t.Errorf("queues after Reset: %v", got)
	}
}

func TestStateRoundTrip(t *testing.T) {
	needDocker(t)
	t.Parallel()
	ctr := run(t, minisqs.WithQueues("orders", "events.fifo"))
	c := client(t, ctr)
	orders, events := queueURL(t, ctr, "orders"), queueURL(t, ctr, "events.fifo")
	for _, b := range []string{"o1", "o2"} {
		send(t, c, orders, b, false)
		send(t, c, events, b, true)
	}

	state, err := ctr.SaveState(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(state, &doc); err != nil || doc.Version != 1 {
		t.Fatalf("state %.200s: version %d, %v", state, doc.Version, err)
	}

	if err := ctr.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := ctr.LoadState(t.Context(), state); err != nil {
		t.Fatal(err)
	}
	if got, want := listQueues(t, c), []string{"events.fifo", "orders"}; !slices.Equal(got, want) {
		t.Fatalf("queues after LoadState: %v, want %v", got, want)
	}
	if got := receive(t, c, events, 10, 30); !slices.Equal(got, []string{"o1", "o2"}) {
		t.Errorf("events.fifo after LoadState: %v, want o1 o2 in order", got)
	}
	got := receive(t, c, orders, 10, 30)
	slices.Sort(got)
	if !slices.Equal(got, []string{"o1", "o2"}) {
		t.Errorf("orders after LoadState: %v, want o1 o2", got)
	}

	// A document that breaks a rule is refused whole.
	wantAPIError(t, ctr.LoadState(t.Context(), json.RawMessage(`{"version": 1, "queues": [{"name": "not a name"}]}`)), http.StatusBadRequest, "invalid_request")
	if got, want := listQueues(t, c), []string{"events.fifo", "orders"}; !slices.Equal(got, want) {
		t.Errorf("queues after a refused LoadState: %v, want %v", got, want)
	}
}

func TestWait(t *testing.T) {
	needDocker(t)
	t.Parallel()
	ctr := run(t, minisqs.WithQueues("orders"))
	c := client(t, ctr)
	orders := queueURL(t, ctr, "orders")

	send(t, c, orders, "order 1 for alice", false)
	counts, err := ctr.Wait(t.Context(), minisqs.WaitCondition{Queue: "orders", BodyContains: "alice", Timeout: 10 * time.Second})
	if err != nil || counts.Visible != 1 {
		t.Fatalf("wait for alice: %+v, %v", counts, err)
	}

	// A consumer takes the message while the test waits for the queue to
	// empty.
	consumed := make(chan error, 1)
	go func() {
		out, err := c.ReceiveMessage(t.Context(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(orders), WaitTimeSeconds: 5})
		if err == nil && len(out.Messages) == 1 {
			_, err = c.DeleteMessage(t.Context(), &sqs.DeleteMessageInput{QueueUrl: aws.String(orders), ReceiptHandle: out.Messages[0].ReceiptHandle})
		} else if err == nil {
			err = errors.New("the consumer received nothing")
		}
		consumed <- err
	}()
	counts, err = ctr.Wait(t.Context(), minisqs.WaitCondition{Queue: "orders", Empty: true, Timeout: 20 * time.Second})
	if err != nil || counts != (minisqs.Counts{}) {
		t.Fatalf("wait for empty: %+v, %v", counts, err)
	}
	if err := <-consumed; err != nil {
		t.Fatal(err)
	}

	counts, err = ctr.Wait(t.Context(), minisqs.WaitCondition{Queue: "orders", Visible: 5, Timeout: time.Second})
	var timeout *minisqs.WaitTimeoutError
	if !errors.As(err, &timeout) || timeout.Counts != (minisqs.Counts{}) || counts != timeout.Counts {
		t.Fatalf("wait for 5 visible: %+v, %v; want a WaitTimeoutError with no messages", counts, err)
	}

	_, err = ctr.Wait(t.Context(), minisqs.WaitCondition{Queue: "nope", Empty: true, Timeout: time.Second})
	wantAPIError(t, err, http.StatusNotFound, "queue_not_found")
}

func TestAdminToken(t *testing.T) {
	needDocker(t)
	t.Parallel()
	const token = "s3cret-admin"
	ctr := run(t, minisqs.WithAdminToken(token), minisqs.WithQueues("orders"))
	if _, err := ctr.Clock(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := ctr.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}

	endpoint, err := ctr.BaseEndpoint(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, auth := range []string{"", "Bearer wrong"} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, endpoint+"/_minisqs/clock", nil)
		if err != nil {
			t.Fatal(err)
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET /_minisqs/clock with %q: %s, want 401", auth, resp.Status)
		}
	}
}
