package rest_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/rest"
)

type subscriptionOut struct {
	Slug           string `json:"slug"`
	Queue          string `json:"queue"`
	Endpoint       string `json:"endpoint"`
	BatchSize      int    `json:"batchSize"`
	MaxWaitSeconds int    `json:"maxWaitSeconds"`
	CreatedAt      string `json:"createdAt"`
	LastDelivery   *struct {
		At       string `json:"at"`
		Status   int    `json:"status"`
		Error    string `json:"error"`
		Messages int    `json:"messages"`
	} `json:"lastDelivery"`
}

func TestSubscriptions(t *testing.T) {
	var mu sync.Mutex
	var changed []string
	v := newRESTEnv(t, rest.Options{})
	v.e.WatchSubscriptions(func(q *engine.Queue) {
		mu.Lock()
		defer mu.Unlock()
		changed = append(changed, q.Name())
	})
	changes := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), changed...)
	}
	q := v.createQueue(msg{"name": "q"})
	const path = "/v1/queues/q/subscription"
	v.fails(404, "subscription_not_found", validRequest, "GET", path, nil)
	v.fails(404, "subscription_not_found", validRequest, "DELETE", path, nil)

	var s subscriptionOut
	v.must(201, "PUT", path, msg{"endpoint": "http://127.0.0.1:9/hook", "batchSize": 5, "maxWaitSeconds": 3}).Decode(t, &s)
	if !strings.HasPrefix(s.Slug, "qsb_") || s.Queue != q.ID || s.Endpoint != "http://127.0.0.1:9/hook" || s.BatchSize != 5 ||
		s.MaxWaitSeconds != 3 || s.LastDelivery != nil || s.CreatedAt != "2026-01-02T03:04:05.000Z" {
		t.Errorf("put: %+v", s)
	}
	if got := changes(); len(got) != 1 {
		t.Errorf("SubscriptionChanged calls: %v", got)
	}
	// Replacing gives a new slug; defaults fill what is left out.
	var s2 subscriptionOut
	v.must(200, "PUT", "/v1/queues/"+q.Slug+"/subscription", msg{"endpoint": "https://example.com/x"}).Decode(t, &s2)
	if s2.Slug == s.Slug || s2.BatchSize != 10 || s2.MaxWaitSeconds != 20 {
		t.Errorf("replace: %+v", s2)
	}
	// The last delivery, as the push deliverer records it.
	qq, _ := v.e.LookupQueue("q")
	qq.RecordDelivery(s2.Slug, engine.DeliveryResult{At: v.clock.Now().Add(time.Second), Messages: 3, Status: 502, Error: "bad gateway"})
	v.must(200, "GET", path, nil).Decode(t, &s)
	if s.Slug != s2.Slug || s.LastDelivery == nil || s.LastDelivery.Status != 502 || s.LastDelivery.Messages != 3 ||
		s.LastDelivery.Error != "bad gateway" || s.LastDelivery.At != "2026-01-02T03:04:06.000Z" {
		t.Errorf("get: %+v %+v", s, s.LastDelivery)
	}
	for _, body := range []any{
		msg{},
		msg{"endpoint": ""},
		msg{"endpoint": "http://x", "batchSize": 0},
		msg{"endpoint": "http://x", "batchSize": 11},
		msg{"endpoint": "http://x", "maxWaitSeconds": 21},
		msg{"endpoint": "http://x", "other": true},
	} {
		v.fails(400, "invalid_request", invalidRequest, "PUT", path, body)
	}
	v.fails(400, "invalid_request", validRequest, "PUT", path, msg{"endpoint": "ftp://x/y"})
	v.fails(400, "invalid_request", validRequest, "PUT", path, msg{"endpoint": "not a url"})
	v.fails(404, "queue_not_found", validRequest, "PUT", "/v1/queues/nope/subscription", msg{"endpoint": "http://x"})
	v.fails(404, "queue_not_found", validRequest, "GET", "/v1/queues/nope/subscription", nil)
	v.fails(404, "queue_not_found", validRequest, "DELETE", "/v1/queues/nope/subscription", nil)

	v.must(204, "DELETE", path, nil)
	v.fails(404, "subscription_not_found", validRequest, "GET", path, nil)
	if got := changes(); len(got) != 3 {
		t.Errorf("SubscriptionChanged calls: %v", got)
	}
	// Deleting a queue with a subscription tells the deliverer too.
	v.must(201, "PUT", path, msg{"endpoint": "http://x"})
	v.must(204, "DELETE", "/v1/queues/q", nil)
	if got := changes(); len(got) != 5 {
		t.Errorf("SubscriptionChanged calls: %v", got)
	}
}
