package compat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	awsv1 "github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/awserr"
	"github.com/aws/aws-sdk-go/aws/client"
	"github.com/aws/aws-sdk-go/aws/request"
	sqsv1 "github.com/aws/aws-sdk-go/service/sqs"
	"github.com/aws/smithy-go"

	"github.com/minisqs/minisqs/internal/testenv"
)

// mountTmpfs mounts a tmpfs of the given size on a new directory, for the
// length of the test. It needs root.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput()
	if err != nil {
		testenv.Missing(t, "cannot mount a tmpfs (needs root): %v %s", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	return dir
}

// fillDisk writes a file in dir until the file system has no room left.
func fillDisk(t *testing.T, dir string) (filler string) {
	t.Helper()
	filler = filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, chunk := range []int{64 << 10, 512, 1} {
		buf := make([]byte, chunk)
		for {
			if _, err := f.Write(buf); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("filling the disk: %v", err)
				}
				break
			}
		}
	}
	return filler
}

// A full disk under a --db file: every change the server answers as done
// is still there after space comes back and the server restarts, and every
// change it could not store is answered InternalError (500) in the
// request's own protocol, and did not happen.
func TestDiskFull(t *testing.T) {
	dir := mountTmpfs(t, "4m")
	db := filepath.Join(dir, "minisqs.db")
	p := startProcess(t, "--db", db, "--fsync", "always")
	ctx := context.Background()
	js := processClient(t, p.URL)
	q, err := js.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("q"), Attributes: map[string]string{"VisibilityTimeout": "600"}})
	if err != nil {
		t.Fatal(err)
	}
	const n = 60
	for i := range n / 10 {
		var entries []sqstypes.SendMessageBatchRequestEntry
		for j := range 10 {
			entries = append(entries, sqstypes.SendMessageBatchRequestEntry{Id: awsv2.String(strconv.Itoa(j)), MessageBody: awsv2.String(fmt.Sprintf("message %d", i*10+j))})
		}
		if out, err := js.SendMessageBatch(ctx, &sqsv2.SendMessageBatchInput{QueueUrl: q.QueueUrl, Entries: entries}); err != nil || len(out.Failed) > 0 {
			t.Fatalf("SendMessageBatch: %v %v", err, out)
		}
	}
	var handles []string
	for len(handles) < n {
		out, err := js.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10})
		if err != nil || len(out.Messages) == 0 {
			t.Fatalf("ReceiveMessage: %v (have %d of %d)", err, len(handles), n)
		}
		for _, m := range out.Messages {
			handles = append(handles, *m.ReceiptHandle)
		}
	}

	filler := fillDisk(t, dir)
	noRetryJSON := sqsv2.New(js.Options(), func(o *sqsv2.Options) { o.RetryMaxAttempts = 1 })
	query := queryClient(t, p.URL)
	// Delete every message, in turn through each protocol. The first few
	// may fit in the room left in the file's last page; after that, none
	// can be stored.
	deleted := map[string]bool{}
	failed := map[string]int{}
	for i, h := range handles {
		var proto string
		var err error
		switch i % 3 {
		case 0:
			proto = "json"
			_, err = noRetryJSON.DeleteMessage(ctx, &sqsv2.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: awsv2.String(h)})
			if err != nil {
				wantJSONInternalError(t, err)
			}
		case 1:
			proto = "query"
			_, err = query.DeleteMessageWithContext(ctx, &sqsv1.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: awsv1.String(h)}, noRetryV1)
			if err != nil {
				wantQueryInternalError(t, err)
			}
		case 2:
			proto = "rest"
			err = restAcknowledge(t, p.URL, h)
		}
		if err == nil {
			deleted[h] = true
		} else {
			failed[proto]++
		}
	}
	for _, proto := range []string{"json", "query", "rest"} {
		if failed[proto] == 0 {
			t.Fatalf("no %s delete failed on a full disk (failed: %v): the test did not fill it", proto, failed)
		}
	}
	if _, err := noRetryJSON.SendMessage(ctx, &sqsv2.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: awsv2.String("no room")}); err == nil {
		t.Fatal("SendMessage answered success on a full disk")
	} else {
		wantJSONInternalError(t, err)
	}
	t.Logf("full disk: %d of %d deletes answered as done, failures by protocol %v", len(deleted), n, failed)

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	p.kill9(t)
	p = startProcess(t, "--db", db, "--fsync", "always")
	js = processClient(t, p.URL)
	attrs, err := js.GetQueueAttributes(ctx, &sqsv2.GetQueueAttributesInput{QueueUrl: q.QueueUrl, AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll}})
	if err != nil {
		t.Fatal(err)
	}
	want := strconv.Itoa(n - len(deleted))
	if got := attrs.Attributes["ApproximateNumberOfMessagesNotVisible"]; got != want {
		t.Errorf("after the restart %s messages in flight, want %s: acknowledged deletes came back or failed ones were lost", got, want)
	}
	if got := attrs.Attributes["ApproximateNumberOfMessages"]; got != "0" {
		t.Errorf("after the restart %s messages visible, want 0: a lease was lost", got)
	}
	// Each delete that failed can be made now, with the same handle.
	for _, h := range handles {
		if deleted[h] {
			continue
		}
		if _, err := js.DeleteMessage(ctx, &sqsv2.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: awsv2.String(h)}); err != nil {
			t.Fatalf("DeleteMessage after the restart: %v", err)
		}
	}
}

// noRetryV1 makes an aws-sdk-go v1 call once, without retries.
func noRetryV1(r *request.Request) { r.Retryer = client.NoOpRetryer{} }

func wantJSONInternalError(t *testing.T, err error) {
	t.Helper()
	var api smithy.APIError
	var resp *awshttp.ResponseError
	if !errors.As(err, &api) || api.ErrorCode() != "InternalError" || !errors.As(err, &resp) || resp.HTTPStatusCode() != http.StatusInternalServerError {
		t.Fatalf("JSON protocol: %v, want InternalError with status 500", err)
	}
}

func wantQueryInternalError(t *testing.T, err error) {
	t.Helper()
	var rf awserr.RequestFailure
	if !errors.As(err, &rf) || rf.Code() != "InternalError" || rf.StatusCode() != http.StatusInternalServerError {
		t.Fatalf("query protocol: %v, want InternalError with status 500", err)
	}
}

// restAcknowledge deletes one message through the REST API; it fails the
// test on any answer but 200 or the API's 500 internal error.
func restAcknowledge(t *testing.T, base, handle string) error {
	t.Helper()
	body, _ := json.Marshal(map[string][]string{"receiptHandles": {handle}})
	resp, err := http.Post(base+"/v1/messages/acknowledge", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out struct {
		Results []struct {
			Error *struct{ Code string } `json:"error"`
		} `json:"results"`
		Error *struct{ Code string } `json:"error"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("REST acknowledge answered %d %s", resp.StatusCode, raw)
	}
	switch {
	case resp.StatusCode == http.StatusOK && len(out.Results) == 1 && out.Results[0].Error == nil:
		return nil
	case resp.StatusCode == http.StatusInternalServerError && out.Error != nil && out.Error.Code == "internal_error":
		return errors.New(out.Error.Code)
	}
	t.Fatalf("REST acknowledge answered %d %s, want 200 or 500 internal_error", resp.StatusCode, raw)
	return nil
}
