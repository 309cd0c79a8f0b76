package minisqs_test

import (
	"context"
	"fmt"
	"log"

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
