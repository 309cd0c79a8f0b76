package metrics

import (
	"context"
	"io"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minisqs/minisqs/engine"
)

// TestScrape runs a known sequence of operations and checks every figure
// the scrape reports for the queue.
func TestScrape(t *testing.T) {
	clock := engine.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	e, err := engine.Open(engine.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	vis := 30
	q, err := e.CreateQueue("orders", engine.AttributeUpdate{VisibilityTimeout: &vis}, nil)
	if err != nil {
		t.Fatal(err)
	}
	delay := 60
	var sends []engine.NewMessage
	for _, body := range []string{"aaaa", "bbbb", "cccc"} {
		sends = append(sends, engine.NewMessage{Body: body})
	}
	sends = append(sends, engine.NewMessage{Body: "later", DelaySeconds: &delay})
	for _, r := range q.Send(sends) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	clock.Advance(10 * time.Second) // the oldest available message is now 10 s old
	got, err := q.Receive(context.Background(), engine.ReceiveOptions{MaxMessages: 2})
	if err != nil || len(got) != 2 {
		t.Fatalf("receive: %v %d", err, len(got))
	}
	if errs := q.Acknowledge([]string{got[0].ReceiptHandle}); errs[0] != nil {
		t.Fatal(errs[0])
	}
	clock.Advance(30 * time.Second) // the other lease ends: it is received again below
	if _, err := q.Receive(context.Background(), engine.ReceiveOptions{MaxMessages: 1}); err != nil {
		t.Fatal(err)
	}
	sizes := q.Stats()

	rec := httptest.NewRecorder()
	Handler(e).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	text := string(body)
	for _, want := range []string{
		`minisqs_queue_messages_available{account="000000000000",queue="orders",region="us-east-1"} 1`,
		`minisqs_queue_messages_in_flight{account="000000000000",queue="orders",region="us-east-1"} 1`,
		`minisqs_queue_messages_delayed{account="000000000000",queue="orders",region="us-east-1"} 1`,
		`minisqs_queue_messages_enqueued_total{account="000000000000",queue="orders",region="us-east-1"} 4`,
		`minisqs_queue_messages_received_total{account="000000000000",queue="orders",region="us-east-1"} 3`,
		`minisqs_queue_messages_removed_total{account="000000000000",queue="orders",region="us-east-1"} 1`,
		`minisqs_queue_oldest_available_message_age_seconds{account="000000000000",queue="orders",region="us-east-1"} 40`,
		`minisqs_queue_stored_bytes{account="000000000000",queue="orders",region="us-east-1"} ` + itoa(sizes.StoredBytes),
		`minisqs_queue_bytes_enqueued_total{account="000000000000",queue="orders",region="us-east-1"} ` + itoa(sizes.BytesEnqueued),
		`# TYPE minisqs_queue_messages_received_total counter`,
		`# TYPE minisqs_queue_messages_available gauge`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("scrape lacks %q", want)
		}
	}
	if sizes.StoredBytes <= 0 || sizes.BytesEnqueued <= sizes.StoredBytes {
		t.Errorf("stored %d and enqueued %d bytes: want 0 < stored < enqueued after a delete", sizes.StoredBytes, sizes.BytesEnqueued)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
