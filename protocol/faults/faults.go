// Package faults holds the test-control API's fault rules: a step of the
// dispatch chain that answers chosen requests with an AWS error, delays
// them or drops their connection, so that a test can see how its client
// copes, and the /_minisqs/faults endpoints that set the rules.
//
// A request a rule answers or drops never reaches its action, so it changes
// nothing in the engine. Each front end answers a rule's error in its own
// shape (dispatch.FaultError), as AWS would, so that the SDKs classify and
// retry it as they would against AWS.
package faults

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/dispatch"
	"github.com/minisqs/minisqs/protocol/rest"
)

// MaxLatency bounds a rule's latencyMs: longer than any SQS call waits (a
// long poll's 20 s) by far, and short enough that a typo does not hang a
// test for good.
const MaxLatency = 5 * time.Minute

// AnyAction is the action of a rule for every action and operation.
const AnyAction = "*"

// Rule is a fault rule as it is set: which requests it hits and its one
// effect.
type Rule struct {
	// Action is an SQS action or a REST operation name, or AnyAction.
	Action string `json:"action"`
	// Queue, if set, limits the rule to requests for the queue of that name.
	Queue string `json:"queue,omitempty"`
	// Error is an AWS error code to answer with: an SQS model error (its
	// shape name or query code) or one of AWS's common errors.
	Error string `json:"error,omitempty"`
	// LatencyMs delays the request by that many milliseconds before its
	// action runs.
	LatencyMs int `json:"latencyMs,omitempty"`
	// Drop closes the connection without an answer.
	Drop bool `json:"drop,omitempty"`
	// Probability is the chance that a matching request is hit, 0 to 1;
	// nil is 1.
	Probability *float64 `json:"probability,omitempty"`
	// Count is how many requests the rule hits at most; nil is no limit.
	Count *int `json:"count,omitempty"`
}

// Fault is a rule as it is kept: its id, and how many requests it has hit.
type Fault struct {
	ID string `json:"id"`
	Rule
	Hits int64 `json:"hits"`
}

// fault is a rule in force. Its fields but hits never change.
type fault struct {
	id          string
	rule        Rule
	probability float64
	count       int64 // 0: no limit
	latency     time.Duration
	hits        atomic.Int64
}

// Rules is a set of fault rules, safe for concurrent use.
type Rules struct {
	actions map[string]bool
	codes   map[string]bool

	mu sync.Mutex // serializes changes to list
	// list is the rules in the order they were added. Changes replace the
	// slice, so that the step reads it without a lock.
	list atomic.Pointer[[]*fault]
}

// New returns an empty set of rules that may name the given actions and
// error codes.
func New(actions, codes []string) *Rules {
	rs := &Rules{actions: map[string]bool{AnyAction: true}, codes: map[string]bool{}}
	for _, a := range actions {
		rs.actions[a] = true
	}
	for _, c := range codes {
		rs.codes[c] = true
	}
	return rs
}

// Validate checks r: a known action, a queue name if any, exactly one
// effect, a known error code, a latency within MaxLatency, a probability
// from 0 to 1 and a count of at least 1. Its errors are the REST API's
// invalid_request.
func (rs *Rules) Validate(r Rule) error {
	invalid := func(format string, args ...any) error {
		return rest.Errorf(rest.CodeInvalidRequest, format, args...)
	}
	switch {
	case r.Action == "":
		return invalid("A rule needs an action: an SQS action, a REST operation or \"*\".")
	case !rs.actions[r.Action]:
		return invalid("Unknown action %q: give an SQS action, a REST operation or \"*\".", r.Action)
	case r.Queue != "" && !engine.ValidQueueName(r.Queue):
		return invalid("Queue %q is not a queue name.", r.Queue)
	}
	effects := 0
	for _, set := range []bool{r.Error != "", r.LatencyMs != 0, r.Drop} {
		if set {
			effects++
		}
	}
	switch {
	case effects != 1:
		return invalid("A rule needs exactly one effect of error, latencyMs and drop; it has %d.", effects)
	case r.Error != "" && !rs.codes[r.Error]:
		return invalid("Unknown error code %q: give an SQS error or one of AWS's common errors.", r.Error)
	case r.LatencyMs < 0 || time.Duration(r.LatencyMs)*time.Millisecond > MaxLatency:
		return invalid("latencyMs must be from 1 to %d.", MaxLatency.Milliseconds())
	case r.Probability != nil && !(*r.Probability >= 0 && *r.Probability <= 1):
		return invalid("probability must be from 0 to 1.")
	case r.Count != nil && *r.Count < 1:
		return invalid("count must be at least 1.")
	}
	return nil
}

