package minisqs_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/testcontainers/testcontainers-go"

	minisqs "github.com/minisqs/minisqs/testcontainers"
)

// image is the image under test: MINISQS_IMAGE, or the tag
// scripts/docker-test.sh builds from the repository's Dockerfile.
func image() string {
	if img := os.Getenv("MINISQS_IMAGE"); img != "" {
		return img
	}
	return "minisqs/minisqs:test"
}

// needDocker skips without a Docker engine, unless MINISQS_REQUIRE_DOCKER is
// set, as CI sets it, so that a missing engine fails rather than passes.
func needDocker(t *testing.T) {
	t.Helper()
	if os.Getenv("MINISQS_REQUIRE_DOCKER") != "" {
		return
	}
	testcontainers.SkipIfProviderIsNotHealthy(t)
}

func run(t *testing.T, opts ...testcontainers.ContainerCustomizer) *minisqs.Container {
	t.Helper()
	ctr, err := minisqs.Run(t.Context(), image(), opts...)
	testcontainers.CleanupContainer(t, ctr)
	if err != nil {
		t.Fatal(err)
	}
	return ctr
}

func client(t *testing.T, ctr *minisqs.Container) *sqs.Client {
	t.Helper()
	c, err := ctr.SQSClient(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func queueURL(t *testing.T, ctr *minisqs.Container, name string) string {
	t.Helper()
	u, err := ctr.QueueURL(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func listQueues(t *testing.T, c *sqs.Client) []string {
	t.Helper()
	out, err := c.ListQueues(t.Context(), &sqs.ListQueuesInput{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, u := range out.QueueUrls {
		names = append(names, u[strings.LastIndexByte(u, '/')+1:])
	}
	slices.Sort(names)
	return names
}

func send(t *testing.T, c *sqs.Client, queue, body string, fifo bool) {
	t.Helper()
	in := &sqs.SendMessageInput{QueueUrl: aws.String(queue), MessageBody: aws.String(body)}
	if fifo {
		in.MessageGroupId = aws.String("g")
		in.MessageDeduplicationId = aws.String(body)
	}
	if _, err := c.SendMessage(t.Context(), in); err != nil {
		t.Fatal(err)
	}
}

// receive takes up to max messages, hiding them for visibility seconds
// (at least 1: the SDK leaves 0 out), and returns their bodies.
func receive(t *testing.T, c *sqs.Client, queue string, max int32, visibility int32) []string {
	t.Helper()
	out, err := c.ReceiveMessage(t.Context(), &sqs.ReceiveMessageInput{
		QueueUrl: aws.String(queue), MaxNumberOfMessages: max, VisibilityTimeout: visibility, WaitTimeSeconds: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, m := range out.Messages {
		bodies = append(bodies, aws.ToString(m.Body))
	}
	return bodies
}

func TestRunWithQueueOptions(t *testing.T) {
	needDocker(t)
	t.Parallel()
	ctr := run(t,
		minisqs.WithQueues("orders", "audit"),
		minisqs.WithFIFOQueue("events.fifo"),
		minisqs.WithDeadLetterQueue("payments", "payments-dlq", 2),
	)
	c := client(t, ctr)
	if got, want := listQueues(t, c), []string{"audit", "events.fifo", "orders", "payments", "payments-dlq"}; !slices.Equal(got, want) {
		t.Fatalf("queues %v, want %v", got, want)
	}

	// Queue URLs name the host and port the test reaches the container by.
	endpoint, err := ctr.BaseEndpoint(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	orders := queueURL(t, ctr, "orders")
	if want := endpoint + "/000000000000/orders"; orders != want {
		t.Errorf("queue URL %s, want %s", orders, want)
	}
	if want := os.Getenv("TESTCONTAINERS_HOST_OVERRIDE"); want != "" {
		if u, err := url.Parse(endpoint); err != nil || u.Hostname() != want {
			t.Errorf("endpoint %s: want host %s", endpoint, want)
		}
	}

	send(t, c, orders, "order 1", false)
	if got := receive(t, c, orders, 10, 30); !slices.Equal(got, []string{"order 1"}) {
		t.Errorf("received %v from orders", got)
	}

	events := queueURL(t, ctr, "events.fifo")
	for _, b := range []string{"e1", "e2", "e3"} {
		send(t, c, events, b, true)
	}
	if got := receive(t, c, events, 10, 30); !slices.Equal(got, []string{"e1", "e2", "e3"}) {
		t.Errorf("received %v from events.fifo, want e1 e2 e3 in order", got)
	}

	// Two receives are allowed; the third finds the message in the DLQ.
	payments, dlq := queueURL(t, ctr, "payments"), queueURL(t, ctr, "payments-dlq")
	send(t, c, payments, "poison", false)
	for i := range 2 {
		out, err := c.ReceiveMessage(t.Context(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(payments), WaitTimeSeconds: 1})
		if err != nil || len(out.Messages) != 1 {
			t.Fatalf("receive %d from payments: %+v, %v", i+1, out, err)
		}
		if _, err := c.ChangeMessageVisibility(t.Context(), &sqs.ChangeMessageVisibilityInput{
			QueueUrl: aws.String(payments), ReceiptHandle: out.Messages[0].ReceiptHandle, VisibilityTimeout: 0,
		}); err != nil {
			t.Fatal(err)
		}
	}
	if got := receive(t, c, payments, 1, 30); len(got) != 0 {
		t.Errorf("third receive from payments: %v, want nothing", got)
	}
	if got := receive(t, c, dlq, 1, 30); !slices.Equal(got, []string{"poison"}) {
		t.Errorf("received %v from payments-dlq, want the poison message", got)
	}
}

const configFile = `# queues for the testcontainers module's test
queues:
  - name: orders
    attributes:
      VisibilityTimeout: 45
      DelaySeconds: 0
    tags:
      team: payments
    deadLetterQueue:
      name: orders-dlq
      maxReceiveCount: 3
  - name: orders-dlq
  - name: jobs.fifo
    attributes:
      ContentBasedDeduplication: true
`

func TestRunWithConfigFile(t *testing.T) {
	needDocker(t)
	t.Parallel()
	path := filepath.Join(t.TempDir(), "queues.yaml")
	if err := os.WriteFile(path, []byte(configFile), 0o644); err != nil {
		t.Fatal(err)
	}
	ctr := run(t, minisqs.WithConfigFile(path), minisqs.WithQueues("extra"))
	c := client(t, ctr)
	if got, want := listQueues(t, c), []string{"extra", "jobs.fifo", "orders", "orders-dlq"}; !slices.Equal(got, want) {
		t.Fatalf("queues %v, want %v", got, want)
	}

	orders := queueURL(t, ctr, "orders")
	attrs, err := c.GetQueueAttributes(t.Context(), &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(orders), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := attrs.Attributes["VisibilityTimeout"]; got != "45" {
		t.Errorf("VisibilityTimeout %s, want 45", got)
	}
	if got := attrs.Attributes["RedrivePolicy"]; !strings.Contains(got, ":orders-dlq") || !strings.Contains(got, `"maxReceiveCount":3`) {
		t.Errorf("RedrivePolicy %s", got)
	}
	tags, err := c.ListQueueTags(t.Context(), &sqs.ListQueueTagsInput{QueueUrl: aws.String(orders)})
	if err != nil {
		t.Fatal(err)
	}
	if tags.Tags["team"] != "payments" {
		t.Errorf("tags %v", tags.Tags)
	}

	// Content-based deduplication: the same body twice is one message.
	jobs := queueURL(t, ctr, "jobs.fifo")
	for range 2 {
		if _, err := c.SendMessage(t.Context(), &sqs.SendMessageInput{
			QueueUrl: aws.String(jobs), MessageBody: aws.String("job"), MessageGroupId: aws.String("g"),
		}); err != nil {
			t.Fatal(err)
		}
	}
	if got := receive(t, c, jobs, 10, 30); !slices.Equal(got, []string{"job"}) {
		t.Errorf("received %v from jobs.fifo, want one job", got)
	}
}

func TestBadConfigFileFailsRun(t *testing.T) {
	needDocker(t)
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(path, []byte("queues:\n  - name: orders\n    attributes:\n      VisibilityTimeout: soon\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	ctr, err := minisqs.Run(ctx, image(), minisqs.WithConfigFile(path))
	testcontainers.CleanupContainer(t, ctr)
	if err == nil {
		t.Fatal("Run succeeded with an invalid config file")
	}
	if ctr == nil {
		t.Fatalf("no container to read logs from: %v", err)
	}
	logs, lerr := ctr.Logs(context.Background())
	if lerr != nil {
		t.Fatal(lerr)
	}
	defer logs.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, rerr := logs.Read(buf)
		b.Write(buf[:n])
		if rerr != nil {
			break
		}
	}
	if want := "bad.yaml:4: queues[0].attributes.VisibilityTimeout"; !strings.Contains(b.String(), want) {
		t.Errorf("logs %q do not contain %q", b.String(), want)
	}
}

func TestVolumeKeepsMessagesAcrossContainers(t *testing.T) {
	needDocker(t)
	t.Parallel()
	suffix := make([]byte, 6)
	rand.Read(suffix)
	volume := "minisqs-test-" + hex.EncodeToString(suffix)

	first, err := minisqs.Run(t.Context(), image(), minisqs.WithVolume(volume), minisqs.WithQueues("kept", "kept.fifo"))
	if err != nil {
		testcontainers.CleanupContainer(t, first, testcontainers.RemoveVolumes(volume))
		t.Fatal(err)
	}
	c := client(t, first)
	kept, keptFIFO := queueURL(t, first, "kept"), queueURL(t, first, "kept.fifo")
	for _, b := range []string{"m1", "m2", "m3"} {
		send(t, c, kept, b, false)
		send(t, c, keptFIFO, b, true)
	}
	// One message is in flight when the server stops; it must come back
	// when its visibility timeout ends, not be lost.
	if got := receive(t, c, kept, 1, 2); len(got) != 1 {
		t.Fatalf("received %v", got)
	}
	if err := first.Terminate(t.Context()); err != nil {
		t.Fatal(err)
	}

	// A new container on the same volume, declaring the same queues: the
	// declarations are no-ops and the messages are there.
	second, err := minisqs.Run(t.Context(), image(), minisqs.WithVolume(volume), minisqs.WithQueues("kept", "kept.fifo"))
	testcontainers.CleanupContainer(t, second, testcontainers.RemoveVolumes(volume))
	if err != nil {
		t.Fatal(err)
	}
	c = client(t, second)
	kept, keptFIFO = queueURL(t, second, "kept"), queueURL(t, second, "kept.fifo")
	if got := receive(t, c, keptFIFO, 10, 30); !slices.Equal(got, []string{"m1", "m2", "m3"}) {
		t.Errorf("kept.fifo after restart: %v, want m1 m2 m3", got)
	}
	var got []string
	deadline := time.Now().Add(10 * time.Second)
	for len(got) < 3 && time.Now().Before(deadline) {
		got = append(got, receive(t, c, kept, 10, 30)...)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"m1", "m2", "m3"}) {
		t.Errorf("kept after restart: %v, want m1 m2 m3", got)
	}
}

func TestOptionsFailEarly(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		opts []testcontainers.ContainerCustomizer
		want string
	}{
		{"bad queue name", []testcontainers.ContainerCustomizer{minisqs.WithQueues("ok", "not ok")}, `invalid queue name "not ok"`},
		{"fifo without suffix", []testcontainers.ContainerCustomizer{minisqs.WithFIFOQueue("events")}, "must end in .fifo"},
		{"dlq type mismatch", []testcontainers.ContainerCustomizer{minisqs.WithDeadLetterQueue("a.fifo", "b", 1)}, "both be FIFO or both standard"},
		{"dlq count", []testcontainers.ContainerCustomizer{minisqs.WithDeadLetterQueue("a", "b", 0)}, "want 1 to 1000"},
		{"dlq itself", []testcontainers.ContainerCustomizer{minisqs.WithDeadLetterQueue("a", "a", 1)}, "its own dead-letter queue"},
		{"two dlqs", []testcontainers.ContainerCustomizer{minisqs.WithDeadLetterQueue("a", "b", 1), minisqs.WithDeadLetterQueue("a", "c", 1)}, "already has a dead-letter queue"},
		{"missing config file", []testcontainers.ContainerCustomizer{minisqs.WithConfigFile(filepath.Join(dir, "nope.yaml"))}, "no such file"},
		{"config file is a directory", []testcontainers.ContainerCustomizer{minisqs.WithConfigFile(dir)}, "is a directory"},
		{"config file and dlq", []testcontainers.ContainerCustomizer{minisqs.WithConfigFile(writeFile(t, dir)), minisqs.WithDeadLetterQueue("a", "b", 1)}, "cannot be combined"},
		{"empty volume", []testcontainers.ContainerCustomizer{minisqs.WithVolume("")}, "volume name"},
		{"empty admin token", []testcontainers.ContainerCustomizer{minisqs.WithAdminToken("")}, "admin token"},
		{"admin token with a space", []testcontainers.ContainerCustomizer{minisqs.WithAdminToken("a b")}, "admin token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctr, err := minisqs.Run(t.Context(), "no-such-image-is-pulled", tt.opts...)
			if ctr != nil {
				t.Errorf("got a container")
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func writeFile(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "q.yaml")
	if err := os.WriteFile(path, []byte("queues: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
