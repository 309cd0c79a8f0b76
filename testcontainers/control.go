package minisqs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// The control helpers drive the server's test-control API, served under
// /_minisqs/ on the same port as SQS: reset it, move its clock, inject
// faults, save and load its state, wait for a queue's condition and list the
// requests it served. They reach it through the mapped port, and send the
// admin token of WithAdminToken, if any, as a bearer token.

// controlPath is where the test-control API is served.
const controlPath = "/_minisqs"

// APIError is an error answered by the control API, which writes
// {"error": {"code", "message"}}; Code is stable, Message is for people.
// An answer in another shape (a server too old to have the route, say)
// leaves Code empty and puts the start of the body in Message.
type APIError struct {
	// Status is the answer's HTTP status.
	Status int
	// Code is the API's error code, such as "queue_not_found".
	Code string
	// Message explains the error.
	Message string
}

func (e *APIError) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("minisqs control API: HTTP %d: %s", e.Status, e.Message)
	}
	return fmt.Sprintf("minisqs control API: %s (HTTP %d): %s", e.Code, e.Status, e.Message)
}

// Clock is the server's engine clock: the time every time rule (visibility,
// delays, retention, deduplication) reads, and how far Advance has moved it
// ahead of the real clock.
type Clock struct {
	Now           time.Time `json:"now"`
	OffsetSeconds float64   `json:"offsetSeconds"`
}

// Fault is a fault rule: which requests it hits (Action, and Queue if set)
// and its one effect (Error, LatencyMs or Drop). AddFault and Faults fill
// in ID and Hits.
type Fault struct {
	// ID names the rule for DeleteFault; the server assigns it.
	ID string `json:"id,omitempty"`
	// Action is an SQS action (SendMessage), a REST operation name, or "*"
	// for every request.
	Action string `json:"action"`
	// Queue, if set, limits the rule to requests for that queue.
	Queue string `json:"queue,omitempty"`
	// Error is the error code to answer with, such as "ServiceUnavailable",
	// "ThrottlingException", "RequestThrottled" or "QueueDoesNotExist",
	// in the request's own protocol as AWS shapes it, so that the SDK
	// classifies and retries it as it would against AWS.
	Error string `json:"error,omitempty"`
	// LatencyMs delays matching requests by that many milliseconds.
	LatencyMs int `json:"latencyMs,omitempty"`
	// Drop closes the connection without an answer.
	Drop bool `json:"drop,omitempty"`
	// Probability is the chance that a matching request is hit, above 0
	// up to 1; 0 leaves the server's default, 1.
	Probability float64 `json:"probability,omitempty"`
	// Count is how many requests the rule hits at most; 0 is no limit.
	Count int `json:"count,omitempty"`
	// Hits is how many requests the rule has hit so far.
	Hits int64 `json:"hits,omitempty"`
}

// WaitCondition is what Wait waits for on one queue. Set one of Visible,
// InFlight, Empty and BodyContains.
type WaitCondition struct {
	// Queue is the queue's name.
	Queue string
	// Timeout bounds the wait on the server; 0 leaves the server's default.
	Timeout time.Duration
	// Visible waits for at least that many visible messages.
	Visible int
	// InFlight waits for at least that many messages in flight.
	InFlight int
	// Empty waits for no message visible, in flight or delayed.
	Empty bool
	// BodyContains waits for a visible or in-flight message whose body
	// contains the text.
	BodyContains string
}

// Counts are a queue's messages by state, as Wait answers them.
type Counts struct {
	Visible  int `json:"visible"`
	InFlight int `json:"inFlight"`
	Delayed  int `json:"delayed"`
}

// WaitTimeoutError is Wait's error when the condition did not hold within
// the timeout (the server's 408); Counts are the queue's at the timeout.
type WaitTimeoutError struct {
	Condition WaitCondition
	Counts    Counts
}

func (e *WaitTimeoutError) Error() string {
	return fmt.Sprintf("minisqs: wait on queue %s timed out with %d visible, %d in flight, %d delayed",
		e.Condition.Queue, e.Counts.Visible, e.Counts.InFlight, e.Counts.Delayed)
}

