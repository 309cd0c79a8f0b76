package compat

import (
	"context"
	"testing"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	awsv1 "github.com/aws/aws-sdk-go/aws"
	sqsv1 "github.com/aws/aws-sdk-go/service/sqs"

	"github.com/minisqs/minisqs/server"
)

// TestBothProtocolsShareQueues sends with one protocol and receives with the
// other.
func TestBothProtocolsShareQueues(t *testing.T) {
	srv := startServer(t, server.Config{})
	ctx := context.Background()
	j, q := jsonClient(t, srv.URL()), queryClient(t, srv.URL())

	created, err := j.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("shared")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.SendMessage(&sqsv1.SendMessageInput{QueueUrl: created.QueueUrl, MessageBody: awsv1.String("from query")}); err != nil {
		t.Fatal(err)
	}
	got, err := j.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{QueueUrl: created.QueueUrl})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 1 || *got.Messages[0].Body != "from query" {
		t.Fatalf("received %+v", got.Messages)
	}
}
