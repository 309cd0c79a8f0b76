package control_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/control"
	"github.com/minisqs/minisqs/protocol/rest"
)

func TestOpenAPIListsEveryRoute(t *testing.T) {
	doc := spec(t).Doc
	inDoc := map[string]string{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			inDoc[op.OperationID] = method + " " + path
		}
	}
	if got := control.Routes(); !reflect.DeepEqual(got, inDoc) {
		t.Fatalf("the routes %v and the document's operations %v differ", got, inDoc)
	}
	v := newEnv(t, nil)
	var served map[string]any
	v.must(200, "GET", "/_minisqs/openapi.json", nil).Decode(t, &served)
	if served["openapi"] != "3.0.3" {
		t.Fatalf("served document: %v", served["info"])
	}
}

type clockOut struct {
	Now           string  `json:"now"`
	OffsetSeconds float64 `json:"offsetSeconds"`
}

func TestClock(t *testing.T) {
	v := newEnv(t, nil)
	var c clockOut
	v.must(200, "GET", "/_minisqs/clock", nil).Decode(t, &c)
	if c.Now != "2026-01-02T03:04:05.000Z" || c.OffsetSeconds != 0 {
		t.Fatalf("clock %+v", c)
	}
	v.must(200, "POST", "/_minisqs/clock/advance", msg{"seconds": 1.5}).Decode(t, &c)
	if c.Now != "2026-01-02T03:04:06.500Z" || c.OffsetSeconds != 1.5 {
		t.Fatalf("after advancing 1.5 s: %+v", c)
	}
	v.must(200, "POST", "/_minisqs/clock/advance", msg{"seconds": 3600}).Decode(t, &c)
	if c.Now != "2026-01-02T04:04:06.500Z" || c.OffsetSeconds != 3601.5 {
		t.Fatalf("after advancing another hour: %+v", c)
	}
	for _, body := range []any{msg{"seconds": 0}, msg{"seconds": -5}, msg{}, msg{"seconds": "10"}, msg{"seconds": 1e12}, msg{"seconds": 1, "by": 2}} {
		v.fails(400, "invalid_request", invalidRequest, "POST", "/_minisqs/clock/advance", body)
	}
	v.fails(400, "invalid_request", beyondSchema, "POST", "/_minisqs/clock/advance", "{not json")
	// Time never went back.
	v.must(200, "GET", "/_minisqs/clock", nil).Decode(t, &c)
	if c.OffsetSeconds != 3601.5 {
		t.Fatalf("refused advances moved the clock: %+v", c)
	}
}

// An advance is settled before it answers: a message whose visibility
// timeout ended is visible to the very next request.
func TestAdvanceIsSettled(t *testing.T) {
	v := newEnv(t, nil)
	q := v.queue("q", engine.AttributeUpdate{VisibilityTimeout: ptr(30)})
	v.send(q, "m")
	if ds, _ := q.Receive(context.Background(), engine.ReceiveOptions{WaitSeconds: ptr(0)}); len(ds) != 1 {
		t.Fatal("no message")
	}
	v.must(200, "POST", "/_minisqs/clock/advance", msg{"seconds": 30})
	var w struct{ Met bool }
	v.must(200, "POST", "/_minisqs/wait", msg{"queue": "q", "visible": 1, "timeoutSeconds": 0.001}).Decode(t, &w)
	if !w.Met {
		t.Fatal("the lease had not ended when the advance answered")
	}
}

func ptr[T any](v T) *T { return &v }