// Request is one request the server served, from its journal.
type Request struct {
	// Time is when it arrived, on the engine's clock.
	Time time.Time
	// Protocol is "query", "json" or "rest".
	Protocol string
	// Action is the SQS action or REST operation.
	Action string
	// Queue is the queue the request named, if any.
	Queue string
	// Status is the HTTP status answered; 0 when a fault dropped the
	// connection.
	Status int
	// ErrorCode is the code of the error answered, if any.
	ErrorCode string
	// Duration is how long the server took to answer.
	Duration time.Duration
	// FaultID is the fault rule that hit the request, if one did.
	FaultID string
}

// UnmarshalJSON reads a request as the journal lists it, with its duration
// in milliseconds.
func (r *Request) UnmarshalJSON(b []byte) error {
	var wire struct {
		Time       time.Time `json:"time"`
		Protocol   string    `json:"protocol"`
		Action     string    `json:"action"`
		Queue      string    `json:"queue"`
		Status     int       `json:"status"`
		ErrorCode  string    `json:"errorCode"`
		DurationMs float64   `json:"durationMs"`
		FaultID    string    `json:"faultId"`
	}
	if err := json.Unmarshal(b, &wire); err != nil {
		return err
	}
	*r = Request{
		Time: wire.Time, Protocol: wire.Protocol, Action: wire.Action, Queue: wire.Queue,
		Status: wire.Status, ErrorCode: wire.ErrorCode, FaultID: wire.FaultID,
		Duration: time.Duration(wire.DurationMs * float64(time.Millisecond)),
	}
	return nil
}

// Reset deletes every queue, message, move task, subscription, fault rule,
// deduplication window and cooldown. The clock keeps its time.
func (c *Container) Reset(ctx context.Context) error {
	return c.control(ctx, http.MethodPost, "/reset", nil, nil, http.StatusNoContent)
}

// ResetQueues empties the named queues of their messages, deduplication
// windows and cooldowns, keeping the queues and their settings. An unknown
// name fails the whole call (APIError with Code "queue_not_found") and
// changes nothing.
func (c *Container) ResetQueues(ctx context.Context, names ...string) error {
	if len(names) == 0 {
		return errors.New("minisqs: ResetQueues needs at least one queue name; Reset resets everything")
	}
	body := struct {
		Queues []string `json:"queues"`
	}{names}
	return c.control(ctx, http.MethodPost, "/reset", body, nil, http.StatusNoContent)
}

// Clock reads the server's clock.
func (c *Container) Clock(ctx context.Context) (Clock, error) {
	var clock Clock
	err := c.control(ctx, http.MethodGet, "/clock", nil, &clock, http.StatusOK)
	return clock, err
}

// Advance moves the server's clock forward by d, and returns the new time.
// Every time rule sees it before Advance returns: visibility timeouts and
// delays end, retention expires messages, deduplication windows lapse.
// The clock never goes back: d must be positive.
func (c *Container) Advance(ctx context.Context, d time.Duration) (Clock, error) {
	if d <= 0 {
		return Clock{}, fmt.Errorf("minisqs: Advance by %v: the clock only moves forward", d)
	}
	body := struct {
		Seconds float64 `json:"seconds"`
	}{d.Seconds()}
	var clock Clock
	err := c.control(ctx, http.MethodPost, "/clock/advance", body, &clock, http.StatusOK)
	return clock, err
}

// AddFault sets a fault rule and returns it as the server keeps it, with
// its ID.
func (c *Container) AddFault(ctx context.Context, f Fault) (Fault, error) {
	f.ID, f.Hits = "", 0
	var added Fault
	err := c.control(ctx, http.MethodPost, "/faults", f, &added, http.StatusCreated)
	return added, err
}

// Faults lists the fault rules in force, with how many requests each hit.
func (c *Container) Faults(ctx context.Context) ([]Fault, error) {
	var out struct {
		Faults []Fault `json:"faults"`
	}
	err := c.control(ctx, http.MethodGet, "/faults", nil, &out, http.StatusOK)
	return out.Faults, err
}

// DeleteFault removes the fault rule with the given ID.
func (c *Container) DeleteFault(ctx context.Context, id string) error {
	return c.control(ctx, http.MethodDelete, "/faults/"+url.PathEscape(id), nil, nil, http.StatusNoContent)
}

// ClearFaults removes every fault rule.
func (c *Container) ClearFaults(ctx context.Context) error {
	return c.control(ctx, http.MethodDelete, "/faults", nil, nil, http.StatusNoContent)
}

