// Package journal keeps the test-control API's request journal: a chain
// step that records every request it sees in a bounded ring, and
// GET /_minisqs/requests, which lists the most recent, newest first. A test
// reads it to see what its client really sent: how often it retried, which
// requests a fault rule answered, which failed and how.
package journal

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/minisqs/minisqs/protocol/dispatch"
	"github.com/minisqs/minisqs/protocol/rest"
)

// Size is how many requests the ring holds; older ones are forgotten.
const Size = 1000

// DefaultLimit is how many requests a listing gives when it names no limit.
const DefaultLimit = 100

// Path is where the journal is served.
const Path = "/_minisqs/requests"

// Entry is one request served.
type Entry struct {
	// Time is when the request arrived, on the engine's clock, as the
	// timestamps of messages are.
	Time     time.Time
	Protocol dispatch.Protocol
	Action   string
	Queue    string
	// Status is the HTTP status of the answer; 0 when a fault rule dropped
	// the connection.
	Status int
	// ErrorCode is the code of a failed request's error: the SQS query code
	// (which the JSON protocol also sends) or the REST API's code.
	ErrorCode string
	// Duration is how long the request took, in real time.
	Duration time.Duration
	// FaultID is the fault rule that hit the request, if one did.
	FaultID string
}

// Journal is a ring of the most recent requests, safe for concurrent use.
type Journal struct {
	now func() time.Time // the engine's clock

	mu      sync.Mutex // guards ring, next and wrapped
	ring    [Size]Entry
	next    int  // where the next entry goes
	wrapped bool // every slot of ring holds an entry
}

// New returns an empty journal whose entries take their time from now.
func New(now func() time.Time) *Journal {
	return &Journal{now: now}
}

// Step is the chain step that records each request once it is answered.
func (j *Journal) Step() dispatch.Step {
	return func(next dispatch.Handler) dispatch.Handler {
		return func(ctx context.Context, req *dispatch.Request) (any, error) {
			arrived, start := j.now(), time.Now()
			out, err := next(ctx, req)
			status, code := req.Outcome(out, err)
			j.add(Entry{
				Time: arrived, Protocol: req.Protocol, Action: req.Action, Queue: req.Queue,
				Status: status, ErrorCode: code, Duration: time.Since(start), FaultID: req.FaultID,
			})
			return out, err
		}
	}
}

func (j *Journal) add(e Entry) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.ring[j.next] = e
	j.next++
	if j.next == Size {
		j.next, j.wrapped = 0, true
	}
}

// Recent returns up to limit entries, newest first, in the order the
// requests were answered.
func (j *Journal) Recent(limit int) []Entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := j.next
	if j.wrapped {
		n = Size
	}
	n = min(n, limit)
	out := make([]Entry, n)
	for i := range out {
		out[i] = j.ring[(j.next-1-i+Size)%Size]
	}
	return out
}

// Clear forgets every entry.
func (j *Journal) Clear() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.ring, j.next, j.wrapped = [Size]Entry{}, 0, false
}

// entryJSON is an entry as the API answers it.
type entryJSON struct {
	Time       string            `json:"time"`
	Protocol   dispatch.Protocol `json:"protocol"`
	Action     string            `json:"action"`
	Queue      string            `json:"queue,omitempty"`
	Status     int               `json:"status"`
	ErrorCode  string            `json:"errorCode,omitempty"`
	DurationMs float64           `json:"durationMs"`
	FaultID    string            `json:"faultId,omitempty"`
}

// ServeHTTP answers GET /_minisqs/requests?limit=N: the N most recent
// requests (DefaultLimit without limit, at most Size), newest first.
func (j *Journal) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	limit := DefaultLimit
	if s := r.URL.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			rest.WriteError(w, rest.Errorf(rest.CodeInvalidRequest, "limit must be a whole number from 1 to %d.", Size))
			return
		}
		limit = min(n, Size)
	}
	entries := j.Recent(limit)
	out := struct {
		Requests []entryJSON `json:"requests"`
	}{make([]entryJSON, len(entries))}
	for i, e := range entries {
		out.Requests[i] = entryJSON{
			Time: rest.FormatTime(e.Time), Protocol: e.Protocol, Action: e.Action, Queue: e.Queue,
			Status: e.Status, ErrorCode: e.ErrorCode, FaultID: e.FaultID,
			DurationMs: float64(e.Duration.Microseconds()) / 1000,
		}
	}
	rest.WriteJSON(w, http.StatusOK, out)
}
