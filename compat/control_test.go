package compat

// The test-control API and LocalStack's endpoints driven as a suite drives
// them: a real server, real SDK clients, the clock moved over HTTP.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	credv2 "github.com/aws/aws-sdk-go-v2/credentials"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/server"
)

// control calls the control API and returns the status and body.
func control(t testing.TB, endpoint, method, path string, body any) (int, []byte) {
	t.Helper()
	return doJSON(t, method, endpoint+path, body)
}

// mustControl requires the status.
func mustControl(t testing.TB, endpoint string, status int, method, path string, body any) []byte {
	t.Helper()
	got, out := control(t, endpoint, method, path, body)
	if got != status {
		t.Fatalf("%s %s: %d %s, want %d", method, path, got, out, status)
	}
	return out
}

func advance(t testing.TB, endpoint string, seconds float64) {
	t.Helper()
	mustControl(t, endpoint, 200, "POST", "/_minisqs/clock/advance", map[string]any{"seconds": seconds})
}

// dlqRedriveV2 sends a message to a queue with a three-receive redrive
// policy, receives it three times with the clock moved past its 30-second
// visibility timeout after each, and finds it in the dead-letter queue.
func dlqRedriveV2(t *testing.T, endpoint string) {
	ctx := context.Background()
	c := jsonClient(t, endpoint)
	mustControl(t, endpoint, 204, "POST", "/_minisqs/reset", nil)
	dlq, err := c.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("orders-dlq")})
	if err != nil {
		t.Fatal(err)
	}
	attrs, err := c.GetQueueAttributes(ctx, &sqsv2.GetQueueAttributesInput{QueueUrl: dlq.QueueUrl, AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
	if err != nil {
		t.Fatal(err)
	}
	dlqArn := attrs.Attributes["QueueArn"]
	src, err := c.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("orders"), Attributes: map[string]string{
		"VisibilityTimeout": "30",
		"RedrivePolicy":     fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":"3"}`, dlqArn),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SendMessage(ctx, &sqsv2.SendMessageInput{QueueUrl: src.QueueUrl, MessageBody: awsv2.String("order 1")}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		out, err := c.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{QueueUrl: src.QueueUrl, MessageSystemAttributeNames: []types.MessageSystemAttributeName{"ApproximateReceiveCount"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) != 1 || out.Messages[0].Attributes["ApproximateReceiveCount"] != fmt.Sprint(i) {
			t.Fatalf("receive %d: %+v", i, out.Messages)
		}
		advance(t, endpoint, 31)
	}
	out, err := c.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{QueueUrl: src.QueueUrl})
	if err != nil || len(out.Messages) != 0 {
		t.Fatalf("a fourth receive got %+v, %v; want the message dead-lettered", out, err)
	}
	dead, err := c.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{QueueUrl: dlq.QueueUrl, MessageSystemAttributeNames: []types.MessageSystemAttributeName{"All"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(dead.Messages) != 1 || *dead.Messages[0].Body != "order 1" || !strings.HasSuffix(dead.Messages[0].Attributes["DeadLetterQueueSourceArn"], ":orders") {
		t.Fatalf("the dead-letter queue holds %+v", dead.Messages)
	}
}

// The DLQ scenario costs milliseconds with the clock; with real sleeps its
// three 31-second waits alone would take 93 s.
func TestControlDeadLetterRedriveGoSDK(t *testing.T) {
	srv := startServer(t, server.Config{})
	start := time.Now()
	dlqRedriveV2(t, srv.URL())
	took := time.Since(start)
	const sleeps = 3 * 31 * time.Second
	t.Logf("DLQ redrive with aws-sdk-go-v2 and the control clock: %v; with real sleeps at least %v (%.0fx)", took.Round(time.Millisecond), sleeps, float64(sleeps)/float64(took))
}

// The server's own clock, the offset clock, moved over HTTP.
func TestControlDeadLetterRedriveOffsetClock(t *testing.T) {
	srv := startServer(t, server.Config{Clock: engine.NewOffsetClock()})
	dlqRedriveV2(t, srv.URL())
	var c struct {
		Now           string
		OffsetSeconds float64
	}
	if err := json.Unmarshal(mustControl(t, srv.URL(), 200, "GET", "/_minisqs/clock", nil), &c); err != nil {
		t.Fatal(err)
	}
	now, err := time.Parse(time.RFC3339Nano, c.Now)
	if err != nil || c.OffsetSeconds != 93 {
		t.Fatalf("clock %+v (%v)", c, err)
	}
	if d := now.Sub(time.Now()); d < 92*time.Second || d > 94*time.Second {
		t.Fatalf("the clock is %v ahead of the wall clock, want 93 s", d)
	}
}

// boto3DLQScript is the same scenario in Python, moving the clock with
// urllib.
const boto3DLQScript = `
import json, os, time, urllib.request
import boto3

endpoint = os.environ["MINISQS_ENDPOINT"]

def control(path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(endpoint + path, data=data, method="POST" if body is not None or path.endswith("reset") else "GET",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        raw = r.read()
        return json.loads(raw) if raw else None

start = time.monotonic()
sqs = boto3.client("sqs", endpoint_url=endpoint, region_name="us-east-1")
control("/_minisqs/reset")
dlq = sqs.create_queue(QueueName="orders-dlq")["QueueUrl"]
dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
src = sqs.create_queue(QueueName="orders", Attributes={
    "VisibilityTimeout": "30",
    "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "3"}),
})["QueueUrl"]
sqs.send_message(QueueUrl=src, MessageBody="order 1")
counts = []
for _ in range(3):
    msgs = sqs.receive_message(QueueUrl=src, AttributeNames=["ApproximateReceiveCount"]).get("Messages", [])
    counts.append(msgs[0]["Attributes"]["ApproximateReceiveCount"] if msgs else None)
    control("/_minisqs/clock/advance", {"seconds": 31})
left = sqs.receive_message(QueueUrl=src).get("Messages", [])
dead = sqs.receive_message(QueueUrl=dlq, AttributeNames=["All"]).get("Messages", [])
print(json.dumps({
    "counts": counts,
    "left": len(left),
    "dead": [m["Body"] for m in dead],
    "source": dead[0]["Attributes"].get("DeadLetterQueueSourceArn") if dead else None,
    "offset": control("/_minisqs/clock")["offsetSeconds"],
    "seconds": time.monotonic() - start,
}))
`

func TestControlDeadLetterRedriveBoto3(t *testing.T) {
	srv := startServer(t, server.Config{})
	script := filepath.Join(t.TempDir(), "dlq.py")
	if err := os.WriteFile(script, []byte(boto3DLQScript), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "python3", script)
	cmd.Env = append(cliEnv(t), "MINISQS_ENDPOINT="+srv.URL())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python3 with boto3 (CI installs it): %v\n%s", err, stderr.String())
	}
	var got struct {
		Counts  []string
		Left    int
		Dead    []string
		Source  string
		Offset  float64
		Seconds float64
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("script output %q: %v", stdout.String(), err)
	}
	if !reflect.DeepEqual(got.Counts, []string{"1", "2", "3"}) || got.Left != 0 || !reflect.DeepEqual(got.Dead, []string{"order 1"}) ||
		!strings.HasSuffix(got.Source, ":orders") || got.Offset != 93 {
		t.Fatalf("boto3 saw %+v", got)
	}
	t.Logf("DLQ redrive with boto3 and the control clock: %.3fs in Python (boto3 calls included); with real sleeps at least 93 s", got.Seconds)
}