// SaveState saves the server's whole state (queues, messages, move tasks,
// subscriptions) as one JSON document, for LoadState to restore. (State is
// testcontainers.Container's: the container's own running state.)
func (c *Container) SaveState(ctx context.Context) (json.RawMessage, error) {
	var state json.RawMessage
	err := c.control(ctx, http.MethodGet, "/state", nil, &state, http.StatusOK)
	return state, err
}

// LoadState replaces the server's whole state with a document SaveState
// saved (or a fixture written in its shape). A document that does not parse or breaks
// a rule is refused whole (APIError, status 400), and nothing changes.
func (c *Container) LoadState(ctx context.Context, state json.RawMessage) error {
	return c.control(ctx, http.MethodPut, "/state", state, nil, http.StatusNoContent, http.StatusOK)
}

// Wait blocks until the condition holds on its queue and returns the
// queue's counts then. When the server's timeout passes first, it returns
// the counts at the timeout and a *WaitTimeoutError. ctx bounds the wait
// too.
func (c *Container) Wait(ctx context.Context, cond WaitCondition) (Counts, error) {
	body := struct {
		Queue          string  `json:"queue"`
		TimeoutSeconds float64 `json:"timeoutSeconds,omitempty"`
		Visible        int     `json:"visible,omitempty"`
		InFlight       int     `json:"inFlight,omitempty"`
		Empty          bool    `json:"empty,omitempty"`
		BodyContains   string  `json:"bodyContains,omitempty"`
	}{cond.Queue, cond.Timeout.Seconds(), cond.Visible, cond.InFlight, cond.Empty, cond.BodyContains}
	var out struct {
		Counts Counts `json:"counts"`
	}
	status, err := c.call(ctx, http.MethodPost, "/wait", body, &out, http.StatusOK, http.StatusRequestTimeout)
	if err != nil {
		return Counts{}, err
	}
	if status == http.StatusRequestTimeout {
		return out.Counts, &WaitTimeoutError{Condition: cond, Counts: out.Counts}
	}
	return out.Counts, nil
}

// Requests lists up to limit of the most recent requests the server served,
// newest first; limit 0 leaves the server's default (100).
func (c *Container) Requests(ctx context.Context, limit int) ([]Request, error) {
	path := "/requests"
	if limit > 0 {
		path += "?limit=" + strconv.Itoa(limit)
	}
	var out struct {
		Requests []Request `json:"requests"`
	}
	err := c.control(ctx, http.MethodGet, path, nil, &out, http.StatusOK)
	return out.Requests, err
}

// control makes one call to the control API, as call does.
func (c *Container) control(ctx context.Context, method, path string, in, out any, ok ...int) error {
	_, err := c.call(ctx, method, path, in, out, ok...)
	return err
}

// call makes one call to the control API and returns the answer's status:
// in (if not nil) is the JSON body; an answer with one of the ok statuses
// is decoded into out (if not nil); any other is an *APIError.
func (c *Container) call(ctx context.Context, method, path string, in, out any, ok ...int) (int, error) {
	endpoint, err := c.BaseEndpoint(ctx)
	if err != nil {
		return 0, err
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, fmt.Errorf("minisqs: encode %s %s: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, endpoint+controlPath+path, body)
	if err != nil {
		return 0, err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.settings.adminToken != "" {
		req.Header.Set("Authorization", "Bearer "+c.settings.adminToken)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("minisqs: %s %s: %w", method, controlPath+path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, fmt.Errorf("minisqs: %s %s: read answer: %w", method, controlPath+path, err)
	}
	for _, status := range ok {
		if resp.StatusCode != status {
			continue
		}
		if out != nil && len(b) > 0 {
			if err := json.Unmarshal(b, out); err != nil {
				return status, fmt.Errorf("minisqs: %s %s: decode answer: %w", method, controlPath+path, err)
			}
		}
		return status, nil
	}
	return resp.StatusCode, apiError(resp.StatusCode, b)
}

// apiError reads an error answer: the API's own shape, or the start of a
// body in any other.
func apiError(status int, body []byte) *APIError {
	var wire struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &wire) == nil && wire.Error.Code != "" {
		return &APIError{Status: status, Code: wire.Error.Code, Message: wire.Error.Message}
	}
	const keep = 200
	if len(body) > keep {
		body = append(body[:keep:keep], "..."...)
	}
	return &APIError{Status: status, Message: string(bytes.TrimSpace(body))}
}
