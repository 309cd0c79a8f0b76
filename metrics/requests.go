package metrics

import (
	"context"
	"errors"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/minisqs/minisqs/protocol/dispatch"
)

// Requests counts and times the requests of every front end as a step of
// the dispatch chain:
//
//	minisqs_requests_total{protocol, action, outcome}
//	minisqs_request_duration_seconds{protocol, action}
//
// where outcome is "ok", the answer's error code, or "dropped" when a fault
// rule closed the connection. It is a prometheus.Collector for Handler.
type Requests struct {
	total    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	// byAction holds, by requestKey, the *actionMetrics of each protocol
	// and action that has succeeded: a successful request finds its
	// histogram and counter without hashing and checking label values. The
	// map is never changed but replaced, under mu, by one with a key more:
	// there are a few dozen keys, all added early.
	byAction atomic.Pointer[map[requestKey]*actionMetrics]
	mu       sync.Mutex
}

type requestKey struct {
	protocol dispatch.Protocol
	action   string
}

// actionMetrics are the series that every successful request of one
// protocol and action updates.
type actionMetrics struct {
	duration prometheus.Observer
	ok       prometheus.Counter
}

func (m *Requests) forAction(p dispatch.Protocol, action string) *actionMetrics {
	k := requestKey{p, action}
	if byAction := m.byAction.Load(); byAction != nil {
		if am := (*byAction)[k]; am != nil {
			return am
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var old map[requestKey]*actionMetrics
	if cur := m.byAction.Load(); cur != nil {
		old = *cur
	}
	if am := old[k]; am != nil {
		return am
	}
	byAction := make(map[requestKey]*actionMetrics, len(old)+1)
	maps.Copy(byAction, old)
	am := &actionMetrics{
		duration: m.duration.WithLabelValues(string(p), action),
		ok:       m.total.WithLabelValues(string(p), action, "ok"),
	}
	byAction[k] = am
	m.byAction.Store(&byAction)
	return am
}

// requestBuckets span an in-process answer (well under a millisecond) to a
// long poll's 20 s.
var requestBuckets = []float64{0.0005, 0.001, 0.0025, 0.01, 0.05, 0.25, 1, 5, 10, 20}

// NewRequests returns the request metrics, all at zero.
func NewRequests() *Requests {
	return &Requests{
		total: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "minisqs_requests_total",
			Help: "Requests served, by protocol, action and outcome (ok, an error code, or dropped).",
		}, []string{"protocol", "action", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "minisqs_request_duration_seconds",
			Help:    "Time to serve a request, long polls and fault latency included.",
			Buckets: requestBuckets,
		}, []string{"protocol", "action"}),
	}
}

// Step is the chain step that counts and times each request.
func (m *Requests) Step() dispatch.Step {
	return func(next dispatch.Handler) dispatch.Handler {
		return func(ctx context.Context, req *dispatch.Request) (any, error) {
			start := time.Now()
			out, err := next(ctx, req)
			outcome := "ok"
			if errors.Is(err, dispatch.ErrDropped) {
				outcome = "dropped"
			} else if _, code := req.Outcome(out, err); code != "" {
				outcome = code
			}
			took := time.Since(start).Seconds()
			if outcome == "ok" {
				am := m.forAction(req.Protocol, req.Action)
				am.duration.Observe(took)
				am.ok.Inc()
				return out, err
			}
			m.duration.WithLabelValues(string(req.Protocol), req.Action).Observe(took)
			m.total.WithLabelValues(string(req.Protocol), req.Action, outcome).Inc()
			return out, err
		}
	}
}

// Describe implements prometheus.Collector.
func (m *Requests) Describe(ch chan<- *prometheus.Desc) {
	m.total.Describe(ch)
	m.duration.Describe(ch)
}

// Collect implements prometheus.Collector.
func (m *Requests) Collect(ch chan<- prometheus.Metric) {
	m.total.Collect(ch)
	m.duration.Collect(ch)
}
