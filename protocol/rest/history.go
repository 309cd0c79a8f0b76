package rest

// Depth history: GetQueueHistory and ListQueueHistories answer the counts
// that Options.History sampled over the last minutes, for sparklines.

import (
	"net/http"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/worker/history"
)

type sampleJSON struct {
	At       string `json:"at"`
	Visible  int    `json:"visible"`
	InFlight int    `json:"inFlight"`
	Delayed  int    `json:"delayed"`
}

type queueHistoryJSON struct {
	Queue           string       `json:"queue"`
	IntervalSeconds float64      `json:"intervalSeconds"`
	Samples         []sampleJSON `json:"samples"`
}

type historiesOutput struct {
	Queues []queueHistoryJSON `json:"queues"`
}

// queueHistory is q's samples, oldest first; none without a sampler.
func (a *API) queueHistory(q *engine.Queue) queueHistoryJSON {
	out := queueHistoryJSON{Queue: q.ID(), Samples: []sampleJSON{}}
	h := a.opts.History
	if h == nil {
		return out
	}
	out.IntervalSeconds = h.Interval().Seconds()
	for _, s := range h.Queue(q.ID()) {
		out.Samples = append(out.Samples, sampleOf(s))
	}
	return out
}

func sampleOf(s history.Sample) sampleJSON {
	c := countsOf(s.Counts)
	return sampleJSON{At: formatTime(s.At), Visible: c.Visible, InFlight: c.InFlight, Delayed: c.Delayed}
}

func (a *API) getQueueHistory(c *call) (int, any, error) {
	q, err := a.queue(c)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, a.queueHistory(q), nil
}

// listQueueHistories answers every queue's history, in name order, so that
// a list of queues needs one request for all its sparklines.
func (a *API) listQueueHistories(c *call) (int, any, error) {
	out := historiesOutput{Queues: []queueHistoryJSON{}}
	for _, q := range a.e.QueuesIn(c.ns, c.r.URL.Query().Get("prefix")) {
		out.Queues = append(out.Queues, a.queueHistory(q))
	}
	return http.StatusOK, out, nil
}
