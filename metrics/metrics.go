// Package metrics exports every queue's figures in the Prometheus text
// format: the gauges and counters of the queue metrics in
// docs/rest-api.md, "Health and metrics" (available, in flight, delayed, stored bytes, age of the
// oldest available message; enqueued, received, removed and bytes
// enqueued), labelled by queue name, counting messages from every protocol;
// and, as a step of the dispatch chain, the count and duration of every
// protocol's requests by action (Requests).
package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/minisqs/minisqs/engine"
)

// queueCollector reads the engine's queues at each scrape, so the figures
// are those of the moment and need no bookkeeping of their own.
type queueCollector struct {
	e *engine.Engine
}

func desc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc("minisqs_queue_"+name, help, []string{"queue"}, nil)
}

var (
	available     = desc("messages_available", "Messages visible to a receive.")
	inFlight      = desc("messages_in_flight", "Messages received and not yet deleted or visible again.")
	delayed       = desc("messages_delayed", "Messages whose delay has not ended.")
	storedBytes   = desc("stored_bytes", "Bytes of stored message bodies and attributes.")
	oldestAge     = desc("oldest_available_message_age_seconds", "Time since the oldest available message was sent; zero when none is available.")
	enqueued      = desc("messages_enqueued_total", "Messages stored, redriven ones included and deduplicated sends excluded.")
	received      = desc("messages_received_total", "Deliveries of messages, redeliveries included.")
	removed       = desc("messages_removed_total", "Messages removed by deletion, expiry, purge or moving to another queue.")
	bytesEnqueued = desc("bytes_enqueued_total", "Bytes of messages stored.")
)

func (c queueCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{available, inFlight, delayed, storedBytes, oldestAge, enqueued, received, removed, bytesEnqueued} {
		ch <- d
	}
}

func (c queueCollector) Collect(ch chan<- prometheus.Metric) {
	for _, q := range c.e.AllQueues() {
		s := q.Stats()
		name := q.Name()
		gauge := func(d *prometheus.Desc, v float64) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, name)
		}
		counter := func(d *prometheus.Desc, v int64) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), name)
		}
		gauge(available, float64(s.Visible))
		gauge(inFlight, float64(s.InFlight))
		gauge(delayed, float64(s.Delayed))
		gauge(storedBytes, float64(s.StoredBytes))
		gauge(oldestAge, s.OldestAvailableAge.Seconds())
		counter(enqueued, s.Enqueued)
		counter(received, s.Received)
		counter(removed, s.Removed)
		counter(bytesEnqueued, s.BytesEnqueued)
	}
}

// Handler serves GET /metrics for e, with the Go runtime's and the
// process's own metrics beside the queues', and those of extra (such as
// Requests).
func Handler(e *engine.Engine, extra ...prometheus.Collector) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(queueCollector{e}, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(extra...)
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}
