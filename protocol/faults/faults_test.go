package faults

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/minisqs/minisqs/protocol/dispatch"
)

func testRules() *Rules {
	return New([]string{"SendMessage", "ReceiveMessage", "SendMessages"}, []string{"ThrottlingException", "ServiceUnavailable", "AWS.SimpleQueueService.NonExistentQueue"})
}

func TestValidate(t *testing.T) {
	rs := testRules()
	for _, tc := range []struct {
		name string
		rule Rule
		want string // a part of the message; "" for a valid rule
	}{
		{"error", Rule{Action: "SendMessage", Error: "ThrottlingException"}, ""},
		{"query code", Rule{Action: "SendMessage", Error: "AWS.SimpleQueueService.NonExistentQueue"}, ""},
		{"any action", Rule{Action: "*", Drop: true}, ""},
		{"rest operation", Rule{Action: "SendMessages", LatencyMs: 10}, ""},
		{"queue", Rule{Action: "SendMessage", Queue: "orders.fifo", Error: "ServiceUnavailable"}, ""},
		{"bounds", Rule{Action: "SendMessage", Drop: true, Probability: new(0.0), Count: new(1)}, ""},
		{"probability one", Rule{Action: "SendMessage", Drop: true, Probability: new(1.0)}, ""},
		{"longest latency", Rule{Action: "SendMessage", LatencyMs: 300000}, ""},

		{"no action", Rule{Error: "ThrottlingException"}, "needs an action"},
		{"unknown action", Rule{Action: "SendMesage", Error: "ThrottlingException"}, `Unknown action "SendMesage"`},
		{"queue URL", Rule{Action: "SendMessage", Queue: "http://localhost/000000000000/orders", Drop: true}, "not a queue name"},
		{"no effect", Rule{Action: "SendMessage"}, "exactly one effect"},
		{"drop false", Rule{Action: "SendMessage", Drop: false}, "exactly one effect"},
		{"two effects", Rule{Action: "SendMessage", Error: "ThrottlingException", Drop: true}, "it has 2"},
		{"three effects", Rule{Action: "SendMessage", Error: "ThrottlingException", LatencyMs: 5, Drop: true}, "it has 3"},
		{"unknown error", Rule{Action: "SendMessage", Error: "Throttled"}, `Unknown error code "Throttled"`},
		{"negative latency", Rule{Action: "SendMessage", LatencyMs: -1}, "latencyMs"},
		{"latency too long", Rule{Action: "SendMessage", LatencyMs: 300001}, "latencyMs"},
		{"probability above 1", Rule{Action: "SendMessage", Drop: true, Probability: new(1.5)}, "probability"},
		{"probability below 0", Rule{Action: "SendMessage", Drop: true, Probability: new(-0.1)}, "probability"},
		{"count 0", Rule{Action: "SendMessage", Drop: true, Count: new(0)}, "count"},
		{"count below 0", Rule{Action: "SendMessage", Drop: true, Count: new(-2)}, "count"},
	} {
		err := rs.Validate(tc.rule)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.want != "" && err == nil:
			t.Errorf("%s: accepted", tc.name)
		case tc.want != "" && !strings.Contains(err.Error(), tc.want):
			t.Errorf("%s: %v, want a message with %q", tc.name, err, tc.want)
		case tc.want != "" && !strings.HasPrefix(err.Error(), "invalid_request: "):
			t.Errorf("%s: %v is not invalid_request", tc.name, err)
		}
	}
}

func TestAddListDelete(t *testing.T) {
	rs := testRules()
	if _, err := rs.Add(Rule{Action: "nope", Drop: true}); err == nil {
		t.Fatal("added an invalid rule")
	}
	a, err := rs.Add(Rule{Action: "SendMessage", Error: "ThrottlingException", Count: new(2)})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := rs.Add(Rule{Action: "*", Drop: true})
	if a.ID == "" || a.ID == b.ID {
		t.Fatalf("ids %q and %q", a.ID, b.ID)
	}
	if a.Probability == nil || *a.Probability != 1 {
		t.Errorf("probability defaults to %v, want 1", a.Probability)
	}
	list := rs.List()
	if len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID {
		t.Fatalf("list %+v", list)
	}
	if rs.Delete("no-such-id") {
		t.Error("deleted an unknown id")
	}
	if !rs.Delete(a.ID) || len(rs.List()) != 1 || rs.List()[0].ID != b.ID {
		t.Errorf("after delete: %+v", rs.List())
	}
	rs.Clear()
	if len(rs.List()) != 0 {
		t.Errorf("after clear: %+v", rs.List())
	}
}

