package compat

// Shared helpers of the JSON-protocol compatibility tests (json_*_test.go),
// and the tests about the protocol itself: error shapes on the wire, unknown
// targets, queue URLs naming another host and empty results left out.
//
// Every test drives a real in-process server with aws-sdk-go-v2's SQS
// client, which speaks the JSON protocol (AWS JSON 1.0, X-Amz-Target
// "AmazonSQS.<Action>"). Time moves only through the server's ManualClock.
// Identifiers here start with "js" so they cannot collide with the helpers
// of the other compat test files.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/minisqs/minisqs/server"
)

// jsAccount is the account minisqs uses when none is configured.
const jsAccount = "000000000000"

// jsEnv is one test's server and JSON-protocol client.
type jsEnv struct {
	t   *testing.T
	srv *testServer
	c   *sqsv2.Client
	ctx context.Context
}

// newJSEnv starts a server of its own for t, so the test may run in
// parallel and advance the clock freely.
func newJSEnv(t *testing.T, cfg server.Config) *jsEnv {
	t.Helper()
	t.Parallel()
	srv := startServer(t, cfg)
	return &jsEnv{t: t, srv: srv, c: jsonClient(t, srv.URL()), ctx: context.Background()}
}

func (e *jsEnv) advance(d time.Duration) { e.srv.Clock.Advance(d) }

// createQueue creates a queue and checks the URL it is given: the
// request's own host and port, the account and the name.
func (e *jsEnv) createQueue(name string, attrs map[string]string) string {
	e.t.Helper()
	out, err := e.c.CreateQueue(e.ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String(name), Attributes: attrs})
	if err != nil {
		e.t.Fatalf("CreateQueue %s: %v", name, err)
	}
	if want := e.url(name); awsv2.ToString(out.QueueUrl) != want {
		e.t.Fatalf("CreateQueue %s: QueueUrl = %q, want %q", name, awsv2.ToString(out.QueueUrl), want)
	}
	return *out.QueueUrl
}

// url is the URL minisqs hands out for the queue called name.
func (e *jsEnv) url(name string) string { return e.srv.URL() + "/" + jsAccount + "/" + name }

// arn is the ARN of the queue called name.
func jsArn(name string) string { return "arn:aws:sqs:us-east-1:" + jsAccount + ":" + name }

func (e *jsEnv) send(url, body string) *sqsv2.SendMessageOutput {
	e.t.Helper()
	out, err := e.c.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(url), MessageBody: awsv2.String(body)})
	if err != nil {
		e.t.Fatalf("SendMessage: %v", err)
	}
	if awsv2.ToString(out.MessageId) == "" {
		e.t.Fatalf("SendMessage returned no MessageId")
	}
	return out
}

func (e *jsEnv) receive(in *sqsv2.ReceiveMessageInput) []types.Message {
	e.t.Helper()
	out, err := e.c.ReceiveMessage(e.ctx, in)
	if err != nil {
		e.t.Fatalf("ReceiveMessage: %v", err)
	}
	return out.Messages
}

// receiveOne receives with the queue's settings and wants one message.
func (e *jsEnv) receiveOne(url string) types.Message {
	e.t.Helper()
	got := e.receive(&sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(url), MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}})
	if len(got) != 1 {
		e.t.Fatalf("ReceiveMessage: got %d messages, want 1", len(got))
	}
	return got[0]
}

// receiveNone wants an immediate receive to find nothing.
func (e *jsEnv) receiveNone(url string) {
	e.t.Helper()
	got := e.receive(&sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(url), MaxNumberOfMessages: 10})
	if len(got) != 0 {
		e.t.Fatalf("ReceiveMessage: got %d messages (first %q), want none", len(got), awsv2.ToString(got[0].Body))
	}
}

// attrs reads queue attributes; no names means All.
func (e *jsEnv) attrs(url string, names ...types.QueueAttributeName) map[string]string {
	e.t.Helper()
	if len(names) == 0 {
		names = []types.QueueAttributeName{types.QueueAttributeNameAll}
	}
	out, err := e.c.GetQueueAttributes(e.ctx, &sqsv2.GetQueueAttributesInput{QueueUrl: awsv2.String(url), AttributeNames: names})
	if err != nil {
		e.t.Fatalf("GetQueueAttributes: %v", err)
	}
	return out.Attributes
}

