package compat

// Every row of the engine's queue-attribute table, through both SQS
// protocols and, where it has the field, the REST API: the default a new
// queue answers, values at the ends of the range read back, and values
// outside it refused with the catalogue's error, under each limits profile.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/sqs"
	"github.com/minisqs/minisqs/server"
)

// profiles are the limits profiles the table is checked under.
var profiles = []engine.Limits{engine.AWSLimits, engine.SMQLimits}

func TestAttributeTableSQS(t *testing.T) {
	var cases []actionCase
	for _, l := range profiles {
		for _, s := range engine.QueueAttributeTable() {
			if _, _, ranged := s.Range(l); l.Name != engine.AWSLimits.Name && !ranged {
				continue // the profiles differ only in ranges
			}
			cases = append(cases, actionCase{
				name: l.Name + "/" + s.Name,
				cfg:  server.Config{Limits: l},
				run:  func(e *env) { checkSQSAttribute(e, l, s) },
			})
		}
	}
	runCases(t, cases)
}

// sqsValue is v as GetQueueAttributes answers it for s.
func sqsValue(s engine.AttributeSpec, a engine.QueueAttributes) string {
	switch s.Kind {
	case engine.AttrInt:
		return strconv.Itoa(s.Int(a))
	case engine.AttrBool:
		return strconv.FormatBool(s.Bool(a))
	}
	return s.Text(a)
}

