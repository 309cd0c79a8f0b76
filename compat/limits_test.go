package compat

// The server's limits on slow clients (server.Config's timeouts) against a
// real SDK: waiting is not reading, so a long poll outlives them.

import (
	"testing"
	"time"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/minisqs/minisqs/server"
)

// A 20-second long poll stays open, and is answered by a send, well after
// the read timeouts have passed; only the manual clock ends its wait.
func TestLongPollOutlivesReadTimeouts(t *testing.T) {
	const timeout = 100 * time.Millisecond
	e := newJSEnv(t, server.Config{ReadHeaderTimeout: timeout, ReadTimeout: timeout, IdleTimeout: timeout})
	url := e.createQueue("patient", nil)
	type result struct {
		out *sqsv2.ReceiveMessageOutput
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := e.c.ReceiveMessage(e.ctx, &sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(url), WaitTimeSeconds: 20})
		done <- result{out, err}
	}()
	waitForWaiters(t, e.srv.Clock, 2) // the engine's sweeper and the poll
	// Real time, past every read timeout: a deadline left on the poll's
	// connection would have ended it by now.
	time.Sleep(5 * timeout)
	select {
	case r := <-done:
		t.Fatalf("long poll ended after %v of real time (error %v)", 5*timeout, r.err)
	default:
	}
	sent := e.send(url, "still there")
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		if len(r.out.Messages) != 1 || *r.out.Messages[0].MessageId != *sent.MessageId {
			t.Fatalf("long poll returned %+v, want the message sent", r.out.Messages)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("long poll did not return after a send")
	}
}
