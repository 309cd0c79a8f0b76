package compat

import (
	"fmt"
	"strings"
	"testing"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/server"
)

// The SMQ limits profile through both SQS protocols, with the numbers of
// Alibaba Cloud SMQ's queue overview: 16 messages a batch and a receive,
// long polls of up to 30 s, messages of up to 64 KB, names of up to 120
// letters, digits and hyphens starting with a letter or digit, retention
// and delay of up to 7 days. The answers keep SQS's codes and words.
func TestSMQLimitsProfile(t *testing.T) {
	runCases(t, []actionCase{{name: "limits", cfg: server.Config{Limits: engine.SMQLimits}, run: func(e *env) {
		long := strings.Repeat("x", 120)
		if _, err := e.c.CreateQueue(long, map[string]string{"MessageRetentionPeriod": "604800", "DelaySeconds": "604800", "ReceiveMessageWaitTimeSeconds": "30"}, nil); err != nil {
			e.t.Fatalf("120-character name and 7-day settings: %v", err)
		}
		rule := "Must start with a letter or digit. Can contain letters, digits, and hyphens (-). Up to 120 characters."
		for _, bad := range []string{long + "y", "under_score", "-q"} {
			_, err := e.c.CreateQueue(bad, nil, nil)
			wantMessage(e.t, "name "+bad[:min(len(bad), 12)], err, 400, "InvalidParameterValue", rule)
		}
		for attr, v := range map[string]string{"MessageRetentionPeriod": "604801", "DelaySeconds": "604801", "ReceiveMessageWaitTimeSeconds": "31", "MaximumMessageSize": "65537", "VisibilityTimeout": "0"} {
			_, err := e.c.CreateQueue("bad", map[string]string{attr: v}, nil)
			wantMessage(e.t, attr+"="+v, err, 400, "InvalidAttributeValue", "Invalid value for the parameter "+attr+".")
		}
		qurl := e.createQueue("plain", nil)

		batch := func(n int) []sendIn {
			var es []sendIn
			for i := range n {
				es = append(es, entry(fmt.Sprint(i), "m"))
			}
			return es
		}
		fits, over := strings.Repeat("a", 64<<10), strings.Repeat("a", 64<<10+1)
		_, okErr := e.c.SendMessage(qurl, sendIn{Body: fits})
		_, sizeErr := e.c.SendMessage(qurl, sendIn{Body: over})
		sent, _, err := e.c.SendMessageBatch(qurl, batch(16))
		if err != nil {
			e.t.Fatal(err)
		}
		_, _, tooMany := e.c.SendMessageBatch(qurl, batch(17))
		received, err := e.c.ReceiveMessage(qurl, receiveIn{Max: ptr(16), Wait: ptr(30)})
		if err != nil {
			e.t.Fatal(err)
		}
		_, recvErr := e.c.ReceiveMessage(qurl, receiveIn{Max: ptr(17)})
		_, waitErr := e.c.ReceiveMessage(qurl, receiveIn{Wait: ptr(31)})
		if okErr != nil || len(sent) != 16 || len(received) != 16 {
			e.t.Errorf("64 KB message %v, batch of 16 sent %d, receive of 16 got %d", okErr, len(sent), len(received))
		}
		wantMessage(e.t, "message over 64 KB", sizeErr, 400, "InvalidParameterValue", "One or more parameters are invalid. Reason: Message must be shorter than 65536 bytes.")
		wantMessage(e.t, "batch of 17", tooMany, 400, "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", "Maximum number of entries per request are 16. You have sent 17.")
		wantMessage(e.t, "receive of 17", recvErr, 400, "InvalidParameterValue", "Value 17 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 16, if provided.")
		wantMessage(e.t, "wait of 31 s", waitErr, 400, "InvalidParameterValue", "Value 31 for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 30, if provided.")
	}}})
}