func (e *jsEnv) setAttrs(url string, attrs map[string]string) error {
	_, err := e.c.SetQueueAttributes(e.ctx, &sqsv2.SetQueueAttributesInput{QueueUrl: awsv2.String(url), Attributes: attrs})
	return err
}

// counts returns ApproximateNumberOfMessages, ...NotVisible and ...Delayed.
func (e *jsEnv) counts(url string) [3]int {
	e.t.Helper()
	a := e.attrs(url, types.QueueAttributeNameApproximateNumberOfMessages,
		types.QueueAttributeNameApproximateNumberOfMessagesNotVisible,
		types.QueueAttributeNameApproximateNumberOfMessagesDelayed)
	var out [3]int
	for i, k := range []string{"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed"} {
		n, err := strconv.Atoi(a[k])
		if err != nil {
			e.t.Fatalf("%s = %q: %v", k, a[k], err)
		}
		out[i] = n
	}
	return out
}

func (e *jsEnv) wantCounts(url string, visible, notVisible, delayed int) {
	e.t.Helper()
	if got, want := e.counts(url), [3]int{visible, notVisible, delayed}; got != want {
		e.t.Fatalf("counts (visible, not visible, delayed) = %v, want %v", got, want)
	}
}

// jsWantErr wants err to be the SDK's typed error T whose ErrorCode() (the
// x-amzn-query-error code) is code, at the client's fault.
func jsWantErr[T error](t *testing.T, err error, code string) T {
	t.Helper()
	var target T
	if err == nil {
		t.Fatalf("want %T (%s), got no error", target, code)
	}
	if !errors.As(err, &target) {
		t.Fatalf("want %T (%s), got %T: %v", target, code, err, err)
	}
	jsCheckAPIError(t, err, code)
	return target
}

// jsWantCode wants an error the SDK has no type for, identified by its
// ErrorCode() alone (InvalidParameterValue, MissingParameter).
func jsWantCode(t *testing.T, err error, code string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s, got no error", code)
	}
	var generic *smithy.GenericAPIError
	if !errors.As(err, &generic) {
		t.Fatalf("want a generic API error %s, got %T: %v", code, err, err)
	}
	jsCheckAPIError(t, err, code)
}

func jsCheckAPIError(t *testing.T, err error, code string) {
	t.Helper()
	var api smithy.APIError
	if !errors.As(err, &api) {
		t.Fatalf("not an API error: %T %v", err, err)
	}
	if api.ErrorCode() != code {
		t.Fatalf("ErrorCode() = %q, want %q (%v)", api.ErrorCode(), code, err)
	}
	if api.ErrorFault() != smithy.FaultClient {
		t.Fatalf("ErrorFault() = %v, want client fault (%v)", api.ErrorFault(), err)
	}
	if api.ErrorMessage() == "" {
		t.Fatalf("%s has no message", code)
	}
}

// jsStatus is the HTTP status an SDK error came with.
func jsStatus(t *testing.T, err error) int {
	t.Helper()
	var re *awshttp.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("no HTTP response in %T: %v", err, err)
	}
	return re.HTTPStatusCode()
}

// jsMD5OfAttributes is refMD5OfAttributes over aws-sdk-go-v2's attributes.
func jsMD5OfAttributes(attrs map[string]types.MessageAttributeValue) string {
	ref := make(map[string]msgAttr, len(attrs))
	for n, v := range attrs {
		ref[n] = msgAttr{awsv2.ToString(v.DataType), awsv2.ToString(v.StringValue), v.BinaryValue}
	}
	return refMD5OfAttributes(ref)
}

func jsMD5OfSystemAttributes(attrs map[string]types.MessageSystemAttributeValue) string {
	conv := make(map[string]types.MessageAttributeValue, len(attrs))
	for k, v := range attrs {
		conv[k] = types.MessageAttributeValue{DataType: v.DataType, StringValue: v.StringValue, BinaryValue: v.BinaryValue}
	}
	return jsMD5OfAttributes(conv)
}

// jsRaw is a hand-made JSON-protocol request, for what the SDK hides: the
// raw body of an answer, or requests the SDK would refuse to send.
type jsRaw struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