// run passes a request through the faults step to an action that counts
// its runs.
func run(rs *Rules, ctx context.Context, action, queue string, ran *int) (*dispatch.Request, error) {
	req := &dispatch.Request{Protocol: dispatch.JSON, Action: action, Queue: queue}
	_, err := rs.Step()(func(context.Context, *dispatch.Request) (any, error) {
		*ran++
		return nil, nil
	})(ctx, req)
	return req, err
}

func TestStepMatchesAndCounts(t *testing.T) {
	rs := testRules()
	f, _ := rs.Add(Rule{Action: "SendMessage", Queue: "orders", Error: "ServiceUnavailable", Count: new(2)})
	ran := 0
	ctx := context.Background()

	// Other actions and other queues pass.
	if _, err := run(rs, ctx, "ReceiveMessage", "orders", &ran); err != nil || ran != 1 {
		t.Fatalf("another action: %v, ran %d", err, ran)
	}
	if _, err := run(rs, ctx, "SendMessage", "events", &ran); err != nil || ran != 2 {
		t.Fatalf("another queue: %v, ran %d", err, ran)
	}
	// The rule answers twice in the action's place, then is spent.
	for i := range 2 {
		req, err := run(rs, ctx, "SendMessage", "orders", &ran)
		var fe *dispatch.FaultError
		if !errors.As(err, &fe) || fe.Code != "ServiceUnavailable" || fe.RuleID != f.ID || req.FaultID != f.ID {
			t.Fatalf("hit %d: %v, fault id %q", i, err, req.FaultID)
		}
	}
	if ran != 2 {
		t.Fatalf("the action ran under the fault: %d", ran)
	}
	if req, err := run(rs, ctx, "SendMessage", "orders", &ran); err != nil || ran != 3 || req.FaultID != "" {
		t.Fatalf("after the count: %v, ran %d, fault %q", err, ran, req.FaultID)
	}
	if hits := rs.List()[0].Hits; hits != 2 {
		t.Errorf("hits %d, want 2", hits)
	}
}

func TestStepProbabilityZeroNeverHits(t *testing.T) {
	rs := testRules()
	rs.Add(Rule{Action: "*", Drop: true, Probability: new(0.0)})
	ran := 0
	for range 100 {
		if _, err := run(rs, context.Background(), "SendMessage", "", &ran); err != nil {
			t.Fatal(err)
		}
	}
	if ran != 100 || rs.List()[0].Hits != 0 {
		t.Errorf("ran %d, hits %d", ran, rs.List()[0].Hits)
	}
}

func TestStepDropAndLatency(t *testing.T) {
	rs := testRules()
	slow, _ := rs.Add(Rule{Action: "*", LatencyMs: 1, Count: new(1)})
	drop, _ := rs.Add(Rule{Action: "ReceiveMessage", Drop: true})
	ran := 0
	// The latency rule waits, then the drop rule answers: the request's
	// fault is the drop.
	req, err := run(rs, context.Background(), "ReceiveMessage", "", &ran)
	if !errors.Is(err, dispatch.ErrDropped) || req.FaultID != drop.ID || ran != 0 {
		t.Fatalf("%v, fault %q, ran %d", err, req.FaultID, ran)
	}
	rs.Delete(drop.ID)
	rs.Add(Rule{Action: "SendMessage", LatencyMs: 60000})
	// A request whose context ends stops waiting, and its action does not run.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := run(rs, ctx, "SendMessage", "", &ran); !errors.Is(err, context.Canceled) || ran != 0 {
		t.Fatalf("cancelled wait: %v, ran %d", err, ran)
	}
	if got := rs.List()[0]; got.ID != slow.ID || got.Hits != 1 {
		t.Errorf("latency rule %+v", got)
	}
}

// TestCountExactUnderRace sends many requests at once at a rule with a
// count: exactly count of them are hit.
func TestCountExactUnderRace(t *testing.T) {
	rs := testRules()
	rs.Add(Rule{Action: "SendMessage", Error: "ThrottlingException", Count: new(37)})
	var wg sync.WaitGroup
	var mu sync.Mutex
	faulted, ran := 0, 0
	for range 8 {
		wg.Go(func() {
			for range 50 {
				local := 0
				_, err := run(rs, context.Background(), "SendMessage", "", &local)
				mu.Lock()
				if err != nil {
					faulted++
				}
				ran += local
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if faulted != 37 || ran != 400-37 || rs.List()[0].Hits != 37 {
		t.Errorf("faulted %d, ran %d, hits %d; want 37, 363, 37", faulted, ran, rs.List()[0].Hits)
	}
}
