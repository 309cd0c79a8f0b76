package control

import (
	"context"
	"net/http"
	"time"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/rest"
)

// Wait limits: a wait is one HTTP request, and its timeout is real time.
const (
	defaultWaitSeconds = 10
	maxWaitSeconds     = 300
)

type waitInput struct {
	Queue          string   `json:"queue"`
	TimeoutSeconds *float64 `json:"timeoutSeconds"`
	Visible        *int     `json:"visible"`
	InFlight       *int     `json:"inFlight"`
	Empty          *bool    `json:"empty"`
	BodyContains   *string  `json:"bodyContains"`
}

type countsJSON struct {
	Visible  int `json:"visible"`
	InFlight int `json:"inFlight"`
	Delayed  int `json:"delayed"`
}

type waitOutput struct {
	Queue  string     `json:"queue"`
	Met    bool       `json:"met"`
	Counts countsJSON `json:"counts"`
}

// wait answers POST /_minisqs/wait: 200 with the queue's counts as soon as
// the condition holds, 408 with the counts when the timeout passes first.
func (a *API) wait(w http.ResponseWriter, r *http.Request) (int, any, error) {
	var in waitInput
	if err := rest.DecodeJSON(w, r, &in, 0, false); err != nil {
		return 0, nil, err
	}
	if in.Queue == "" {
		return 0, nil, rest.Errorf(rest.CodeInvalidRequest, "queue is required.")
	}
	timeout := float64(defaultWaitSeconds)
	if in.TimeoutSeconds != nil {
		timeout = *in.TimeoutSeconds
	}
	if timeout <= 0 || timeout > maxWaitSeconds {
		return 0, nil, rest.Errorf(rest.CodeInvalidRequest, "timeoutSeconds must be above 0 and at most %d.", maxWaitSeconds)
	}
	cond, err := in.condition()
	if err != nil {
		return 0, nil, err
	}
	q, err := a.e.LookupQueue(in.Queue)
	if err != nil {
		return 0, nil, rest.Errorf(rest.CodeQueueNotFound, "No queue %s.", in.Queue)
	}
	ctx, cancel := context.WithTimeout(r.Context(), time.Duration(timeout*float64(time.Second)))
	defer cancel()
	counts, met, err := q.Wait(ctx, cond)
	if err != nil {
		return 0, nil, err
	}
	status := http.StatusOK
	if !met {
		status = http.StatusRequestTimeout
	}
	return status, waitOutput{Queue: q.Name(), Met: met, Counts: countsJSON{counts.Visible, counts.InFlight, counts.Delayed}}, nil
}

func (in *waitInput) condition() (engine.WaitCondition, error) {
	n := 0
	for _, set := range []bool{in.Visible != nil, in.InFlight != nil, in.Empty != nil, in.BodyContains != nil} {
		if set {
			n++
		}
	}
	switch {
	case n != 1:
		return engine.WaitCondition{}, rest.Errorf(rest.CodeInvalidRequest, "Give exactly one condition: visible, inFlight, empty or bodyContains.")
	case in.Empty != nil && !*in.Empty:
		return engine.WaitCondition{}, rest.Errorf(rest.CodeInvalidRequest, "empty, when given, must be true.")
	case in.BodyContains != nil && *in.BodyContains == "":
		return engine.WaitCondition{}, rest.Errorf(rest.CodeInvalidRequest, "bodyContains may not be empty.")
	case in.Visible != nil && *in.Visible < 0, in.InFlight != nil && *in.InFlight < 0:
		return engine.WaitCondition{}, rest.Errorf(rest.CodeInvalidRequest, "visible and inFlight may not be negative.")
	}
	c := engine.WaitCondition{Visible: in.Visible, InFlight: in.InFlight, Empty: in.Empty != nil}
	if in.BodyContains != nil {
		c.BodyContains = *in.BodyContains
	}
	return c, nil
}
