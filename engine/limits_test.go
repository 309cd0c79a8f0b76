package engine

import (
	"fmt"
	"strings"
	"testing"
)

func TestLimitsNamed(t *testing.T) {
	for _, tc := range []struct {
		name string
		want Limits
		ok   bool
	}{
		{"aws", AWSLimits, true},
		{"smq", SMQLimits, true},
		{"", Limits{}, false},
		{"SMQ", Limits{}, false},
		{"azure", Limits{}, false},
	} {
		if got, ok := LimitsNamed(tc.name); got != tc.want || ok != tc.ok {
			t.Errorf("LimitsNamed(%q) = %+v, %v", tc.name, got, ok)
		}
	}
	e, _ := newTestEngine(t, Options{})
	if e.Limits() != AWSLimits {
		t.Errorf("default limits %+v, want AWS's", e.Limits())
	}
}

// Queue names under each profile. SMQ's: "Must start with a letter or
// digit. Can contain letters, digits, and hyphens (-)", "Up to 120
// characters" (Alibaba Cloud SMQ, queue overview); minisqs keeps SQS's
// ".fifo" suffix for FIFO queues, counted in the length.
func TestLimitsQueueNames(t *testing.T) {
	for _, tc := range []struct {
		name     string
		aws, smq bool
	}{
		{"orders", true, true},
		{"orders.fifo", true, true},
		{"9lives", true, true},
		{"with_underscore", true, false},
		{"-leading-hyphen", true, false},
		{"_leading_underscore", true, false},
		{"trailing-", true, true},
		{strings.Repeat("a", 80), true, true},
		{strings.Repeat("a", 81), false, true},
		{strings.Repeat("a", 115) + ".fifo", false, true},
		{strings.Repeat("a", 120), false, true},
		{strings.Repeat("a", 121), false, false},
		{"", false, false},
		{".fifo", false, false},
		{"has space", false, false},
		{"dots.in.name", false, false},
	} {
		if got := AWSLimits.ValidQueueName(tc.name); got != tc.aws {
			t.Errorf("aws %.30q: %v, want %v", tc.name, got, tc.aws)
		}
		if got := SMQLimits.ValidQueueName(tc.name); got != tc.smq {
			t.Errorf("smq %.30q: %v, want %v", tc.name, got, tc.smq)
		}
		if got := ValidQueueName(tc.name); got != tc.aws {
			t.Errorf("ValidQueueName %.30q: %v, want AWS's %v", tc.name, got, tc.aws)
		}
	}
	e, _ := newTestEngine(t, Options{Limits: SMQLimits})
	_, err := e.CreateQueue("with_underscore", AttributeUpdate{}, nil)
	wantCode(t, err, ErrInvalidParameterValue)
	if e := err.(*Error); e.Kind != KindQueueName || e.Reason != ReasonNameRuleAlnum || e.Max != 120 {
		t.Errorf("SMQ name error %v, want the SMQ rule of 120 characters", err)
	}
	mustCreate(t, e, strings.Repeat("b", 120), AttributeUpdate{}, nil)
}