func jsPost(t *testing.T, endpoint, target, body string) jsRaw {
	t.Helper()
	return jsPostTo(t, endpoint+"/", "application/x-amz-json-1.0", target, body)
}

// jsPostTo posts to a full URL with a chosen Content-Type.
func jsPostTo(t *testing.T, url, contentType, target, body string) jsRaw {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	if target != "" {
		req.Header.Set("X-Amz-Target", target)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", target, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := jsRaw{Status: resp.StatusCode, Header: resp.Header, Body: b}
	if err := json.Unmarshal(b, &r.JSON); err != nil {
		t.Fatalf("%s answered %d with a body that is not a JSON object: %q", target, resp.StatusCode, b)
	}
	return r
}

// jsMustJSON marshals v for a raw request body.
func jsMustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantRawError checks an error answer as it is on the wire.
func (r jsRaw) wantError(t *testing.T, status int, shape, queryCode string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d (body %s)", r.Status, status, r.Body)
	}
	namespace := "com.amazonaws.sqs#"
	if shape == "InvalidParameterValueException" {
		// As AWS answers it (go-cloud's replay TestFIFO/TestSQSTopic/
		// TestSendReceiveInvalidNoDeduplicationID).
		namespace = "com.amazon.coral.service#"
	}
	if got := r.JSON["__type"]; got != namespace+shape {
		t.Fatalf("__type = %v, want %s%s", got, namespace, shape)
	}
	if msg, _ := r.JSON["message"].(string); msg == "" {
		t.Fatalf("error has no message: %s", r.Body)
	}
	if got := r.Header.Get("x-amzn-query-error"); got != queryCode+";Sender" {
		t.Fatalf("x-amzn-query-error = %q, want %q", got, queryCode+";Sender")
	}
	if r.Header.Get("x-amzn-RequestId") == "" {
		t.Fatalf("no x-amzn-RequestId header")
	}
}

func TestJSONWireErrors(t *testing.T) {
	t.Parallel()

	t.Run("unknown X-Amz-Target", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		r := jsPost(t, e.srv.URL(), "AmazonSQS.NoSuchAction", `{}`)
		if r.Status != http.StatusBadRequest {
			t.Fatalf("status = %d, want 400 (body %s)", r.Status, r.Body)
		}
		typ, _ := r.JSON["__type"].(string)
		if !strings.HasSuffix(typ, "UnknownOperationException") {
			t.Fatalf("__type = %q, want ...UnknownOperationException", typ)
		}
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-amz-json-1.0") {
			t.Fatalf("Content-Type = %q", ct)
		}
		if r.Header.Get("x-amzn-RequestId") == "" {
			t.Fatalf("no x-amzn-RequestId header")
		}
		// A target of another service is just as unknown.
		r = jsPost(t, e.srv.URL(), "AmazonSNS.Publish", `{}`)
		if typ, _ := r.JSON["__type"].(string); r.Status != http.StatusBadRequest || typ == "" {
			t.Fatalf("AmazonSNS.Publish: status %d, __type %q", r.Status, typ)
		}
	})

	t.Run("missing X-Amz-Target", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		r := jsPost(t, e.srv.URL(), "", `{}`)
		if typ, _ := r.JSON["__type"].(string); r.Status != http.StatusBadRequest || typ == "" {
			t.Fatalf("no target: status %d, body %s", r.Status, r.Body)
		}
	})

	t.Run("malformed JSON body", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		r := jsPost(t, e.srv.URL(), "AmazonSQS.CreateQueue", `{"QueueName": `)
		if typ, _ := r.JSON["__type"].(string); r.Status != http.StatusBadRequest || typ == "" {
			t.Fatalf("malformed body: status %d, body %s", r.Status, r.Body)
		}
		r = jsPost(t, e.srv.URL(), "AmazonSQS.CreateQueue", `{"QueueName": 12}`)
		if typ, _ := r.JSON["__type"].(string); r.Status != http.StatusBadRequest || typ == "" {
			t.Fatalf("mistyped member: status %d, body %s", r.Status, r.Body)
		}
	})

	t.Run("typed error on the wire", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		r := jsPost(t, e.srv.URL(), "AmazonSQS.GetQueueUrl", `{"QueueName":"nope"}`)
		r.wantError(t, 400, "QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue")
	})

	t.Run("MissingParameter", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		r := jsPost(t, e.srv.URL(), "AmazonSQS.CreateQueue", `{}`)
		r.wantError(t, 400, "MissingRequiredParameterException", "MissingParameter")

		url := e.createQueue("q", nil)
		r = jsPost(t, e.srv.URL(), "AmazonSQS.SendMessage", jsMustJSON(t, map[string]any{"QueueUrl": url}))
		r.wantError(t, 400, "MissingRequiredParameterException", "MissingParameter")
		e.wantCounts(url, 0, 0, 0)
	})

	t.Run("InvalidParameterValue", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		r := jsPost(t, e.srv.URL(), "AmazonSQS.CreateQueue", `{"QueueName":"no spaces allowed"}`)
		r.wantError(t, 400, "InvalidParameterValueException", "InvalidParameterValue")
	})

	t.Run("SDK sees MissingParameter", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		// The SDK only checks that QueueName is set; an empty one reaches
		// the server.
		_, err := e.c.CreateQueue(e.ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("")})
		if err == nil {
			t.Fatal("CreateQueue with an empty name succeeded")
		}
		var api smithy.APIError
		if !errors.As(err, &api) || (api.ErrorCode() != "MissingParameter" && api.ErrorCode() != "InvalidParameterValue") {
			t.Fatalf("CreateQueue with an empty name: %v", err)
		}
	})
}

