package main

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/internal/sqsload"
	"github.com/minisqs/minisqs/server"
)

// hugePageMapped returns the bytes of this process's mappings marked for
// huge pages: "hg" among their VmFlags in /proc/self/smaps.
func hugePageMapped(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	var total, size int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 3 && fields[0] == "Size:":
			kb, _ := strconv.ParseInt(fields[1], 10, 64)
			size = kb << 10
		case len(fields) > 0 && fields[0] == "VmFlags:" && strings.Contains(sc.Text(), " hg"):
			total += size
		}
	}
	return total
}

// A store file past loadHeapMin gets the heap its load fills marked for
// huge pages before the load; a smaller one does not.
func TestPrepareLoadHeapAsksForHugePages(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("this kernel has no transparent huge pages")
	}
	dir := t.TempDir()
	sparse := func(name string, size int64) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
		return path
	}
	before := hugePageMapped(t)
	prepareLoadHeap(sparse("small", loadHeapMin-1))
	if got := hugePageMapped(t); got != before {
		t.Fatalf("a file below %d bytes: %d bytes marked, %d before", loadHeapMin, got, before)
	}
	prepareLoadHeap(sparse("large", 2*loadHeapMin))
	if got := hugePageMapped(t) - before; got < 2*loadHeapMin {
		t.Fatalf("a file of %d bytes: %d more bytes marked, want at least as many", 2*loadHeapMin, got)
	}
}

// A store large enough for a prepared heap loads whole through it: every
// message is there after the restart, with its body, as an SDK client
// reads them.
func TestStartServerLoadsLargeStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	e, err := engine.Open(engine.Options{Path: path, Fsync: engine.FsyncNever})
	if err != nil {
		t.Fatal(err)
	}
	q, err := e.CreateQueue("large", engine.AttributeUpdate{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const msgs = 300 // of 240 KB: a file past loadHeapMin
	body := func(i int) string { return strings.Repeat(strconv.Itoa(i%10), 240_000) }
	for i := range msgs {
		if res := q.Send([]engine.NewMessage{{Body: body(i)}}); res[0].Err != nil {
			t.Fatal(res[0].Err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() < loadHeapMin {
		t.Fatalf("the store is %v bytes (%v), want at least %d", fi.Size(), err, loadHeapMin)
	}
	srv, err := startServer(server.Config{Addr: "127.0.0.1:0", DB: path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	// Not the growth since the start: the load may take memory that an
	// earlier test's load heap marked, and the marks stay with it.
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err == nil && hugePageMapped(t) < loadHeapMin {
		t.Errorf("the load's heap is not marked for huge pages")
	}
	ctx := context.Background()
	c := sqsload.LoopbackClient("http://" + srv.Addr().String())
	url, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("large")})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for len(seen) < msgs {
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url.QueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 600})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) == 0 {
			t.Fatalf("after the restart the queue gave %d messages, want %d", len(seen), msgs)
		}
		for _, m := range out.Messages {
			b := aws.ToString(m.Body)
			if len(b) != 240_000 || strings.Trim(b, b[:1]) != "" { // the SDK has checked its MD5
				t.Fatalf("a message's body is %d bytes of %.10q...", len(b), b)
			}
			seen[aws.ToString(m.MessageId)] = true
		}
	}
}
