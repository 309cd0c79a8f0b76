package compat

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/uuid"
)

// BenchmarkHTTPCycle drives a server with aws-sdk-go-v2 through full cycles
// of SendMessageBatch, ReceiveMessage and DeleteMessageBatch, ten messages
// each, from 1, 4 and 16 clients at once, and reports the server process's
// CPU time per message (from /proc) as server-µs/msg, and the part of it
// spent in user space as server-user-µs/msg; the rest is the kernel's. The
// clients run in the benchmark's process, so their cost is not counted.
//
// The minisqs runs drive the real binary. The canned runs drive a server
// that does no work: it reads each request and answers with what minisqs
// answered to the same request, recorded beforehand. Its figure is the
// cost of net/http and the kernel alone on this machine, the floor under
// any figure minisqs can reach.
func BenchmarkHTTPCycle(b *testing.B) {
	servers := []struct {
		name  string
		start func(testing.TB) *process
	}{
		{"minisqs", func(tb testing.TB) *process { return startProcess(tb) }},
		{"canned", startCannedProcess},
	}
	for _, srv := range servers {
		for _, clients := range []int{1, 4, 16} {
			b.Run(fmt.Sprintf("%s/clients=%d", srv.name, clients), func(b *testing.B) {
				benchmarkHTTPCycle(b, srv.start(b), clients)
			})
		}
	}
}

func benchmarkHTTPCycle(b *testing.B, p *process, clients int) {
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
func cycleOnNewQueue(tb testing.TB, c *sqsv2.Client, name string) func() {
	ctx := context.Background()
	q, err := c.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String(name)})
	if err != nil {
		tb.Fatal(err)
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
			tb.Error(err)
			return
		}
		for got := 0; got < len(entries); {
			r, err := c.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10, MessageAttributeNames: []string{"All"}})
			if err != nil {
				tb.Error(err)
				return
			}
			del := make([]types.DeleteMessageBatchRequestEntry, len(r.Messages))
			for i, m := range r.Messages {
				del[i] = types.DeleteMessageBatchRequestEntry{Id: awsv2.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle}
			}
			if len(del) > 0 {
				if _, err := c.DeleteMessageBatch(ctx, &sqsv2.DeleteMessageBatchInput{QueueUrl: q.QueueUrl, Entries: del}); err != nil {
					tb.Error(err)
					return
				}
			}
			got += len(r.Messages)
		}
	}
}

// cannedDirEnv, when set, makes this test binary the canned server: it
// serves the answers recorded in that directory, one file per action.
const (
	cannedDirEnv  = "MINISQS_CANNED_DIR"
	cannedAddrEnv = "MINISQS_CANNED_ADDR"
)

// startCannedProcess records minisqs's answers to one cycle and starts
// this test binary again as a server that gives those answers.
func startCannedProcess(tb testing.TB) *process {
	dir := tb.TempDir()
	live := startProcess(tb)
	recorder := sqsv2.New(jsonClient(tb, live.URL).Options(), func(o *sqsv2.Options) {
		o.HTTPClient = &http.Client{Timeout: 30 * time.Second, Transport: recordingTransport{dir, bufferedTransport{http.DefaultTransport}}}
	})
	cycleOnNewQueue(tb, recorder, "recorded")()
	live.stop(tb, os.Interrupt)

	addr := "127.0.0.1:" + strconv.Itoa(freePort(tb))
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), cannedDirEnv+"="+dir, cannedAddrEnv+"="+addr)
	cmd.Stderr = os.Stderr
	return startAndAwait(tb, cmd, "http://"+addr)
}

// recordingTransport saves each answer's body under its action's name.
type recordingTransport struct {
	dir  string
	next http.RoundTripper
}

func (t recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	action := strings.TrimPrefix(req.Header.Get("X-Amz-Target"), "AmazonSQS.")
	if err := os.WriteFile(filepath.Join(t.dir, action), body, 0o644); err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// TestMain makes this test binary the canned server of BenchmarkHTTPCycle
// when cannedDirEnv is set; otherwise it runs the tests.
func TestMain(m *testing.M) {
	if dir := os.Getenv(cannedDirEnv); dir != "" {
		if err := serveCanned(dir, os.Getenv(cannedAddrEnv)); err != nil {
			fmt.Fprintln(os.Stderr, "canned server:", err)
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}

// serveCanned answers each action with the body recorded for it in dir,
// with the headers minisqs sends, until the process is killed.
func serveCanned(dir, addr string) error {
	answers := map[string][]byte{}
	files, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, f := range files {
		if answers[f.Name()], err = os.ReadFile(filepath.Join(dir, f.Name())); err != nil {
			return err
		}
	}
	return http.ListenAndServe(addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return
		}
		body, ok := answers[strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AmazonSQS.")]
		if r.URL.Path != "/health" && !ok {
			http.Error(w, "no recorded answer", http.StatusNotImplemented)
			return
		}
		h := w.Header()
		h.Set("x-amzn-RequestId", uuid.NewString())
		h.Set("Content-Type", "application/x-amz-json-1.0")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
}
