package compat

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	awsv1 "github.com/aws/aws-sdk-go/aws"

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
	// Enough messages that their deletes, of one record each, outgrow the
	// room a full disk still leaves in the file's last page.
	const n = 300
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
	// Delete every message, in turn through each protocol, without
	// retries. The first few may fit in the room left in the file's last
	// page; after that, none can be stored, and each protocol says so in
	// its own words.
	noRetryJSON := v2Client{c: sqsv2.New(js.Options(), func(o *sqsv2.Options) { o.RetryMaxAttempts = 1 }), ctx: ctx}
	clients := []struct {
		name, internal string
		c              sqsClient
	}{
		{"json", "InternalError", noRetryJSON},
		{"query", "InternalError", v1Client{c: queryClient(t, p.URL, &awsv1.Config{MaxRetries: awsv1.Int(0)})}},
		{"rest", "internal_error", restProtocol.client(t, p.URL, clientOpts{})},
	}
	wantInternal := func(proto, code string, err error) {
		t.Helper()
		if ae := asAPIError(err); ae == nil || ae.Code != code || ae.Status != http.StatusInternalServerError {
			t.Fatalf("%s: %v, want %s with status 500", proto, err, code)
		}
	}
	deleted := map[string]bool{}
	failed := map[string]int{}
	for i, h := range handles {
		cl := clients[i%len(clients)]
		if err := cl.c.DeleteMessage(*q.QueueUrl, h); err != nil {
			wantInternal(cl.name, cl.internal, err)
			failed[cl.name]++
			continue
		}
		deleted[h] = true
	}
	for _, cl := range clients {
		if failed[cl.name] == 0 {
			t.Fatalf("no %s delete failed on a full disk (failed: %v): the test did not fill it", cl.name, failed)
		}
	}
	_, err = noRetryJSON.SendMessage(*q.QueueUrl, sendIn{Body: "no room"})
	wantInternal("json", "InternalError", err)
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
