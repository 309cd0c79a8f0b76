// Package dispatch is the one point every request of every front end passes
// on its way to its action: the SQS query and JSON codecs, the REST API and,
// later, the embedded Go API. A front end decodes a request into a Request
// and calls a Handler that it built once with Chain.Then around its own
// action handler; the steps of the chain (fault rules, the request journal,
// metrics and, later, identity) see every request alike and need no code in
// any codec.
//
// The package sits in protocol, beside the front ends that feed it, because
// it is their shared seam: it carries decoded requests and answers as values
// and knows nothing of their encodings, and the engine below it knows
// nothing of it.
package dispatch

import (
	"context"
	"errors"
	"net"
	"net/http"
)

// Protocol names a front end.
type Protocol string

// The front ends.
const (
	Query Protocol = "query" // the SQS query protocol
	JSON  Protocol = "json"  // the SQS JSON protocol
	REST  Protocol = "rest"  // the REST API
	Go    Protocol = "go"    // the embedded Go API
)

// Request is one request on its way to its action. The front end fills it
// in; steps read it and may set FaultID.
type Request struct {
	Protocol Protocol
	// Action is the SQS action name (SendMessage) or the REST operation name
	// (SendMessages).
	Action string
	// Queue is the name of the queue the request names, or "" when it names
	// none or the name is not known before the action runs.
	Queue string
	// Input is the decoded input of an SQS action; REST handlers decode
	// their own bodies, so it is nil for them.
	Input any
	// HTTP is the request as it came, headers and all, or nil when no HTTP
	// request carries it (the Go API).
	HTTP *http.Request
	// Classify tells the HTTP status and error code ("" on success) with
	// which the front end answers what the chain returned. Nil means 200 on
	// success and 500 InternalError otherwise.
	Classify func(out any, err error) (status int, code string)
	// Call is the front end's own state of the request, for its handler at
	// the end of the chain; steps leave it alone.
	Call any

	// FaultID is the id of the fault rule that hit the request, set by the
	// faults step.
	FaultID string
}

// Outcome is the HTTP status and error code of the answer to r, given what
// the chain returned: 0 and "" for a dropped connection.
func (r *Request) Outcome(out any, err error) (status int, code string) {
	switch {
	case errors.Is(err, ErrDropped):
		return 0, ""
	case r.Classify != nil:
		return r.Classify(out, err)
	case err != nil:
		return http.StatusInternalServerError, "InternalError"
	}
	return http.StatusOK, ""
}

// A Handler serves a request: it returns the value the front end encodes,
// or the error it answers with instead.
type Handler func(ctx context.Context, r *Request) (any, error)

// A Step wraps a Handler with work of its own before and after it, or
// answers in its place.
type Step func(next Handler) Handler

// Chain is an ordered list of steps; the first is the outermost.
type Chain []Step

// Then returns h wrapped in the chain's steps. Front ends call it once, when
// they are built, not per request.
func (c Chain) Then(h Handler) Handler {
	for i := len(c) - 1; i >= 0; i-- {
		h = c[i](h)
	}
	return h
}

// FaultError is the answer of a fault rule with an error effect. Code is an
// AWS error code as the rule names it (an SQS model error's shape name or
// query code, or one of AWS's common errors); each front end answers it in
// its own shape.
type FaultError struct {
	Code   string
	RuleID string
}

func (e *FaultError) Error() string {
	return e.Code + ": answered by fault rule " + e.RuleID
}

// Message is the human text of the answer.
func (e *FaultError) Message() string {
	return "Fault rule " + e.RuleID + " answered this request with " + e.Code + "."
}

// ErrDropped is what the chain returns when the connection is to be closed
// without an answer; the front end calls Hangup.
var ErrDropped = errors.New("dispatch: the connection is dropped without an answer")

// Hangup closes w's connection without an answer if err is ErrDropped, and
// reports whether it did. The client sees the connection end with no
// response, as when a network or a server fails mid-request.
func Hangup(w http.ResponseWriter, err error) bool {
	if !errors.Is(err, ErrDropped) {
		return false
	}
	conn, _, herr := http.NewResponseController(w).Hijack()
	if herr != nil {
		// HTTP/2 and test recorders cannot hand over the connection;
		// net/http aborts the stream on this panic instead, without an
		// answer and without logging.
		panic(http.ErrAbortHandler)
	}
	// A reset rather than an orderly close, so that the client cannot take
	// the end for a finished answer.
	if tcp, ok := conn.(*net.TCPConn); ok {
		tcp.SetLinger(0)
	}
	conn.Close()
	return true
}