func TestReset(t *testing.T) {
	v := newEnv(t, nil)
	dlq := v.queue("dlq", engine.AttributeUpdate{})
	src := v.queue("src", engine.AttributeUpdate{RedrivePolicy: &engine.RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 2}})
	v.send(src, "a", "b")
	v.send(dlq, "dead")
	if _, err := src.PutSubscription("http://127.0.0.1:9/x", 1, 0); err != nil {
		t.Fatal(err)
	}
	if err := src.Purge(); err != nil {
		t.Fatal(err)
	}
	v.send(src, "c")

	// Some queues: unknown names fail first, and nothing changes.
	r := v.fails(404, "queue_not_found", validRequest, "POST", "/_minisqs/reset", msg{"queues": []string{"src", "nope"}})
	if !strings.Contains(string(r.Body), "nope") {
		t.Fatalf("the error does not name the unknown queue: %s", r.Body)
	}
	if c := src.Counts(); c.Visible != 1 {
		t.Fatalf("a refused reset changed src: %+v", c)
	}
	v.fails(400, "invalid_request", invalidRequest, "POST", "/_minisqs/reset", msg{"queues": []string{}})
	v.must(204, "POST", "/_minisqs/reset", msg{"queues": []string{"src"}})
	if c := src.Counts(); c != (engine.Counts{}) {
		t.Fatalf("src after its reset: %+v", c)
	}
	if c := dlq.Counts(); c.Visible != 1 {
		t.Fatalf("dlq was reset too: %+v", c)
	}
	if err := src.Purge(); err != nil {
		t.Fatalf("the purge cooldown outlived the reset: %v", err)
	}

	// Everything.
	v.must(204, "POST", "/_minisqs/reset", nil)
	if qs := v.e.Queues(""); len(qs) != 0 {
		t.Fatalf("%d queues after a reset", len(qs))
	}
	v.mu.Lock()
	changed := v.changed
	v.mu.Unlock()
	if !slices.Contains(changed, "src") {
		t.Fatalf("the push deliverer was not told of src's subscription ending: %v", changed)
	}
	if _, ok := src.Subscription(); ok {
		t.Fatal("src kept its subscription")
	}
	v.must(204, "POST", "/_minisqs/reset", "{}")
}

