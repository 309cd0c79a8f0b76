package dispatch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"testing"
)

func TestChainOrder(t *testing.T) {
	var trace []string
	step := func(name string) Step {
		return func(next Handler) Handler {
			return func(ctx context.Context, r *Request) (any, error) {
				trace = append(trace, name+" in")
				out, err := next(ctx, r)
				trace = append(trace, name+" out")
				return out, err
			}
		}
	}
	h := Chain{step("a"), step("b")}.Then(func(_ context.Context, r *Request) (any, error) {
		trace = append(trace, "action "+r.Action)
		return "done", nil
	})
	out, err := h(context.Background(), &Request{Action: "SendMessage"})
	if out != "done" || err != nil {
		t.Fatalf("got %v, %v", out, err)
	}
	want := []string{"a in", "b in", "action SendMessage", "b out", "a out"}
	if !reflect.DeepEqual(trace, want) {
		t.Errorf("trace %q, want %q", trace, want)
	}

	// An empty chain is the handler itself.
	out, _ = Chain(nil).Then(func(context.Context, *Request) (any, error) { return 1, nil })(context.Background(), &Request{})
	if out != 1 {
		t.Errorf("empty chain: got %v", out)
	}
}

func TestOutcome(t *testing.T) {
	classify := func(_ any, err error) (int, string) {
		if err != nil {
			return 418, "Teapot"
		}
		return 201, ""
	}
	for _, tc := range []struct {
		classify func(any, error) (int, string)
		err      error
		status   int
		code     string
	}{
		{nil, nil, 200, ""},
		{nil, errors.New("x"), 500, "InternalError"},
		{classify, nil, 201, ""},
		{classify, errors.New("x"), 418, "Teapot"},
		{classify, ErrDropped, 0, ""},
		{classify, fmt.Errorf("wrapped: %w", ErrDropped), 0, ""},
	} {
		r := &Request{Classify: tc.classify}
		if s, c := r.Outcome(nil, tc.err); s != tc.status || c != tc.code {
			t.Errorf("Outcome(%v) with classify %v = %d %q, want %d %q", tc.err, tc.classify != nil, s, c, tc.status, tc.code)
		}
	}
}

func TestHangupOnlyOnDrop(t *testing.T) {
	if Hangup(nil, errors.New("other")) {
		t.Error("Hangup took an ordinary error for a drop")
	}
	// A writer that cannot be hijacked aborts the handler instead.
	defer func() {
		if p := recover(); p != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler", p)
		}
	}()
	Hangup(noHijack{}, ErrDropped)
	t.Error("Hangup returned on a writer it cannot hijack")
}

type noHijack struct{ http.ResponseWriter }
