package sqs

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/minisqs/minisqs/engine"
)

// Fuzz targets for the SQS decoders, seeded with the
// requests real SDKs send. Each served input gets a fresh engine, so a
// failure reproduces from its input alone.

const (
	fzHost    = "http://127.0.0.1:9324"
	fzAccount = "000000000000"
	fzStd     = fzHost + "/" + fzAccount + "/fz-std"
	fzFIFO    = fzHost + "/" + fzAccount + "/fz-fifo.fifo"
	fzDLQ     = fzHost + "/" + fzAccount + "/fz-dlq"
)

// fzService opens an in-memory engine with a standard queue holding one
// message, a FIFO queue and a dead-letter queue. Long polls are ended up
// front so that a fuzzed WaitTimeSeconds cannot stall the fuzzer.
func fzService(tb testing.TB) *Service {
	e, err := engine.Open(engine.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	e.EndLongPolls()
	t := true
	if _, err := e.CreateQueue("fz-dlq", engine.AttributeUpdate{}, nil); err != nil {
		tb.Fatal(err)
	}
	std, err := e.CreateQueue("fz-std", engine.AttributeUpdate{
		RedrivePolicy: &engine.RedrivePolicy{DeadLetterTargetArn: "arn:aws:sqs:us-east-1:" + fzAccount + ":fz-dlq", MaxReceiveCount: 2},
	}, map[string]string{"team": "fuzz"})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := e.CreateQueue("fz-fifo.fifo", engine.AttributeUpdate{FifoQueue: &t, ContentBasedDeduplication: &t}, nil); err != nil {
		tb.Fatal(err)
	}
	if r := std.Send([]engine.NewMessage{{Body: "seeded", Attributes: []engine.MessageAttribute{{Name: "a", DataType: "String", StringValue: "b"}}}}); r[0].Err != nil {
		tb.Fatal(r[0].Err)
	}
	return New(e, Options{})
}

func fzForm(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v.Encode()
}

// Seeds that TestFuzzSeedsServe checks by name.
var (
	fzSeedSendAttrs = fzForm("Action", "SendMessage", "Version", "2012-11-05", "QueueUrl", fzStd, "MessageBody", "hello world",
		"DelaySeconds", "0",
		"MessageAttribute.1.Name", "color", "MessageAttribute.1.Value.StringValue", "blue", "MessageAttribute.1.Value.DataType", "String",
		"MessageAttribute.2.Name", "bin", "MessageAttribute.2.Value.BinaryValue", "AgME", "MessageAttribute.2.Value.DataType", "Binary",
		"MessageSystemAttribute.1.Name", "AWSTraceHeader", "MessageSystemAttribute.1.Value.StringValue", "Root=1-5759e988-bd862e3fe1be46a994272793", "MessageSystemAttribute.1.Value.DataType", "String")
	fzSeedUnicode   = fzForm("Action", "SendMessage", "Version", "2012-11-05", "QueueUrl", fzStd, "MessageBody", "héllo 😀 \u4e16\u754c \t\r\n <&>\"'")
	fzSeedControl   = fzForm("Action", "SendMessage", "Version", "2012-11-05", "QueueUrl", fzStd, "MessageBody", "ctl \x00\x01\x08\x0b\x1f\ufffe\uffff")
	fzSeedHugeDelay = fzForm("Action", "SendMessage", "Version", "2012-11-05", "QueueUrl", fzStd, "MessageBody", "big", "DelaySeconds", "99999999999999999999")
	fzSeedDeepBatch = fzForm("Action", "SendMessageBatch", "Version", "2012-11-05", "QueueUrl", fzStd,
		"SendMessageBatchRequestEntry.99999999999.Id", "x", "SendMessageBatchRequestEntry.99999999999.MessageBody", "deep")
	fzSeedReceiveAll = fzForm("Action", "ReceiveMessage", "Version", "2012-11-05", "QueueUrl", fzStd,
		"AttributeName.1", "All", "MessageAttributeName.1", "All", "MaxNumberOfMessages", "10", "VisibilityTimeout", "30", "WaitTimeSeconds", "20")
)

// fzQuerySeeds are query-protocol requests as botocore and the Go SDK v1
// send them, plus hostile ones.
var fzQuerySeeds = []string{
	fzForm("Action", "CreateQueue", "Version", "2012-11-05", "QueueName", "new-q",
		"Attribute.1.Name", "VisibilityTimeout", "Attribute.1.Value", "60",
		"Attribute.2.Name", "RedrivePolicy", "Attribute.2.Value", `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:fz-dlq","maxReceiveCount":"5"}`,
		"Tag.1.Key", "env", "Tag.1.Value", "test"),
	fzForm("Action", "CreateQueue", "Version", "2012-11-05", "QueueName", "f.fifo",
		"Attribute.1.Name", "FifoQueue", "Attribute.1.Value", "true",
		"Attribute.2.Name", "ContentBasedDeduplication", "Attribute.2.Value", "true"),
	fzForm("Action", "GetQueueUrl", "Version", "2012-11-05", "QueueName", "fz-std"),
	fzForm("Action", "ListQueues", "Version", "2012-11-05", "QueueNamePrefix", "fz", "MaxResults", "1"),
	fzForm("Action", "GetQueueAttributes", "Version", "2012-11-05", "QueueUrl", fzStd, "AttributeName.1", "All"),
	fzForm("Action", "SetQueueAttributes", "Version", "2012-11-05", "QueueUrl", fzStd, "Attribute.1.Name", "DelaySeconds", "Attribute.1.Value", "0"),
	fzSeedSendAttrs,
	fzSeedUnicode,
	fzSeedControl,
	fzForm("Action", "SendMessage", "Version", "2012-11-05", "QueueUrl", fzFIFO, "MessageBody", "ordered", "MessageGroupId", "g1", "MessageDeduplicationId", "d1"),
	fzSeedHugeDelay,
	fzForm("Action", "SendMessage", "Version", "2012-11-05", "QueueUrl", fzStd, "MessageBody", "neg", "DelaySeconds", "-2147483648"),
	fzForm("Action", "SendMessageBatch", "Version", "2012-11-05", "QueueUrl", fzStd,
		"SendMessageBatchRequestEntry.1.Id", "a", "SendMessageBatchRequestEntry.1.MessageBody", "one",
		"SendMessageBatchRequestEntry.1.MessageAttribute.1.Name", "k", "SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.StringValue", "v", "SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.DataType", "String",
		"SendMessageBatchRequestEntry.2.Id", "b", "SendMessageBatchRequestEntry.2.MessageBody", "two", "SendMessageBatchRequestEntry.2.DelaySeconds", "1"),
	fzSeedDeepBatch,
	fzForm("Action", "SendMessageBatch", "Version", "2012-11-05", "QueueUrl", fzFIFO,
		"SendMessageBatchRequestEntry.1.Id", "a", "SendMessageBatchRequestEntry.1.MessageBody", "one", "SendMessageBatchRequestEntry.1.MessageGroupId", "g"),
	fzSeedReceiveAll,
	fzForm("Action", "ReceiveMessage", "Version", "2012-11-05", "QueueUrl", fzStd, "AttributeName.99999999999", "SentTimestamp", "MaxNumberOfMessages", "0"),
	fzForm("Action", "ReceiveMessage", "Version", "2012-11-05", "QueueUrl", fzFIFO, "ReceiveRequestAttemptId", "att", "MessageAttributeName.1", "pre.*"),
	fzForm("Action", "DeleteMessage", "Version", "2012-11-05", "QueueUrl", fzStd, "ReceiptHandle", "bogus-handle"),
	fzForm("Action", "DeleteMessageBatch", "Version", "2012-11-05", "QueueUrl", fzStd,
		"DeleteMessageBatchRequestEntry.1.Id", "a", "DeleteMessageBatchRequestEntry.1.ReceiptHandle", "h"),
	fzForm("Action", "ChangeMessageVisibility", "Version", "2012-11-05", "QueueUrl", fzStd, "ReceiptHandle", "h", "VisibilityTimeout", "43200"),
	fzForm("Action", "ChangeMessageVisibilityBatch", "Version", "2012-11-05", "QueueUrl", fzStd,
		"ChangeMessageVisibilityBatchRequestEntry.1.Id", "a", "ChangeMessageVisibilityBatchRequestEntry.1.ReceiptHandle", "h", "ChangeMessageVisibilityBatchRequestEntry.1.VisibilityTimeout", "10"),
	fzForm("Action", "TagQueue", "Version", "2012-11-05", "QueueUrl", fzStd, "Tag.1.Key", "k", "Tag.1.Value", "v"),
	fzForm("Action", "UntagQueue", "Version", "2012-11-05", "QueueUrl", fzStd, "TagKey.1", "k"),
	fzForm("Action", "ListQueueTags", "Version", "2012-11-05", "QueueUrl", fzStd),
	fzForm("Action", "ListDeadLetterSourceQueues", "Version", "2012-11-05", "QueueUrl", fzDLQ),
	fzForm("Action", "AddPermission", "Version", "2012-11-05", "QueueUrl", fzStd, "Label", "l", "AWSAccountId.1", "111122223333", "ActionName.1", "SendMessage"),
	fzForm("Action", "RemovePermission", "Version", "2012-11-05", "QueueUrl", fzStd, "Label", "l"),
	fzForm("Action", "StartMessageMoveTask", "Version", "2012-11-05", "SourceArn", "arn:aws:sqs:us-east-1:000000000000:fz-dlq"),
	fzForm("Action", "ListMessageMoveTasks", "Version", "2012-11-05", "SourceArn", "arn:aws:sqs:us-east-1:000000000000:fz-dlq", "MaxResults", "10"),
	fzForm("Action", "CancelMessageMoveTask", "Version", "2012-11-05", "TaskHandle", "eyJ0YXNrSWQiOiJ4In0="),
	fzForm("Action", "PurgeQueue", "Version", "2012-11-05", "QueueUrl", fzStd),
	fzForm("Action", "DeleteQueue", "Version", "2012-11-05", "QueueUrl", fzStd),
	"Action=SendMessage&QueueUrl=%ZZ&MessageBody=%",
	"Action=SendMessage&&&==&MessageBody=a;b",
	"",
	"Action=",
	"Action=NoSuchAction",
}

// fzXMLWellFormed reads every token; encoding/xml rejects malformed
// documents and characters XML 1.0 does not allow.
func fzXMLWellFormed(b []byte) (root string, err error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	depth := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			if depth != 0 || root == "" {
				return root, errors.New("document ended early or had no root")
			}
			return root, nil
		}
		if err != nil {
			return root, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				if root != "" {
					return root, errors.New("more than one root element")
				}
				root = t.Name.Local
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
}

var fzQueryCodes = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range wireErrors {
		m[w.queryCode] = true
	}
	return m
}()

