package minisqstest_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/minisqs/minisqs/minisqstest"
)

func TestRunTSendReceive(t *testing.T) {
	srv := minisqstest.RunT(t, minisqstest.WithQueues("orders", "events.fifo"))
	ctx := context.Background()
	c := srv.Client()
	url := srv.QueueURL("orders")
	if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("hello")}); err != nil {
		t.Fatal(err)
	}
	out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url})
	if err != nil || len(out.Messages) != 1 || *out.Messages[0].Body != "hello" {
		t.Fatalf("ReceiveMessage: %v %+v", err, out)
	}
	got, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("events.fifo")})
	if err != nil || *got.QueueUrl != srv.QueueURL("events.fifo") {
		t.Fatalf("GetQueueUrl: %v %v, want %s", err, got, srv.QueueURL("events.fifo"))
	}
}

// A long poll waits in process as it would on the wire, and a send from a
// client on the loopback port wakes it.
func TestRunTLongPollAcrossTransports(t *testing.T) {
	srv := minisqstest.RunT(t, minisqstest.WithQueues("q"))
	ctx := context.Background()
	url := srv.QueueURL("q")
	got := make(chan *sqs.ReceiveMessageOutput, 1)
	go func() {
		out, err := srv.Client().ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, WaitTimeSeconds: 20})
		if err != nil {
			t.Error(err)
		}
		got <- out
	}()
	overTCP := sqs.New(sqs.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL()),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		HTTPClient:   &http.Client{Timeout: 10 * time.Second},
	})
	time.Sleep(50 * time.Millisecond) // let the poll start; it answers either way
	if _, err := overTCP.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("wake")}); err != nil {
		t.Fatal(err)
	}
	select {
	case out := <-got:
		if out == nil || len(out.Messages) != 1 || *out.Messages[0].Body != "wake" {
			t.Fatalf("long poll got %+v", out)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the long poll did not answer after a send")
	}
}

func TestRunTRegionAndAccount(t *testing.T) {
	srv := minisqstest.RunT(t, minisqstest.WithRegion("eu-west-1"), minisqstest.WithAccount("123456789012"), minisqstest.WithQueues("q"))
	out, err := srv.Client().GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(srv.QueueURL("q")), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "arn:aws:sqs:eu-west-1:123456789012:q"; out.Attributes["QueueArn"] != want {
		t.Fatalf("QueueArn %s, want %s", out.Attributes["QueueArn"], want)
	}
}
