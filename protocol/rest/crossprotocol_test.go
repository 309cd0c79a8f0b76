package rest_test

import (
	"context"
	"slices"
	"testing"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Queues and messages are one namespace whichever protocol made them.

func TestSQSQueueInREST(t *testing.T) {
	v := newEnv(t)
	ctx := context.Background()
	c := v.sqsClient()
	out, err := c.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("from-sqs"), Attributes: map[string]string{"VisibilityTimeout": "40"}})
	if err != nil {
		t.Fatal(err)
	}
	fifo, err := c.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("orders.fifo"),
		Attributes: map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Queues []queueOut }
	v.must(200, "GET", "/v1/queues", nil).Decode(t, &list)
	var names []string
	for _, q := range list.Queues {
		names = append(names, q.Name)
	}
	if !slices.Equal(names, []string{"from-sqs", "orders.fifo"}) {
		t.Fatalf("listed %v", names)
	}
	q := list.Queues[0]
	if q.SQSURL != *out.QueueUrl || q.VisibilityTimeoutSeconds != 40 || q.Type != "standard" {
		t.Errorf("from-sqs: %+v (SQS URL %s)", q, *out.QueueUrl)
	}
	// A .fifo queue made through SQS keeps its name and is addressed by it.
	f := v.getQueue("orders.fifo")
	if f.Type != "fifo" || !f.ContentBasedDedup || f.SQSURL != *fifo.QueueUrl {
		t.Errorf("orders.fifo: %+v", f)
	}
	v.sendOK("orders.fifo", msg{"body": "x", "groupId": "g"})

	// Purged by REST.
	for _, body := range []string{"1", "2", "3"} {
		if _, err := c.SendMessage(ctx, &sqsv2.SendMessageInput{QueueUrl: out.QueueUrl, MessageBody: awsv2.String(body)}); err != nil {
			t.Fatal(err)
		}
	}
	if q := v.getQueue("from-sqs"); q.Counts.Visible != 3 {
		t.Fatalf("counts: %+v", q.Counts)
	}
	v.must(204, "POST", "/v1/queues/from-sqs/purge", nil)
	attrs, err := c.GetQueueAttributes(ctx, &sqsv2.GetQueueAttributesInput{QueueUrl: out.QueueUrl,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages}})
	if err != nil {
		t.Fatal(err)
	}
	if n := attrs.Attributes["ApproximateNumberOfMessages"]; n != "0" {
		t.Errorf("after a REST purge SQS counts %s messages", n)
	}
	// And the 60-second rule holds across protocols.
	_, err = c.PurgeQueue(ctx, &sqsv2.PurgeQueueInput{QueueUrl: out.QueueUrl})
	var inProgress *types.PurgeQueueInProgress
	if !asError(err, &inProgress) {
		t.Errorf("SQS purge right after a REST purge: %v", err)
	}

	// A queue deleted by REST is gone for SQS.
	v.must(204, "DELETE", "/v1/queues/from-sqs", nil)
	_, err = c.GetQueueUrl(ctx, &sqsv2.GetQueueUrlInput{QueueName: awsv2.String("from-sqs")})
	var missing *types.QueueDoesNotExist
	if !asError(err, &missing) {
		t.Errorf("GetQueueUrl after a REST delete: %v", err)
	}
}

func TestRESTMessageToSQS(t *testing.T) {
	v := newEnv(t)
	ctx := context.Background()
	c := v.sqsClient()
	q := v.createQueue(msg{"name": "bridge"})
	id := v.sendOK("bridge", msg{"body": "from REST", "attributes": msg{"trace": "abc"}})[0].MessageID
	got, err := c.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(q.SQSURL), MessageAttributeNames: []string{"All"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 1 {
		t.Fatalf("SQS received %d messages", len(got.Messages))
	}
	m := got.Messages[0]
	a := m.MessageAttributes["trace"]
	if *m.MessageId != id || *m.Body != "from REST" || a.DataType == nil || *a.DataType != "String" || *a.StringValue != "abc" {
		t.Errorf("SQS received %+v %+v", m, a)
	}
	// An SQS receipt handle works with the REST API, and the reverse.
	v.must(204, "POST", "/v1/messages/visibility", msg{"receiptHandle": *m.ReceiptHandle, "visibilityTimeoutSeconds": 0})
	r := v.receive("bridge", msg{})
	if len(r) != 1 || r[0].ReceiveCount != 2 {
		t.Fatalf("REST receive after release: %+v", r)
	}
	if _, err := c.DeleteMessage(ctx, &sqsv2.DeleteMessageInput{QueueUrl: awsv2.String(q.SQSURL), ReceiptHandle: awsv2.String(r[0].ReceiptHandle)}); err != nil {
		t.Errorf("SQS delete of a REST handle: %v", err)
	}
	if q := v.getQueue("bridge"); q.Counts.Visible+q.Counts.InFlight != 0 {
		t.Errorf("counts: %+v", q.Counts)
	}
}

func TestSQSMessageToREST(t *testing.T) {
	v := newEnv(t)
	ctx := context.Background()
	c := v.sqsClient()
	out, err := c.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("in.fifo"), Attributes: map[string]string{"FifoQueue": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	sent, err := c.SendMessage(ctx, &sqsv2.SendMessageInput{
		QueueUrl: out.QueueUrl, MessageBody: awsv2.String("from SQS"),
		MessageGroupId: awsv2.String("g1"), MessageDeduplicationId: awsv2.String("d1"),
		MessageAttributes: map[string]types.MessageAttributeValue{
			"s": {DataType: awsv2.String("String"), StringValue: awsv2.String("text")},
			"n": {DataType: awsv2.String("Number"), StringValue: awsv2.String("42")},
			"b": {DataType: awsv2.String("Binary"), BinaryValue: []byte{1, 2, 3}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := v.receive("in.fifo", msg{})
	if len(got) != 1 {
		t.Fatalf("REST received %d", len(got))
	}
	m := got[0]
	if m.MessageID != *sent.MessageId || m.Body != "from SQS" || m.GroupID != "g1" || m.SequenceNumber != *sent.SequenceNumber ||
		m.Attributes["s"] != "text" || m.Attributes["n"] != "42" || m.Attributes["b"] != "AQID" {
		t.Errorf("REST received %+v", m)
	}
	// The REST dedupId window covers SQS sends.
	res := v.sendOK("in.fifo", msg{"body": "other", "groupId": "g1", "dedupId": "d1"})
	if res[0].MessageID != *sent.MessageId {
		t.Errorf("dedup across protocols: %s vs %s", res[0].MessageID, *sent.MessageId)
	}
	if r := v.ack(m.ReceiptHandle); r[0].Error != nil {
		t.Errorf("ack: %+v", r[0].Error)
	}
}
