package sqs

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/minisqs/minisqs/engine"
)

// Queue attribute names (API_GetQueueAttributes, API_SetQueueAttributes).
const (
	attrAll                 = "All"
	attrDelaySeconds        = "DelaySeconds"
	attrMaximumMessageSize  = "MaximumMessageSize"
	attrRetention           = "MessageRetentionPeriod"
	attrReceiveWait         = "ReceiveMessageWaitTimeSeconds"
	attrVisibilityTimeout   = "VisibilityTimeout"
	attrRedrivePolicy       = "RedrivePolicy"
	attrRedriveAllowPolicy  = "RedriveAllowPolicy"
	attrPolicy              = "Policy"
	attrKmsMasterKeyID      = "KmsMasterKeyId"
	attrKmsReusePeriod      = "KmsDataKeyReusePeriodSeconds"
	attrSqsManagedSse       = "SqsManagedSseEnabled"
	attrFifoQueue           = "FifoQueue"
	attrContentBasedDedup   = "ContentBasedDeduplication"
	attrDeduplicationScope  = "DeduplicationScope"
	attrFifoThroughputLimit = "FifoThroughputLimit"
	attrQueueArn            = "QueueArn"
	attrCreated             = "CreatedTimestamp"
	attrLastModified        = "LastModifiedTimestamp"
	attrVisible             = "ApproximateNumberOfMessages"
	attrNotVisible          = "ApproximateNumberOfMessagesNotVisible"
	attrDelayed             = "ApproximateNumberOfMessagesDelayed"
)

// readableAttributes is every attribute GetQueueAttributes knows, in the
// order "All" lists them.
var readableAttributes = []string{
	attrVisible, attrNotVisible, attrDelayed, attrCreated, attrDelaySeconds,
	attrLastModified, attrMaximumMessageSize, attrRetention, attrQueueArn,
	attrReceiveWait, attrVisibilityTimeout, attrRedrivePolicy, attrRedriveAllowPolicy,
	attrPolicy, attrKmsMasterKeyID, attrKmsReusePeriod, attrSqsManagedSse,
	attrFifoQueue, attrContentBasedDedup, attrDeduplicationScope, attrFifoThroughputLimit,
}

var fifoOnlyAttributes = []string{attrFifoQueue, attrContentBasedDedup, attrDeduplicationScope, attrFifoThroughputLimit}

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
	intAttr := func(name, v string) (*int, error) {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, engine.ErrInvalidAttribute(name, v, engine.ReasonNotInteger)
		}
		return &n, nil
	}
	boolAttr := func(name, v string) (*bool, error) {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, engine.ErrInvalidAttribute(name, v, engine.ReasonNotBool)
		}
		return &b, nil
	}
	for _, name := range sortedKeys(in) {
		v := in[name]
		var err error
		switch name {
		case attrDelaySeconds:
			u.DelaySeconds, err = intAttr(name, v)
		case attrMaximumMessageSize:
			u.MaximumMessageSize, err = intAttr(name, v)
		case attrRetention:
			u.MessageRetentionPeriod, err = intAttr(name, v)
		case attrReceiveWait:
			u.ReceiveMessageWaitTimeSeconds, err = intAttr(name, v)
		case attrVisibilityTimeout:
			u.VisibilityTimeout, err = intAttr(name, v)
		case attrKmsReusePeriod:
			u.KmsDataKeyReusePeriodSeconds, err = intAttr(name, v)
		case attrSqsManagedSse:
			u.SqsManagedSseEnabled, err = boolAttr(name, v)
		case attrFifoQueue:
			u.FifoQueue, err = boolAttr(name, v)
		case attrContentBasedDedup:
			u.ContentBasedDeduplication, err = boolAttr(name, v)
		case attrDeduplicationScope:
			u.DeduplicationScope = &v
		case attrFifoThroughputLimit:
			u.FifoThroughputLimit = &v
		case attrPolicy:
			if v != "" && !json.Valid([]byte(v)) {
				return u, engine.ErrInvalidAttribute(name, v, engine.ReasonMalformed)
			}
			u.Policy = &v
		case attrKmsMasterKeyID:
			u.KmsMasterKeyID = &v
		case attrRedrivePolicy:
			if v == "" {
				u.ClearRedrivePolicy = true
				continue
			}
			u.RedrivePolicy, err = parseRedrivePolicy(v)
		case attrRedriveAllowPolicy:
			if v == "" {
				u.ClearRedriveAllowPolicy = true
				continue
			}
			var p redriveAllowPolicyJSON
			if json.Unmarshal([]byte(v), &p) != nil {
				return u, engine.ErrInvalidAttribute(name, v, engine.ReasonNotJSON)
			}
			u.RedriveAllowPolicy = &engine.RedriveAllowPolicy{RedrivePermission: p.RedrivePermission, SourceQueueArns: p.SourceQueueArns}
		default:
			return u, engine.ErrUnknownAttribute(name)
		}
		if err != nil {
			return u, err
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
		switch {
		case n == attrAll:
			for _, r := range readableAttributes {
				want[r] = true
			}
		case !slices.Contains(readableAttributes, n), !a.FifoQueue && slices.Contains(fifoOnlyAttributes, n):
			return nil, engine.ErrUnknownAttribute(n)
		default:
			want[n] = true
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	set := func(name, v string) {
		if want[name] {
			out[name] = v
		}
	}
	itoa := strconv.Itoa
	if want[attrVisible] || want[attrNotVisible] || want[attrDelayed] {
		c := q.Counts()
		set(attrVisible, itoa(c.Visible))
		set(attrNotVisible, itoa(c.InFlight))
		set(attrDelayed, itoa(c.Delayed))
	}
	set(attrCreated, strconv.FormatInt(q.Created().Unix(), 10))
	set(attrLastModified, strconv.FormatInt(q.Modified().Unix(), 10))
	set(attrQueueArn, q.Arn())
	set(attrDelaySeconds, itoa(a.DelaySeconds))
	set(attrMaximumMessageSize, itoa(a.MaximumMessageSize))
	set(attrRetention, itoa(a.MessageRetentionPeriod))
	set(attrReceiveWait, itoa(a.ReceiveMessageWaitTimeSeconds))
	set(attrVisibilityTimeout, itoa(a.VisibilityTimeout))
	set(attrSqsManagedSse, strconv.FormatBool(a.SqsManagedSseEnabled))
	if p := a.RedrivePolicy; p != nil {
		b, _ := json.Marshal(struct {
			DeadLetterTargetArn string `json:"deadLetterTargetArn"`
			MaxReceiveCount     int    `json:"maxReceiveCount"`
		}{p.DeadLetterTargetArn, p.MaxReceiveCount})
		set(attrRedrivePolicy, string(b))
	}
	if p := a.RedriveAllowPolicy; p != nil {
		b, _ := json.Marshal(redriveAllowPolicyJSON{p.RedrivePermission, p.SourceQueueArns})
		set(attrRedriveAllowPolicy, string(b))
	}
	if a.Policy != "" {
		set(attrPolicy, a.Policy)
	}
	if a.KmsMasterKeyID != "" {
		set(attrKmsMasterKeyID, a.KmsMasterKeyID)
		set(attrKmsReusePeriod, itoa(a.KmsDataKeyReusePeriodSeconds))
	}
	if a.FifoQueue {
		set(attrFifoQueue, "true")
		set(attrContentBasedDedup, strconv.FormatBool(a.ContentBasedDeduplication))
		set(attrDeduplicationScope, a.DeduplicationScope)
		set(attrFifoThroughputLimit, a.FifoThroughputLimit)
	}
	return out, nil
}
