package compat

import (
	"testing"

	"github.com/minisqs/minisqs/server"
)

// JSON error namespaces as AWS sends them, from google/go-cloud's replays
// of real AWS (pubsub/awssnssqs/testdata): a FIFO SendMessageBatch entry
// without MessageGroupId answered 400, x-amzn-query-error
// InvalidParameterValue;Sender and {"__type":"com.amazon.coral.service#
// InvalidParameterValueException","message":"The request must contain the
// parameter MessageGroupId."} (TestFIFO/TestSQSTopic/
// TestSendReceiveInvalidNoDeduplicationID.replay, 2024); a batch to a
// queue that does not exist, with an empty body even, answered
// AWS.SimpleQueueService.NonExistentQueue;Sender and
// {"__type":"com.amazonaws.sqs#QueueDoesNotExist","message":"The specified
// queue does not exist."} (TestConformanceSQSTopic/
// TestNonExistentTopicSucceedsOnOpenButFailsOnSend.replay, 2026). The query
// protocol answers the same codes, the missing queue in its WSDL words.
func TestFidelityErrorNamespaces(t *testing.T) {
	t.Parallel()
	e := protocolEnv(t, "json", server.Config{})
	fifo := e.createFIFO("topic.fifo", nil)
	gone := e.srv.URL() + "/" + defaultAccount + "/nonexistent-queue"
	for _, c := range []struct {
		queue, body              string
		typ, queryError, message string
	}{
		{fifo, "hello world", "com.amazon.coral.service#InvalidParameterValueException", "InvalidParameterValue;Sender", "The request must contain the parameter MessageGroupId."},
		{gone, "", "com.amazonaws.sqs#QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue;Sender", "The specified queue does not exist."},
	} {
		r := postJSON(t, e.srv.URL(), "AmazonSQS.SendMessageBatch", mustJSON(t, map[string]any{
			"Entries": []map[string]any{{"Id": "0", "MessageBody": c.body}}, "QueueUrl": c.queue}))
		if r.Status != 400 || r.JSON["__type"] != c.typ || r.JSON["message"] != c.message || r.Header.Get("x-amzn-query-error") != c.queryError {
			t.Errorf("json: %d %s %q, want 400 %s %s", r.Status, r.Body, r.Header.Get("x-amzn-query-error"), c.typ, c.queryError)
		}
	}
	// The same server through the query protocol.
	q := v1Client{c: queryClient(t, e.srv.URL())}
	send := func(queue, body string) error {
		_, _, err := q.SendMessageBatch(queue, []sendIn{entry("0", body)})
		return err
	}
	wantMessage(t, "query FIFO batch without group", send(fifo, "hello world"), 400, "InvalidParameterValue", "The request must contain the parameter MessageGroupId.")
	wantMessage(t, "query missing queue", send(gone, "x"), 400, "AWS.SimpleQueueService.NonExistentQueue", "The specified queue does not exist for this wsdl version.")
}
