package compat

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// TestPersistenceAcrossRestarts stops the binary cleanly, and kills it with
// SIGKILL under --fsync always, and checks that queues, attributes, tags and
// messages come back, with in-flight messages still in flight and their
// receipt handles still valid.
func TestPersistenceAcrossRestarts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fsync string
		crash bool
	}{
		{"clean stop", "everysec", false},
		{"kill -9", "always", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			db := filepath.Join(t.TempDir(), "minisqs.db")
			args := []string{"--db", db, "--fsync", tc.fsync}
			p := startProcess(t, args...)
			c := processClient(t, p.URL)

			if _, err := c.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("orders-dlq")}); err != nil {
				t.Fatal(err)
			}
			q, err := c.CreateQueue(ctx, &sqsv2.CreateQueueInput{
				QueueName: awsv2.String("orders"),
				Attributes: map[string]string{
					"VisibilityTimeout": "600",
					"RedrivePolicy":     `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:orders-dlq","maxReceiveCount":"3"}`,
				},
				Tags: map[string]string{"team": "billing"},
			})
			if err != nil {
				t.Fatal(err)
			}
			attrs := map[string]types.MessageAttributeValue{
				"kind": {DataType: awsv2.String("String"), StringValue: awsv2.String("invoice")},
				"blob": {DataType: awsv2.String("Binary"), BinaryValue: []byte{0, 1, 2, 255}},
			}
			for _, body := range []string{"first", "second"} {
				if _, err := c.SendMessage(ctx, &sqsv2.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: awsv2.String(body), MessageAttributes: attrs}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := c.SendMessage(ctx, &sqsv2.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: awsv2.String("later"), DelaySeconds: 900}); err != nil {
				t.Fatal(err)
			}
			leased, err := c.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{QueueUrl: q.QueueUrl})
			if err != nil || len(leased.Messages) != 1 || *leased.Messages[0].Body != "first" {
				t.Fatalf("receive before restart: %v %+v", err, leased)
			}

			if tc.crash {
				p.kill9(t)
			} else {
				p.stop(t, os.Interrupt)
			}
			p = startProcess(t, args...)
			c = processClient(t, p.URL)

			got, err := c.GetQueueAttributes(ctx, &sqsv2.GetQueueAttributesInput{QueueUrl: q.QueueUrl, AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll}})
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range map[string]string{
				"VisibilityTimeout":                     "600",
				"RedrivePolicy":                         `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:orders-dlq","maxReceiveCount":3}`,
				"ApproximateNumberOfMessages":           "1",
				"ApproximateNumberOfMessagesNotVisible": "1",
				"ApproximateNumberOfMessagesDelayed":    "1",
			} {
				if got.Attributes[name] != want {
					t.Errorf("%s = %q after restart, want %q", name, got.Attributes[name], want)
				}
			}
			tags, err := c.ListQueueTags(ctx, &sqsv2.ListQueueTagsInput{QueueUrl: q.QueueUrl})
			if err != nil || tags.Tags["team"] != "billing" {
				t.Errorf("tags after restart: %v %v", tags, err)
			}

			// The visible message comes back whole; the in-flight one stays hidden.
			r, err := c.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10, MessageAttributeNames: []string{"All"}})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Messages) != 1 || *r.Messages[0].Body != "second" {
				t.Fatalf("receive after restart: %+v", r.Messages)
			}
			m := r.Messages[0]
			if v := m.MessageAttributes["kind"]; v.StringValue == nil || *v.StringValue != "invoice" {
				t.Errorf("kind attribute after restart: %+v", v)
			}
			if v := m.MessageAttributes["blob"]; string(v.BinaryValue) != "\x00\x01\x02\xff" {
				t.Errorf("blob attribute after restart: %+v", v)
			}

			// The lease taken before the restart still holds, and its
			// handle still deletes the message.
			if _, err := c.DeleteMessage(ctx, &sqsv2.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: leased.Messages[0].ReceiptHandle}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.DeleteMessage(ctx, &sqsv2.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatal(err)
			}
			after, err := c.GetQueueAttributes(ctx, &sqsv2.GetQueueAttributesInput{QueueUrl: q.QueueUrl, AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll}})
			if err != nil {
				t.Fatal(err)
			}
			if after.Attributes["ApproximateNumberOfMessages"] != "0" || after.Attributes["ApproximateNumberOfMessagesNotVisible"] != "0" || after.Attributes["ApproximateNumberOfMessagesDelayed"] != "1" {
				t.Errorf("counts after deletes: %v", after.Attributes)
			}
			p.stop(t, syscall.SIGTERM)
		})
	}
}

// TestSecondProcessOnOneStore starts a second binary on a --db file the
// first holds: it must exit at once, naming the file and the holder, and
// leave the first serving.
func TestSecondProcessOnOneStore(t *testing.T) {
	db := filepath.Join(t.TempDir(), "minisqs.db")
	first := startProcess(t, "--db", db)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	second := exec.CommandContext(ctx, minisqsBinary(t), "--addr", "127.0.0.1:"+strconv.Itoa(freePort(t)), "--db", db)
	out, err := second.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("a second minisqs on %s was still running after 10s:\n%s", db, out)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("second minisqs: %v, want a non-zero exit\n%s", err, out)
	}
	holder := "process " + strconv.Itoa(first.Pid())
	if !strings.Contains(string(out), db) || !strings.Contains(string(out), holder) {
		t.Errorf("second minisqs said %q, want the file %s and %s", out, db, holder)
	}

	c := processClient(t, first.URL)
	if _, err := c.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("still-serving")}); err != nil {
		t.Fatalf("the first minisqs after the second was refused: %v", err)
	}
	first.stop(t, os.Interrupt)
	c = processClient(t, startProcess(t, "--db", db).URL)
	if _, err := c.GetQueueUrl(ctx, &sqsv2.GetQueueUrlInput{QueueName: awsv2.String("still-serving")}); err != nil {
		t.Fatalf("a minisqs started after the first stopped: %v", err)
	}
}