// TestJSONRequestShapes checks requests as other clients send them: a
// charset after the content type, and the queue's own path as the target.
func TestJSONRequestShapes(t *testing.T) {
	e := newJSEnv(t, server.Config{})
	url := e.createQueue("shaped", map[string]string{"VisibilityTimeout": "44"})
	body := jsMustJSON(t, map[string]any{"QueueUrl": url, "AttributeNames": []string{"VisibilityTimeout"}})

	r := jsPostTo(t, e.srv.URL()+"/", "application/x-amz-json-1.0; charset=utf-8", "AmazonSQS.GetQueueAttributes", body)
	if attrs, _ := r.JSON["Attributes"].(map[string]any); r.Status != 200 || attrs["VisibilityTimeout"] != "44" {
		t.Fatalf("with charset: %d %s", r.Status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-amz-json-1.0") {
		t.Fatalf("answer Content-Type = %q", ct)
	}
	if r.Header.Get("x-amzn-RequestId") == "" {
		t.Fatal("no x-amzn-RequestId on success")
	}

	r = jsPostTo(t, url, "application/x-amz-json-1.0", "AmazonSQS.GetQueueAttributes", body)
	if attrs, _ := r.JSON["Attributes"].(map[string]any); r.Status != 200 || attrs["VisibilityTimeout"] != "44" {
		t.Fatalf("posted to the queue's path: %d %s", r.Status, r.Body)
	}

	// The SDK exposes the request id of every answer.
	out, err := e.c.GetQueueUrl(e.ctx, &sqsv2.GetQueueUrlInput{QueueName: awsv2.String("shaped")})
	if err != nil {
		t.Fatal(err)
	}
	if id, ok := awsmiddleware.GetRequestIDMetadata(out.ResultMetadata); !ok || id == "" {
		t.Fatalf("no request id in the result metadata")
	}
	_, err = e.c.GetQueueUrl(e.ctx, &sqsv2.GetQueueUrlInput{QueueName: awsv2.String("absent")})
	var re *awshttp.ResponseError
	if !errors.As(err, &re) || re.ServiceRequestID() == "" {
		t.Fatalf("no request id in the error: %v", err)
	}
}

// TestJSONEmptyResultsLeftOut checks that empty members are absent from
// answers, not present and empty.
func TestJSONEmptyResultsLeftOut(t *testing.T) {
	t.Parallel()

	t.Run("ListQueues without matches", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		e.createQueue("present", nil)
		r := jsPost(t, e.srv.URL(), "AmazonSQS.ListQueues", `{"QueueNamePrefix":"absent"}`)
		if r.Status != 200 {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		if _, ok := r.JSON["QueueUrls"]; ok {
			t.Fatalf("ListQueues without matches has QueueUrls: %s", r.Body)
		}
		if _, ok := r.JSON["NextToken"]; ok {
			t.Fatalf("ListQueues without matches has NextToken: %s", r.Body)
		}
		out, err := e.c.ListQueues(e.ctx, &sqsv2.ListQueuesInput{QueueNamePrefix: awsv2.String("absent")})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.QueueUrls) != 0 || out.NextToken != nil {
			t.Fatalf("ListQueues = %v, %v", out.QueueUrls, out.NextToken)
		}
	})

	t.Run("ReceiveMessage on an empty queue", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("empty", nil)
		r := jsPost(t, e.srv.URL(), "AmazonSQS.ReceiveMessage", jsMustJSON(t, map[string]any{"QueueUrl": url}))
		if r.Status != 200 || len(r.JSON) != 0 {
			t.Fatalf("empty receive answered %d %s, want 200 {}", r.Status, r.Body)
		}
	})

	t.Run("message without attributes", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("plain", nil)
		r := jsPost(t, e.srv.URL(), "AmazonSQS.SendMessage", jsMustJSON(t, map[string]any{"QueueUrl": url, "MessageBody": "hi"}))
		if r.Status != 200 {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		for _, k := range []string{"MD5OfMessageAttributes", "MD5OfMessageSystemAttributes", "SequenceNumber"} {
			if _, ok := r.JSON[k]; ok {
				t.Fatalf("SendMessage without attributes has %s: %s", k, r.Body)
			}
		}
		if r.JSON["MD5OfMessageBody"] != refMD5("hi") {
			t.Fatalf("MD5OfMessageBody = %v", r.JSON["MD5OfMessageBody"])
		}
		r = jsPost(t, e.srv.URL(), "AmazonSQS.ReceiveMessage", jsMustJSON(t, map[string]any{"QueueUrl": url}))
		msgs, _ := r.JSON["Messages"].([]any)
		if len(msgs) != 1 {
			t.Fatalf("receive: %s", r.Body)
		}
		m := msgs[0].(map[string]any)
		for _, k := range []string{"MD5OfMessageAttributes", "MessageAttributes", "Attributes"} {
			if _, ok := m[k]; ok {
				t.Fatalf("received message without attributes has %s: %s", k, r.Body)
			}
		}
	})
}

