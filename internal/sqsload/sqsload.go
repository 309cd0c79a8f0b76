// Package sqsload is the workload of minisqs's benchmarks: an aws-sdk-go-v2
// client for a server on this machine (or an aws-sdk-go v1 client, for the
// query protocol), messages sent one at a time or in batches of ten,
// received and deleted on one queue, and the recording of a server's
// answers that the benchmarks' floor server (internal/benchfloor) replays.
// BenchmarkHTTPCycle in compat and the bench command (scripts/bench) drive
// servers with it, so both do the same client work.
package sqsload

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// NewClient is an aws-sdk-go-v2 SQS client, which speaks the JSON
// protocol, for the server at endpoint, with test credentials in
// us-east-1. Its HTTP client gives up on a call after 30 s and sends
// requests through transport (nil is Go's default transport).
func NewClient(endpoint string, transport http.RoundTripper) *sqs.Client {
	return sqs.New(sqs.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		HTTPClient:   &http.Client{Timeout: 30 * time.Second, Transport: transport},
	})
}

// LoopbackClient is NewClient for a server in another process on this
// machine. Its transport reads each answer whole (see BufferedTransport),
// and, like the SDK's default client, each client has its own transport
// that keeps up to ten idle connections to the server; Go's shared default
// transport keeps two, which makes concurrent clients open a new
// connection for many calls.
func LoopbackClient(endpoint string) *sqs.Client {
	return NewClient(endpoint, BufferedTransport{awshttp.NewBuildableClient().GetTransport()})
}

// BufferedTransport reads each answer whole before handing it on.
// aws-sdk-go-v2 closes a request's body as soon as the answer's headers
// arrive (aws/aws-sdk-go-v2#2737); against a server as close as one on
// loopback, that can come before Go's transport has finished with the
// body, which then tears the connection down under the answer, and the SDK
// retries the call. A retried ReceiveMessage finds its messages already in
// flight, and a test or benchmark would wait out their visibility timeout.
type BufferedTransport struct{ Next http.RoundTripper }

// RoundTrip sends req through t.Next and reads the answer's body whole.
func (t BufferedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.Next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// BatchSize is the number of messages in each batch the workload sends,
// receives and deletes: SQS's most.
const BatchSize = 10

// BodySize is the length in bytes of each message's body.
const BodySize = 200

// body is every message's body, and kind its one attribute, a String;
// every server gets the same messages from either protocol's client.
var body = strings.Repeat("a message body of a typical small size. ", BodySize/40)

const kindName, kindValue = "kind", "order"

// Queue is one queue the workload drives, with the batch it sends.
type Queue struct {
	c       *sqs.Client
	url     *string
	entries []types.SendMessageBatchRequestEntry
}

// kind is the attribute of every message the workload sends.
var kind = map[string]types.MessageAttributeValue{
	kindName: {DataType: aws.String("String"), StringValue: aws.String(kindValue)},
}

// NewQueue creates the queue name on c's server.
func NewQueue(ctx context.Context, c *sqs.Client, name string) (*Queue, error) {
	q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
	if err != nil {
		return nil, err
	}
	// Every batch is the same, so a server's recorded answers to one (see
	// Record) fit every other: the SDK checks the MD5 of each body sent.
	entries := make([]types.SendMessageBatchRequestEntry, BatchSize)
	for i := range entries {
		entries[i] = types.SendMessageBatchRequestEntry{
			Id:                aws.String(strconv.Itoa(i)),
			MessageBody:       aws.String(body),
			MessageAttributes: kind,
		}
	}
	return &Queue{c: c, url: q.QueueUrl, entries: entries}, nil
}

// Send sends one batch of BatchSize messages with SendMessageBatch.
func (q *Queue) Send(ctx context.Context) error {
	_, err := q.c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: q.url, Entries: q.entries})
	return err
}

// SendOne sends one message with SendMessage.
func (q *Queue) SendOne(ctx context.Context) error {
	_, err := q.c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.url, MessageBody: aws.String(body), MessageAttributes: kind})
	return err
}

// Delete deletes the queue.
func (q *Queue) Delete(ctx context.Context) error {
	_, err := q.c.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: q.url})
	return err
}

// ReceiveDelete receives up to BatchSize messages with one ReceiveMessage
// (a short poll, with their attributes) and deletes those it got with one
// DeleteMessageBatch. It returns how many it got.
func (q *Queue) ReceiveDelete(ctx context.Context) (int, error) {
	r, err := q.c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.url, MaxNumberOfMessages: BatchSize, MessageAttributeNames: []string{"All"}})
	if err != nil || len(r.Messages) == 0 {
		return 0, err
	}
	del := make([]types.DeleteMessageBatchRequestEntry, len(r.Messages))
	for i, m := range r.Messages {
		del[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle}
	}
	if _, err := q.c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: q.url, Entries: del}); err != nil {
		return 0, err
	}
	return len(r.Messages), nil
}

// maxEmptyReceives bounds Drain's loop: a server that keeps answering
// with no messages while some are owed has lost them.
const maxEmptyReceives = 100

// Drain calls ReceiveDelete until it has received and deleted n messages.
func (q *Queue) Drain(ctx context.Context, n int) error { return drain(ctx, q.ReceiveDelete, n) }

// Cycle sends one batch, then receives and deletes its messages.
func (q *Queue) Cycle(ctx context.Context) error { return cycle(ctx, q.Send, q.ReceiveDelete) }

// drain calls receiveDelete, a queue's ReceiveDelete, until it has
// received and deleted n messages.
func drain(ctx context.Context, receiveDelete func(context.Context) (int, error), n int) error {
	for got, empty := 0, 0; got < n; {
		k, err := receiveDelete(ctx)
		if err != nil {
			return err
		}
		got += k
		if k > 0 {
			empty = 0
			continue
		}
		if empty++; empty == maxEmptyReceives {
			return fmt.Errorf("sqsload: %d receives in a row found no message; %d of %d are missing", empty, n-got, n)
		}
	}
	return nil
}

// cycle calls send, a queue's Send, then drains its batch.
func cycle(ctx context.Context, send func(context.Context) error, receiveDelete func(context.Context) (int, error)) error {
	if err := send(ctx); err != nil {
		return err
	}
	return drain(ctx, receiveDelete, BatchSize)
}

// Record runs one cycle on a new queue called name at endpoint and saves
// each answer's body in dir, in a file named after its action (e.g.
// SendMessageBatch). The floor server answers with these, so its
// ReceiveMessage must hold the whole batch.
func Record(ctx context.Context, endpoint, dir, name string) error {
	c := NewClient(endpoint, recordingTransport{dir, BufferedTransport{http.DefaultTransport}})
	q, err := NewQueue(ctx, c, name)
	if err != nil {
		return err
	}
	if err := q.Send(ctx); err != nil {
		return err
	}
	n, err := q.ReceiveDelete(ctx)
	if err == nil && n != BatchSize {
		err = fmt.Errorf("sqsload: recorded a ReceiveMessage of %d messages, want %d", n, BatchSize)
	}
	return err
}

// recordingTransport saves each answer's body under its action's name.
type recordingTransport struct {
	dir  string
	next http.RoundTripper
}

func (t recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	action := strings.TrimPrefix(req.Header.Get("X-Amz-Target"), "AmazonSQS.")
	if err := os.WriteFile(filepath.Join(t.dir, action), body, 0o644); err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}
