package compat

import (
	"fmt"
	"strings"
	"testing"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	awsv1 "github.com/aws/aws-sdk-go/aws"
	sqsv1 "github.com/aws/aws-sdk-go/service/sqs"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/server"
)

// The SMQ limits profile through both SQS protocols, with the numbers of
// Alibaba Cloud SMQ's queue overview: 16 messages a batch and a receive,
// long polls of up to 30 s, messages of up to 64 KB, names of up to 120
// letters, digits and hyphens starting with a letter or digit, retention
// and delay of up to 7 days. The answers keep SQS's codes and words.
func TestSMQLimitsProfile(t *testing.T) {
	e := newFDEnv(t, server.Config{Limits: engine.SMQLimits})
	for _, p := range fdProtocols {
		create := func(name string, attrs map[string]string) (string, error) {
			if p == "json" {
				out, err := e.js.CreateQueue(e.ctx, &sqsv2.CreateQueueInput{QueueName: jStr(name), Attributes: attrs})
				if err != nil {
					return "", err
				}
				return awsv2.ToString(out.QueueUrl), nil
			}
			out, err := e.q.CreateQueue(&sqsv1.CreateQueueInput{QueueName: qStr(name), Attributes: awsv1.StringMap(attrs)})
			if err != nil {
				return "", err
			}
			return awsv1.StringValue(out.QueueUrl), nil
		}
		long := p + strings.Repeat("x", 120-len(p))
		if _, err := create(long, map[string]string{"MessageRetentionPeriod": "604800", "DelaySeconds": "604800", "ReceiveMessageWaitTimeSeconds": "30"}); err != nil {
			t.Fatalf("%s: 120-character name and 7-day settings: %v", p, err)
		}
		rule := "Must start with a letter or digit. Can contain letters, digits, and hyphens (-). Up to 120 characters."
		for _, bad := range []string{long + "y", "under_score", "-" + p} {
			_, err := create(bad, nil)
			wantMessage(t, p+" name "+bad[:min(len(bad), 12)], err, 400, "InvalidParameterValue", rule)
		}
		for attr, v := range map[string]string{"MessageRetentionPeriod": "604801", "DelaySeconds": "604801", "ReceiveMessageWaitTimeSeconds": "31", "MaximumMessageSize": "65537", "VisibilityTimeout": "0"} {
			_, err := create(p+"-bad", map[string]string{attr: v})
			wantMessage(t, p+" "+attr+"="+v, err, 400, "InvalidAttributeValue", "Invalid value for the parameter "+attr+".")
		}
		// The messages below go to a queue without a delay.
		qurl, err := create(p+"-plain", nil)
		if err != nil {
			t.Fatal(err)
		}

		var sizeErr, tooMany, okErr, recvErr, waitErr error
		var sent, received int
		fits, over := strings.Repeat("a", 64<<10), strings.Repeat("a", 64<<10+1)
		if p == "json" {
			_, okErr = e.js.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: jStr(qurl), MessageBody: jStr(fits)})
			_, sizeErr = e.js.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: jStr(qurl), MessageBody: jStr(over)})
			batch := func(n int) []types.SendMessageBatchRequestEntry {
				var es []types.SendMessageBatchRequestEntry
				for i := range n {
					es = append(es, types.SendMessageBatchRequestEntry{Id: jStr(fmt.Sprint(i)), MessageBody: jStr("m")})
				}
				return es
			}
			out, err := e.js.SendMessageBatch(e.ctx, &sqsv2.SendMessageBatchInput{QueueUrl: jStr(qurl), Entries: batch(16)})
			if err != nil {
				t.Fatal(err)
			}
			sent = len(out.Successful)
			_, tooMany = e.js.SendMessageBatch(e.ctx, &sqsv2.SendMessageBatchInput{QueueUrl: jStr(qurl), Entries: batch(17)})
			r, err := e.js.ReceiveMessage(e.ctx, &sqsv2.ReceiveMessageInput{QueueUrl: jStr(qurl), MaxNumberOfMessages: 16, WaitTimeSeconds: 30})
			if err != nil {
				t.Fatal(err)
			}
			received = len(r.Messages)
			_, recvErr = e.js.ReceiveMessage(e.ctx, &sqsv2.ReceiveMessageInput{QueueUrl: jStr(qurl), MaxNumberOfMessages: 17})
			_, waitErr = e.js.ReceiveMessage(e.ctx, &sqsv2.ReceiveMessageInput{QueueUrl: jStr(qurl), WaitTimeSeconds: 31})
		} else {
			_, okErr = e.q.SendMessage(&sqsv1.SendMessageInput{QueueUrl: qStr(qurl), MessageBody: qStr(fits)})
			_, sizeErr = e.q.SendMessage(&sqsv1.SendMessageInput{QueueUrl: qStr(qurl), MessageBody: qStr(over)})
			batch := func(n int) []*sqsv1.SendMessageBatchRequestEntry {
				var es []*sqsv1.SendMessageBatchRequestEntry
				for i := range n {
					es = append(es, &sqsv1.SendMessageBatchRequestEntry{Id: qStr(fmt.Sprint(i)), MessageBody: qStr("m")})
				}
				return es
			}
			out, err := e.q.SendMessageBatch(&sqsv1.SendMessageBatchInput{QueueUrl: qStr(qurl), Entries: batch(16)})
			if err != nil {
				t.Fatal(err)
			}
			sent = len(out.Successful)
			_, tooMany = e.q.SendMessageBatch(&sqsv1.SendMessageBatchInput{QueueUrl: qStr(qurl), Entries: batch(17)})
			r, err := e.q.ReceiveMessage(&sqsv1.ReceiveMessageInput{QueueUrl: qStr(qurl), MaxNumberOfMessages: awsv1.Int64(16), WaitTimeSeconds: awsv1.Int64(30)})
			if err != nil {
				t.Fatal(err)
			}
			received = len(r.Messages)
			_, recvErr = e.q.ReceiveMessage(&sqsv1.ReceiveMessageInput{QueueUrl: qStr(qurl), MaxNumberOfMessages: awsv1.Int64(17)})
			_, waitErr = e.q.ReceiveMessage(&sqsv1.ReceiveMessageInput{QueueUrl: qStr(qurl), WaitTimeSeconds: awsv1.Int64(31)})
		}
		if okErr != nil || sent != 16 || received != 16 {
			t.Errorf("%s: 64 KB message %v, batch of 16 sent %d, receive of 16 got %d", p, okErr, sent, received)
		}
		wantMessage(t, p+" message over 64 KB", sizeErr, 400, "InvalidParameterValue", "One or more parameters are invalid. Reason: Message must be shorter than 65536 bytes.")
		wantMessage(t, p+" batch of 17", tooMany, 400, "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", "Maximum number of entries per request are 16. You have sent 17.")
		wantMessage(t, p+" receive of 17", recvErr, 400, "InvalidParameterValue", "Value 17 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 16, if provided.")
		wantMessage(t, p+" wait of 31 s", waitErr, 400, "InvalidParameterValue", "Value 31 for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 30, if provided.")
	}
}
