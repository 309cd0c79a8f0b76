package engine

import "slices"

// AttributeKind is the type of a queue attribute's value.
type AttributeKind int

// Kinds of queue attribute values.
const (
	// AttrInt is a whole number; durations are whole seconds.
	AttrInt AttributeKind = iota + 1
	// AttrBool is true or false.
	AttrBool
	// AttrText is a string: one of the attribute's Values where it has
	// them, otherwise text of the characters a message body may hold.
	AttrText
	// AttrJSON is a JSON document, held as its text (Policy).
	AttrJSON
	// AttrRedrivePolicy is a RedrivePolicy.
	AttrRedrivePolicy
	// AttrRedriveAllowPolicy is a RedriveAllowPolicy.
	AttrRedriveAllowPolicy
)

// AttributeSpec declares one queue attribute: the engine's checks, defaults
// and comparisons and every front end's names for it follow from it.
type AttributeSpec struct {
	// Name is the attribute's SQS name.
	Name string
	Kind AttributeKind
	// Values are the values an AttrText attribute may take; nil is any text.
	Values []string
	// DefaultSource says where AWS documents the default.
	DefaultSource string
	// FifoOnly attributes belong to FIFO queues: a standard queue neither
	// takes nor answers them.
	FifoOnly bool
	// HighThroughput marks the settings of high throughput for FIFO queues,
	// which SQS names when a standard queue is given them.
	HighThroughput bool
	// TypeFixed is the queue type: given at creation, never changed.
	TypeFixed bool
	// ReadOnly attributes are the queue's state, answered but never set.
	ReadOnly bool
	// REST is the REST API's field name; "" where the API has none.
	REST string
	// Config is the name a queue config file gives the attribute; "" where
	// a file cannot set it.
	Config string

	bounds func(Limits) (lo, hi int)
	// shown reports whether a queue has a value to answer; nil is always.
	shown func(*QueueAttributes) bool
	field attrField
}

// Range returns the values an AttrInt attribute may take under l; ok is
// false for an attribute without a range.
func (s AttributeSpec) Range(l Limits) (lo, hi int, ok bool) {
	if s.bounds == nil {
		return 0, 0, false
	}
	lo, hi = s.bounds(l)
	return lo, hi, true
}

// Shown reports whether a queue with settings a answers the attribute:
// optional settings are answered only when set, FIFO-only ones only by FIFO
// queues.
func (s AttributeSpec) Shown(a QueueAttributes) bool {
	if s.FifoOnly && !a.FifoQueue {
		return false
	}
	return s.shown == nil || s.shown(&a)
}

// Int is the value of an AttrInt setting in a.
func (s AttributeSpec) Int(a QueueAttributes) int { return *s.field.(scalar[int]).value(&a) }

// Bool is the value of an AttrBool setting in a.
func (s AttributeSpec) Bool(a QueueAttributes) bool { return *s.field.(scalar[bool]).value(&a) }

// Text is the value of an AttrText or AttrJSON setting in a.
func (s AttributeSpec) Text(a QueueAttributes) string { return *s.field.(scalar[string]).value(&a) }

// SetInt names v for an AttrInt setting in u.
func (s AttributeSpec) SetInt(u *AttributeUpdate, v int) { *s.field.(scalar[int]).update(u) = &v }

// SetBool names v for an AttrBool setting in u.
func (s AttributeSpec) SetBool(u *AttributeUpdate, v bool) { *s.field.(scalar[bool]).update(u) = &v }

// SetText names v for an AttrText or AttrJSON setting in u.
func (s AttributeSpec) SetText(u *AttributeUpdate, v string) {
	*s.field.(scalar[string]).update(u) = &v
}

// Named reports whether u names the setting.
func (s AttributeSpec) Named(u AttributeUpdate) bool { return s.field != nil && s.field.named(&u) }

// QueueAttributeTable is every queue attribute, settings first in the order
// CreateQueue compares them, then the queue's state. Callers must not
// modify it.
func QueueAttributeTable() []AttributeSpec { return attributeTable }

