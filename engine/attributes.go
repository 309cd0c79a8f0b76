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

// DefaultAttributes returns the settings a new queue gets when a request
// leaves them out.
func DefaultAttributes(fifo bool) QueueAttributes {
	a := QueueAttributes{
		DelaySeconds:                  DefaultDelaySeconds,
		MaximumMessageSize:            DefaultMaximumMessageSize,
		MessageRetentionPeriod:        DefaultRetentionSeconds,
		ReceiveMessageWaitTimeSeconds: DefaultReceiveWaitSeconds,
		VisibilityTimeout:             DefaultVisibilityTimeout,
		KmsDataKeyReusePeriodSeconds:  DefaultKmsDataKeyReusePeriod,
		// New queues get SSE-SQS unless told otherwise (since 2022-10,
		// "Amazon SQS announces server-side encryption with Amazon
		// SQS-managed encryption keys by default").
		SqsManagedSseEnabled: true,
		FifoQueue:            fifo,
	}
	if fifo {
		a.DeduplicationScope = DeduplicationScopeQueue
		a.FifoThroughputLimit = FifoThroughputPerQueue
	}
	return a
}

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

func checkRange(name string, v *int, lo, hi int) error {
	if v != nil && (*v < lo || *v > hi) {
		return ErrAttributeRange(name, *v, lo, hi)
	}
	return nil
}

