package engine

import (
	"slices"
	"strconv"
	"strings"
)

// RedrivePolicy sends messages received MaxReceiveCount times to the queue
// whose ARN is DeadLetterTargetArn.
type RedrivePolicy struct {
	DeadLetterTargetArn string
	MaxReceiveCount     int
}

// Redrive permissions of RedriveAllowPolicy.
const (
	RedriveAllowAll = "allowAll"
	RedriveDenyAll  = "denyAll"
	RedriveByQueue  = "byQueue"
)

// RedriveAllowPolicy says which source queues may use a queue as their
// dead-letter queue.
type RedriveAllowPolicy struct {
	RedrivePermission string
	SourceQueueArns   []string
}

func (p *RedriveAllowPolicy) allows(sourceArn string) bool {
	if p == nil {
		return true
	}
	switch p.RedrivePermission {
	case RedriveDenyAll:
		return false
	case RedriveByQueue:
		return slices.Contains(p.SourceQueueArns, sourceArn)
	}
	return true
}

// FIFO settings values.
const (
	DeduplicationScopeQueue        = "queue"
	DeduplicationScopeMessageGroup = "messageGroup"
	FifoThroughputPerQueue         = "perQueue"
	FifoThroughputPerMessageGroup  = "perMessageGroupId"
)

// QueueAttributes are a queue's settings. Durations are whole seconds, as
// SQS states them.
type QueueAttributes struct {
	DelaySeconds                  int
	MaximumMessageSize            int
	MessageRetentionPeriod        int
	ReceiveMessageWaitTimeSeconds int
	VisibilityTimeout             int
	RedrivePolicy                 *RedrivePolicy
	RedriveAllowPolicy            *RedriveAllowPolicy
	Policy                        string
	KmsMasterKeyID                string
	KmsDataKeyReusePeriodSeconds  int
	SqsManagedSseEnabled          bool
	FifoQueue                     bool
	ContentBasedDeduplication     bool
	DeduplicationScope            string
	FifoThroughputLimit           string
}

// DefaultAttributes returns the settings a new queue gets under AWS's
// limits when a request leaves them out.
func DefaultAttributes(fifo bool) QueueAttributes { return AWSLimits.DefaultAttributes(fifo) }

// AttributeUpdate holds the settings a request names; nil fields are left
// as they are. Clear* fields remove an optional policy.
type AttributeUpdate struct {
	DelaySeconds                  *int
	MaximumMessageSize            *int
	MessageRetentionPeriod        *int
	ReceiveMessageWaitTimeSeconds *int
	VisibilityTimeout             *int
	RedrivePolicy                 *RedrivePolicy
	ClearRedrivePolicy            bool
	RedriveAllowPolicy            *RedriveAllowPolicy
	ClearRedriveAllowPolicy       bool
	Policy                        *string
	KmsMasterKeyID                *string
	KmsDataKeyReusePeriodSeconds  *int
	SqsManagedSseEnabled          *bool
	FifoQueue                     *bool
	ContentBasedDeduplication     *bool
	DeduplicationScope            *string
	FifoThroughputLimit           *string
}

// validate checks every named value against the ranges of l and the queue
// type. Checks that need other queues (the dead-letter target) are the
// engine's.
func (u *AttributeUpdate) validate(fifo bool, l Limits) error {
	for _, s := range attributeTable {
		if lo, hi, ok := s.Range(l); ok {
			if v := *s.field.(scalar[int]).update(u); v != nil && (*v < lo || *v > hi) {
				return ErrAttributeRange(s.Name, *v, lo, hi)
			}
		}
	}
	if p := u.RedrivePolicy; p != nil {
		if p.MaxReceiveCount < MinMaxReceiveCount || p.MaxReceiveCount > MaxMaxReceiveCount {
			return ErrRedrivePolicy(p.MaxReceiveCount, ReasonMaxReceiveCount, strconv.Itoa(p.MaxReceiveCount))
		}
		if _, _, _, ok := parseQueueArn(p.DeadLetterTargetArn); !ok {
			return ErrRedrivePolicy(p.DeadLetterTargetArn, ReasonBadTargetArn, "")
		}
	}
	if p := u.RedriveAllowPolicy; p != nil {
		switch p.RedrivePermission {
		case RedriveAllowAll, RedriveDenyAll:
			if len(p.SourceQueueArns) > 0 {
				return ErrInvalidAttribute("RedriveAllowPolicy", nil, ReasonSourcesNotByQueue)
			}
		case RedriveByQueue:
			if n := len(p.SourceQueueArns); n == 0 || n > MaxRedriveSourceQueues {
				return ErrInvalidAttribute("RedriveAllowPolicy", nil, ReasonSourcesCount)
			}
		default:
			return ErrInvalidAttribute("RedriveAllowPolicy", p.RedrivePermission, ReasonPermission)
		}
	}
	if !fifo {
		// On a standard queue even FifoQueue=false is unknown, and the
		// high-throughput settings say why (LocalStack's validated
		// test_create_standard_queue_with_fifo_attribute_raises_error and
		// test_set_unsupported_attribute_standard).
		for _, s := range attributeTable {
			if s.FifoOnly && s.Named(*u) {
				return ErrFifoOnly(s.Name)
			}
		}
	}
	for _, s := range attributeTable {
		if s.Kind != AttrText || s.Values == nil {
			continue
		}
		if v := *s.field.(scalar[string]).update(u); v != nil && !slices.Contains(s.Values, *v) {
			return ErrInvalidAttribute(s.Name, *v, ReasonMalformed)
		}
	}
	if u.KmsMasterKeyID != nil && *u.KmsMasterKeyID != "" && u.SqsManagedSseEnabled != nil && *u.SqsManagedSseEnabled {
		return ErrSSEConflict()
	}
	for _, s := range attributeTable {
		if s.ReadOnly || (s.Kind != AttrText && s.Kind != AttrJSON) || s.Values != nil {
			continue
		}
		if v := *s.field.(scalar[string]).update(u); v != nil && !validText(*v) {
			return ErrInvalidAttribute(s.Name, *v, ReasonCharacters)
		}
	}
	return nil
}

// check applies the rules that tie settings together.
func (a QueueAttributes) check() error {
	if a.FifoThroughputLimit == FifoThroughputPerMessageGroup && a.DeduplicationScope != DeduplicationScopeMessageGroup {
		return ErrInvalidAttribute("FifoThroughputLimit", a.FifoThroughputLimit, ReasonThroughputScope)
	}
	return nil
}

// apply writes the named values over a. The queue type is fixed at
// creation, so FifoQueue is not written.
func (u *AttributeUpdate) apply(a *QueueAttributes) {
	for _, s := range attributeTable {
		if s.field != nil && !s.TypeFixed {
			s.field.apply(u, a)
		}
	}
}

// differing names the attributes whose values in the update differ from
// a's. CreateQueue treats a repeated call as the same queue when it names
// none.
func (u *AttributeUpdate) differing(a QueueAttributes) []string {
	b := a
	u.apply(&b)
	var out []string
	for _, s := range attributeTable {
		if s.field != nil && !s.field.same(&a, &b) {
			out = append(out, s.Name)
		}
	}
	return out
}

// parseQueueArn splits arn:aws:sqs:REGION:ACCOUNT:NAME.
func parseQueueArn(arn string) (region, account, name string, ok bool) {
	parts := strings.Split(arn, ":")
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "sqs" || parts[3] == "" || parts[4] == "" || parts[5] == "" {
		return "", "", "", false
	}
	return parts[3], parts[4], parts[5], true
}