// LookupAttribute finds the attribute of SQS name name.
func LookupAttribute(name string) (AttributeSpec, bool) {
	i := slices.IndexFunc(attributeTable, func(s AttributeSpec) bool { return s.Name == name })
	if i < 0 {
		return AttributeSpec{}, false
	}
	return attributeTable[i], true
}

// LookupConfigAttribute finds the attribute a queue config file names name.
func LookupConfigAttribute(name string) (AttributeSpec, bool) {
	i := slices.IndexFunc(attributeTable, func(s AttributeSpec) bool { return s.Config != "" && s.Config == name })
	if i < 0 {
		return AttributeSpec{}, false
	}
	return attributeTable[i], true
}

// Where AWS documents the defaults.
const (
	srcCreateQueue = "API_CreateQueue"
	srcSSEDefault  = "AWS What's New 2022-10, SSE-SQS by default for new queues"
	srcFIFOHigh    = "SQS Developer Guide, high throughput for FIFO queues"
)

var attributeTable = []AttributeSpec{
	{
		Name: "DelaySeconds", Kind: AttrInt, REST: "delaySeconds", Config: "DelaySeconds",
		DefaultSource: srcCreateQueue,
		bounds:        func(l Limits) (int, int) { return 0, l.MaxDelaySeconds },
		field: scalar[int]{
			value:  func(a *QueueAttributes) *int { return &a.DelaySeconds },
			update: func(u *AttributeUpdate) **int { return &u.DelaySeconds },
			def:    func(Limits) int { return DefaultDelaySeconds },
		},
	},
	{
		Name: "MaximumMessageSize", Kind: AttrInt, Config: "MaximumMessageSize",
		DefaultSource: srcCreateQueue,
		bounds:        func(l Limits) (int, int) { return l.MinMaximumMessageSize, l.MaxMaximumMessageSize },
		field: scalar[int]{
			value:  func(a *QueueAttributes) *int { return &a.MaximumMessageSize },
			update: func(u *AttributeUpdate) **int { return &u.MaximumMessageSize },
			def:    func(l Limits) int { return l.DefaultMaximumMessageSize },
		},
	},
	{
		Name: "MessageRetentionPeriod", Kind: AttrInt, REST: "retentionSeconds", Config: "MessageRetentionPeriod",
		DefaultSource: srcCreateQueue,
		bounds:        func(l Limits) (int, int) { return l.MinRetentionSeconds, l.MaxRetentionSeconds },
		field: scalar[int]{
			value:  func(a *QueueAttributes) *int { return &a.MessageRetentionPeriod },
			update: func(u *AttributeUpdate) **int { return &u.MessageRetentionPeriod },
			def:    func(Limits) int { return DefaultRetentionSeconds },
		},
	},
	{
		Name: "ReceiveMessageWaitTimeSeconds", Kind: AttrInt, REST: "receiveWaitSeconds", Config: "ReceiveMessageWaitTimeSeconds",
		DefaultSource: srcCreateQueue,
		bounds:        func(l Limits) (int, int) { return 0, l.MaxReceiveWaitSeconds },
		field: scalar[int]{
			value:  func(a *QueueAttributes) *int { return &a.ReceiveMessageWaitTimeSeconds },
			update: func(u *AttributeUpdate) **int { return &u.ReceiveMessageWaitTimeSeconds },
			def:    func(Limits) int { return DefaultReceiveWaitSeconds },
		},
	},
	{
		Name: "VisibilityTimeout", Kind: AttrInt, REST: "visibilityTimeoutSeconds", Config: "VisibilityTimeout",
		DefaultSource: srcCreateQueue,
		bounds:        func(l Limits) (int, int) { return l.MinVisibilityTimeout, l.MaxVisibilityTimeout },
		field: scalar[int]{
			value:  func(a *QueueAttributes) *int { return &a.VisibilityTimeout },
			update: func(u *AttributeUpdate) **int { return &u.VisibilityTimeout },
			def:    func(Limits) int { return DefaultVisibilityTimeout },
		},
	},
	{
		Name: "KmsDataKeyReusePeriodSeconds", Kind: AttrInt, Config: "KmsDataKeyReusePeriodSeconds",
		DefaultSource: srcCreateQueue,
		bounds:        func(Limits) (int, int) { return MinKmsDataKeyReusePeriod, MaxKmsDataKeyReusePeriod },
		shown:         func(a *QueueAttributes) bool { return a.KmsMasterKeyID != "" },
		field: scalar[int]{
			value:  func(a *QueueAttributes) *int { return &a.KmsDataKeyReusePeriodSeconds },
			update: func(u *AttributeUpdate) **int { return &u.KmsDataKeyReusePeriodSeconds },
			def:    func(Limits) int { return DefaultKmsDataKeyReusePeriod },
		},
	},
	{
		Name: "RedrivePolicy", Kind: AttrRedrivePolicy, REST: "redrive", Config: "RedrivePolicy",
		shown: func(a *QueueAttributes) bool { return a.RedrivePolicy != nil },
		field: redriveField{},
	},
	{
		Name: "RedriveAllowPolicy", Kind: AttrRedriveAllowPolicy, Config: "RedriveAllowPolicy",
		shown: func(a *QueueAttributes) bool { return a.RedriveAllowPolicy != nil },
		field: redriveAllowField{},
	},
	{
		Name: "Policy", Kind: AttrJSON, Config: "Policy",
		shown: func(a *QueueAttributes) bool { return a.Policy != "" },
		field: scalar[string]{
			value:  func(a *QueueAttributes) *string { return &a.Policy },
			update: func(u *AttributeUpdate) **string { return &u.Policy },
		},
	},
	{
		Name: "KmsMasterKeyId", Kind: AttrText, Config: "KmsMasterKeyId",
		shown: func(a *QueueAttributes) bool { return a.KmsMasterKeyID != "" },
		field: scalar[string]{
			value:  func(a *QueueAttributes) *string { return &a.KmsMasterKeyID },
			update: func(u *AttributeUpdate) **string { return &u.KmsMasterKeyID },
			// SSE-KMS and SSE-SQS exclude each other.
			onSet: func(a *QueueAttributes) {
				if a.KmsMasterKeyID != "" {
					a.SqsManagedSseEnabled = false
				}
			},
		},
	},
	{
		Name: "SqsManagedSseEnabled", Kind: AttrBool, Config: "SqsManagedSseEnabled",
		DefaultSource: srcSSEDefault,
		field: scalar[bool]{
			value:  func(a *QueueAttributes) *bool { return &a.SqsManagedSseEnabled },
			update: func(u *AttributeUpdate) **bool { return &u.SqsManagedSseEnabled },
			def:    func(Limits) bool { return true },
		},
	},
	{
		Name: "FifoQueue", Kind: AttrBool, FifoOnly: true, TypeFixed: true, Config: "FifoQueue",
		DefaultSource: srcCreateQueue,
		field: scalar[bool]{
			value:  func(a *QueueAttributes) *bool { return &a.FifoQueue },
			update: func(u *AttributeUpdate) **bool { return &u.FifoQueue },
			def:    func(Limits) bool { return true },
		},
	},
	{
		Name: "ContentBasedDeduplication", Kind: AttrBool, FifoOnly: true, REST: "contentBasedDedup", Config: "ContentBasedDeduplication",
		DefaultSource: srcCreateQueue,
		field: scalar[bool]{
			value:  func(a *QueueAttributes) *bool { return &a.ContentBasedDeduplication },
			update: func(u *AttributeUpdate) **bool { return &u.ContentBasedDeduplication },
		},
	},
	{
		Name: "DeduplicationScope", Kind: AttrText, FifoOnly: true, HighThroughput: true, Config: "DeduplicationScope",
		Values:        []string{DeduplicationScopeQueue, DeduplicationScopeMessageGroup},
		DefaultSource: srcFIFOHigh,
		field: scalar[string]{
			value:  func(a *QueueAttributes) *string { return &a.DeduplicationScope },
			update: func(u *AttributeUpdate) **string { return &u.DeduplicationScope },
			def:    func(Limits) string { return DeduplicationScopeQueue },
		},
	},
	{
		Name: "FifoThroughputLimit", Kind: AttrText, FifoOnly: true, HighThroughput: true, Config: "FifoThroughputLimit",
		Values:        []string{FifoThroughputPerQueue, FifoThroughputPerMessageGroup},
		DefaultSource: srcFIFOHigh,
		field: scalar[string]{
			value:  func(a *QueueAttributes) *string { return &a.FifoThroughputLimit },
			update: func(u *AttributeUpdate) **string { return &u.FifoThroughputLimit },
			def:    func(Limits) string { return FifoThroughputPerQueue },
		},
	},
	{Name: "ApproximateNumberOfMessages", Kind: AttrInt, ReadOnly: true},
	{Name: "ApproximateNumberOfMessagesNotVisible", Kind: AttrInt, ReadOnly: true},
	{Name: "ApproximateNumberOfMessagesDelayed", Kind: AttrInt, ReadOnly: true},
	{Name: "CreatedTimestamp", Kind: AttrInt, ReadOnly: true},
	{Name: "LastModifiedTimestamp", Kind: AttrInt, ReadOnly: true},
	{Name: "QueueArn", Kind: AttrText, ReadOnly: true},
}

