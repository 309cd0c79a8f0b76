package rest_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/minisqs/minisqs/protocol/rest"
	"github.com/minisqs/minisqs/server"
	"github.com/minisqs/minisqs/worker/history"
)

func TestQueueTags(t *testing.T) {
	v := newEnv(t)
	v.createQueue(msg{"name": "q"})
	var tags struct{ Tags map[string]string }
	v.must(200, "GET", "/v1/queues/q/tags", nil).Decode(t, &tags)
	if tags.Tags == nil || len(tags.Tags) != 0 {
		t.Errorf("no tags: %+v", tags)
	}
	v.must(200, "PUT", "/v1/queues/q/tags", msg{"tags": msg{"team": "pay", "env": "dev"}})
	v.must(200, "PUT", "/v1/queues/q/tags", msg{"tags": msg{"team": "ops"}}).Decode(t, &tags)
	if len(tags.Tags) != 1 || tags.Tags["team"] != "ops" {
		t.Errorf("replaced: %+v", tags)
	}
	// The same tags through SQS.
	out, err := v.sqsClient().ListQueueTags(t.Context(), &sqsv2.ListQueueTagsInput{QueueUrl: awsv2.String(v.url + "/000000000000/q")})
	if err != nil || len(out.Tags) != 1 || out.Tags["team"] != "ops" {
		t.Errorf("ListQueueTags: %v %v", out, err)
	}
	v.fails(400, "invalid_request", validRequest, "PUT", "/v1/queues/q/tags", msg{"tags": msg{strings.Repeat("k", 129): "v"}})
	many := msg{}
	for i := range 51 {
		many[strings.Repeat("k", i+1)] = "v"
	}
	v.fails(400, "invalid_request", invalidRequest, "PUT", "/v1/queues/q/tags", msg{"tags": many})
	v.fails(400, "invalid_request", invalidRequest, "PUT", "/v1/queues/q/tags", msg{})
	v.fails(404, "queue_not_found", validRequest, "GET", "/v1/queues/nope/tags", nil)
	v.must(200, "GET", "/v1/queues/q/tags", nil).Decode(t, &tags)
	if len(tags.Tags) != 1 {
		t.Errorf("refused puts changed the tags: %+v", tags)
	}
}

type historyOut struct {
	Queue           string  `json:"queue"`
	IntervalSeconds float64 `json:"intervalSeconds"`
	Samples         []struct {
		At                         string
		Visible, InFlight, Delayed int
	} `json:"samples"`
}

func TestQueueHistory(t *testing.T) {
	e, clock := openEngine(t)
	sampler := history.New(e, 5*time.Second, time.Minute)
	srv := httptest.NewServer(server.NewHandler(e, server.HandlerOptions{History: sampler}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { e.Close() })
	v := &env{t: t, url: srv.URL, e: e, clock: clock}

	q := v.createQueue(msg{"name": "q"})
	v.createQueue(msg{"name": "r"})
	sampler.Sample()
	v.sendOK("q", msg{"body": "1"}, msg{"body": "2"})
	v.receive("q", msg{})
	clock.Advance(5 * time.Second)
	sampler.Sample()

	var h historyOut
	v.must(200, "GET", "/v1/queues/q/history", nil).Decode(t, &h)
	if h.Queue != q.ID || h.IntervalSeconds != 5 || len(h.Samples) != 2 {
		t.Fatalf("history: %+v", h)
	}
	if s := h.Samples[1]; s.At != "2026-01-02T03:04:10.000Z" || s.Visible != 1 || s.InFlight != 1 || h.Samples[0].Visible != 0 {
		t.Errorf("samples: %+v", h.Samples)
	}
	var all struct{ Queues []historyOut }
	v.must(200, "GET", "/v1/history", nil).Decode(t, &all)
	if len(all.Queues) != 2 || all.Queues[0].Queue != q.ID || len(all.Queues[1].Samples) != 2 {
		t.Errorf("every queue: %+v", all)
	}
	v.must(200, "GET", "/v1/history?prefix=r", nil).Decode(t, &all)
	if len(all.Queues) != 1 {
		t.Errorf("prefix r: %+v", all)
	}
	v.fails(404, "queue_not_found", validRequest, "GET", "/v1/queues/nope/history", nil)

	// Without a sampler a history is empty.
	plain := newEnv(t)
	plain.createQueue(msg{"name": "q"})
	plain.must(200, "GET", "/v1/queues/q/history", nil).Decode(t, &h)
	if len(h.Samples) != 0 || h.IntervalSeconds != 0 {
		t.Errorf("no sampler: %+v", h)
	}
}

func TestListSubscriptions(t *testing.T) {
	v := newEnv(t)
	v.createQueue(msg{"name": "a"})
	v.createQueue(msg{"name": "b"})
	v.createQueue(msg{"name": "c"})
	v.must(201, "PUT", "/v1/queues/c/subscription", msg{"endpoint": "http://127.0.0.1:1/c"})
	v.must(201, "PUT", "/v1/queues/a/subscription", msg{"endpoint": "http://127.0.0.1:1/a"})
	var out struct {
		Subscriptions []struct{ Endpoint string }
	}
	v.must(200, "GET", "/v1/subscriptions", nil).Decode(t, &out)
	if len(out.Subscriptions) != 2 || out.Subscriptions[0].Endpoint != "http://127.0.0.1:1/a" {
		t.Errorf("subscriptions: %+v", out)
	}
}

func TestWhoAmI(t *testing.T) {
	var who struct {
		Role           string `json:"role"`
		TokensRequired bool   `json:"tokensRequired"`
	}
	newEnv(t).must(200, "GET", "/v1/whoami", nil).Decode(t, &who)
	if who.Role != "admin" || who.TokensRequired {
		t.Errorf("open server: %+v", who)
	}
	v := newRESTEnv(t, rest.Options{Tokens: map[string]rest.Role{"ins": rest.RoleInspector}})
	v.withToken("ins").must(200, "GET", "/v1/whoami", nil).Decode(t, &who)
	if who.Role != "inspector" || !who.TokensRequired {
		t.Errorf("inspector: %+v", who)
	}
	v.fails(401, "unauthorized", validRequest, "GET", "/v1/whoami", nil)
}
