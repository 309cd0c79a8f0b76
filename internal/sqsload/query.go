package sqsload

import (
	"context"
	"net/http"
	"strconv"
	"time"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsv1 "github.com/aws/aws-sdk-go/aws"
	credv1 "github.com/aws/aws-sdk-go/aws/credentials"
	"github.com/aws/aws-sdk-go/aws/session"
	sqsv1 "github.com/aws/aws-sdk-go/service/sqs"
)

// QueryClient is an aws-sdk-go v1 SQS client for the server at endpoint on
// this machine, with test credentials in us-east-1. The SDK is pinned
// before v1.47, so it speaks the query protocol: the one protocol of
// servers that predate SQS's JSON protocol, such as goaws. Like
// LoopbackClient's, its transport is its own and keeps up to ten idle
// connections, and a call gives up after 30 s.
func QueryClient(endpoint string) (*sqsv1.SQS, error) {
	sess, err := session.NewSession(&awsv1.Config{
		Region:      awsv1.String("us-east-1"),
		Endpoint:    awsv1.String(endpoint),
		Credentials: credv1.NewStaticCredentials("test", "test", ""),
		HTTPClient:  &http.Client{Timeout: 30 * time.Second, Transport: awshttp.NewBuildableClient().GetTransport()},
	})
	if err != nil {
		return nil, err
	}
	return sqsv1.New(sess), nil
}

// QueryQueue is Queue for a query-protocol client: the same messages,
// batches and calls.
type QueryQueue struct {
	c       *sqsv1.SQS
	url     *string
	entries []*sqsv1.SendMessageBatchRequestEntry
}

// queryKind is kind in the v1 SDK's types.
var queryKind = map[string]*sqsv1.MessageAttributeValue{
	kindName: {DataType: awsv1.String("String"), StringValue: awsv1.String(kindValue)},
}

// NewQueryQueue creates the queue name on c's server.
func NewQueryQueue(ctx context.Context, c *sqsv1.SQS, name string) (*QueryQueue, error) {
	q, err := c.CreateQueueWithContext(ctx, &sqsv1.CreateQueueInput{QueueName: awsv1.String(name)})
	if err != nil {
		return nil, err
	}
	entries := make([]*sqsv1.SendMessageBatchRequestEntry, BatchSize)
	for i := range entries {
		entries[i] = &sqsv1.SendMessageBatchRequestEntry{
			Id:                awsv1.String(strconv.Itoa(i)),
			MessageBody:       awsv1.String(body),
			MessageAttributes: queryKind,
		}
	}
	return &QueryQueue{c: c, url: q.QueueUrl, entries: entries}, nil
}

// Send sends one batch of BatchSize messages with SendMessageBatch.
func (q *QueryQueue) Send(ctx context.Context) error {
	_, err := q.c.SendMessageBatchWithContext(ctx, &sqsv1.SendMessageBatchInput{QueueUrl: q.url, Entries: q.entries})
	return err
}

// SendOne sends one message with SendMessage.
func (q *QueryQueue) SendOne(ctx context.Context) error {
	_, err := q.c.SendMessageWithContext(ctx, &sqsv1.SendMessageInput{QueueUrl: q.url, MessageBody: awsv1.String(body), MessageAttributes: queryKind})
	return err
}

// ReceiveDelete receives up to BatchSize messages with one ReceiveMessage
// (a short poll, with their attributes) and deletes those it got with one
// DeleteMessageBatch. It returns how many it got.
func (q *QueryQueue) ReceiveDelete(ctx context.Context) (int, error) {
	r, err := q.c.ReceiveMessageWithContext(ctx, &sqsv1.ReceiveMessageInput{QueueUrl: q.url, MaxNumberOfMessages: awsv1.Int64(BatchSize), MessageAttributeNames: []*string{awsv1.String("All")}})
	if err != nil || len(r.Messages) == 0 {
		return 0, err
	}
	del := make([]*sqsv1.DeleteMessageBatchRequestEntry, len(r.Messages))
	for i, m := range r.Messages {
		del[i] = &sqsv1.DeleteMessageBatchRequestEntry{Id: awsv1.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle}
	}
	if _, err := q.c.DeleteMessageBatchWithContext(ctx, &sqsv1.DeleteMessageBatchInput{QueueUrl: q.url, Entries: del}); err != nil {
		return 0, err
	}
	return len(r.Messages), nil
}

// Drain calls ReceiveDelete until it has received and deleted n messages.
func (q *QueryQueue) Drain(ctx context.Context, n int) error { return drain(ctx, q.ReceiveDelete, n) }

// Cycle sends one batch, then receives and deletes its messages.
func (q *QueryQueue) Cycle(ctx context.Context) error { return cycle(ctx, q.Send, q.ReceiveDelete) }

// Delete deletes the queue.
func (q *QueryQueue) Delete(ctx context.Context) error {
	_, err := q.c.DeleteQueueWithContext(ctx, &sqsv1.DeleteQueueInput{QueueUrl: q.url})
	return err
}