// attrField reaches one setting in QueueAttributes and AttributeUpdate.
type attrField interface {
	named(u *AttributeUpdate) bool
	apply(u *AttributeUpdate, a *QueueAttributes)
	same(a, b *QueueAttributes) bool
	setDefault(a *QueueAttributes, l Limits)
}

// scalar is a setting of one comparable value.
type scalar[T comparable] struct {
	value  func(*QueueAttributes) *T
	update func(*AttributeUpdate) **T
	// def is the default; nil is T's zero value.
	def func(Limits) T
	// onSet runs after the setting is written, for settings that change
	// others.
	onSet func(*QueueAttributes)
}

func (f scalar[T]) named(u *AttributeUpdate) bool { return *f.update(u) != nil }

func (f scalar[T]) apply(u *AttributeUpdate, a *QueueAttributes) {
	v := *f.update(u)
	if v == nil {
		return
	}
	*f.value(a) = *v
	if f.onSet != nil {
		f.onSet(a)
	}
}

func (f scalar[T]) same(a, b *QueueAttributes) bool { return *f.value(a) == *f.value(b) }

func (f scalar[T]) setDefault(a *QueueAttributes, l Limits) {
	if f.def != nil {
		*f.value(a) = f.def(l)
	}
}

type redriveField struct{}

