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
	// byAction holds, for each protocol by its index, the *actionMetrics
	// of each action that has succeeded: a successful request finds its
	// histogram and counter by a lookup of its action's name, without
	// hashing and checking label values. A map is never changed but
	// replaced, under mu, by one with a key more: there are a few dozen
	// keys, all added early.
	byAction [protocolCount]atomic.Pointer[map[string]*actionMetrics]
	mu       sync.Mutex
}

// protocolCount is how many protocols protocolIndex numbers.
const protocolCount = 4

// protocolIndex numbers the protocols from 0 to protocolCount-1, or gives
// -1 for an unknown one, whose successes byAction does not keep.
func protocolIndex(p dispatch.Protocol) int {
	switch p {
	case dispatch.Query:
		return 0
	case dispatch.JSON:
		return 1
	case dispatch.REST:
		return 2
	case dispatch.Go:
		return 3
	}
	return -1
}

// actionMetrics are the series that every successful request of one
// protocol and action updates.
type actionMetrics struct {
	duration prometheus.Observer
	ok       prometheus.Counter
}

func (m *Requests) forAction(p dispatch.Protocol, action string) *actionMetrics {
	i := protocolIndex(p)
	if i < 0 {
		return m.newActionMetrics(p, action)
	}
	if byAction := m.byAction[i].Load(); byAction != nil {
		if am := (*byAction)[action]; am != nil {
			return am
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var old map[string]*actionMetrics
	if cur := m.byAction[i].Load(); cur != nil {
		old = *cur
	}
	if am := old[action]; am != nil {
		return am
	}
	byAction := make(map[string]*actionMetrics, len(old)+1)
	maps.Copy(byAction, old)
	am := m.newActionMetrics(p, action)
	byAction[action] = am
	m.byAction[i].Store(&byAction)
	return am
}

// newActionMetrics finds the series of p and action's successes.
func (m *Requests) newActionMetrics(p dispatch.Protocol, action string) *actionMetrics {
	return &actionMetrics{
		duration: m.duration.WithLabelValues(string(p), action),
		ok:       m.total.WithLabelValues(string(p), action, "ok"),
	}
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