// validate checks every named value against the ranges of l and the queue
// type. Checks that need other queues (the dead-letter target) are the
// engine's.
func (u *AttributeUpdate) validate(fifo bool, l Limits) error {
	for _, c := range []struct {
		name   string
		v      *int
		lo, hi int
	}{
		{"DelaySeconds", u.DelaySeconds, 0, l.MaxDelaySeconds},
		{"MaximumMessageSize", u.MaximumMessageSize, l.MinMaximumMessageSize, l.MaxMaximumMessageSize},
		{"MessageRetentionPeriod", u.MessageRetentionPeriod, l.MinRetentionSeconds, l.MaxRetentionSeconds},
		{"ReceiveMessageWaitTimeSeconds", u.ReceiveMessageWaitTimeSeconds, 0, l.MaxReceiveWaitSeconds},
		{"VisibilityTimeout", u.VisibilityTimeout, l.MinVisibilityTimeout, l.MaxVisibilityTimeout},
		{"KmsDataKeyReusePeriodSeconds", u.KmsDataKeyReusePeriodSeconds, MinKmsDataKeyReusePeriod, MaxKmsDataKeyReusePeriod},
	} {
		if err := checkRange(c.name, c.v, c.lo, c.hi); err != nil {
			return err
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
		switch {
		case u.FifoQueue != nil:
			return ErrFifoOnly("FifoQueue")
		case u.ContentBasedDeduplication != nil:
			return ErrFifoOnly("ContentBasedDeduplication")
		case u.DeduplicationScope != nil:
			return ErrFifoOnly("DeduplicationScope")
		case u.FifoThroughputLimit != nil:
			return ErrFifoOnly("FifoThroughputLimit")
		}
	}
	if v := u.DeduplicationScope; v != nil && *v != DeduplicationScopeQueue && *v != DeduplicationScopeMessageGroup {
		return ErrInvalidAttribute("DeduplicationScope", *v, ReasonMalformed)
	}
	if v := u.FifoThroughputLimit; v != nil && *v != FifoThroughputPerQueue && *v != FifoThroughputPerMessageGroup {
		return ErrInvalidAttribute("FifoThroughputLimit", *v, ReasonMalformed)
	}
	if u.KmsMasterKeyID != nil && *u.KmsMasterKeyID != "" && u.SqsManagedSseEnabled != nil && *u.SqsManagedSseEnabled {
		return ErrSSEConflict()
	}
	for name, v := range map[string]*string{"Policy": u.Policy, "KmsMasterKeyId": u.KmsMasterKeyID} {
		if v != nil && !validText(*v) {
			return ErrInvalidAttribute(name, *v, ReasonCharacters)
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

// apply writes the named values over a.
func (u *AttributeUpdate) apply(a *QueueAttributes) {
	setInt := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	setInt(&a.DelaySeconds, u.DelaySeconds)
	setInt(&a.MaximumMessageSize, u.MaximumMessageSize)
	setInt(&a.MessageRetentionPeriod, u.MessageRetentionPeriod)
	setInt(&a.ReceiveMessageWaitTimeSeconds, u.ReceiveMessageWaitTimeSeconds)
	setInt(&a.VisibilityTimeout, u.VisibilityTimeout)
	setInt(&a.KmsDataKeyReusePeriodSeconds, u.KmsDataKeyReusePeriodSeconds)
	if u.ClearRedrivePolicy {
		a.RedrivePolicy = nil
	} else if u.RedrivePolicy != nil {
		p := *u.RedrivePolicy
		a.RedrivePolicy = &p
	}
	if u.ClearRedriveAllowPolicy {
		a.RedriveAllowPolicy = nil
	} else if u.RedriveAllowPolicy != nil {
		p := *u.RedriveAllowPolicy
		p.SourceQueueArns = slices.Clone(p.SourceQueueArns)
		a.RedriveAllowPolicy = &p
	}
	if u.Policy != nil {
		a.Policy = *u.Policy
	}
	if u.KmsMasterKeyID != nil {
		a.KmsMasterKeyID = *u.KmsMasterKeyID
		// SSE-KMS and SSE-SQS exclude each other.
		if a.KmsMasterKeyID != "" {
			a.SqsManagedSseEnabled = false
		}
	}
	if u.SqsManagedSseEnabled != nil {
		a.SqsManagedSseEnabled = *u.SqsManagedSseEnabled
	}
	if u.ContentBasedDeduplication != nil {
		a.ContentBasedDeduplication = *u.ContentBasedDeduplication
	}
	if u.DeduplicationScope != nil {
		a.DeduplicationScope = *u.DeduplicationScope
	}
	if u.FifoThroughputLimit != nil {
		a.FifoThroughputLimit = *u.FifoThroughputLimit
	}
}

// differing names the attributes whose values in the update differ from
// a's. CreateQueue treats a repeated call as the same queue when it names
// none.
func (u *AttributeUpdate) differing(a QueueAttributes) []string {
	b := a
	u.apply(&b)
	var out []string
	add := func(name string, same bool) {
		if !same {
			out = append(out, name)
		}
	}
	add("DelaySeconds", a.DelaySeconds == b.DelaySeconds)
	add("MaximumMessageSize", a.MaximumMessageSize == b.MaximumMessageSize)
	add("MessageRetentionPeriod", a.MessageRetentionPeriod == b.MessageRetentionPeriod)
	add("ReceiveMessageWaitTimeSeconds", a.ReceiveMessageWaitTimeSeconds == b.ReceiveMessageWaitTimeSeconds)
	add("VisibilityTimeout", a.VisibilityTimeout == b.VisibilityTimeout)
	add("KmsDataKeyReusePeriodSeconds", a.KmsDataKeyReusePeriodSeconds == b.KmsDataKeyReusePeriodSeconds)
	add("RedrivePolicy", (a.RedrivePolicy == nil) == (b.RedrivePolicy == nil) && (a.RedrivePolicy == nil || *a.RedrivePolicy == *b.RedrivePolicy))
	ra, rb := a.RedriveAllowPolicy, b.RedriveAllowPolicy
	add("RedriveAllowPolicy", (ra == nil) == (rb == nil) && (ra == nil || ra.RedrivePermission == rb.RedrivePermission && slices.Equal(ra.SourceQueueArns, rb.SourceQueueArns)))
	add("Policy", a.Policy == b.Policy)
	add("KmsMasterKeyId", a.KmsMasterKeyID == b.KmsMasterKeyID)
	add("SqsManagedSseEnabled", a.SqsManagedSseEnabled == b.SqsManagedSseEnabled)
	add("ContentBasedDeduplication", a.ContentBasedDeduplication == b.ContentBasedDeduplication)
	add("DeduplicationScope", a.DeduplicationScope == b.DeduplicationScope)
	add("FifoThroughputLimit", a.FifoThroughputLimit == b.FifoThroughputLimit)
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