// Delays, retention, the FIFO deduplication window and the purge cooldown
// all follow the clock moved over HTTP.
func TestControlTimeRules(t *testing.T) {
	srv := startServer(t, server.Config{})
	ctx := context.Background()
	c := jsonClient(t, srv.URL())
	receive := func(url *string) []types.Message {
		t.Helper()
		out, err := c.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 10})
		if err != nil {
			t.Fatal(err)
		}
		return out.Messages
	}
	create := func(name string, attrs map[string]string) *string {
		t.Helper()
		out, err := c.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: &name, Attributes: attrs})
		if err != nil {
			t.Fatal(err)
		}
		return out.QueueUrl
	}

	t.Run("delay", func(t *testing.T) {
		mustControl(t, srv.URL(), 204, "POST", "/_minisqs/reset", nil)
		q := create("delayed", map[string]string{"DelaySeconds": "60"})
		if _, err := c.SendMessage(ctx, &sqsv2.SendMessageInput{QueueUrl: q, MessageBody: awsv2.String("later")}); err != nil {
			t.Fatal(err)
		}
		if got := receive(q); len(got) != 0 {
			t.Fatalf("a delayed message came at once: %+v", got)
		}
		advance(t, srv.URL(), 60)
		if got := receive(q); len(got) != 1 {
			t.Fatalf("after the delay: %+v", got)
		}
	})

	t.Run("retention", func(t *testing.T) {
		mustControl(t, srv.URL(), 204, "POST", "/_minisqs/reset", nil)
		q := create("kept", nil) // retention: 4 days
		if _, err := c.SendMessage(ctx, &sqsv2.SendMessageInput{QueueUrl: q, MessageBody: awsv2.String("old")}); err != nil {
			t.Fatal(err)
		}
		advance(t, srv.URL(), 4*24*3600-1)
		if got := receive(q); len(got) != 1 {
			t.Fatalf("a second before retention ends: %+v", got)
		}
		advance(t, srv.URL(), 1)
		if got := receive(q); len(got) != 0 {
			t.Fatalf("after 4 days: %+v", got)
		}
		attrs, err := c.GetQueueAttributes(ctx, &sqsv2.GetQueueAttributesInput{QueueUrl: q, AttributeNames: []types.QueueAttributeName{"All"}})
		if err != nil || attrs.Attributes["ApproximateNumberOfMessagesNotVisible"] != "0" || attrs.Attributes["ApproximateNumberOfMessages"] != "0" {
			t.Fatalf("attributes after retention: %v %v", attrs.Attributes, err)
		}
	})

	t.Run("deduplication window", func(t *testing.T) {
		mustControl(t, srv.URL(), 204, "POST", "/_minisqs/reset", nil)
		q := create("events.fifo", map[string]string{"FifoQueue": "true"})
		send := func() string {
			out, err := c.SendMessage(ctx, &sqsv2.SendMessageInput{QueueUrl: q, MessageBody: awsv2.String("e"), MessageGroupId: awsv2.String("g"), MessageDeduplicationId: awsv2.String("d")})
			if err != nil {
				t.Fatal(err)
			}
			return *out.MessageId
		}
		first := send()
		if again := send(); again != first {
			t.Fatalf("a repeat within the window was stored as %s", again)
		}
		advance(t, srv.URL(), 300)
		if third := send(); third == first {
			t.Fatal("after five minutes the same deduplication id was not stored")
		}
		if got := receive(q); len(got) != 2 {
			t.Fatalf("the queue holds %d messages, want 2", len(got))
		}
	})

	t.Run("purge cooldown", func(t *testing.T) {
		mustControl(t, srv.URL(), 204, "POST", "/_minisqs/reset", nil)
		q := create("purged", nil)
		if _, err := c.PurgeQueue(ctx, &sqsv2.PurgeQueueInput{QueueUrl: q}); err != nil {
			t.Fatal(err)
		}
		_, err := c.PurgeQueue(ctx, &sqsv2.PurgeQueueInput{QueueUrl: q})
		var inProgress *types.PurgeQueueInProgress
		if !errors.As(err, &inProgress) {
			t.Fatalf("a second purge: %v", err)
		}
		advance(t, srv.URL(), 60)
		if _, err := c.PurgeQueue(ctx, &sqsv2.PurgeQueueInput{QueueUrl: q}); err != nil {
			t.Fatalf("after the cooldown: %v", err)
		}
	})
}

