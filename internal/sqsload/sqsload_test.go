package sqsload

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/minisqs/minisqs/minisqstest"
)

func depth(t *testing.T, c *sqs.Client, q *Queue) string {
	t.Helper()
	a, err := c.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: q.url, AttributeNames: []types.QueueAttributeName{"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"}})
	if err != nil {
		t.Fatal(err)
	}
	return a.Attributes["ApproximateNumberOfMessages"] + "+" + a.Attributes["ApproximateNumberOfMessagesNotVisible"]
}

func TestSendDrainCycle(t *testing.T) {
	ctx := context.Background()
	c := LoopbackClient(minisqstest.RunT(t).URL())
	q, err := NewQueue(ctx, c, "load")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := q.Send(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := depth(t, c, q); got != "30+0" {
		t.Fatalf("after 3 sends, visible+in flight = %s, want 30+0", got)
	}
	if err := q.Drain(ctx, 3*BatchSize); err != nil {
		t.Fatal(err)
	}
	if err := q.Cycle(ctx); err != nil {
		t.Fatal(err)
	}
	if got := depth(t, c, q); got != "0+0" {
		t.Fatalf("after Drain and Cycle, visible+in flight = %s, want 0+0: every message deleted", got)
	}
	// With nothing owed to it, Drain gives up after a bounded number of
	// receives.
	if err := q.Drain(ctx, 1); err == nil || !strings.Contains(err.Error(), "1 of 1 are missing") {
		t.Errorf("Drain of an empty queue = %v, want an error naming the missing message", err)
	}
}

func TestBatchBodies(t *testing.T) {
	q, err := NewQueue(context.Background(), LoopbackClient(minisqstest.RunT(t).URL()), "bodies")
	if err != nil {
		t.Fatal(err)
	}
	if len(q.entries) != BatchSize {
		t.Fatalf("batch of %d, want %d", len(q.entries), BatchSize)
	}
	for _, e := range q.entries {
		if n := len(aws.ToString(e.MessageBody)); n != BodySize {
			t.Errorf("entry %s: body of %d bytes, want %d", aws.ToString(e.Id), n, BodySize)
		}
	}
}

func TestRecord(t *testing.T) {
	dir := t.TempDir()
	if err := Record(context.Background(), minisqstest.RunT(t).URL(), dir, "recorded"); err != nil {
		t.Fatal(err)
	}
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Name())
	}
	want := []string{"CreateQueue", "DeleteMessageBatch", "ReceiveMessage", "SendMessageBatch"}
	if !slices.Equal(names, want) {
		t.Fatalf("recorded %v, want %v", names, want)
	}
	data, err := os.ReadFile(filepath.Join(dir, "ReceiveMessage"))
	if err != nil {
		t.Fatal(err)
	}
	var recv struct {
		Messages []struct{ Body, ReceiptHandle string }
	}
	if err := json.Unmarshal(data, &recv); err != nil {
		t.Fatalf("recorded ReceiveMessage %q: %v", data, err)
	}
	if len(recv.Messages) != BatchSize || len(recv.Messages[0].Body) != BodySize || recv.Messages[0].ReceiptHandle == "" {
		t.Errorf("recorded ReceiveMessage %s, want %d messages of %d bytes with receipt handles", data, BatchSize, BodySize)
	}
}

// TestQueryQueue drives a queue with the query-protocol client and checks
// the messages' count with the JSON one: every call reached the queue.
func TestQueryQueue(t *testing.T) {
	ctx := context.Background()
	url := minisqstest.RunT(t).URL()
	c, err := QueryClient(url)
	if err != nil {
		t.Fatal(err)
	}
	q, err := NewQueryQueue(ctx, c, "query")
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Send(ctx); err != nil {
		t.Fatal(err)
	}
	if err := q.SendOne(ctx); err != nil {
		t.Fatal(err)
	}
	jc := LoopbackClient(url)
	jq := &Queue{url: q.url}
	if got := depth(t, jc, jq); got != "11+0" {
		t.Fatalf("after a batch and one message, visible+in flight = %s, want 11+0", got)
	}
	if err := q.Drain(ctx, BatchSize+1); err != nil {
		t.Fatal(err)
	}
	if err := q.Cycle(ctx); err != nil {
		t.Fatal(err)
	}
	if got := depth(t, jc, jq); got != "0+0" {
		t.Fatalf("after Drain and Cycle, visible+in flight = %s, want 0+0", got)
	}
	if err := q.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := jc.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("query")}); err == nil {
		t.Error("GetQueueUrl after Delete: no error")
	}
}

// TestSendOneDelete checks the JSON client's single send and its Delete.
func TestSendOneDelete(t *testing.T) {
	ctx := context.Background()
	c := LoopbackClient(minisqstest.RunT(t).URL())
	q, err := NewQueue(ctx, c, "one")
	if err != nil {
		t.Fatal(err)
	}
	if err := q.SendOne(ctx); err != nil {
		t.Fatal(err)
	}
	if got := depth(t, c, q); got != "1+0" {
		t.Fatalf("after SendOne, visible+in flight = %s, want 1+0", got)
	}
	if err := q.Drain(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := q.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("one")}); err == nil {
		t.Error("GetQueueUrl after Delete: no error")
	}
}
