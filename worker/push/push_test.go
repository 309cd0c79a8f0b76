package push

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minisqs/minisqs/engine"
)

// endpoint records deliveries; it fails the first failFirst of them, and
// every delivery that holds a poison message.
type endpoint struct {
	mu         sync.Mutex
	failFirst  int
	calls      int
	delivered  []string       // bodies acknowledged by a 2xx
	deliveries map[string]int // deliveries per body, failed ones included
}

func (ep *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var payload struct {
		Messages []Message `json:"messages"`
	}
	b, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(b, &payload); err != nil || r.Method != http.MethodPost {
		http.Error(w, "bad delivery", http.StatusBadRequest)
		return
	}
	ep.mu.Lock()
	defer ep.mu.Unlock()
	ep.calls++
	fail := ep.calls <= ep.failFirst
	for _, m := range payload.Messages {
		ep.deliveries[m.Body]++
		fail = fail || strings.HasPrefix(m.Body, "poison")
	}
	if fail {
		http.Error(w, "try again", http.StatusInternalServerError)
		return
	}
	for _, m := range payload.Messages {
		ep.delivered = append(ep.delivered, m.Body)
	}
}

func (ep *endpoint) snapshot() ([]string, map[string]int) {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	counts := map[string]int{}
	for k, v := range ep.deliveries {
		counts[k] = v
	}
	return slices.Sorted(slices.Values(ep.delivered)), counts
}

