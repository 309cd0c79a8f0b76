package rest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/minisqs/minisqs/protocol/rest"
)

func TestOpenAPIDocumentMatchesRoutes(t *testing.T) {
	doc := spec(t).Doc
	want := map[string]string{} // "METHOD /path" -> operationId
	for _, r := range rest.Routes() {
		path := regexp.MustCompile(`:(\w+)`).ReplaceAllString(r.Path, "{$1}")
		want[r.Method+" "+path] = r.Op
	}
	got := map[string]string{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			got[method+" "+path] = op.OperationID
			if _, ok := op.Extensions["x-minisqs-roles"]; !ok {
				t.Errorf("%s %s: no x-minisqs-roles", method, path)
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("document operations %v\nroutes %v", got, want)
	}
	// Every error code the server can answer is in the document's enum.
	enum := doc.Components.Schemas["Error"].Value.Properties["error"].Value.Properties["code"].Value.Enum
	for code := range rest.ErrorCodes() {
		if !slices.Contains(enum, any(code)) {
			t.Errorf("error code %s is not in the document", code)
		}
	}

	v := newEnv(t)
	r := v.must(200, "GET", "/v1/openapi.json", nil)
	if string(r.Body) != string(rest.OpenAPI) {
		t.Error("GET /v1/openapi.json is not the embedded document")
	}
}

func TestUnknownPath(t *testing.T) {
	v := newEnv(t)
	for _, p := range []string{"/v1/nope", "/v1", "/v1/queues/x/nope"} {
		r := v.do("GET", p, nil, invalidRequest)
		if r.Status != 404 || r.ErrCode(t) != "not_found" {
			t.Errorf("GET %s: %d %s", p, r.Status, r.Body)
		}
	}
	// A method the path does not have.
	r := v.do("PUT", "/v1/queues", msg{}, invalidRequest)
	if r.Status != 404 || r.ErrCode(t) != "not_found" {
		t.Errorf("PUT /v1/queues: %d %s", r.Status, r.Body)
	}
}

var timeRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

func TestCreateAndGetQueue(t *testing.T) {
	v := newEnv(t)
	q := v.createQueue(msg{"name": "orders"})
	if q.Name != "orders" || q.Type != "standard" || q.VisibilityTimeoutSeconds != 30 || q.RetentionSeconds != 345600 ||
		q.DelaySeconds != 0 || q.ReceiveWaitSeconds != 0 || q.Redrive != nil || q.ContentBasedDedup || q.Partitions != 1 {
		t.Errorf("defaults: %+v", q)
	}
	if !strings.HasPrefix(q.Slug, "que_") || len(q.Slug) != 30 {
		t.Errorf("slug %q", q.Slug)
	}
	if q.SQSURL != v.url+"/000000000000/orders" || q.Arn != "arn:aws:sqs:us-east-1:000000000000:orders" {
		t.Errorf("sqsUrl %s arn %s", q.SQSURL, q.Arn)
	}
	if !timeRE.MatchString(q.CreatedAt) || q.CreatedAt != "2026-01-02T03:04:05.000Z" || q.UpdatedAt != q.CreatedAt {
		t.Errorf("times %s %s", q.CreatedAt, q.UpdatedAt)
	}
	// By id, slug and name.
	for _, ref := range []string{q.ID, q.Slug, q.Name} {
		if got := v.getQueue(ref); got.ID != q.ID {
			t.Errorf("GET %s: %+v", ref, got)
		}
	}
	v.fails(404, "queue_not_found", validRequest, "GET", "/v1/queues/nope", nil)
	v.fails(404, "queue_not_found", validRequest, "GET", "/v1/queues/que_00000000000000000000000000", nil)
	v.fails(404, "queue_not_found", validRequest, "GET", "/v1/queues/00000000-0000-0000-0000-000000000000", nil)

	// Every setting.
	f := v.createQueue(msg{"name": "jobs", "type": "fifo", "visibilityTimeoutSeconds": 60, "retentionSeconds": 60,
		"delaySeconds": 900, "receiveWaitSeconds": 20, "contentBasedDedup": true})
	if f.Type != "fifo" || f.VisibilityTimeoutSeconds != 60 || f.RetentionSeconds != 60 || f.DelaySeconds != 900 ||
		f.ReceiveWaitSeconds != 20 || !f.ContentBasedDedup {
		t.Errorf("settings: %+v", f)
	}
}

func TestCreateQueueIdempotence(t *testing.T) {
	v := newEnv(t)
	q := v.createQueue(msg{"name": "a", "visibilityTimeoutSeconds": 45})
	var again queueOut
	// The same settings, or fewer of them: the existing queue, 200.
	v.must(200, "POST", "/v1/queues", msg{"name": "a", "visibilityTimeoutSeconds": 45}).Decode(t, &again)
	if again.ID != q.ID {
		t.Errorf("another queue: %+v", again)
	}
	v.must(200, "POST", "/v1/queues", msg{"name": "a"})
	// Other settings or another type: 409.
	v.fails(409, "queue_exists", validRequest, "POST", "/v1/queues", msg{"name": "a", "visibilityTimeoutSeconds": 46})
	v.fails(409, "queue_exists", validRequest, "POST", "/v1/queues", msg{"name": "a", "type": "fifo"})
	v.createQueue(msg{"name": "f", "type": "fifo"})
	v.fails(409, "queue_exists", validRequest, "POST", "/v1/queues", msg{"name": "f"})
	v.must(200, "POST", "/v1/queues", msg{"name": "f", "type": "fifo"})

	// A deleted queue's name is held for 60 seconds.
	v.must(204, "DELETE", "/v1/queues/a", nil)
	v.fails(409, "queue_exists", validRequest, "POST", "/v1/queues", msg{"name": "a"})
	v.clock.Advance(61 * time.Second)
	v.createQueue(msg{"name": "a"})
}

func TestCreateQueueInvalid(t *testing.T) {
	v := newEnv(t)
	v.createQueue(msg{"name": "dlq"})
	for _, body := range []any{
		msg{},
		msg{"name": ""},
		msg{"name": strings.Repeat("n", 81)},
		msg{"name": "has space"},
		msg{"name": "x.fifo", "type": "fifo"},
		msg{"name": "ok", "type": "lifo"},
		msg{"name": "ok", "visibilityTimeoutSeconds": 43201},
		msg{"name": "ok", "visibilityTimeoutSeconds": -1},
		msg{"name": "ok", "retentionSeconds": 59},
		msg{"name": "ok", "retentionSeconds": 1209601},
		msg{"name": "ok", "delaySeconds": 901},
		msg{"name": "ok", "receiveWaitSeconds": 21},
		msg{"name": "ok", "visibilityTimeoutSeconds": "30"},
		msg{"name": "ok", "redrive": msg{"deadLetterQueue": "dlq", "maxReceiveCount": 0}},
		msg{"name": "ok", "redrive": msg{"deadLetterQueue": "dlq", "maxReceiveCount": 1001}},
		msg{"name": "ok", "redrive": msg{"maxReceiveCount": 3}},
		msg{"name": "ok", "redrive": msg{"deadLetterQueue": "dlq", "maxReceiveCount": 3, "extra": 1}},
		msg{"name": "ok", "colour": "blue"},
		`{"name": "ok"`,
		`[]`,
	} {
		v.fails(400, "invalid_request", invalidRequest, "POST", "/v1/queues", body)
	}
	v.fails(400, "invalid_request", beyondSchema, "POST", "/v1/queues", `{"name": "ok"} {}`)
	// Valid for the document, refused by the server: a missing DLQ, a
	// FIFO setting on a standard queue, a FIFO DLQ for a standard queue.
	v.createQueue(msg{"name": "fdlq", "type": "fifo"})
	for _, body := range []msg{
		{"name": "ok", "redrive": msg{"deadLetterQueue": "nope", "maxReceiveCount": 3}},
		{"name": "ok", "contentBasedDedup": true},
		{"name": "ok", "redrive": msg{"deadLetterQueue": "fdlq", "maxReceiveCount": 3}},
	} {
		v.fails(400, "invalid_request", validRequest, "POST", "/v1/queues", body)
	}
	v.fails(404, "queue_not_found", validRequest, "GET", "/v1/queues/ok", nil)
}

func TestListQueues(t *testing.T) {
	v := newEnv(t)
	names := []string{"b-1", "a-1", "a-3", "a-2", "c", "a-4"}
	for _, n := range names {
		v.createQueue(msg{"name": n})
	}
	type page struct {
		Queues     []queueOut
		NextCursor string
	}
	list := func(query string) page {
		var p page
		v.must(200, "GET", "/v1/queues"+query, nil).Decode(t, &p)
		return p
	}
	namesOf := func(p page) []string {
		var out []string
		for _, q := range p.Queues {
			out = append(out, q.Name)
		}
		return out
	}
	all := list("")
	if got := namesOf(all); !slices.Equal(got, []string{"a-1", "a-2", "a-3", "a-4", "b-1", "c"}) || all.NextCursor != "" {
		t.Errorf("all: %v %q", got, all.NextCursor)
	}
	// Pages of two under a prefix.
	var got []string
	cursor := ""
	pages := 0
	for {
		q := "?prefix=a-&limit=2"
		if cursor != "" {
			q += "&cursor=" + cursor
		}
		p := list(q)
		pages++
		got = append(got, namesOf(p)...)
		if p.NextCursor == "" {
			break
		}
		cursor = p.NextCursor
	}
	if !slices.Equal(got, []string{"a-1", "a-2", "a-3", "a-4"}) || pages != 2 {
		t.Errorf("paged: %v in %d pages", got, pages)
	}
	if p := list("?prefix=zzz"); len(p.Queues) != 0 || string(v.must(200, "GET", "/v1/queues?prefix=zzz", nil).Body) != "{\"queues\":[]}\n" {
		t.Errorf("empty: %+v", p)
	}
	v.fails(400, "invalid_request", invalidRequest, "GET", "/v1/queues?limit=0", nil)
	v.fails(400, "invalid_request", invalidRequest, "GET", "/v1/queues?limit=1001", nil)
	v.fails(400, "invalid_request", invalidRequest, "GET", "/v1/queues?limit=x", nil)
	v.fails(400, "invalid_request", validRequest, "GET", "/v1/queues?cursor=!!", nil)
}

func TestUpdateQueue(t *testing.T) {
	v := newEnv(t)
	dlq := v.createQueue(msg{"name": "dlq"})
	q := v.createQueue(msg{"name": "work", "delaySeconds": 5})
	v.clock.Advance(1500 * time.Millisecond)
	var u queueOut
	v.must(200, "PATCH", "/v1/queues/work", msg{"visibilityTimeoutSeconds": 90}).Decode(t, &u)
	if u.VisibilityTimeoutSeconds != 90 || u.DelaySeconds != 5 || u.RetentionSeconds != 345600 {
		t.Errorf("left-out fields changed: %+v", u)
	}
	if u.UpdatedAt != "2026-01-02T03:04:06.500Z" || u.CreatedAt != q.CreatedAt {
		t.Errorf("times %s %s", u.CreatedAt, u.UpdatedAt)
	}
	// The DLQ by name, slug or id; answered as its id.
	for _, ref := range []string{dlq.Name, dlq.Slug, dlq.ID} {
		v.must(200, "PATCH", "/v1/queues/"+q.Slug, msg{"redrive": msg{"deadLetterQueue": ref, "maxReceiveCount": 4}}).Decode(t, &u)
		if u.Redrive == nil || u.Redrive.DeadLetterQueue != dlq.ID || u.Redrive.MaxReceiveCount != 4 {
			t.Fatalf("redrive by %s: %+v", ref, u.Redrive)
		}
	}
	// Left out keeps the policy; null removes it.
	v.must(200, "PATCH", "/v1/queues/work", msg{"receiveWaitSeconds": 3}).Decode(t, &u)
	if u.Redrive == nil || u.ReceiveWaitSeconds != 3 || u.VisibilityTimeoutSeconds != 90 {
		t.Errorf("after an unrelated change: %+v", u)
	}
	v.must(200, "PATCH", "/v1/queues/"+q.ID, msg{"redrive": nil}).Decode(t, &u)
	if u.Redrive != nil || u.VisibilityTimeoutSeconds != 90 {
		t.Errorf("after redrive null: %+v", u)
	}
	// The queue's own name and type are accepted; other ones are not.
	v.must(200, "PATCH", "/v1/queues/work", msg{"name": "work", "type": "standard"})
	v.must(200, "PATCH", "/v1/queues/work", msg{})
	v.fails(400, "invalid_request", validRequest, "PATCH", "/v1/queues/work", msg{"name": "other"})
	v.fails(400, "invalid_request", validRequest, "PATCH", "/v1/queues/work", msg{"type": "fifo"})
	v.fails(400, "invalid_request", validRequest, "PATCH", "/v1/queues/work", msg{"contentBasedDedup": true})
	v.fails(400, "invalid_request", validRequest, "PATCH", "/v1/queues/work", msg{"redrive": msg{"deadLetterQueue": "nope", "maxReceiveCount": 1}})
	for _, body := range []any{
		msg{"id": "x"},
		msg{"counts": msg{}},
		msg{"visibilityTimeoutSeconds": nil},
		msg{"visibilityTimeoutSeconds": 43201},
		msg{"retentionSeconds": 10},
		msg{"delaySeconds": true},
		msg{"redrive": msg{"deadLetterQueue": "dlq", "maxReceiveCount": 0}},
		msg{"redrive": "dlq"},
		`{`,
		``,
	} {
		v.fails(400, "invalid_request", invalidRequest, "PATCH", "/v1/queues/work", body)
	}
	v.fails(404, "queue_not_found", validRequest, "PATCH", "/v1/queues/nope", msg{"delaySeconds": 1})

	// FIFO: contentBasedDedup may change.
	v.createQueue(msg{"name": "f", "type": "fifo"})
	v.must(200, "PATCH", "/v1/queues/f", msg{"contentBasedDedup": true}).Decode(t, &u)
	if !u.ContentBasedDedup || u.Type != "fifo" {
		t.Errorf("fifo: %+v", u)
	}
	// Settings apply to later receives.
	v.sendOK("work", msg{"body": "x", "delaySeconds": 0})
	got := v.receive("work", msg{})
	if len(got) != 1 {
		t.Fatalf("received %d", len(got))
	}
	v.clock.Advance(89 * time.Second)
	if q := v.getQueue("work"); q.Counts.InFlight != 1 {
		t.Errorf("the new 90 s visibility timeout did not apply: %+v", q.Counts)
	}
	v.clock.Advance(time.Second)
	if q := v.getQueue("work"); q.Counts.Visible != 1 {
		t.Errorf("not visible after 90 s: %+v", q.Counts)
	}
}

func TestDeleteQueue(t *testing.T) {
	v := newEnv(t)
	dlq := v.createQueue(msg{"name": "dlq"})
	v.createQueue(msg{"name": "src", "redrive": msg{"deadLetterQueue": "dlq", "maxReceiveCount": 2}})
	v.fails(409, "queue_in_use", validRequest, "DELETE", "/v1/queues/"+dlq.ID, nil)
	v.must(200, "PATCH", "/v1/queues/src", msg{"redrive": nil})
	v.sendOK("dlq", msg{"body": "m"})
	h := v.receive("dlq", msg{})[0].ReceiptHandle
	v.must(204, "DELETE", "/v1/queues/"+dlq.Slug, nil)
	v.fails(404, "queue_not_found", validRequest, "GET", "/v1/queues/dlq", nil)
	v.fails(404, "queue_not_found", validRequest, "DELETE", "/v1/queues/dlq", nil)
	// Its receipt handles are stale.
	if r := v.ack(h); r[0].Error == nil || r[0].Error.Code != "receipt_handle_stale" {
		t.Errorf("ack after delete: %+v", r[0])
	}
	v.fails(409, "receipt_handle_stale", validRequest, "POST", "/v1/messages/visibility", msg{"receiptHandle": h, "visibilityTimeoutSeconds": 5})
	// A queue that names itself may go.
	v.createQueue(msg{"name": "self"})
	v.must(200, "PATCH", "/v1/queues/self", msg{"redrive": msg{"deadLetterQueue": "self", "maxReceiveCount": 1}})
	v.must(204, "DELETE", "/v1/queues/self", nil)
}

func TestPurgeQueue(t *testing.T) {
	v := newEnv(t)
	v.createQueue(msg{"name": "p"})
	v.sendOK("p", msg{"body": "1"}, msg{"body": "2"}, msg{"body": "3", "delaySeconds": 60})
	h := v.receive("p", msg{})[0].ReceiptHandle
	v.must(204, "POST", "/v1/queues/p/purge", nil)
	if q := v.getQueue("p"); q.Counts.Visible+q.Counts.InFlight+q.Counts.Delayed != 0 {
		t.Errorf("after purge: %+v", q.Counts)
	}
	if r := v.ack(h); r[0].Error == nil || r[0].Error.Code != "receipt_handle_stale" {
		t.Errorf("in-flight message survived the purge: %+v", r)
	}
	// Messages sent after the purge stay.
	v.sendOK("p", msg{"body": "after"})
	v.fails(429, "purge_in_progress", validRequest, "POST", "/v1/queues/p/purge", nil)
	if q := v.getQueue("p"); q.Counts.Visible != 1 {
		t.Errorf("message sent after the purge: %+v", q.Counts)
	}
	v.clock.Advance(59 * time.Second)
	v.fails(429, "purge_in_progress", validRequest, "POST", "/v1/queues/p/purge", nil)
	v.clock.Advance(time.Second)
	v.must(204, "POST", "/v1/queues/p/purge", nil)
	v.fails(404, "queue_not_found", validRequest, "POST", "/v1/queues/nope/purge", nil)
}

func TestRequestTooLarge(t *testing.T) {
	v := newEnv(t)
	v.createQueue(msg{"name": "big"})
	body, _ := json.Marshal(msg{"messages": []msg{{"body": bigString(rest.MaxRequestBytes)}}})
	// Too large to be worth checking against the schema; the answer is checked.
	v.fails(http.StatusRequestEntityTooLarge, "message_too_large", beyondSchema, "POST", "/v1/queues/big/messages", string(body))
}

// A request that announces a body over the cap is refused without any of
// it being read.
func TestRequestAnnouncedTooLarge(t *testing.T) {
	e, _ := openEngine(t)
	t.Cleanup(func() { e.Close() })
	router := httprouter.New()
	rest.New(e, rest.Options{}).Register(router)
	for _, path := range []string{"/v1/queues", "/v1/messages/acknowledge"} {
		read := false
		r := httptest.NewRequest(http.MethodPost, path, readFunc(func([]byte) (int, error) {
			read = true
			return 0, io.EOF
		}))
		r.ContentLength = rest.MaxRequestBytes + 1
		w := httptest.NewRecorder()
		router.ServeHTTP(w, r)
		res := &resp{Status: w.Code, Header: w.Header(), Body: w.Body.Bytes()}
		if res.Status != http.StatusRequestEntityTooLarge || res.ErrCode(t) != "message_too_large" {
			t.Errorf("POST %s: got %d %s, want 413 message_too_large", path, res.Status, res.Body)
		}
		if read {
			t.Errorf("POST %s: the body was read", path)
		}
	}
}

type readFunc func([]byte) (int, error)

func (f readFunc) Read(p []byte) (int, error) { return f(p) }
