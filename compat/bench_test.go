package compat

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// BenchmarkHTTPCycle drives the minisqs binary with aws-sdk-go-v2 through
// full cycles of SendMessageBatch, ReceiveMessage and DeleteMessageBatch, ten
// messages each, from 1, 4 and 16 clients at once, and reports the server
// process's CPU time per message (from /proc) as server-µs/msg, and the
// part of it spent in user space as server-user-µs/msg; the rest is the
// kernel's, mostly switching threads. The clients run in the benchmark's
// process, so their cost is not counted.
func BenchmarkHTTPCycle(b *testing.B) {
	for _, clients := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) { benchmarkHTTPCycle(b, clients) })
	}
}

func benchmarkHTTPCycle(b *testing.B, clients int) {
	p := startProcess(b)
	cycles := make([]func(), clients)
	for i := range cycles {
		cycles[i] = cycleOnNewQueue(b, processClient(b, p.URL), fmt.Sprintf("bench-%d", i))
	}
	run := func(n int) {
		var wg sync.WaitGroup
		for _, cycle := range cycles {
			wg.Go(func() {
				for range n {
					cycle()
				}
			})
		}
		wg.Wait()
	}
	run(20) // warm up connections and the server's heap
	startUser, startSys := p.cpuTime(b)
	b.ResetTimer()
	run(max(1, b.N/clients))
	b.StopTimer()
	user, sys := p.cpuTime(b)
	user, sys = user-startUser, sys-startSys
	msgs := float64(max(1, b.N/clients) * clients * cycleMessages)
	b.ReportMetric(float64((user+sys).Microseconds())/msgs, "server-µs/msg")
	b.ReportMetric(float64(user.Microseconds())/msgs, "server-user-µs/msg")
	b.ReportMetric(0, "ns/op")
}

const cycleMessages = 10

// cycleOnNewQueue creates a queue and returns a function that sends ten
// messages to it in one batch, receives them and deletes them in batches.
func cycleOnNewQueue(b *testing.B, c *sqsv2.Client, name string) func() {
	ctx := context.Background()
	q, err := c.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String(name)})
	if err != nil {
		b.Fatal(err)
	}
	entries := make([]types.SendMessageBatchRequestEntry, cycleMessages)
	for i := range entries {
		entries[i] = types.SendMessageBatchRequestEntry{
			Id:          awsv2.String(strconv.Itoa(i)),
			MessageBody: awsv2.String("a message body of a typical small size, about a hundred bytes long......................"),
			MessageAttributes: map[string]types.MessageAttributeValue{
				"kind": {DataType: awsv2.String("String"), StringValue: awsv2.String("order")},
			},
		}
	}
	return func() {
		if _, err := c.SendMessageBatch(ctx, &sqsv2.SendMessageBatchInput{QueueUrl: q.QueueUrl, Entries: entries}); err != nil {
			b.Error(err)
			return
		}
		for got := 0; got < len(entries); {
			r, err := c.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10, MessageAttributeNames: []string{"All"}})
			if err != nil {
				b.Error(err)
				return
			}
			del := make([]types.DeleteMessageBatchRequestEntry, len(r.Messages))
			for i, m := range r.Messages {
				del[i] = types.DeleteMessageBatchRequestEntry{Id: awsv2.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle}
			}
			if len(del) > 0 {
				if _, err := c.DeleteMessageBatch(ctx, &sqsv2.DeleteMessageBatchInput{QueueUrl: q.QueueUrl, Entries: del}); err != nil {
					b.Error(err)
					return
				}
			}
			got += len(r.Messages)
		}
	}
}