// TestDeliveryWithFailuresAndPoison delivers through an endpoint that fails
// its first deliveries and always refuses poison messages: every good
// message is delivered exactly once to a 2xx, failed ones come back after
// their visibility timeout, and the poison ones end in the dead-letter
// queue after maxReceiveCount deliveries.
func TestDeliveryWithFailuresAndPoison(t *testing.T) {
	clock := engine.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	e, err := engine.Open(engine.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	dlq, err := e.CreateQueue("jobs-dlq", engine.AttributeUpdate{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	vis := 30
	q, err := e.CreateQueue("jobs", engine.AttributeUpdate{
		VisibilityTimeout: &vis,
		RedrivePolicy:     &engine.RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 3},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	var msgs []engine.NewMessage
	for _, b := range []string{"a", "b", "c", "d", "e", "f", "poison-1", "poison-2"} {
		msgs = append(msgs, engine.NewMessage{Body: b, Attributes: []engine.MessageAttribute{{Name: "k", DataType: "String", StringValue: "v-" + b}}})
		if !strings.HasPrefix(b, "poison") {
			want = append(want, b)
		}
	}
	for _, r := range q.Send(msgs) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}

	ep := &endpoint{failFirst: 2, deliveries: map[string]int{}}
	srv := httptest.NewServer(ep)
	defer srv.Close()
	if _, err := q.PutSubscription(srv.URL, 1, 0); err != nil {
		t.Fatal(err)
	}
	d := Start(e, slog.New(slog.DiscardHandler))
	defer d.Close()

	// Time moves only when the deliverer waits on the clock (beside the
	// engine's sweeper), so each step is deterministic.
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, _ := ep.snapshot()
		if len(got) == len(want) && dlq.Counts().Visible == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivered %v, dlq %+v: not done", got, dlq.Counts())
		}
		if clock.Waiters() >= 2 {
			clock.Advance(5 * time.Second)
		} else {
			time.Sleep(time.Millisecond) // let the deliverer reach its next wait
		}
	}

	got, counts := ep.snapshot()
	if !slices.Equal(got, want) {
		t.Errorf("delivered %v, want each of %v exactly once", got, want)
	}
	// The first two deliveries failed; what they carried came back and was
	// delivered again, so the good messages took two deliveries more than
	// there are of them.
	total := 0
	for _, b := range want {
		total += counts[b]
	}
	if total != len(want)+2 {
		t.Errorf("good messages took %d deliveries, want %d: %v", total, len(want)+2, counts)
	}
	for _, p := range []string{"poison-1", "poison-2"} {
		if counts[p] != 3 {
			t.Errorf("%s delivered %d times, want maxReceiveCount 3", p, counts[p])
		}
	}
	if c := q.Counts(); c != (engine.Counts{}) {
		t.Errorf("source queue not empty: %+v", c)
	}
	sub, _ := q.Subscription()
	if sub.LastDelivery == nil || sub.LastDelivery.Messages != 1 {
		t.Errorf("last delivery %+v", sub.LastDelivery)
	}
	st := q.Stats()
	if st.Received != int64(len(want)+2+2*3) {
		t.Errorf("received %d deliveries, want %d", st.Received, len(want)+2+2*3)
	}
}

// TestDeliveryStopsWithSubscription checks that deleting the subscription
// ends the loop and that messages sent after it stay in the queue.
func TestDeliveryStopsWithSubscription(t *testing.T) {
	clock := engine.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	e, err := engine.Open(engine.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	q, err := e.CreateQueue("events", engine.AttributeUpdate{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ep := &endpoint{deliveries: map[string]int{}}
	srv := httptest.NewServer(ep)
	defer srv.Close()
	if _, err := q.PutSubscription(srv.URL, 10, 0); err != nil {
		t.Fatal(err)
	}
	d := Start(e, slog.New(slog.DiscardHandler))
	defer d.Close()
	q.Send([]engine.NewMessage{{Body: "one"}})
	deadline := time.Now().Add(10 * time.Second)
	for got, _ := ep.snapshot(); len(got) == 0; got, _ = ep.snapshot() {
		if time.Now().After(deadline) {
			t.Fatal("first message never delivered")
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := q.DeleteSubscription(); err != nil {
		t.Fatal(err)
	}
	// The engine told the deliverer: no Sync from whoever made the change.
	if running := d.loopCount(); running != 0 {
		t.Fatalf("%d loops after the subscription was deleted", running)
	}
	q.Send([]engine.NewMessage{{Body: "two"}})
	if c := q.Counts(); c.Visible != 1 {
		t.Errorf("counts after unsubscribing %+v, want the new message left visible", c)
	}
}

// TestDeliveryResumesAfterRestart keeps a subscription in a db file: after
// the engine is closed and opened again, a new deliverer delivers the
// messages sent before the restart.
func TestDeliveryResumesAfterRestart(t *testing.T) {
	clock := engine.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	path := filepath.Join(t.TempDir(), "minisqs.db")
	ep := &endpoint{deliveries: map[string]int{}}
	srv := httptest.NewServer(ep)
	defer srv.Close()

	e, err := engine.Open(engine.Options{Clock: clock, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	q, err := e.CreateQueue("events", engine.AttributeUpdate{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.PutSubscription(srv.URL, 10, 0); err != nil {
		t.Fatal(err)
	}
	q.Send([]engine.NewMessage{{Body: "before"}, {Body: "restart"}})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	e, err = engine.Open(engine.Options{Clock: clock, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	d := Start(e, slog.New(slog.DiscardHandler))
	defer d.Close()
	deadline := time.Now().Add(10 * time.Second)
	for got, _ := ep.snapshot(); len(got) < 2; got, _ = ep.snapshot() {
		if time.Now().After(deadline) {
			t.Fatalf("delivered %v after the restart, want both messages", got)
		}
		time.Sleep(time.Millisecond) // let the deliverer post
	}
	if got, _ := ep.snapshot(); !slices.Equal(got, []string{"before", "restart"}) {
		t.Errorf("delivered %v", got)
	}
	q, err = e.Queue("events")
	if err != nil {
		t.Fatal(err)
	}
	if sub, ok := q.Subscription(); !ok || sub.Endpoint != srv.URL {
		t.Errorf("subscription after restart: %+v %v", sub, ok)
	}
}

// loopCount counts the delivery loops.
func (d *Deliverer) loopCount() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.loops)
}

// A subscription made through the engine after the deliverer started, as
// an embedding program or a loaded state makes one, starts its delivery;
// deleting its queue, from any front end, stops it.
func TestEngineAnnouncesSubscriptions(t *testing.T) {
	e, err := engine.Open(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	d := Start(e, slog.New(slog.DiscardHandler))
	defer d.Close()
	q, err := e.CreateQueue("events", engine.AttributeUpdate{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ep := &endpoint{deliveries: map[string]int{}}
	srv := httptest.NewServer(ep)
	defer srv.Close()
	if _, err := q.PutSubscription(srv.URL, 10, 0); err != nil {
		t.Fatal(err)
	}
	if d.loopCount() != 1 {
		t.Fatalf("%d loops after the engine made a subscription", d.loopCount())
	}
	q.Send([]engine.NewMessage{{Body: "one"}})
	deadline := time.Now().Add(10 * time.Second)
	for got, _ := ep.snapshot(); len(got) == 0; got, _ = ep.snapshot() {
		if time.Now().After(deadline) {
			t.Fatal("the message was never delivered")
		}
		time.Sleep(time.Millisecond)
	}
	if err := e.DeleteQueue(q); err != nil {
		t.Fatal(err)
	}
	if d.loopCount() != 0 {
		t.Fatalf("%d loops after the queue was deleted", d.loopCount())
	}
}