// goodValues are values s takes on a queue of that type; extra are
// attributes each needs set with it.
func goodValues(e *env, l engine.Limits, s engine.AttributeSpec, fifo bool) (values []string, extra func(v string) map[string]string) {
	extra = func(string) map[string]string { return nil }
	dlq := "dlq"
	if fifo {
		dlq = "dlq.fifo"
	}
	switch s.Kind {
	case engine.AttrInt:
		lo, hi, _ := s.Range(l)
		values = []string{strconv.Itoa(lo), strconv.Itoa(hi)}
	case engine.AttrBool:
		values = []string{"true", "false"}
	case engine.AttrText:
		values = s.Values
		if values == nil {
			values = []string{"alias/minisqs-test"}
		}
	case engine.AttrJSON:
		values = []string{`{"Version":"2012-10-17","Statement":[]}`}
	case engine.AttrRedrivePolicy:
		e.createQueue(dlq, fifoAttrs(fifo))
		values = []string{fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":5}`, arn(dlq))}
	case engine.AttrRedriveAllowPolicy:
		values = []string{`{"redrivePermission":"denyAll"}`, fmt.Sprintf(`{"redrivePermission":"byQueue","sourceQueueArns":[%q]}`, arn(dlq))}
	}
	if s.Name == "FifoThroughputLimit" {
		// perMessageGroupId needs deduplication per message group.
		extra = func(v string) map[string]string {
			if v == engine.FifoThroughputPerMessageGroup {
				return map[string]string{"DeduplicationScope": engine.DeduplicationScopeMessageGroup}
			}
			return map[string]string{"DeduplicationScope": engine.DeduplicationScopeQueue}
		}
	}
	return values, extra
}

// badValues are values s refuses, with the error the catalogue gives.
func badValues(l engine.Limits, s engine.AttributeSpec) map[string]*engine.Error {
	switch s.Kind {
	case engine.AttrInt:
		out := map[string]*engine.Error{"x": engine.ErrInvalidAttribute(s.Name, "x", engine.ReasonNotInteger)}
		if lo, hi, ok := s.Range(l); ok {
			out[strconv.Itoa(lo-1)] = engine.ErrAttributeRange(s.Name, lo-1, lo, hi)
			out[strconv.Itoa(hi+1)] = engine.ErrAttributeRange(s.Name, hi+1, lo, hi)
		}
		return out
	case engine.AttrBool:
		return map[string]*engine.Error{"maybe": engine.ErrInvalidAttribute(s.Name, "maybe", engine.ReasonNotBool)}
	case engine.AttrText:
		if s.Values != nil {
			return map[string]*engine.Error{"bogus": engine.ErrInvalidAttribute(s.Name, "bogus", engine.ReasonMalformed)}
		}
		return map[string]*engine.Error{"a\x01b": engine.ErrInvalidAttribute(s.Name, "a\x01b", engine.ReasonCharacters)}
	case engine.AttrJSON:
		return map[string]*engine.Error{"{": engine.ErrInvalidAttribute(s.Name, "{", engine.ReasonMalformed)}
	case engine.AttrRedrivePolicy:
		// SQS refuses a redrive policy as a bad parameter, not attribute.
		return map[string]*engine.Error{"[": engine.ErrRedrivePolicy("[", engine.ReasonNotJSON, "")}
	case engine.AttrRedriveAllowPolicy:
		return map[string]*engine.Error{`{"redrivePermission":"some"}`: engine.ErrInvalidAttribute(s.Name, "some", engine.ReasonPermission)}
	}
	return nil
}

func fifoAttrs(fifo bool) map[string]string {
	if fifo {
		return map[string]string{"FifoQueue": "true"}
	}
	return nil
}

// wantCatalogueErr wants err to be want as SQS words it.
func wantCatalogueErr(e *env, err error, code string, want *engine.Error) {
	e.t.Helper()
	ae := wantErr(e.t, err, code, http.StatusBadRequest)
	if msg := sqs.ErrorMessage(want); ae.Message != msg {
		e.t.Errorf("message %q, want %q", ae.Message, msg)
	}
}

func checkSQSAttribute(e *env, l engine.Limits, s engine.AttributeSpec) {
	fifo := s.FifoOnly
	name := "q"
	if fifo {
		name = "q.fifo"
	}
	pre := fifoAttrs(fifo)
	if s.Name == "KmsDataKeyReusePeriodSeconds" {
		// The reuse period is answered only for a queue with a KMS key.
		pre = map[string]string{"KmsMasterKeyId": "alias/minisqs-test"}
	}
	url := e.createQueue(name, pre)

	got, err := e.c.GetQueueAttributes(url, s.Name)
	if err != nil {
		e.t.Fatalf("GetQueueAttributes %s: %v", s.Name, err)
	}
	def := l.DefaultAttributes(fifo)
	def.KmsMasterKeyID = pre["KmsMasterKeyId"]
	switch v, ok := got[s.Name]; {
	case s.ReadOnly:
		if v == "" {
			e.t.Errorf("%s: no value", s.Name)
		}
	case s.Shown(def):
		if want := sqsValue(s, def); v != want {
			e.t.Errorf("default %s = %q, want %q (%s)", s.Name, v, want, s.DefaultSource)
		}
	case ok:
		e.t.Errorf("a new queue answers %s = %q, want none", s.Name, v)
	}

	if s.ReadOnly {
		wantCatalogueErr(e, e.setAttrs(url, map[string]string{s.Name: "1"}), "InvalidAttributeName", engine.ErrUnknownAttribute(s.Name))
		return
	}
	if s.FifoOnly {
		std := e.createQueue("standard", nil)
		_, err := e.c.GetQueueAttributes(std, s.Name)
		wantCatalogueErr(e, err, "InvalidAttributeName", engine.ErrUnknownAttribute(s.Name))
		values, _ := goodValues(e, l, s, false)
		wantCatalogueErr(e, e.setAttrs(std, map[string]string{s.Name: values[0]}), "InvalidAttributeName", engine.ErrFifoOnly(s.Name))
	}
	if s.TypeFixed {
		return
	}
	values, extra := goodValues(e, l, s, fifo)
	for _, v := range values {
		set := map[string]string{s.Name: v}
		for k, x := range extra(v) {
			set[k] = x
		}
		if err := e.setAttrs(url, set); err != nil {
			e.t.Fatalf("SetQueueAttributes %s=%s: %v", s.Name, v, err)
		}
		if got := e.attrs(url, s.Name)[s.Name]; got != v {
			e.t.Errorf("%s set to %q reads back %q", s.Name, v, got)
		}
	}
	last := values[len(values)-1]
	code := "InvalidAttributeValue"
	if s.Kind == engine.AttrRedrivePolicy {
		code = "InvalidParameterValue"
	}
	for v, want := range badValues(l, s) {
		wantCatalogueErr(e, e.setAttrs(url, map[string]string{s.Name: v}), code, want)
		if got := e.attrs(url, s.Name)[s.Name]; got != last {
			e.t.Errorf("%s=%q refused, but %s reads %q, want %q", s.Name, v, s.Name, got, last)
		}
	}
}

// restQueue is the REST API's queue object, by field.
type restQueue map[string]any

func restDo(t *testing.T, method, url string, body any) (int, restQueue) {
	t.Helper()
	status, b := doJSON(t, method, url, body)
	var out restQueue
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s %s: %v: %s", method, url, err, b)
	}
	return status, out
}

