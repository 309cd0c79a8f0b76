package sqs

import (
	"encoding/json"
	"strconv"

	"github.com/minisqs/minisqs/engine"
)

// attrAll asks GetQueueAttributes for every attribute; the others are in
// engine.QueueAttributeTable.
const attrAll = "All"

// The queue's state, answered by GetQueueAttributes and never set
// (API_GetQueueAttributes).
const (
	attrVisible      = "ApproximateNumberOfMessages"
	attrNotVisible   = "ApproximateNumberOfMessagesNotVisible"
	attrDelayed      = "ApproximateNumberOfMessagesDelayed"
	attrCreated      = "CreatedTimestamp"
	attrLastModified = "LastModifiedTimestamp"
	attrQueueArn     = "QueueArn"
)

// redrivePolicyJSON is RedrivePolicy as SQS writes it. maxReceiveCount is
// read as a number or a string, since clients send both.
type redrivePolicyJSON struct {
	DeadLetterTargetArn string          `json:"deadLetterTargetArn"`
	MaxReceiveCount     json.RawMessage `json:"maxReceiveCount"`
}

type redriveAllowPolicyJSON struct {
	RedrivePermission string   `json:"redrivePermission"`
	SourceQueueArns   []string `json:"sourceQueueArns,omitempty"`
}

// ParseAttributes reads CreateQueue's or SetQueueAttributes' attribute map:
// SQS attribute names with their values as strings. The queueconfig package
// uses it too, so a config file takes exactly what CreateQueue takes.
func ParseAttributes(in map[string]string) (engine.AttributeUpdate, error) {
	var u engine.AttributeUpdate
	for _, name := range sortedKeys(in) {
		v := in[name]
		s, ok := engine.LookupAttribute(name)
		if !ok || s.ReadOnly {
			return u, engine.ErrUnknownAttribute(name)
		}
		switch s.Kind {
		case engine.AttrInt:
			n, err := strconv.Atoi(v)
			if err != nil {
				return u, engine.ErrInvalidAttribute(name, v, engine.ReasonNotInteger)
			}
			s.SetInt(&u, n)
		case engine.AttrBool:
			b, err := strconv.ParseBool(v)
			if err != nil {
				return u, engine.ErrInvalidAttribute(name, v, engine.ReasonNotBool)
			}
			s.SetBool(&u, b)
		case engine.AttrJSON:
			if v != "" && !json.Valid([]byte(v)) {
				return u, engine.ErrInvalidAttribute(name, v, engine.ReasonMalformed)
			}
			s.SetText(&u, v)
		case engine.AttrText:
			s.SetText(&u, v)
		case engine.AttrRedrivePolicy:
			if v == "" {
				u.ClearRedrivePolicy = true
				continue
			}
			p, err := parseRedrivePolicy(v)
			if err != nil {
				return u, err
			}
			u.RedrivePolicy = p
		case engine.AttrRedriveAllowPolicy:
			if v == "" {
				u.ClearRedriveAllowPolicy = true
				continue
			}
			var p redriveAllowPolicyJSON
			if json.Unmarshal([]byte(v), &p) != nil {
				return u, engine.ErrInvalidAttribute(name, v, engine.ReasonNotJSON)
			}
			u.RedriveAllowPolicy = &engine.RedriveAllowPolicy{RedrivePermission: p.RedrivePermission, SourceQueueArns: p.SourceQueueArns}
		}
	}
	return u, nil
}

func parseRedrivePolicy(v string) (*engine.RedrivePolicy, error) {
	var p redrivePolicyJSON
	if err := json.Unmarshal([]byte(v), &p); err != nil {
		return nil, engine.ErrRedrivePolicy(v, engine.ReasonNotJSON, "")
	}
	if p.DeadLetterTargetArn == "" {
		return nil, engine.ErrRedrivePolicy(v, engine.ReasonMissingField, "deadLetterTargetArn")
	}
	raw := string(p.MaxReceiveCount)
	if raw == "" || raw == "null" {
		return nil, engine.ErrRedrivePolicy(v, engine.ReasonMissingField, "maxReceiveCount")
	}
	if unq, err := strconv.Unquote(raw); err == nil {
		raw = unq
	}
	n, err := strconv.Atoi(raw)
	if err != nil {
		return nil, engine.ErrRedrivePolicy(v, engine.ReasonMaxReceiveCount, raw)
	}
	return &engine.RedrivePolicy{DeadLetterTargetArn: p.DeadLetterTargetArn, MaxReceiveCount: n}, nil
}

// renderAttributes answers GetQueueAttributes for the names asked.
func renderAttributes(q *engine.Queue, names []string) (map[string]string, error) {
	a := q.Attributes()
	want := map[string]bool{}
	for _, n := range names {
		if n == attrAll {
			for _, s := range engine.QueueAttributeTable() {
				want[s.Name] = true
			}
			continue
		}
		if s, ok := engine.LookupAttribute(n); !ok || s.FifoOnly && !a.FifoQueue {
			return nil, engine.ErrUnknownAttribute(n)
		}
		want[n] = true
	}
	if len(want) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	var counts *engine.Counts
	for _, s := range engine.QueueAttributeTable() {
		if !want[s.Name] || !s.Shown(a) {
			continue
		}
		if s.ReadOnly {
			if counts == nil && (s.Name == attrVisible || s.Name == attrNotVisible || s.Name == attrDelayed) {
				c := q.Counts()
				counts = &c
			}
			out[s.Name] = stateAttribute(q, s.Name, counts)
			continue
		}
		switch s.Kind {
		case engine.AttrInt:
			out[s.Name] = strconv.Itoa(s.Int(a))
		case engine.AttrBool:
			out[s.Name] = strconv.FormatBool(s.Bool(a))
		case engine.AttrText, engine.AttrJSON:
			out[s.Name] = s.Text(a)
		case engine.AttrRedrivePolicy:
			b, _ := json.Marshal(struct {
				DeadLetterTargetArn string `json:"deadLetterTargetArn"`
				MaxReceiveCount     int    `json:"maxReceiveCount"`
			}{a.RedrivePolicy.DeadLetterTargetArn, a.RedrivePolicy.MaxReceiveCount})
			out[s.Name] = string(b)
		case engine.AttrRedriveAllowPolicy:
			p := a.RedriveAllowPolicy
			b, _ := json.Marshal(redriveAllowPolicyJSON{p.RedrivePermission, p.SourceQueueArns})
			out[s.Name] = string(b)
		}
	}
	return out, nil
}

// stateAttribute is the value of one of the queue's read-only attributes;
// counts are the queue's counts when one of them is asked.
func stateAttribute(q *engine.Queue, name string, counts *engine.Counts) string {
	switch name {
	case attrVisible:
		return strconv.Itoa(counts.Visible)
	case attrNotVisible:
		return strconv.Itoa(counts.InFlight)
	case attrDelayed:
		return strconv.Itoa(counts.Delayed)
	case attrCreated:
		return strconv.FormatInt(q.Created().Unix(), 10)
	case attrLastModified:
		return strconv.FormatInt(q.Modified().Unix(), 10)
	case attrQueueArn:
		return q.Arn()
	}
	panic("sqs: no value for read-only attribute " + name)
}