// A reset reaches the store: a restart on the same db file does not bring
// the queues back.
func TestControlResetWithDBFile(t *testing.T) {
	db := filepath.Join(t.TempDir(), "minisqs.db")
	srv := startServer(t, server.Config{DB: db})
	ctx := context.Background()
	c := jsonClient(t, srv.URL())
	for _, name := range []string{"a", "b"} {
		q, err := c.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.SendMessage(ctx, &sqsv2.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: awsv2.String("m")}); err != nil {
			t.Fatal(err)
		}
	}
	mustControl(t, srv.URL(), 204, "POST", "/_minisqs/reset", nil)
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := server.Start(server.Config{Addr: "127.0.0.1:0", DB: db})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Shutdown(context.Background())
	out, err := jsonClient(t, again.URL()).ListQueues(ctx, &sqsv2.ListQueuesInput{})
	if err != nil || len(out.QueueUrls) != 0 {
		t.Fatalf("after a reset and a restart: %v %v", out.QueueUrls, err)
	}
}

// compatState is a fixture with a message in flight, on the test clock's
// day (startServer's clock starts at 2026-01-02T03:04:05Z).
const compatState = `{
  "version": 1,
  "queues": [
    {
      "id": "3c1e1b5e-8f0e-4a4f-bc21-7e5c2b9d0a01",
      "name": "jobs",
      "type": "standard",
      "createdAt": "2026-01-02T00:00:00.000Z",
      "updatedAt": "2026-01-02T00:00:00.000Z",
      "attributes": {
        "delaySeconds": 0,
        "maximumMessageSize": 1048576,
        "messageRetentionPeriod": 345600,
        "receiveMessageWaitTimeSeconds": 0,
        "visibilityTimeout": 30,
        "kmsDataKeyReusePeriodSeconds": 300,
        "sqsManagedSseEnabled": true
      },
      "tags": {"env": "test"},
      "messages": [
        {
          "messageId": "a1a1a1a1-0000-4000-8000-000000000001",
          "body": "job 1",
          "attributes": {"priority": {"dataType": "Number", "stringValue": "1"}},
          "senderId": "000000000000",
          "sentAt": "2026-01-02T03:00:00.000Z",
          "expiresAt": "2026-01-06T03:00:00.000Z",
          "state": "inFlight",
          "visibleAt": "2026-01-02T03:04:25.000Z",
          "receiveCount": 1,
          "firstReceivedAt": "2026-01-02T03:03:55.000Z"
        },
        {
          "messageId": "a1a1a1a1-0000-4000-8000-000000000002",
          "body": "job 2",
          "senderId": "000000000000",
          "sentAt": "2026-01-02T03:01:00.000Z",
          "expiresAt": "2026-01-06T03:01:00.000Z",
          "state": "visible",
          "receiveCount": 0
        }
      ]
    }
  ],
  "moveTasks": []
}`

