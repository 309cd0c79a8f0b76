package minisqstest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/faults"
)

// The test-control operations. Each fails the test given to RunT when it
// cannot be done (outside RunT, it panics): a test has nothing better to do
// with such a failure.

func (s *Server) fail(format string, args ...any) {
	if s.t != nil {
		s.t.Helper()
		s.t.Fatalf("minisqstest: "+format, args...)
	}
	panic(fmt.Sprintf("minisqstest: "+format, args...))
}

// Now is the server's time.
func (s *Server) Now() time.Time { return s.srv.Engine.Now() }

// Advance moves the server's clock forward by d and returns once
// everything that became due has run: visibility timeouts and delays end,
// retention expires messages, deduplication windows and cooldowns pass,
// move tasks catch up, and long polls that now have messages answer.
func (s *Server) Advance(d time.Duration) {
	if s.t != nil {
		s.t.Helper()
	}
	if s.clock != nil {
		// A manual clock moves only by hand; the engine then settles.
		s.clock.Advance(d)
		s.srv.Engine.Settle()
		return
	}
	if err := s.srv.Engine.Advance(d); err != nil {
		s.fail("Advance(%v): %v", d, err)
	}
}

// Reset deletes every queue, message, move task, subscription, fault rule,
// deduplication window and cooldown; the clock keeps its time.
func (s *Server) Reset() {
	if s.t != nil {
		s.t.Helper()
	}
	s.control(http.MethodPost, "/_minisqs/reset", nil, http.StatusNoContent, nil)
}

// ResetQueues empties the named queues: their messages, deduplication
// windows and cooldowns go; the queues and their settings stay.
func (s *Server) ResetQueues(names ...string) {
	if s.t != nil {
		s.t.Helper()
	}
	if err := s.srv.Engine.ResetQueues(names); err != nil {
		s.fail("ResetQueues(%q): %v", names, err)
	}
}

// State is everything the server holds, as a fixture Load takes back.
func (s *Server) State() *engine.State {
	if s.t != nil {
		s.t.Helper()
	}
	st, err := s.srv.Engine.State()
	if err != nil {
		s.fail("State: %v", err)
	}
	return st
}

// Load replaces everything the server holds with st. In-flight messages
// stay in flight until their deadline, with no receipt handle valid.
func (s *Server) Load(st *engine.State) {
	if s.t != nil {
		s.t.Helper()
	}
	if err := s.srv.Engine.Load(st); err != nil {
		s.fail("Load: %v", err)
	}
}

// Fault is a fault rule: which requests it hits and what it does to them.
type Fault = faults.Rule

// AddFault adds a fault rule and returns its id.
func (s *Server) AddFault(rule Fault) string {
	if s.t != nil {
		s.t.Helper()
	}
	var out faults.Fault
	s.control(http.MethodPost, "/_minisqs/faults", rule, http.StatusCreated, &out)
	return out.ID
}

// Faults lists the fault rules in force, with their hits.
func (s *Server) Faults() []faults.Fault {
	if s.t != nil {
		s.t.Helper()
	}
	var out struct{ Faults []faults.Fault }
	s.control(http.MethodGet, "/_minisqs/faults", nil, http.StatusOK, &out)
	return out.Faults
}

// ClearFaults removes every fault rule.
func (s *Server) ClearFaults() {
	if s.t != nil {
		s.t.Helper()
	}
	s.control(http.MethodDelete, "/_minisqs/faults", nil, http.StatusNoContent, nil)
}

// Wait returns once the queue called name meets cond, with its counts; it
// fails the test when timeout passes first. It looks again only when the
// queue changes.
func (s *Server) Wait(name string, cond engine.WaitCondition, timeout time.Duration) engine.Counts {
	if s.t != nil {
		s.t.Helper()
	}
	q, err := s.srv.Engine.Queue(name)
	if err != nil {
		s.fail("Wait(%s): %v", name, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	counts, met, err := q.Wait(ctx, cond)
	switch {
	case err != nil:
		s.fail("Wait(%s): %v", name, err)
	case !met:
		s.fail("Wait(%s): not met within %v; counts %+v", name, timeout, counts)
	}
	return counts
}

// Messages are the queue's messages, visible, in flight and delayed, with
// their deadlines, without receiving them.
func (s *Server) Messages(name string) []engine.MessageState {
	if s.t != nil {
		s.t.Helper()
	}
	for _, q := range s.State().Queues {
		if q.Name == name {
			return q.Messages
		}
	}
	s.fail("Messages(%s): no such queue", name)
	return nil
}

// Dump describes every queue and its messages, for a failing test's log.
func (s *Server) Dump() string {
	st, err := s.srv.Engine.State()
	if err != nil {
		return "minisqstest: state: " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "minisqs at %s\n", s.Now().UTC().Format(time.RFC3339Nano))
	for _, q := range st.Queues {
		fmt.Fprintf(&b, "queue %s (%d messages)\n", q.Name, len(q.Messages))
		for _, m := range q.Messages {
			fmt.Fprintf(&b, "  %s %-8s receives=%d", m.ID, m.Status, m.ReceiveCount)
			if m.Status != engine.MessageVisible {
				fmt.Fprintf(&b, " until=%s", m.VisibleAt.UTC().Format(time.RFC3339Nano))
			}
			if m.GroupID != "" {
				fmt.Fprintf(&b, " group=%s seq=%s", m.GroupID, m.SequenceNumber)
			}
			fmt.Fprintf(&b, " body=%.60q\n", m.Body)
		}
	}
	return b.String()
}

// control calls the control API in process and decodes its answer into out.
func (s *Server) control(method, path string, in any, want int, out any) {
	if s.t != nil {
		s.t.Helper()
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			s.fail("%s %s: %v", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.URL()+path, body)
	if err != nil {
		s.fail("%s %s: %v", method, path, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if s.adminToken != "" {
		req.Header.Set("Authorization", "Bearer "+s.adminToken)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		s.fail("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		s.fail("%s %s: %s %s", method, path, resp.Status, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			s.fail("%s %s: %v in %s", method, path, err, raw)
		}
	}
}