// restError is the message of a REST error answer of code, or "".
func restError(q restQueue, code string) string {
	e, _ := q["error"].(map[string]any)
	if e == nil || e["code"] != code {
		return ""
	}
	msg, _ := e["message"].(string)
	return msg
}

func TestAttributeTableREST(t *testing.T) {
	t.Parallel()
	for _, l := range profiles {
		for _, s := range engine.QueueAttributeTable() {
			if s.REST == "" {
				continue
			}
			t.Run(l.Name+"/"+s.Name, func(t *testing.T) {
				t.Parallel()
				checkRESTAttribute(t, l, s)
			})
		}
	}
}

func checkRESTAttribute(t *testing.T, l engine.Limits, s engine.AttributeSpec) {
	srv := startServer(t, server.Config{Limits: l})
	typ := "standard"
	if s.FifoOnly {
		typ = "fifo"
	}
	queues := srv.URL() + "/v1/queues"
	if status, q := restDo(t, http.MethodPost, queues, map[string]any{"name": "q", "type": typ}); status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, q)
	}
	qURL := queues + "/q"
	patch := func(v any) (int, restQueue) { return restDo(t, http.MethodPatch, qURL, map[string]any{s.REST: v}) }

	if s.Kind == engine.AttrRedrivePolicy {
		restDo(t, http.MethodPost, queues, map[string]any{"name": "dlq", "type": typ})
		status, q := patch(map[string]any{"deadLetterQueue": "dlq", "maxReceiveCount": engine.MaxMaxReceiveCount})
		rd, _ := q[s.REST].(map[string]any)
		if status != http.StatusOK || rd == nil || rd["maxReceiveCount"] != float64(engine.MaxMaxReceiveCount) {
			t.Fatalf("set %s: %d %v", s.REST, status, q)
		}
		status, q = patch(map[string]any{"deadLetterQueue": "dlq", "maxReceiveCount": engine.MinMaxReceiveCount - 1})
		if want := fmt.Sprintf("redrive.maxReceiveCount must be from %d to %d.", engine.MinMaxReceiveCount, engine.MaxMaxReceiveCount); status != http.StatusBadRequest || restError(q, "invalid_request") != want {
			t.Errorf("maxReceiveCount 0: %d %v, want 400 %q", status, q, want)
		}
		if status, q = patch(nil); status != http.StatusOK || q[s.REST] != nil {
			t.Errorf("clear %s: %d %v", s.REST, status, q)
		}
		return
	}

	_, q := restDo(t, http.MethodGet, qURL, nil)
	def := l.DefaultAttributes(s.FifoOnly)
	var want any
	var good, bad []any
	switch s.Kind {
	case engine.AttrInt:
		want = float64(s.Int(def))
		lo, hi, _ := s.Range(l)
		good = []any{lo, hi}
		bad = []any{lo - 1, hi + 1}
	case engine.AttrBool:
		want = s.Bool(def)
		good = []any{true, false}
	default:
		t.Fatalf("%s: the REST API has no %v fields", s.Name, s.Kind)
	}
	if q[s.REST] != want {
		t.Errorf("default %s = %v, want %v (%s)", s.REST, q[s.REST], want, s.DefaultSource)
	}
	for _, v := range good {
		status, q := patch(v)
		if n, ok := v.(int); ok {
			v = float64(n) // as encoding/json reads numbers
		}
		if status != http.StatusOK || q[s.REST] != v {
			t.Errorf("set %s=%v: %d %v", s.REST, v, status, q)
		}
	}
	for _, v := range bad {
		lo, hi, _ := s.Range(l)
		status, q := patch(v)
		if want := fmt.Sprintf("%s must be from %d to %d.", s.REST, lo, hi); status != http.StatusBadRequest || restError(q, "invalid_request") != want {
			t.Errorf("set %s=%v: %d %v, want 400 %q", s.REST, v, status, q, want)
		}
	}
	if s.FifoOnly {
		restDo(t, http.MethodPost, queues, map[string]any{"name": "std"})
		status, q := restDo(t, http.MethodPatch, queues+"/std", map[string]any{s.REST: true})
		if want := s.REST + " applies to FIFO queues only."; status != http.StatusBadRequest || restError(q, "invalid_request") != want {
			t.Errorf("%s on a standard queue: %d %v, want 400 %q", s.REST, status, q, want)
		}
	}
}