func TestControlStateFixture(t *testing.T) {
	srv := startServer(t, server.Config{})
	ctx := context.Background()
	mustControl(t, srv.URL(), 204, "PUT", "/_minisqs/state", []byte(compatState))
	var want, got any
	if err := json.Unmarshal([]byte(compatState), &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(mustControl(t, srv.URL(), 200, "GET", "/_minisqs/state", nil), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("GET after PUT:\n%v\nwant\n%v", got, want)
	}

	c := jsonClient(t, srv.URL())
	url, err := c.GetQueueUrl(ctx, &sqsv2.GetQueueUrlInput{QueueName: awsv2.String("jobs")})
	if err != nil {
		t.Fatal(err)
	}
	recv := func() []types.Message {
		out, err := c.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{QueueUrl: url.QueueUrl, MaxNumberOfMessages: 10,
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{"All"}, MessageAttributeNames: []string{"All"}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Messages
	}
	if got := recv(); len(got) != 1 || *got[0].Body != "job 2" {
		t.Fatalf("before the in-flight deadline: %+v", got)
	}
	advance(t, srv.URL(), 20)
	got1 := recv()
	if len(got1) != 1 || *got1[0].Body != "job 1" || got1[0].Attributes["ApproximateReceiveCount"] != "2" ||
		got1[0].Attributes["SentTimestamp"] != fmt.Sprint(time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC).UnixMilli()) ||
		*got1[0].MessageAttributes["priority"].StringValue != "1" {
		t.Fatalf("after the in-flight deadline: %+v", got1)
	}
	tags, err := c.ListQueueTags(ctx, &sqsv2.ListQueueTagsInput{QueueUrl: url.QueueUrl})
	if err != nil || tags.Tags["env"] != "test" {
		t.Fatalf("tags %v %v", tags, err)
	}
	// A broken document changes nothing.
	if status, _ := control(t, srv.URL(), "PUT", "/_minisqs/state", []byte(strings.Replace(compatState, `"jobs"`, `"no such name!"`, 1))); status != 400 {
		t.Fatalf("a broken document: %d", status)
	}
	if _, err := c.GetQueueUrl(ctx, &sqsv2.GetQueueUrlInput{QueueName: awsv2.String("jobs")}); err != nil {
		t.Fatalf("a refused PUT removed the queue: %v", err)
	}
}

// A wait for an empty queue answers when a consumer has deleted the last
// message.
func TestControlWaitForEmpty(t *testing.T) {
	srv := startServer(t, server.Config{})
	ctx := context.Background()
	c := jsonClient(t, srv.URL())
	q, err := c.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("work")})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := c.SendMessage(ctx, &sqsv2.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: awsv2.String(fmt.Sprint("job ", i))}); err != nil {
			t.Fatal(err)
		}
	}
	type result struct {
		status int
		body   []byte
	}
	waited := make(chan result, 1)
	go func() {
		status, body := control(t, srv.URL(), "POST", "/_minisqs/wait", map[string]any{"queue": "work", "empty": true, "timeoutSeconds": 30})
		waited <- result{status, body}
	}()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the consumer
		defer wg.Done()
		for done := 0; done < 5; {
			out, err := c.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 2})
			if err != nil {
				t.Error(err)
				return
			}
			for _, m := range out.Messages {
				if _, err := c.DeleteMessage(ctx, &sqsv2.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: m.ReceiptHandle}); err != nil {
					t.Error(err)
					return
				}
				done++
			}
		}
	}()
	wg.Wait()
	select {
	case r := <-waited:
		var out struct {
			Met    bool
			Counts struct{ Visible, InFlight, Delayed int }
		}
		if err := json.Unmarshal(r.body, &out); err != nil || r.status != 200 || !out.Met || out.Counts.Visible+out.Counts.InFlight+out.Counts.Delayed != 0 {
			t.Fatalf("wait: %d %s", r.status, r.body)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the wait did not answer when the queue emptied")
	}
}