// SMQ's ranges and defaults (Alibaba Cloud SMQ, queue overview: "Queue
// properties" and "Limitations") against the settings, sends and receives
// of a queue, beside AWS's.
func TestLimitsSMQQueue(t *testing.T) {
	e, _ := newTestEngine(t, Options{Limits: SMQLimits})
	q := mustCreate(t, e, "smq", AttributeUpdate{}, nil)
	if a := q.Attributes(); a.MaximumMessageSize != 64<<10 || a.MessageRetentionPeriod != DefaultRetentionSeconds || a.VisibilityTimeout != DefaultVisibilityTimeout {
		t.Errorf("SMQ defaults %+v", a)
	}
	for _, tc := range []struct {
		what     string
		u        AttributeUpdate
		aws, smq Code // "" accepted
	}{
		{"message size 64 KB", AttributeUpdate{MaximumMessageSize: ptr(65536)}, "", ""},
		{"message size over 64 KB", AttributeUpdate{MaximumMessageSize: ptr(65537)}, "", ErrInvalidAttributeValue},
		{"message size 1 KB", AttributeUpdate{MaximumMessageSize: ptr(1024)}, "", ""},
		{"retention 7 days", AttributeUpdate{MessageRetentionPeriod: ptr(604800)}, "", ""},
		{"retention over 7 days", AttributeUpdate{MessageRetentionPeriod: ptr(604801)}, "", ErrInvalidAttributeValue},
		{"retention 14 days", AttributeUpdate{MessageRetentionPeriod: ptr(1209600)}, "", ErrInvalidAttributeValue},
		{"delay 900 s", AttributeUpdate{DelaySeconds: ptr(900)}, "", ""},
		{"delay 7 days", AttributeUpdate{DelaySeconds: ptr(604800)}, ErrInvalidAttributeValue, ""},
		{"delay over 7 days", AttributeUpdate{DelaySeconds: ptr(604801)}, ErrInvalidAttributeValue, ErrInvalidAttributeValue},
		{"long poll 30 s", AttributeUpdate{ReceiveMessageWaitTimeSeconds: ptr(30)}, ErrInvalidAttributeValue, ""},
		{"long poll 31 s", AttributeUpdate{ReceiveMessageWaitTimeSeconds: ptr(31)}, ErrInvalidAttributeValue, ErrInvalidAttributeValue},
		{"visibility 0", AttributeUpdate{VisibilityTimeout: ptr(0)}, "", ErrInvalidAttributeValue},
		{"visibility 1", AttributeUpdate{VisibilityTimeout: ptr(1)}, "", ""},
	} {
		if err := tc.u.validate(false, AWSLimits); CodeOf(err) != tc.aws && !(err == nil && tc.aws == "") {
			t.Errorf("aws %s: %v, want %q", tc.what, err, tc.aws)
		}
		if err := tc.u.validate(false, SMQLimits); CodeOf(err) != tc.smq && !(err == nil && tc.smq == "") {
			t.Errorf("smq %s: %v, want %q", tc.what, err, tc.smq)
		}
	}
	wantCode(t, q.SetAttributes(AttributeUpdate{DelaySeconds: ptr(604800)}), "")
	wantCode(t, q.SetAttributes(AttributeUpdate{DelaySeconds: ptr(0)}), "")

	// A message of 64 KB is taken, a longer one not; a message's own delay
	// goes up to 7 days.
	r := q.Send([]NewMessage{{Body: strings.Repeat("x", 64<<10)}, {Body: strings.Repeat("x", 64<<10+1)}, {Body: "late", DelaySeconds: ptr(604800)}, {Body: "later", DelaySeconds: ptr(604801)}})
	wantCode(t, r[0].Err, "")
	wantCode(t, r[1].Err, ErrMessageTooLong)
	wantCode(t, r[2].Err, "")
	wantCode(t, r[3].Err, ErrInvalidParameterValue)

	// A receive takes up to 16 and waits up to 30 seconds.
	var msgs []NewMessage
	for i := range 20 {
		msgs = append(msgs, NewMessage{Body: fmt.Sprint(i)})
	}
	send(t, q, msgs...)
	if ds := recvNow(t, q, ReceiveOptions{MaxMessages: 16}); len(ds) != 16 {
		t.Errorf("received %d of 16", len(ds))
	}
	for _, bad := range []ReceiveOptions{{MaxMessages: 17}, {WaitSeconds: ptr(31)}} {
		_, err := q.Receive(t.Context(), bad)
		wantCode(t, err, ErrInvalidParameterValue)
	}
	if ds := recvNow(t, q, ReceiveOptions{MaxMessages: 16, WaitSeconds: ptr(30)}); len(ds) != 5 {
		t.Errorf("received %d of the last 5", len(ds))
	}
}

// SMQ allows 1,000 queues a region ("Queues per region: 1,000 ... Queue
// creation fails"); AWS sets no such limit.
func TestLimitsSMQQueueCount(t *testing.T) {
	l := SMQLimits
	l.MaxQueues = 3 // the rule, at a size a test can fill
	e, _ := newTestEngine(t, Options{Limits: l, SkipCooldowns: true})
	var qs []*Queue
	for i := range 3 {
		qs = append(qs, mustCreate(t, e, fmt.Sprint("q", i), AttributeUpdate{}, nil))
	}
	_, err := e.CreateQueue("q3", AttributeUpdate{}, nil)
	wantCode(t, err, ErrOverLimit)
	// The same queue again is no new queue; a deleted one frees its place.
	mustCreate(t, e, "q0", AttributeUpdate{}, nil)
	wantCode(t, e.DeleteQueue(qs[0]), "")
	mustCreate(t, e, "q3", AttributeUpdate{}, nil)
	if SMQLimits.MaxQueues != 1000 || AWSLimits.MaxQueues != 0 {
		t.Errorf("queue caps: smq %d, aws %d", SMQLimits.MaxQueues, AWSLimits.MaxQueues)
	}
}