// TestJSONQueueURLHost checks that a QueueUrl is resolved by its path,
// whatever host it names.
func TestJSONQueueURLHost(t *testing.T) {
	e := newJSEnv(t, server.Config{})
	e.createQueue("hosted", nil)
	other := "http://elsewhere.example:1234/" + jsAccount + "/hosted"

	sent, err := e.c.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(other), MessageBody: awsv2.String("via another host")})
	if err != nil {
		t.Fatalf("SendMessage with another host: %v", err)
	}
	a, err := e.c.GetQueueAttributes(e.ctx, &sqsv2.GetQueueAttributesInput{QueueUrl: awsv2.String(other), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
	if err != nil {
		t.Fatalf("GetQueueAttributes with another host: %v", err)
	}
	if a.Attributes["QueueArn"] != jsArn("hosted") {
		t.Fatalf("QueueArn = %q", a.Attributes["QueueArn"])
	}
	got := e.receive(&sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(other)})
	if len(got) != 1 || *got[0].MessageId != *sent.MessageId || *got[0].Body != "via another host" {
		t.Fatalf("receive with another host: %+v", got)
	}
	if _, err := e.c.DeleteMessage(e.ctx, &sqsv2.DeleteMessageInput{QueueUrl: awsv2.String(e.url("hosted")), ReceiptHandle: got[0].ReceiptHandle}); err != nil {
		t.Fatalf("DeleteMessage: %v", err)
	}
	e.wantCounts(e.url("hosted"), 0, 0, 0)

	// A legacy-style AWS URL for the same account and name also works.
	legacy := "https://queue.amazonaws.com/" + jsAccount + "/hosted"
	if _, err := e.c.GetQueueAttributes(e.ctx, &sqsv2.GetQueueAttributesInput{QueueUrl: awsv2.String(legacy)}); err != nil {
		t.Fatalf("legacy URL: %v", err)
	}

	// Another account's queue of that name does not exist.
	_, err = e.c.GetQueueAttributes(e.ctx, &sqsv2.GetQueueAttributesInput{QueueUrl: awsv2.String("http://elsewhere.example:1234/123456789012/hosted")})
	jsWantErr[*types.QueueDoesNotExist](t, err, "AWS.SimpleQueueService.NonExistentQueue")
}
