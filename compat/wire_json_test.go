package compat

// The JSON protocol on the wire (AWS JSON 1.0, X-Amz-Target
// "AmazonSQS.<Action>"), in hand-made requests: error shapes, unknown
// targets, request shapes of other clients and empty results left out.
// What an SDK sees of an action is in the per-action tables
// (actions_*_test.go).

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"

	"github.com/minisqs/minisqs/server"
)

// jsonAnswer is a hand-made JSON-protocol request, for what the SDK hides: the
// raw body of an answer, or requests the SDK would refuse to send.
type jsonAnswer struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

func postJSON(t *testing.T, endpoint, target, body string) jsonAnswer {
	t.Helper()
	return postJSONTo(t, endpoint+"/", "application/x-amz-json-1.0", target, body)
}

// postJSONTo posts to a full URL with a chosen Content-Type.
func postJSONTo(t *testing.T, url, contentType, target, body string) jsonAnswer {
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
	r := jsonAnswer{Status: resp.StatusCode, Header: resp.Header, Body: b}
	if err := json.Unmarshal(b, &r.JSON); err != nil {
		t.Fatalf("%s answered %d with a body that is not a JSON object: %q", target, resp.StatusCode, b)
	}
	return r
}

// mustJSON marshals v for a raw request body.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantRawError checks an error answer as it is on the wire.
func (r jsonAnswer) wantError(t *testing.T, status int, shape, queryCode string) {
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
		e := protocolEnv(t, "json", server.Config{})
		r := postJSON(t, e.srv.URL(), "AmazonSQS.NoSuchAction", `{}`)
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
		r = postJSON(t, e.srv.URL(), "AmazonSNS.Publish", `{}`)
		if typ, _ := r.JSON["__type"].(string); r.Status != http.StatusBadRequest || typ == "" {
			t.Fatalf("AmazonSNS.Publish: status %d, __type %q", r.Status, typ)
		}
	})

	t.Run("missing X-Amz-Target", func(t *testing.T) {
		e := protocolEnv(t, "json", server.Config{})
		r := postJSON(t, e.srv.URL(), "", `{}`)
		if typ, _ := r.JSON["__type"].(string); r.Status != http.StatusBadRequest || typ == "" {
			t.Fatalf("no target: status %d, body %s", r.Status, r.Body)
		}
	})

	t.Run("malformed JSON body", func(t *testing.T) {
		e := protocolEnv(t, "json", server.Config{})
		r := postJSON(t, e.srv.URL(), "AmazonSQS.CreateQueue", `{"QueueName": `)
		if typ, _ := r.JSON["__type"].(string); r.Status != http.StatusBadRequest || typ == "" {
			t.Fatalf("malformed body: status %d, body %s", r.Status, r.Body)
		}
		r = postJSON(t, e.srv.URL(), "AmazonSQS.CreateQueue", `{"QueueName": 12}`)
		if typ, _ := r.JSON["__type"].(string); r.Status != http.StatusBadRequest || typ == "" {
			t.Fatalf("mistyped member: status %d, body %s", r.Status, r.Body)
		}
	})

	t.Run("typed error on the wire", func(t *testing.T) {
		e := protocolEnv(t, "json", server.Config{})
		r := postJSON(t, e.srv.URL(), "AmazonSQS.GetQueueUrl", `{"QueueName":"nope"}`)
		r.wantError(t, 400, "QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue")
	})

	t.Run("MissingParameter", func(t *testing.T) {
		e := protocolEnv(t, "json", server.Config{})
		r := postJSON(t, e.srv.URL(), "AmazonSQS.CreateQueue", `{}`)
		r.wantError(t, 400, "MissingRequiredParameterException", "MissingParameter")

		url := e.createQueue("q", nil)
		r = postJSON(t, e.srv.URL(), "AmazonSQS.SendMessage", mustJSON(t, map[string]any{"QueueUrl": url}))
		r.wantError(t, 400, "MissingRequiredParameterException", "MissingParameter")
		e.wantCounts(url, 0, 0, 0)
	})

	t.Run("InvalidParameterValue", func(t *testing.T) {
		e := protocolEnv(t, "json", server.Config{})
		r := postJSON(t, e.srv.URL(), "AmazonSQS.CreateQueue", `{"QueueName":"no spaces allowed"}`)
		r.wantError(t, 400, "InvalidParameterValueException", "InvalidParameterValue")
	})

	t.Run("SDK sees MissingParameter", func(t *testing.T) {
		e := protocolEnv(t, "json", server.Config{})
		// The SDK only checks that QueueName is set; an empty one reaches
		// the server.
		_, err := e.c.CreateQueue("", nil, nil)
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
	e := protocolEnv(t, "json", server.Config{})
	url := e.createQueue("shaped", map[string]string{"VisibilityTimeout": "44"})
	body := mustJSON(t, map[string]any{"QueueUrl": url, "AttributeNames": []string{"VisibilityTimeout"}})

	r := postJSONTo(t, e.srv.URL()+"/", "application/x-amz-json-1.0; charset=utf-8", "AmazonSQS.GetQueueAttributes", body)
	if attrs, _ := r.JSON["Attributes"].(map[string]any); r.Status != 200 || attrs["VisibilityTimeout"] != "44" {
		t.Fatalf("with charset: %d %s", r.Status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-amz-json-1.0") {
		t.Fatalf("answer Content-Type = %q", ct)
	}
	if r.Header.Get("x-amzn-RequestId") == "" {
		t.Fatal("no x-amzn-RequestId on success")
	}

	r = postJSONTo(t, url, "application/x-amz-json-1.0", "AmazonSQS.GetQueueAttributes", body)
	if attrs, _ := r.JSON["Attributes"].(map[string]any); r.Status != 200 || attrs["VisibilityTimeout"] != "44" {
		t.Fatalf("posted to the queue's path: %d %s", r.Status, r.Body)
	}

	// The SDK exposes the request id of every answer.
	v2 := e.c.(v2Client)
	out, err := v2.c.GetQueueUrl(v2.ctx, &sqsv2.GetQueueUrlInput{QueueName: awsv2.String("shaped")})
	if err != nil {
		t.Fatal(err)
	}
	if id, ok := awsmiddleware.GetRequestIDMetadata(out.ResultMetadata); !ok || id == "" {
		t.Fatalf("no request id in the result metadata")
	}
	_, err = v2.c.GetQueueUrl(v2.ctx, &sqsv2.GetQueueUrlInput{QueueName: awsv2.String("absent")})
	var re *awshttp.ResponseError
	if !errors.As(err, &re) || re.ServiceRequestID() == "" {
		t.Fatalf("no request id in the error: %v", err)
	}
}

// TestJSONEmptyResultsLeftOut checks that empty members are absent from
// answers, not present and empty.
func TestJSONEmptyResultsLeftOut(t *testing.T) {
	t.Parallel()

	t.Run("ReceiveMessage on an empty queue", func(t *testing.T) {
		e := protocolEnv(t, "json", server.Config{})
		url := e.createQueue("empty", nil)
		r := postJSON(t, e.srv.URL(), "AmazonSQS.ReceiveMessage", mustJSON(t, map[string]any{"QueueUrl": url}))
		if r.Status != 200 || len(r.JSON) != 0 {
			t.Fatalf("empty receive answered %d %s, want 200 {}", r.Status, r.Body)
		}
	})

	t.Run("message without attributes", func(t *testing.T) {
		e := protocolEnv(t, "json", server.Config{})
		url := e.createQueue("plain", nil)
		r := postJSON(t, e.srv.URL(), "AmazonSQS.SendMessage", mustJSON(t, map[string]any{"QueueUrl": url, "MessageBody": "hi"}))
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
		r = postJSON(t, e.srv.URL(), "AmazonSQS.ReceiveMessage", mustJSON(t, map[string]any{"QueueUrl": url}))
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

// TestJSONEscapedBodies sends bodies written with escapes, as SDKs do not
// write them, between plain ones, which the server takes without looking
// at their characters again: each escaped body gets the answer that its
// text, as encoding/json reads it, gets from aws-sdk-go-v2, and the plain
// ones are stored.
func TestJSONEscapedBodies(t *testing.T) {
	e := protocolEnv(t, "json", server.Config{})
	url := e.createQueue("escaped", nil)
	for _, lit := range []string{`"\u0041bc"`, `"tab\there\r\n"`, `"\ud83d\ude00 and \u00e9"`, `"\u0000"`, `"nul\u0000"`,
		`"\u001f"`, `"\ufffe"`, `"\uffff"`, `"\ud800"`, `"lone low \udc00"`, `"\ud800\u0041"`} {
		var text string
		if err := json.Unmarshal([]byte(lit), &text); err != nil {
			t.Fatal(err)
		}
		_, sdkErr := e.c.SendMessage(url, sendIn{Body: text})
		r := postJSON(t, e.srv.URL(), "AmazonSQS.SendMessageBatch", `{"QueueUrl":"`+url+`","Entries":[`+
			`{"Id":"before","MessageBody":"plain before"},{"Id":"escaped","MessageBody":`+lit+`},{"Id":"after","MessageBody":"plain after"}]}`)
		var out struct {
			Successful []struct{ Id, MD5OfMessageBody string }
			Failed     []struct{ Id, Code string }
		}
		if err := json.Unmarshal(r.Body, &out); err != nil || r.Status != 200 {
			t.Fatalf("%s: %d %s", lit, r.Status, r.Body)
		}
		md5s := map[string]string{}
		for _, s := range out.Successful {
			md5s[s.Id] = s.MD5OfMessageBody
		}
		if md5s["before"] != refMD5("plain before") || md5s["after"] != refMD5("plain after") {
			t.Fatalf("%s: the plain entries: %s", lit, r.Body)
		}
		switch ae := asAPIError(sdkErr); {
		case sdkErr == nil:
			if md5s["escaped"] != refMD5(text) {
				t.Fatalf("%s: %s, where aws-sdk-go-v2 sent %q", lit, r.Body, text)
			}
		case ae == nil:
			t.Fatal(sdkErr)
		default:
			if len(out.Failed) != 1 || out.Failed[0].Id != "escaped" || out.Failed[0].Code != ae.Code {
				t.Fatalf("%s: %s, where aws-sdk-go-v2 sending %q got %v", lit, r.Body, text, sdkErr)
			}
		}
	}
}