// LocalStack's shapes, and queue URLs with LocalStack's hosts, through a
// real server.
func TestLocalStackCompat(t *testing.T) {
	srv := startServer(t, server.Config{})
	ctx := context.Background()

	status, body := control(t, srv.URL(), "GET", "/_localstack/health", nil)
	var health struct {
		Services map[string]string
		Edition  string
	}
	if err := json.Unmarshal(body, &health); err != nil || status != 200 || health.Services["sqs"] != "running" || !strings.Contains(string(body), `"sqs": "running"`) {
		t.Fatalf("health: %d %s", status, body)
	}

	// An SDK pointed at LocalStack's hostname: every connection goes to
	// this server, as a DNS entry for localhost.localstack.cloud would
	// send it.
	dial := func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srv.Addr().String())
	}
	ls := sqsv2.New(sqsv2.Options{
		Region: "us-east-1", BaseEndpoint: awsv2.String("http://sqs.us-east-1.localhost.localstack.cloud:4566"),
		Credentials: credv2.NewStaticCredentialsProvider("test", "test", ""),
		HTTPClient:  &http.Client{Transport: &http.Transport{DialContext: dial}, Timeout: 30 * time.Second},
	})
	q, err := ls.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("orders")})
	if err != nil {
		t.Fatal(err)
	}
	if *q.QueueUrl != "http://sqs.us-east-1.localhost.localstack.cloud:4566/000000000000/orders" {
		t.Fatalf("queue URL %s", *q.QueueUrl)
	}
	// The URLs LocalStack hands out reach the queue from any endpoint.
	plain := jsonClient(t, srv.URL())
	for _, u := range []string{*q.QueueUrl, "http://localhost.localstack.cloud:4566/000000000000/orders", "http://localhost:4566/000000000000/orders"} {
		if _, err := plain.SendMessage(ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(u), MessageBody: awsv2.String(u)}); err != nil {
			t.Fatalf("send to %s: %v", u, err)
		}
	}
	if _, err := plain.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{QueueUrl: q.QueueUrl}); err != nil {
		t.Fatal(err)
	}

	// The developer endpoint lists them without receiving, in JSON when
	// asked.
	req, _ := http.NewRequest("GET", srv.URL()+"/_aws/sqs/messages?ShowInvisible=true&QueueUrl="+*q.QueueUrl, nil)
	req.Header.Set("Accept", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	var doc struct {
		ReceiveMessageResponse struct {
			ReceiveMessageResult struct {
				Message []struct {
					Body          string
					ReceiptHandle string
					Attribute     []struct{ Name, Value string }
				}
			}
		}
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	msgs := doc.ReceiveMessageResponse.ReceiveMessageResult.Message
	if len(msgs) != 3 || msgs[0].ReceiptHandle != "SQS/BACKDOOR/ACCESS" {
		t.Fatalf("listing: %s", body)
	}
	visible := 0
	for _, m := range msgs {
		for _, a := range m.Attribute {
			if a.Name == "IsVisible" && a.Value == "true" {
				visible++
			}
		}
	}
	if visible != 2 {
		t.Fatalf("%d listed as visible, want 2: %s", visible, body)
	}
	attrs, err := plain.GetQueueAttributes(ctx, &sqsv2.GetQueueAttributesInput{QueueUrl: q.QueueUrl, AttributeNames: []types.QueueAttributeName{"All"}})
	if err != nil || attrs.Attributes["ApproximateNumberOfMessages"] != "2" || attrs.Attributes["ApproximateNumberOfMessagesNotVisible"] != "1" {
		t.Fatalf("listing changed the queue: %v %v", attrs.Attributes, err)
	}
}
