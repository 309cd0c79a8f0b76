package sqs

import (
	"encoding/json"
	"encoding/xml"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/minisqs/minisqs/protocol/dispatch"
)

func TestQueueOf(t *testing.T) {
	for _, tc := range []struct {
		in   any
		path string
		want string
	}{
		{&SendMessageInput{QueueUrl: "http://localhost:9324/000000000000/orders"}, "/", "orders"},
		{&SendMessageInput{QueueUrl: "https://sqs.us-east-1.localhost.localstack.cloud:4566/000000000000/a.fifo"}, "/", "a.fifo"},
		{&SendMessageInput{QueueUrl: "http://h/000000000000/orders/"}, "/", "orders"},
		{&SendMessageInput{QueueUrl: "/000000000000/orders"}, "/", "orders"},
		{&SendMessageInput{QueueUrl: "000000000000/orders"}, "/", "orders"},
		{&SendMessageInput{QueueUrl: "http://h/orders"}, "/", ""},
		{&SendMessageInput{QueueUrl: "http://h"}, "/", ""},
		{&SendMessageInput{QueueUrl: "http://h/a/b/c"}, "/", ""},
		{&QueueInput{}, "/000000000000/from-path", "from-path"},
		{&QueueInput{}, "/", ""},
		{&CreateQueueInput{QueueName: "new"}, "/", "new"},
		{&GetQueueUrlInput{QueueName: "q"}, "/", "q"},
		{&StartMessageMoveTaskInput{SourceArn: "arn:aws:sqs:us-east-1:000000000000:dlq"}, "/", "dlq"},
		{&ListMessageMoveTasksInput{SourceArn: "dlq"}, "/", "dlq"},
		{&ListQueuesInput{}, "/000000000000/x", ""},
		{&CancelMessageMoveTaskInput{TaskHandle: "h"}, "/", ""},
	} {
		if got := queueOf(tc.in, tc.path, new(queuePaths)); got != tc.want {
			t.Errorf("queueOf(%+v, %q) = %q, want %q", tc.in, tc.path, got, tc.want)
		}
	}
}

// TestInputsNameTheirQueue checks every action's input: one with a
// QueueUrl, QueueName or SourceArn field tells the chain its queue.
func TestInputsNameTheirQueue(t *testing.T) {
	for name, a := range actionTable() {
		in := a.newInput()
		typ := reflect.TypeOf(in).Elem()
		for field, check := range map[string]func() bool{
			"QueueUrl":  func() bool { _, ok := in.(byURL); return ok },
			"QueueName": func() bool { _, ok := in.(byName); return ok },
			"SourceArn": func() bool { _, ok := in.(byArn); return ok },
		} {
			if _, has := typ.FieldByName(field); has && !check() {
				t.Errorf("%s: %s has %s but does not say so to the chain", name, typ.Name(), field)
			}
		}
	}
}

// TestFaultErrorsRender answers a fault rule's error, named by shape or by
// query code, in both protocols as the table has it.
func TestFaultErrorsRender(t *testing.T) {
	for _, tc := range []struct {
		code, queryCode, shape, fault string
		status                        int
	}{
		{"ThrottlingException", "ThrottlingException", "ThrottlingException", "Sender", 400},
		{"RequestThrottled", "RequestThrottled", "RequestThrottled", "Sender", 403},
		{"ServiceUnavailable", "ServiceUnavailable", "ServiceUnavailable", "Receiver", 503},
		{"InternalError", "InternalError", "InternalError", "Receiver", 500},
		{"QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist", "Sender", 400},
		{"AWS.SimpleQueueService.NonExistentQueue", "AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist", "Sender", 400},
		{"KMS.ThrottlingException", "KMS.ThrottlingException", "KmsThrottled", "Sender", 400},
	} {
		err := &dispatch.FaultError{Code: tc.code, RuleID: "r1"}
		rec := httptest.NewRecorder()
		writeXMLError(rec, "rid", err)
		var xr errTestXMLResponse
		if err := xml.Unmarshal(rec.Body.Bytes(), &xr); err != nil {
			t.Fatal(err)
		}
		if rec.Code != tc.status || xr.Error.Code != tc.queryCode || xr.Error.Type != tc.fault {
			t.Errorf("%s in query: %d %s/%s, want %d %s/%s", tc.code, rec.Code, xr.Error.Code, xr.Error.Type, tc.status, tc.queryCode, tc.fault)
		}

		rec = httptest.NewRecorder()
		writeJSONError(rec, err)
		var jr errTestJSONResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &jr); err != nil {
			t.Fatal(err)
		}
		if rec.Code != tc.status || jr.Type == nil || *jr.Type != jsonType(tc.shape) ||
			rec.Header().Get("x-amzn-query-error") != tc.queryCode+";"+tc.fault {
			t.Errorf("%s in JSON: %d %v %q", tc.code, rec.Code, jr.Type, rec.Header().Get("x-amzn-query-error"))
		}
		if status, code := classify(nil, err); status != tc.status || code != tc.queryCode {
			t.Errorf("%s: classified %d %s", tc.code, status, code)
		}
	}
}

func TestErrorCodesListsNamesOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range ErrorCodes() {
		if seen[c] {
			t.Errorf("%s listed twice", c)
		}
		seen[c] = true
	}
	for _, must := range []string{"ThrottlingException", "RequestThrottled", "ServiceUnavailable", "InternalError", "InternalFailure", "QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue"} {
		if !seen[must] {
			t.Errorf("%s is not listed", must)
		}
	}
	// Engine-internal class names are not AWS's and are not listed.
	for _, not := range []string{"MessageTooLong", "ReceiptHandleStale"} {
		if seen[not] {
			t.Errorf("%s is listed", not)
		}
	}
}
