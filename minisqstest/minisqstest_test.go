package minisqstest_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/minisqs/minisqs/engine"
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

// The issue's own example: a 30-second visibility timeout ends with
// Advance, and the test takes milliseconds.
func TestAdvanceEndsVisibilityTimeout(t *testing.T) {
	for name, opts := range map[string][]minisqstest.Option{
		"wall clock":   {minisqstest.WithQueues("q")},
		"manual clock": {minisqstest.WithQueues("q"), minisqstest.WithManualClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))},
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			srv := minisqstest.RunT(t, opts...)
			ctx := context.Background()
			c, url := srv.Client(), srv.QueueURL("q")
			if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("m")}); err != nil {
				t.Fatal(err)
			}
			recv := func() int {
				out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, VisibilityTimeout: 30})
				if err != nil {
					t.Fatal(err)
				}
				return len(out.Messages)
			}
			if recv() != 1 {
				t.Fatal("the message was not received")
			}
			srv.Advance(29 * time.Second)
			if recv() != 0 {
				t.Fatal("received again before its visibility timeout ended")
			}
			srv.Advance(time.Second)
			if recv() != 1 {
				t.Fatalf("not received again once its visibility timeout ended\n%s", srv.Dump())
			}
			t.Logf("took %v", time.Since(start))
		})
	}
}

func TestControls(t *testing.T) {
	srv := minisqstest.RunT(t, minisqstest.WithQueues("q", "f.fifo"))
	ctx := context.Background()
	c, url := srv.Client(), srv.QueueURL("q")

	// A fault the SDK retries: two ServiceUnavailable answers, then success.
	id := srv.AddFault(minisqstest.Fault{Action: "SendMessage", Error: "ServiceUnavailable", Count: aws.Int(2)})
	if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("hello")}); err != nil {
		t.Fatalf("SendMessage after two faults: %v", err)
	}
	if fs := srv.Faults(); len(fs) != 1 || fs[0].ID != id || fs[0].Hits != 2 {
		t.Fatalf("Faults() = %+v, want rule %s with 2 hits", fs, id)
	}
	srv.ClearFaults()

	// Introspection without receiving, and a wait woken by the queue.
	if ms := srv.Messages("q"); len(ms) != 1 || ms[0].Body != "hello" || ms[0].Status != engine.MessageVisible {
		t.Fatalf("Messages(q) = %+v", ms)
	}
	one := 1
	if counts := srv.Wait("q", engine.WaitCondition{Visible: &one}, time.Second); counts.Visible != 1 {
		t.Fatalf("Wait counts %+v", counts)
	}
	if !strings.Contains(srv.Dump(), `body="hello"`) {
		t.Errorf("Dump lacks the message:\n%s", srv.Dump())
	}

	// A state saved, the server reset, the state loaded back.
	st := srv.State()
	srv.Reset()
	if _, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("q")}); err == nil {
		t.Fatal("the queue outlived Reset")
	}
	srv.Load(st)
	if ms := srv.Messages("q"); len(ms) != 1 || ms[0].Body != "hello" {
		t.Fatalf("after Load: %+v", ms)
	}
	srv.ResetQueues("q")
	if ms := srv.Messages("q"); len(ms) != 0 {
		t.Fatalf("after ResetQueues: %+v", ms)
	}

	// A fixture loaded at start.
	fixture := minisqstest.RunT(t, minisqstest.WithState(st))
	if ms := fixture.Messages("q"); len(ms) != 1 {
		t.Fatalf("WithState: %+v", ms)
	}
}

// A dropped connection reaches the SDK over the in-process transport as a
// connection error, as it would over TCP.
func TestDropFaultInProcess(t *testing.T) {
	srv := minisqstest.RunT(t, minisqstest.WithQueues("q"))
	srv.AddFault(minisqstest.Fault{Action: "SendMessage", Drop: true})
	c := sqs.New(srv.Client().Options(), func(o *sqs.Options) { o.RetryMaxAttempts = 1 })
	url := srv.QueueURL("q")
	_, err := c.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("m")})
	var send *smithyhttp.RequestSendError
	if !errors.As(err, &send) {
		t.Fatalf("SendMessage with a drop fault: %v, want a RequestSendError", err)
	}
	if ms := srv.Messages("q"); len(ms) != 0 {
		t.Fatalf("a dropped send stored %+v", ms)
	}
}

// BenchmarkRunT is the cost of an empty RunT start and stop.
func BenchmarkRunT(b *testing.B) {
	for b.Loop() {
		srv, err := minisqstest.Run()
		if err != nil {
			b.Fatal(err)
		}
		srv.Close()
	}
}

// BenchmarkSendMessage compares a SendMessage round trip over the
// in-process transport with one over loopback TCP.
func BenchmarkSendMessage(b *testing.B) {
	srv := minisqstest.RunT(b, minisqstest.WithQueues("q"))
	url := srv.QueueURL("q")
	clients := map[string]*sqs.Client{
		"in-process": srv.Client(),
		"loopback": sqs.New(srv.Client().Options(), func(o *sqs.Options) {
			o.HTTPClient = &http.Client{Timeout: 10 * time.Second}
		}),
	}
	for _, name := range []string{"in-process", "loopback"} {
		b.Run(name, func(b *testing.B) {
			c := clients[name]
			for b.Loop() {
				if _, err := c.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("m")}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
