package minisqs_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/testcontainers/testcontainers-go"

	minisqs "github.com/minisqs/minisqs/testcontainers"
)

// A test starts minisqs with its queues, then sends and receives through the
// port Docker mapped on the host.
func ExampleRun() {
	ctx := context.Background()
	ctr, err := minisqs.Run(ctx, minisqs.DefaultImage,
		minisqs.WithQueues("orders"),
		minisqs.WithFIFOQueue("events.fifo"),
		minisqs.WithDeadLetterQueue("payments", "payments-dlq", 3),
	)
	defer func() {
		if err := testcontainers.TerminateContainer(ctr); err != nil {
			log.Printf("terminate: %v", err)
		}
	}()
	if err != nil {
		log.Printf("run: %v", err)
		return
	}

	client, err := ctr.SQSClient(ctx)
	if err != nil {
		log.Printf("client: %v", err)
		return
	}
	url, err := ctr.QueueURL(ctx, "orders")
	if err != nil {
		log.Printf("queue URL: %v", err)
		return
	}
	if _, err := client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("hello")}); err != nil {
		log.Printf("send: %v", err)
		return
	}
	out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), WaitTimeSeconds: 1})
	if err != nil {
		log.Printf("receive: %v", err)
		return
	}
	fmt.Println(aws.ToString(out.Messages[0].Body))
}

// A test drives the server's clock and fault rules instead of sleeping or
// waiting for AWS to have a bad day.
func ExampleContainer_Advance() {
	ctx := context.Background()
	ctr, err := minisqs.Run(ctx, minisqs.DefaultImage, minisqs.WithQueues("orders"))
	defer func() {
		if err := testcontainers.TerminateContainer(ctr); err != nil {
			log.Printf("terminate: %v", err)
		}
	}()
	if err != nil {
		log.Printf("run: %v", err)
		return
	}

	// A message received with a 30 s visibility timeout is visible again
	// as soon as Advance returns.
	if _, err := ctr.Advance(ctx, 31*time.Second); err != nil {
		log.Printf("advance: %v", err)
		return
	}

	// The next two SendMessage calls to orders fail as AWS fails them when
	// it is overloaded; the SDK's retries get past them.
	if _, err := ctr.AddFault(ctx, minisqs.Fault{Action: "SendMessage", Queue: "orders", Error: "ServiceUnavailable", Count: 2}); err != nil {
		log.Printf("fault: %v", err)
		return
	}

	// Wait for a consumer to empty the queue.
	counts, err := ctr.Wait(ctx, minisqs.WaitCondition{Queue: "orders", Empty: true, Timeout: 10 * time.Second})
	var timeout *minisqs.WaitTimeoutError
	switch {
	case errors.As(err, &timeout):
		log.Printf("still %d visible, %d in flight", timeout.Counts.Visible, timeout.Counts.InFlight)
	case err != nil:
		log.Printf("wait: %v", err)
	default:
		fmt.Println(counts.Visible, counts.InFlight)
	}
}