// Add validates r and puts it in force after the rules already there.
func (rs *Rules) Add(r Rule) (Fault, error) {
	if err := rs.Validate(r); err != nil {
		return Fault{}, err
	}
	p := 1.0
	if r.Probability != nil {
		p = *r.Probability
	}
	r.Probability = &p
	f := &fault{
		id:          uuid.NewString(),
		rule:        r,
		probability: p,
		latency:     time.Duration(r.LatencyMs) * time.Millisecond,
	}
	if r.Count != nil {
		f.count = int64(*r.Count)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.list.Store(new(append(slices.Clone(rs.rules()), f)))
	return f.view(), nil
}

// List returns the rules in the order they were added, with their hits.
func (rs *Rules) List() []Fault {
	list := rs.rules()
	out := make([]Fault, len(list))
	for i, f := range list {
		out[i] = f.view()
	}
	return out
}

// Delete removes the rule with the id, and reports whether there was one.
func (rs *Rules) Delete(id string) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	list := rs.rules()
	i := slices.IndexFunc(list, func(f *fault) bool { return f.id == id })
	if i < 0 {
		return false
	}
	rs.list.Store(new(slices.Delete(slices.Clone(list), i, i+1)))
	return true
}

// Clear removes every rule.
func (rs *Rules) Clear() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.list.Store(nil)
}

func (rs *Rules) rules() []*fault {
	if p := rs.list.Load(); p != nil {
		return *p
	}
	return nil
}

func (f *fault) view() Fault {
	return Fault{ID: f.id, Rule: f.rule, Hits: f.hits.Load()}
}

func (f *fault) matches(r *dispatch.Request) bool {
	return (f.rule.Action == AnyAction || f.rule.Action == r.Action) &&
		(f.rule.Queue == "" || f.rule.Queue == r.Queue)
}

// take decides whether f hits a request it matches, and counts the hit: at
// most count hits however many requests race for the last ones.
func (f *fault) take() bool {
	if f.probability < 1 && rand.Float64() >= f.probability {
		return false
	}
	for {
		h := f.hits.Load()
		if f.count > 0 && h >= f.count {
			return false
		}
		if f.hits.CompareAndSwap(h, h+1) {
			return true
		}
	}
}

// Step is the chain step that applies the rules. They are tried in the
// order they were added: every latency rule that hits waits, in turn, and
// the first error or drop rule that hits answers in the action's place.
// The request's FaultID is the last rule that hit it.
func (rs *Rules) Step() dispatch.Step {
	return func(next dispatch.Handler) dispatch.Handler {
		return func(ctx context.Context, req *dispatch.Request) (any, error) {
			for _, f := range rs.rules() {
				if !f.matches(req) || !f.take() {
					continue
				}
				req.FaultID = f.id
				switch {
				case f.latency > 0:
					if err := wait(ctx, f.latency); err != nil {
						return nil, err
					}
				case f.rule.Drop:
					return nil, dispatch.ErrDropped
				default:
					return nil, &dispatch.FaultError{Code: f.rule.Error, RuleID: f.id}
				}
			}
			return next(ctx, req)
		}
	}
}

// wait waits d of real time, or until ctx ends.
func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for a fault rule's latency: %w", ctx.Err())
	}
}