func (redriveField) named(u *AttributeUpdate) bool {
	return u.RedrivePolicy != nil || u.ClearRedrivePolicy
}

func (redriveField) apply(u *AttributeUpdate, a *QueueAttributes) {
	if u.ClearRedrivePolicy {
		a.RedrivePolicy = nil
	} else if u.RedrivePolicy != nil {
		p := *u.RedrivePolicy
		a.RedrivePolicy = &p
	}
}

func (redriveField) same(a, b *QueueAttributes) bool {
	pa, pb := a.RedrivePolicy, b.RedrivePolicy
	return (pa == nil) == (pb == nil) && (pa == nil || *pa == *pb)
}

func (redriveField) setDefault(*QueueAttributes, Limits) {}

type redriveAllowField struct{}

func (redriveAllowField) named(u *AttributeUpdate) bool {
	return u.RedriveAllowPolicy != nil || u.ClearRedriveAllowPolicy
}

func (redriveAllowField) apply(u *AttributeUpdate, a *QueueAttributes) {
	if u.ClearRedriveAllowPolicy {
		a.RedriveAllowPolicy = nil
	} else if u.RedriveAllowPolicy != nil {
		p := *u.RedriveAllowPolicy
		p.SourceQueueArns = slices.Clone(p.SourceQueueArns)
		a.RedriveAllowPolicy = &p
	}
}

func (redriveAllowField) same(a, b *QueueAttributes) bool {
	pa, pb := a.RedriveAllowPolicy, b.RedriveAllowPolicy
	return (pa == nil) == (pb == nil) && (pa == nil || pa.RedrivePermission == pb.RedrivePermission && slices.Equal(pa.SourceQueueArns, pb.SourceQueueArns))
}

func (redriveAllowField) setDefault(*QueueAttributes, Limits) {}