func FuzzQueryRequest(f *testing.F) {
	for _, s := range fzQuerySeeds {
		f.Add("/", "", s)
	}
	// Requests sent to a queue's own path, and by GET.
	f.Add("/"+fzAccount+"/fz-std", "", fzForm("Action", "SendMessage", "MessageBody", "to the path"))
	f.Add("/"+fzAccount+"/fz-std/", fzForm("Action", "ReceiveMessage", "WaitTimeSeconds", "0"), "")
	f.Add("/"+fzAccount+"/nope", "", fzForm("Action", "GetQueueAttributes", "AttributeName.1", "QueueArn"))
	f.Add("//", "Action=ListQueues", "")

	f.Fuzz(func(t *testing.T, path, rawQuery, body string) {
		svc := fzService(t)
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.URL.Path = path
		req.URL.RawQuery = rawQuery
		rec := httptest.NewRecorder()
		svc.ServeQuery(rec, req)

		if rec.Code != 200 && (rec.Code < 400 || rec.Code > 599) {
			t.Fatalf("status %d", rec.Code)
		}
		if rec.Code == http.StatusInternalServerError {
			t.Fatalf("internal error for a client's request:\n%s", rec.Body)
		}
		if ct := rec.Header().Get("Content-Type"); ct != "text/xml" {
			t.Fatalf("Content-Type %q", ct)
		}
		id := rec.Header().Get("x-amzn-RequestId")
		if id == "" {
			t.Fatal("no x-amzn-RequestId")
		}
		root, err := fzXMLWellFormed(rec.Body.Bytes())
		if err != nil {
			t.Fatalf("malformed XML (%v):\n%q", err, rec.Body.String())
		}
		if rec.Code == 200 {
			if !strings.HasSuffix(root, "Response") || root == "ErrorResponse" {
				t.Fatalf("200 with root %q", root)
			}
			var ok struct {
				XMLName   xml.Name
				RequestID string `xml:"ResponseMetadata>RequestId"`
			}
			if err := xml.Unmarshal(rec.Body.Bytes(), &ok); err != nil || ok.RequestID != id || ok.XMLName.Space != xmlNamespace {
				t.Fatalf("bad success document (%v, id %q vs %q, ns %q):\n%s", err, ok.RequestID, id, ok.XMLName.Space, rec.Body)
			}
			return
		}
		var er errTestXMLResponse
		if err := xml.Unmarshal(rec.Body.Bytes(), &er); err != nil {
			t.Fatalf("error document: %v\n%s", err, rec.Body)
		}
		if er.XMLName.Local != "ErrorResponse" || er.RequestID != id || !fzQueryCodes[er.Error.Code] ||
			(er.Error.Type != "Sender" && er.Error.Type != "Receiver") {
			t.Fatalf("bad error document for status %d:\n%s", rec.Code, rec.Body)
		}
	})
}

func fzJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

type fzObj = map[string]any

// fzJSONSeeds are JSON-protocol requests as the Go SDK v2 and botocore send
// them, plus hostile ones.
var fzJSONSeeds = [][2]string{
	{"CreateQueue", fzJSON(fzObj{"QueueName": "new-q", "Attributes": fzObj{"VisibilityTimeout": "60", "RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:fz-dlq","maxReceiveCount":5}`}, "tags": fzObj{"env": "test"}})},
	{"CreateQueue", fzJSON(fzObj{"QueueName": "f.fifo", "Attributes": fzObj{"FifoQueue": "true", "ContentBasedDeduplication": "true"}})},
	{"GetQueueUrl", fzJSON(fzObj{"QueueName": "fz-std", "QueueOwnerAWSAccountId": fzAccount})},
	{"ListQueues", fzJSON(fzObj{"QueueNamePrefix": "fz", "MaxResults": 1})},
	{"GetQueueAttributes", fzJSON(fzObj{"QueueUrl": fzStd, "AttributeNames": []string{"All"}})},
	{"SetQueueAttributes", fzJSON(fzObj{"QueueUrl": fzStd, "Attributes": fzObj{"DelaySeconds": "0"}})},
	{"SendMessage", fzJSON(fzObj{"QueueUrl": fzStd, "MessageBody": "hello", "DelaySeconds": 0,
		"MessageAttributes": fzObj{
			"color": fzObj{"DataType": "String", "StringValue": "blue"},
			"bin":   fzObj{"DataType": "Binary", "BinaryValue": "AgME"},
			"n":     fzObj{"DataType": "Number.int", "StringValue": "42"}},
		"MessageSystemAttributes": fzObj{"AWSTraceHeader": fzObj{"DataType": "String", "StringValue": "Root=1-5759e988-bd862e3fe1be46a994272793"}}})},
	{"SendMessage", fzJSON(fzObj{"QueueUrl": fzStd, "MessageBody": "héllo 😀 \u4e16\u754c \t\r\n <&>\"'"})},
	{"SendMessage", `{"QueueUrl":"` + fzStd + `","MessageBody":"ctl \u0000\u0001\u0008\u000b\u001f\ufffe\uffff \ud800"}`},
	{"SendMessage", fzJSON(fzObj{"QueueUrl": fzFIFO, "MessageBody": "ordered", "MessageGroupId": "g1", "MessageDeduplicationId": "d1"})},
	{"SendMessage", `{"QueueUrl":"` + fzStd + `","MessageBody":"big","DelaySeconds":99999999999999999999}`},
	{"SendMessage", `{"QueueUrl":"` + fzStd + `","MessageBody":"big","DelaySeconds":9223372036854775807}`},
	{"SendMessage", `{"QueueUrl":"` + fzStd + `","MessageBody":"neg","DelaySeconds":-9223372036854775808}`},
	{"SendMessage", `{"QueueUrl":"` + fzStd + `","MessageBody":null,"DelaySeconds":1.5}`},
	{"SendMessageBatch", fzJSON(fzObj{"QueueUrl": fzStd, "Entries": []fzObj{
		{"Id": "a", "MessageBody": "one", "MessageAttributes": fzObj{"k": fzObj{"DataType": "String", "StringValue": "v"}}},
		{"Id": "b", "MessageBody": "two", "DelaySeconds": 1}}})},
	{"SendMessageBatch", fzJSON(fzObj{"QueueUrl": fzFIFO, "Entries": []fzObj{{"Id": "a", "MessageBody": "one", "MessageGroupId": "g"}}})},
	{"SendMessageBatch", fzJSON(fzObj{"QueueUrl": fzStd, "Entries": []fzObj{}})},
	{"ReceiveMessage", fzJSON(fzObj{"QueueUrl": fzStd, "MessageSystemAttributeNames": []string{"All"}, "MessageAttributeNames": []string{"All"}, "MaxNumberOfMessages": 10, "VisibilityTimeout": 30, "WaitTimeSeconds": 20})},
	{"ReceiveMessage", fzJSON(fzObj{"QueueUrl": fzStd, "AttributeNames": []string{"SentTimestamp"}, "MaxNumberOfMessages": 0})},
	{"ReceiveMessage", fzJSON(fzObj{"QueueUrl": fzFIFO, "ReceiveRequestAttemptId": "att", "MessageAttributeNames": []string{"pre.*"}})},
	{"DeleteMessage", fzJSON(fzObj{"QueueUrl": fzStd, "ReceiptHandle": "bogus-handle"})},
	{"DeleteMessageBatch", fzJSON(fzObj{"QueueUrl": fzStd, "Entries": []fzObj{{"Id": "a", "ReceiptHandle": "h"}}})},
	{"ChangeMessageVisibility", fzJSON(fzObj{"QueueUrl": fzStd, "ReceiptHandle": "h", "VisibilityTimeout": 43200})},
	{"ChangeMessageVisibilityBatch", fzJSON(fzObj{"QueueUrl": fzStd, "Entries": []fzObj{{"Id": "a", "ReceiptHandle": "h", "VisibilityTimeout": 10}}})},
	{"TagQueue", fzJSON(fzObj{"QueueUrl": fzStd, "Tags": fzObj{"k": "v"}})},
	{"UntagQueue", fzJSON(fzObj{"QueueUrl": fzStd, "TagKeys": []string{"k"}})},
	{"ListQueueTags", fzJSON(fzObj{"QueueUrl": fzStd})},
	{"ListDeadLetterSourceQueues", fzJSON(fzObj{"QueueUrl": fzDLQ})},
	{"AddPermission", fzJSON(fzObj{"QueueUrl": fzStd, "Label": "l", "AWSAccountIds": []string{"111122223333"}, "Actions": []string{"SendMessage"}})},
	{"RemovePermission", fzJSON(fzObj{"QueueUrl": fzStd, "Label": "l"})},
	{"StartMessageMoveTask", fzJSON(fzObj{"SourceArn": "arn:aws:sqs:us-east-1:000000000000:fz-dlq"})},
	{"ListMessageMoveTasks", fzJSON(fzObj{"SourceArn": "arn:aws:sqs:us-east-1:000000000000:fz-dlq", "MaxResults": 10})},
	{"CancelMessageMoveTask", fzJSON(fzObj{"TaskHandle": "eyJ0YXNrSWQiOiJ4In0="})},
	{"PurgeQueue", fzJSON(fzObj{"QueueUrl": fzStd})},
	{"DeleteQueue", fzJSON(fzObj{"QueueUrl": fzStd})},
	{"SendMessage", `{"QueueUrl": 7}`},
	{"SendMessage", `[]`},
	{"SendMessage", `{`},
	{"SendMessage", ""},
	{"SendMessage", `{"QueueUrl":"` + fzStd + `","MessageBody":"x","MessageAttributes":{"b":{"DataType":"Binary","BinaryValue":"!!"}}}`},
	{"NoSuchAction", `{}`},
}

func FuzzJSONRequest(f *testing.F) {
	for _, s := range fzJSONSeeds {
		f.Add("/", "AmazonSQS."+s[0], s[1])
	}
	f.Add("/"+fzAccount+"/fz-std", "AmazonSQS.SendMessage", `{"MessageBody":"to the path"}`)
	f.Add("/", "", `{}`)
	f.Add("/", "AmazonSQS.", `{}`)
	f.Add("/", "amazonsqs.ListQueues", `{}`)

	f.Fuzz(func(t *testing.T, path, target, body string) {
		svc := fzService(t)
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("X-Amz-Target", target)
		req.URL.Path = path
		rec := httptest.NewRecorder()
		svc.ServeJSON(rec, req)

		if rec.Code != 200 && (rec.Code < 400 || rec.Code > 599) {
			t.Fatalf("status %d", rec.Code)
		}
		if rec.Code == http.StatusInternalServerError {
			t.Fatalf("internal error for a client's request:\n%s", rec.Body)
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/x-amz-json-1.0" {
			t.Fatalf("Content-Type %q", ct)
		}
		if rec.Header().Get("x-amzn-RequestId") == "" {
			t.Fatal("no x-amzn-RequestId")
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
			t.Fatalf("body is not a JSON object (%v): %q", err, rec.Body.String())
		}
		if rec.Code == 200 {
			if _, bad := doc["__type"]; bad {
				t.Fatalf("200 carrying __type: %s", rec.Body)
			}
			return
		}
		var er struct {
			Type    string  `json:"__type"`
			Message *string `json:"message"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &er); err != nil {
			t.Fatal(err)
		}
		_, shape, ok := strings.Cut(er.Type, "#")
		if !ok || shape == "" || er.Type != jsonType(shape) || er.Message == nil {
			t.Fatalf("bad error body: %s", rec.Body)
		}
		code, fault, ok := strings.Cut(rec.Header().Get("x-amzn-query-error"), ";")
		if !ok || !fzQueryCodes[code] || (fault != "Sender" && fault != "Receiver") {
			t.Fatalf("bad x-amzn-query-error %q", rec.Header().Get("x-amzn-query-error"))
		}
	})
}

// FuzzDecodeQuery decodes any query string into every action's input. The
// decoder may refuse a value, but only as the client's fault; it must not
// panic, and what it allocates must follow the input's size, never a list
// index it names.
func FuzzDecodeQuery(f *testing.F) {
	for _, s := range fzQuerySeeds {
		f.Add(s)
	}
	f.Add("AttributeName.99999999999=x&AttributeName.1=y")
	f.Add("Attribute.99999999999.Name=a&Attribute.99999999999.Value=b&Tag.18446744073709551616.Key=k")
	f.Add("SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.BinaryValue=AA%3D%3D&SendMessageBatchRequestEntry.1.MessageAttribute.1.Name=n")
	f.Add("MessageAttribute.1.Name=&MessageAttribute.1.Value.DataType=String")
	f.Add("AttributeName.01=a&AttributeName.+1=b&AttributeName.1.=c&AttributeName..1=d")

	table := actionTable()
	names := make([]string, 0, len(table))
	for n := range table {
		names = append(names, n)
	}
	sort.Strings(names)

	f.Fuzz(func(t *testing.T, query string) {
		params, _ := url.ParseQuery(query) // keeps what parsed before an error
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for _, name := range names {
			in := table[name].newInput()
			err := decodeQuery(params, in)
			if err == nil {
				continue
			}
			var ee *engine.Error
			if !errors.As(err, &ee) {
				t.Fatalf("%s: error %v is not an *engine.Error", name, err)
			}
			if ee.Code != engine.ErrInvalidParameterValue && ee.Code != engine.ErrMissingParameter {
				t.Fatalf("%s: error %s is not the client's fault: %s", name, ee.Code, errorText(ee))
			}
		}
		runtime.ReadMemStats(&after)
		if grew, limit := after.TotalAlloc-before.TotalAlloc, uint64(4<<20+1024*len(query)); grew > limit {
			t.Fatalf("decoding a %d-byte query into every input allocated %d bytes", len(query), grew)
		}
	})
}

// TestFuzzSeedsServe runs the realistic seed inputs once as ordinary tests and
// checks the answers they should get, so the seed corpus stays meaningful
// as the handlers change.
func TestFuzzSeedsServe(t *testing.T) {
	svc := fzService(t)
	post := func(body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		svc.ServeQuery(rec, req)
		return rec
	}
	// SendMessage with attributes succeeds and answers the digests.
	rec := post(fzSeedSendAttrs)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "<MD5OfMessageAttributes>") || !strings.Contains(rec.Body.String(), "<MD5OfMessageSystemAttributes>") {
		t.Fatalf("SendMessage seed: %d\n%s", rec.Code, rec.Body)
	}
	// A body with characters XML cannot carry is refused, not stored.
	rec = post(fzSeedControl)
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), "<Code>InvalidMessageContents</Code>") {
		t.Fatalf("control-character seed: %d\n%s", rec.Code, rec.Body)
	}
	// An out-of-range number is the client's fault.
	rec = post(fzSeedHugeDelay)
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), "<Code>InvalidParameterValue</Code>") {
		t.Fatalf("huge DelaySeconds seed: %d\n%s", rec.Code, rec.Body)
	}
	// A batch with a deep index is one entry, sent.
	rec = post(fzSeedDeepBatch)
	if rec.Code != 200 || strings.Count(rec.Body.String(), "<SendMessageBatchResultEntry>") != 1 {
		t.Fatalf("deep-index batch seed: %d\n%s", rec.Code, rec.Body)
	}
	// Receive finds the seeded message and the sent ones, unicode intact.
	post(fzSeedUnicode)
	rec = post(fzSeedReceiveAll)
	var rr struct {
		Messages []struct {
			Body string `xml:"Body"`
		} `xml:"ReceiveMessageResult>Message"`
	}
	if err := xml.Unmarshal(rec.Body.Bytes(), &rr); err != nil || rec.Code != 200 {
		t.Fatalf("receive: %d %v\n%s", rec.Code, err, rec.Body)
	}
	found := false
	for _, m := range rr.Messages {
		if m.Body == "héllo 😀 \u4e16\u754c \t\r\n <&>\"'" {
			found = true
		}
	}
	if !found || len(rr.Messages) < 3 {
		t.Fatalf("received %d messages, unicode body found %v:\n%s", len(rr.Messages), found, rec.Body)
	}
}
