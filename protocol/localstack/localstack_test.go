package localstack_test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	credv2 "github.com/aws/aws-sdk-go-v2/credentials"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	awsv1 "github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/awserr"
	credv1 "github.com/aws/aws-sdk-go/aws/credentials"
	"github.com/aws/aws-sdk-go/aws/session"
	sqsv1 "github.com/aws/aws-sdk-go/service/sqs"
	"github.com/aws/smithy-go"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/server"
)

type env struct {
	t   *testing.T
	url string
	e   *engine.Engine
	q   *engine.Queue
}

// newEnv serves the whole protocol handler with a queue "q" holding one
// message in flight, two visible and one delayed.
func newEnv(t *testing.T) *env {
	t.Helper()
	e, err := engine.Open(engine.Options{Clock: engine.NewManualClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	srv := httptest.NewServer(server.NewHandler(e, server.HandlerOptions{}))
	t.Cleanup(srv.Close)
	q, err := e.CreateQueue("q", engine.AttributeUpdate{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []engine.NewMessage{
		{Body: "message-1", Attributes: []engine.MessageAttribute{{Name: "kind", DataType: "String", StringValue: "new"}}},
		{Body: "message-2"}, {Body: "message-3"}, {Body: "later", DelaySeconds: ptr(60)},
	} {
		if r := q.Send([]engine.NewMessage{m})[0]; r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	if ds, err := q.Receive(context.Background(), engine.ReceiveOptions{WaitSeconds: ptr(0)}); err != nil || len(ds) != 1 {
		t.Fatalf("receive: %v %v", ds, err)
	}
	return &env{t: t, url: srv.URL, e: e, q: q}
}

func ptr[T any](v T) *T { return &v }

func (v *env) queueURL(host string) string { return "http://" + host + "/000000000000/q" }

func (v *env) get(path string, query url.Values, accept string) (int, http.Header, []byte) {
	v.t.Helper()
	req, err := http.NewRequest("GET", v.url+path+"?"+query.Encode(), nil)
	if err != nil {
		v.t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		v.t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		v.t.Fatal(err)
	}
	return res.StatusCode, res.Header, body
}

// The XML answer, as aws-sdk-go v1 and LocalStack's tests read it.
type xmlAnswer struct {
	Messages []struct {
		MessageId, ReceiptHandle, MD5OfBody, Body string
		Attribute                                 []struct{ Name, Value string }
		MessageAttribute                          []struct {
			Name  string
			Value struct{ StringValue, DataType string }
		}
	} `xml:"ReceiveMessageResult>Message"`
	RequestID string `xml:"ResponseMetadata>RequestId"`
}

func attrs(list []struct{ Name, Value string }) map[string]string {
	out := map[string]string{}
	for _, a := range list {
		out[a.Name] = a.Value
	}
	return out
}

func TestListMessagesXML(t *testing.T) {
	v := newEnv(t)
	for _, host := range []string{"localhost:4566", "sqs.us-east-1.localhost.localstack.cloud:4566", "us-east-1.queue.localhost.localstack.cloud:4566"} {
		status, h, body := v.get("/_aws/sqs/messages", url.Values{"QueueUrl": {v.queueURL(host)}}, "")
		if status != 200 || h.Get("Content-Type") != "text/xml" {
			t.Fatalf("%s: %d %s %s", host, status, h.Get("Content-Type"), body)
		}
		var a xmlAnswer
		if err := xml.Unmarshal(body, &a); err != nil {
			t.Fatal(err)
		}
		if len(a.Messages) != 2 || a.Messages[0].Body != "message-2" || a.Messages[1].Body != "message-3" || a.RequestID == "" {
			t.Fatalf("%s: %s", host, body)
		}
		m := a.Messages[0]
		at := attrs(m.Attribute)
		if m.ReceiptHandle != "SQS/BACKDOOR/ACCESS" || at["ApproximateReceiveCount"] != "0" || at["ApproximateFirstReceiveTimestamp"] != "0" ||
			at["SenderId"] != "000000000000" || at["SentTimestamp"] == "" || m.MD5OfBody != "95ef155b66299d14edf7ed57c468c13b" {
			t.Fatalf("message: %+v", m)
		}
	}

	_, _, body := v.get("/_aws/sqs/messages", url.Values{"QueueUrl": {v.queueURL("localhost:4566")}, "ShowInvisible": {"true"}, "ShowDelayed": {"1"}}, "application/xml")
	var a xmlAnswer
	if err := xml.Unmarshal(body, &a); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range a.Messages {
		at := attrs(m.Attribute)
		got = append(got, m.Body+":"+at["IsVisible"]+":"+at["IsDelayed"]+":"+at["ApproximateReceiveCount"])
	}
	if want := "message-1:false:false:1 message-2:true:false:0 message-3:true:false:0 later:false:true:0"; strings.Join(got, " ") != want {
		t.Fatalf("with invisible and delayed: %v, want %s", got, want)
	}
	if ma := a.Messages[0].MessageAttribute; len(ma) != 1 || ma[0].Name != "kind" || ma[0].Value.StringValue != "new" {
		t.Fatalf("message attributes: %+v", ma)
	}
	// Listing receives nothing.
	if c := v.q.Counts(); c != (engine.Counts{Visible: 2, InFlight: 1, Delayed: 1}) {
		t.Fatalf("counts after listing: %+v", c)
	}
	if s := v.q.Stats(); s.Received != 1 {
		t.Fatalf("listing counted %d receives", s.Received-1)
	}
}

func TestListMessagesJSON(t *testing.T) {
	v := newEnv(t)
	status, h, body := v.get("/_aws/sqs/messages", url.Values{"QueueUrl": {v.queueURL("localhost:4566")}}, "application/json")
	if status != 200 || h.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s %s", status, h.Get("Content-Type"), body)
	}
	// Python's json.dumps separators, as LocalStack writes them.
	if !strings.HasPrefix(string(body), `{"ReceiveMessageResponse": {"ReceiveMessageResult": {"Message": [{"MessageId": "`) {
		t.Fatalf("shape: %s", body)
	}
	var doc struct {
		ReceiveMessageResponse struct {
			ReceiveMessageResult struct {
				Message []struct {
					Body, MD5OfBody, ReceiptHandle string
					Attribute                      []struct{ Name, Value string }
				}
			}
			ResponseMetadata struct{ RequestId string }
		}
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	msgs := doc.ReceiveMessageResponse.ReceiveMessageResult.Message
	if len(msgs) != 2 || msgs[0].Body != "message-2" || attrs(msgs[0].Attribute)["SenderId"] != "000000000000" || doc.ReceiveMessageResponse.ResponseMetadata.RequestId == "" {
		t.Fatalf("%s", body)
	}

	// One message is an object, not a list, as xmltodict makes it.
	_, _, body = v.get("/_aws/sqs/messages/us-east-1/000000000000/q", url.Values{"ShowDelayed": {"true"}}, "application/json")
	var one map[string]map[string]map[string]any
	if err := json.Unmarshal(body, &one); err != nil {
		t.Fatal(err)
	}
	if msgs, ok := one["ReceiveMessageResponse"]["ReceiveMessageResult"]["Message"].([]any); !ok || len(msgs) != 3 {
		t.Fatalf("path form: %s", body)
	}
	if err := v.e.DeleteQueue(v.q); err != nil {
		t.Fatal(err)
	}
	q, _ := v.e.CreateQueue("one", engine.AttributeUpdate{}, nil)
	q.Send([]engine.NewMessage{{Body: "only"}})
	_, _, body = v.get("/_aws/sqs/messages/us-east-1/000000000000/one", nil, "application/json")
	if err := json.Unmarshal(body, &one); err != nil {
		t.Fatal(err)
	}
	if m, ok := one["ReceiveMessageResponse"]["ReceiveMessageResult"]["Message"].(map[string]any); !ok || m["Body"] != "only" {
		t.Fatalf("one message: %s", body)
	}
	if _, err := v.e.CreateQueue("none", engine.AttributeUpdate{}, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, body = v.get("/_aws/sqs/messages/us-east-1/000000000000/none", nil, "application/json"); !strings.Contains(string(body), `"ReceiveMessageResult": null`) {
		t.Fatalf("no messages: %s", body)
	}
}

func TestListMessagesErrors(t *testing.T) {
	v := newEnv(t)
	for _, c := range []struct {
		path   string
		query  url.Values
		status int
		code   string
	}{
		{"/_aws/sqs/messages", nil, 400, "AWS.SimpleQueueService.NonExistentQueue"},
		{"/_aws/sqs/messages", url.Values{"QueueUrl": {"http://localhost:4566/nonsense"}}, 404, "InvalidAddress"},
		{"/_aws/sqs/messages", url.Values{"QueueUrl": {"http://localhost:4566/000000000000/nope"}}, 400, "AWS.SimpleQueueService.NonExistentQueue"},
		{"/_aws/sqs/messages/us-east-1/000000000000/nope", nil, 400, "AWS.SimpleQueueService.NonExistentQueue"},
		{"/_aws/sqs/messages/us-east-2/000000000000/q", nil, 400, "AWS.SimpleQueueService.NonExistentQueue"},
		{"/_aws/sqs/messages", url.Values{"QueueUrl": {"http://sqs.eu-west-1.localhost.localstack.cloud:4566/000000000000/q"}}, 400, "AWS.SimpleQueueService.NonExistentQueue"},
	} {
		status, _, body := v.get(c.path, c.query, "application/json")
		var doc struct {
			ErrorResponse struct {
				Error     struct{ Code, Message, Type string }
				RequestId string
			}
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatalf("%s %v: %v in %s", c.path, c.query, err, body)
		}
		if status != c.status || doc.ErrorResponse.Error.Code != c.code || doc.ErrorResponse.Error.Type != "Sender" || doc.ErrorResponse.RequestId == "" {
			t.Fatalf("%s %v: %d %s, want %d %s", c.path, c.query, status, body, c.status, c.code)
		}
	}
	// In XML by default.
	if status, h, body := v.get("/_aws/sqs/messages", nil, ""); status != 400 || h.Get("Content-Type") != "text/xml" || !strings.Contains(string(body), "<Code>AWS.SimpleQueueService.NonExistentQueue</Code>") {
		t.Fatalf("%d %s", status, body)
	}
}

// An SDK whose endpoint is the developer endpoint lists the messages with
// ReceiveMessage, in either protocol, MaxNumberOfMessages aside; other
// actions are refused.
func TestListMessagesThroughSDKs(t *testing.T) {
	v := newEnv(t)
	endpoint := v.url + "/_aws/sqs/messages"
	queueURL := v.queueURL("localhost:4566")

	v2 := sqsv2.New(sqsv2.Options{
		Region: "us-east-1", BaseEndpoint: awsv2.String(endpoint),
		Credentials: credv2.NewStaticCredentialsProvider("test", "test", ""),
	})
	out, err := v2.ReceiveMessage(context.Background(), &sqsv2.ReceiveMessageInput{QueueUrl: &queueURL, MaxNumberOfMessages: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Messages) != 2 || *out.Messages[0].Body != "message-2" || out.Messages[0].Attributes["ApproximateReceiveCount"] != "0" {
		t.Fatalf("JSON protocol: %+v", out.Messages)
	}
	_, err = v2.SendMessage(context.Background(), &sqsv2.SendMessageInput{QueueUrl: &queueURL, MessageBody: awsv2.String("x")})
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorMessage() != "This endpoint only accepts ReceiveMessage calls" {
		t.Fatalf("SendMessage through the endpoint: %v", err)
	}

	sess, err := session.NewSession(&awsv1.Config{
		Region: awsv1.String("us-east-1"), Endpoint: awsv1.String(endpoint),
		Credentials: credv1.NewStaticCredentials("test", "test", ""),
	})
	if err != nil {
		t.Fatal(err)
	}
	v1 := sqsv1.New(sess)
	out1, err := v1.ReceiveMessage(&sqsv1.ReceiveMessageInput{QueueUrl: &queueURL, MaxNumberOfMessages: awsv1.Int64(1)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out1.Messages) != 2 || *out1.Messages[1].Body != "message-3" {
		t.Fatalf("query protocol: %+v", out1.Messages)
	}
	_, err = v1.SendMessage(&sqsv1.SendMessageInput{QueueUrl: &queueURL, MessageBody: awsv1.String("x")})
	var aerr awserr.Error
	if !errors.As(err, &aerr) || aerr.Message() != "This endpoint only accepts ReceiveMessage calls" {
		t.Fatalf("SendMessage through the endpoint (query): %v", err)
	}
	if c := v.q.Counts(); c != (engine.Counts{Visible: 2, InFlight: 1, Delayed: 1}) {
		t.Fatalf("counts after listing: %+v", c)
	}
}

func TestHealth(t *testing.T) {
	v := newEnv(t)
	status, h, body := v.get("/_localstack/health", nil, "")
	if status != 200 || h.Get("Content-Type") != "application/json" || string(body) != `{"services": {"sqs": "running"}, "edition": "community", "version": "4.0.0"}` {
		t.Fatalf("%d %s", status, body)
	}
	res, err := http.Head(v.url + "/_localstack/health")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("HEAD: %v %v", res, err)
	}
	res.Body.Close()
	if _, _, body := v.get("/_localstack/init", nil, ""); string(body) != `{"completed": {"BOOT": true, "START": true, "READY": true, "SHUTDOWN": false}, "scripts": []}` {
		t.Fatalf("init: %s", body)
	}
	if _, _, body := v.get("/_localstack/init/ready", nil, ""); string(body) != `{"completed": true, "scripts": []}` {
		t.Fatalf("init/ready: %s", body)
	}
	if status, _, _ := v.get("/_localstack/init/later", nil, ""); status != 404 {
		t.Fatalf("an unknown stage: %d", status)
	}
}