func TestWait(t *testing.T) {
	v := newEnv(t, nil)
	q := v.queue("q", engine.AttributeUpdate{})
	type waitOut struct {
		Queue  string
		Met    bool
		Counts struct{ Visible, InFlight, Delayed int }
	}
	var w waitOut
	// Nothing comes: 408 with the counts, after the real-time timeout.
	v.must(408, "POST", "/_minisqs/wait", msg{"queue": "q", "visible": 1, "timeoutSeconds": 0.05}).Decode(t, &w)
	if w.Met || w.Queue != "q" {
		t.Fatalf("%+v", w)
	}
	// Something comes while waiting (the engine's tests show the wake; here
	// the wait may also begin after the send and find it at once).
	done := make(chan *resp, 1)
	go func() {
		done <- v.do("POST", "/_minisqs/wait", msg{"queue": q.ID(), "bodyContains": "needle", "timeoutSeconds": 30}, validRequest)
	}()
	v.send(q, "hay", "a needle")
	select {
	case r := <-done:
		if r.Status != 200 {
			t.Fatalf("got %d %s", r.Status, r.Body)
		}
		r.Decode(t, &w)
		if !w.Met || w.Counts.Visible != 2 {
			t.Fatalf("%+v", w)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the wait did not answer when the message came")
	}
	// Already true: at once.
	v.must(200, "POST", "/_minisqs/wait", msg{"queue": "q", "inFlight": 0})
	v.fails(404, "queue_not_found", validRequest, "POST", "/_minisqs/wait", msg{"queue": "nope", "empty": true})
	for _, body := range []msg{
		{"queue": "q"}, {"queue": "q", "visible": 1, "empty": true}, {"queue": "q", "empty": false},
		{"queue": "q", "visible": -1}, {"queue": "q", "bodyContains": ""}, {"visible": 1},
		{"queue": "q", "visible": 1, "timeoutSeconds": 0}, {"queue": "q", "visible": 1, "timeoutSeconds": 301},
	} {
		v.fails(400, "invalid_request", invalidRequest, "POST", "/_minisqs/wait", body)
	}
}

func TestStateRoundTrip(t *testing.T) {
	v := newEnv(t, nil)
	v.queue("replaced", engine.AttributeUpdate{})
	fixture, err := os.ReadFile("testdata/state.json")
	if err != nil {
		t.Fatal(err)
	}
	v.must(204, "PUT", "/_minisqs/state", fixture)
	if _, err := v.e.Queue("replaced"); err == nil {
		t.Fatal("PUT kept a queue the document does not hold")
	}
	got := v.must(200, "GET", "/_minisqs/state", nil).Body
	var want, have any
	if err := json.Unmarshal(fixture, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &have); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(want, have) {
		t.Fatalf("GET after PUT differs from the document:\n%s", got)
	}
	// GET, PUT, GET again: byte for byte.
	v.must(204, "PUT", "/_minisqs/state", got)
	if again := v.must(200, "GET", "/_minisqs/state", nil).Body; !bytes.Equal(again, got) {
		t.Fatalf("the second GET differs:\n%s\n%s", got, again)
	}

	// The loaded in-flight message stays in flight until its deadline.
	q, err := v.e.Queue("orders")
	if err != nil {
		t.Fatal(err)
	}
	if c := q.Counts(); c != (engine.Counts{Visible: 1, InFlight: 1, Delayed: 1}) {
		t.Fatalf("orders' counts: %+v", c)
	}
	v.must(200, "POST", "/_minisqs/clock/advance", msg{"seconds": 30})
	if c := q.Counts(); c != (engine.Counts{Visible: 2, Delayed: 1}) {
		t.Fatalf("orders' counts after the in-flight deadline: %+v", c)
	}
}

func TestPutStateRefusesBrokenDocuments(t *testing.T) {
	v := newEnv(t, nil)
	fixture, err := os.ReadFile("testdata/state.json")
	if err != nil {
		t.Fatal(err)
	}
	v.must(204, "PUT", "/_minisqs/state", fixture)
	before := v.must(200, "GET", "/_minisqs/state", nil).Body
	broken := func(old, new string) []byte {
		if !bytes.Contains(fixture, []byte(old)) {
			t.Fatalf("the fixture has no %q", old)
		}
		return bytes.Replace(fixture, []byte(old), []byte(new), 1)
	}
	for name, c := range map[string]struct {
		body []byte
		mode reqMode
	}{
		"not JSON":            {[]byte("{"), beyondSchema},
		"trailing data":       {append(slices.Clone(fixture), []byte(" {}")...), beyondSchema},
		"wrong version":       {broken(`"version": 1`, `"version": 2`), invalidRequest},
		"unknown field":       {broken(`"version": 1`, `"version": 1, "extra": true`), invalidRequest},
		"bad time":            {broken(`"2026-01-02T03:00:00.000Z"`, `"yesterday"`), beyondSchema},
		"bad type":            {broken(`"type": "standard"`, `"type": "lifo"`), invalidRequest},
		"bad state":           {broken(`"state": "delayed"`, `"state": "lost"`), invalidRequest},
		"binary as string":    {broken(`"binaryValue": "AAEC"`, `"stringValue": "AAEC"`), beyondSchema},
		"missing dlq":         {broken(`"arn:aws:sqs:us-east-1:000000000000:orders-dlq"`, `"arn:aws:sqs:us-east-1:000000000000:nope"`), beyondSchema},
		"fifo without group":  {broken(`"groupId": "order-1",`+"\n"+`          "deduplicationId": "created-1"`, `"deduplicationId": "created-1"`), beyondSchema},
		"sequence going back": {broken(`"sequenceNumber": "00000000000000000007"`+"\n", `"sequenceNumber": "00000000000000000005"`+"\n"), beyondSchema},
	} {
		t.Run(name, func(t *testing.T) {
			v.fails(400, "invalid_request", c.mode, "PUT", "/_minisqs/state", c.body)
			if after := v.must(200, "GET", "/_minisqs/state", nil).Body; !bytes.Equal(after, before) {
				t.Fatal("a refused PUT changed the state")
			}
		})
	}
}

func TestAdminTokenGuardsEveryRoute(t *testing.T) {
	v := newEnv(t, map[string]rest.Role{"root": rest.RoleAdmin, "pub": rest.RoleProducer})
	for op, route := range control.Routes() {
		method, path, _ := strings.Cut(route, " ")
		t.Run(op, func(t *testing.T) {
			v.fails(401, "unauthorized", beyondSchema, method, path, nil)
			v.withToken("pub").fails(403, "forbidden", beyondSchema, method, path, nil)
		})
	}
	admin := v.withToken("root")
	admin.must(200, "GET", "/_minisqs/clock", nil)
	v.fails(401, "unauthorized", beyondSchema, "GET", "/_minisqs/nothing", nil)
	admin.fails(404, "not_found", beyondSchema, "GET", "/_minisqs/nothing", nil)
	admin.fails(404, "not_found", beyondSchema, "DELETE", "/_minisqs/reset", nil)
}
