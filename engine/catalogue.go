package engine

import (
	"fmt"
	"strings"
	"time"
)

// The error catalogue: every failure the engine, or a front end checking a
// request against the engine's rules, reports is built here by a named
// constructor. An Error holds facts, not sentences: each front end words
// them in its own vocabulary (protocol/sqs AWS's exact texts, protocol/rest
// the REST API's), so a rule is checked once and answered in every protocol.

// Kind names the catalogue entry an Error was built by.
type Kind string

// The catalogue's entries, one per constructor family.
const (
	KindQueueMissing         Kind = "queue-missing"
	KindQueueExists          Kind = "queue-exists"
	KindQueueDeletedRecently Kind = "queue-deleted-recently"
	KindQueueLimit           Kind = "queue-limit"
	KindQueueName            Kind = "queue-name"
	KindPurgeInProgress      Kind = "purge-in-progress"
	KindMissingParameter     Kind = "missing-parameter"
	KindInvalidParameter     Kind = "invalid-parameter"
	KindInvalidAttribute     Kind = "invalid-attribute"
	KindUnknownAttribute     Kind = "unknown-attribute"
	KindFifoOnlyAttribute    Kind = "fifo-only-attribute"
	KindSSEConflict          Kind = "sse-conflict"
	KindDeduplicationNeeded  Kind = "deduplication-needed"
	KindInvalidBody          Kind = "invalid-body"
	KindMessageTooLong       Kind = "message-too-long"
	KindMessageAttribute     Kind = "message-attribute"
	KindBatchEmpty           Kind = "batch-empty"
	KindBatchTooMany         Kind = "batch-too-many"
	KindBatchTooLong         Kind = "batch-too-long"
	KindBatchEntryID         Kind = "batch-entry-id"
	KindBatchEntryRepeated   Kind = "batch-entry-repeated"
	KindHandleInvalid        Kind = "handle-invalid"
	KindHandleStale          Kind = "handle-stale"
	KindInFlightLimit        Kind = "in-flight-limit"
	KindResourceMissing      Kind = "resource-missing"
	KindMessageMissing       Kind = "message-missing"
	KindNotDeadLetterQueue   Kind = "not-dead-letter-queue"
	KindMoveTaskRunning      Kind = "move-task-running"
	KindPolicyNotEditable    Kind = "policy-not-editable"
	KindInvalidTags          Kind = "invalid-tags"
	KindClockFixed           Kind = "clock-fixed"
	KindInvalidState         Kind = "invalid-state"
	KindInvalidAddress       Kind = "invalid-address"
	KindUnreadableRequest    Kind = "unreadable-request"
	KindInternal             Kind = "internal"
)

// Reason says why a value was refused.
type Reason string

// Reasons of InvalidParameter, InvalidAttribute, MessageAttribute,
// HandleInvalid, HandleStale, QueueName and InvalidTags errors.
const (
	// A value outside [Min, Max].
	ReasonRange Reason = "range"
	// A value outside [Min, Max] of an optional parameter.
	ReasonRangeIfGiven Reason = "range-if-given"
	// A value that is not of the parameter's type or form.
	ReasonMalformed  Reason = "malformed"
	ReasonNotBase64  Reason = "not-base64"
	ReasonNotInteger Reason = "not-integer"
	ReasonNotBool    Reason = "not-bool"
	ReasonNotJSON    Reason = "not-json"
	// A parameter this queue type does not take.
	ReasonWrongQueueType Reason = "wrong-queue-type"
	// Characters or a length outside what the parameter allows.
	ReasonCharacters Reason = "characters"
	// A name already in use, or none to be found.
	ReasonExists   Reason = "exists"
	ReasonNotFound Reason = "not-found"
	// An action name SQS does not know.
	ReasonUnknownAction Reason = "unknown-action"
	// A visibility extended beyond MaxInFlightDuration from its receive.
	ReasonTotalVisibility Reason = "total-visibility"
	// A cancel of a move task that has ended.
	ReasonTaskNotActive Reason = "task-not-active"
	// Move-task destinations.
	ReasonOtherQueueType Reason = "other-queue-type"
	ReasonSameQueue      Reason = "same-queue"
	// Redrive policies: a field missing (Name), the target not an ARN, not
	// a queue, of another type or owner, or refusing the source (Name).
	ReasonMissingField      Reason = "missing-field"
	ReasonBadTargetArn      Reason = "bad-target-arn"
	ReasonTargetMissing     Reason = "target-missing"
	ReasonTargetMismatch    Reason = "target-mismatch"
	ReasonTargetRefuses     Reason = "target-refuses"
	ReasonMaxReceiveCount   Reason = "max-receive-count"
	ReasonSourcesNotByQueue Reason = "sources-not-by-queue"
	ReasonSourcesCount      Reason = "sources-count"
	ReasonPermission        Reason = "permission"
	// A FIFO setting that does not fit the queue: its name, a change of
	// type, or perMessageGroupId throughput without messageGroup scope.
	ReasonFifoName        Reason = "fifo-name"
	ReasonFifoAttrMissing Reason = "fifo-attribute-missing"
	ReasonTypeFixed       Reason = "type-fixed"
	ReasonThroughputScope Reason = "throughput-scope"
	// Queue names: the rule of the engine's Limits (Max, and whether the
	// name must start with a letter or digit), or SQS's FIFO naming rule.
	ReasonNameRule      Reason = "name-rule"
	ReasonNameRuleAlnum Reason = "name-rule-alnum"
	ReasonNameFIFO      Reason = "name-fifo"
	// Message attributes.
	ReasonNameLength   Reason = "name-length"
	ReasonNameReserved Reason = "name-reserved"
	ReasonNamePeriods  Reason = "name-periods"
	ReasonTooMany      Reason = "too-many"
	ReasonDuplicate    Reason = "duplicate"
	ReasonSystemName   Reason = "system-name"
	ReasonSystemValue  Reason = "system-value"
	ReasonTypeMissing  Reason = "type-missing"
	ReasonTypeInvalid  Reason = "type-invalid"
	ReasonTypePrefix   Reason = "type-prefix"
	ReasonNotNumber    Reason = "not-number"
	ReasonValueChars   Reason = "value-characters"
	ReasonValueMissing Reason = "value-missing"
	// Receipt handles: not a handle, another queue's, a delivery that has
	// ended, a queue that has gone, or (in a batch) one SQS no longer has.
	ReasonNotHandle    Reason = "not-handle"
	ReasonOtherQueue   Reason = "other-queue"
	ReasonExpired      Reason = "expired"
	ReasonNotAvailable Reason = "not-available"
	ReasonQueueGone    Reason = "queue-gone"
	ReasonBatchGone    Reason = "batch-gone"
	// Tags.
	ReasonKeyLength   Reason = "key-length"
	ReasonValueLength Reason = "value-length"
	// Waits of the control API.
	ReasonOneCondition Reason = "one-condition"
	ReasonNegative     Reason = "negative"
	// A URL that is not http or https.
	ReasonNotHTTPURL Reason = "not-http-url"
	// A message too long in a batch, which SQS words otherwise.
	ReasonInBatch Reason = "in-batch"
)

// Error is a typed engine failure: its SQS class (Code), its catalogue
// entry (Kind) and the facts front ends word it from.
type Error struct {
	Code Code
	Kind Kind
	// Param is the parameter, attribute or field at fault, by its SQS name.
	Param string
	// Value is the value given; nil when there is none to name.
	Value any
	// Reason says why Value was refused.
	Reason Reason
	// Min and Max bound a number; Max alone is a limit.
	Min, Max int
	// Count is how many were given: entries, bytes, attributes.
	Count int
	// Name is what else the failure names: a queue, an ARN, an id, a type.
	Name string
	// Detail is the cause of an internal failure, or where in a state
	// document a rule is broken and how.
	Detail string
	// Cause is the failure behind an invalid state document, where the
	// document breaks a rule of the catalogue's own.
	Cause *Error
}

func (e *Error) Error() string {
	if e.Kind == "" {
		return string(e.Code) + ": " + e.Detail
	}
	var b strings.Builder
	b.WriteString(string(e.Code) + ": " + string(e.Kind))
	if e.Param != "" {
		fmt.Fprintf(&b, " %s", e.Param)
	}
	if e.Value != nil {
		fmt.Fprintf(&b, "=%v", e.Value)
	}
	if e.Reason != "" {
		fmt.Fprintf(&b, " (%s)", e.Reason)
	}
	if e.Min != 0 || e.Max != 0 {
		fmt.Fprintf(&b, " [%d, %d]", e.Min, e.Max)
	}
	if e.Name != "" {
		fmt.Fprintf(&b, " %s", e.Name)
	}
	if e.Detail != "" {
		fmt.Fprintf(&b, ": %s", e.Detail)
	}
	if e.Cause != nil {
		fmt.Fprintf(&b, ": %s", e.Cause)
	}
	return b.String()
}

// ErrQueueMissing is a queue that does not exist; ref is how the request
// named it, or "" when the name is not worth repeating.
func ErrQueueMissing(ref string) *Error {
	return &Error{Code: ErrQueueDoesNotExist, Kind: KindQueueMissing, Name: ref}
}

// ErrQueueConflict is a CreateQueue of an existing name with other values
// for the attributes named.
func ErrQueueConflict(attributes []string) *Error {
	return &Error{Code: ErrQueueNameExists, Kind: KindQueueExists, Name: strings.Join(attributes, ", ")}
}

// ErrNameDeletedRecently is a CreateQueue of a name deleted less than
// DeleteQueueCooldown ago.
func ErrNameDeletedRecently() *Error {
	return &Error{Code: ErrQueueDeletedRecently, Kind: KindQueueDeletedRecently, Max: int(DeleteQueueCooldown / time.Second)}
}

// ErrQueueLimit is a CreateQueue beyond the max queues of a namespace.
func ErrQueueLimit(max int) *Error {
	return &Error{Code: ErrOverLimit, Kind: KindQueueLimit, Max: max}
}

// ErrQueueName is a queue name outside the rule of l.
func ErrQueueName(name string, l Limits) *Error {
	r := ReasonNameRule
	if l.QueueNameStartsAlphanumeric {
		r = ReasonNameRuleAlnum
	}
	return &Error{Code: ErrInvalidParameterValue, Kind: KindQueueName, Param: "QueueName", Value: name, Reason: r, Max: l.MaxQueueNameLen}
}

// ErrFIFOQueueName is a FIFO queue asked for under a name without ".fifo".
func ErrFIFOQueueName(name string) *Error {
	return &Error{Code: ErrInvalidParameterValue, Kind: KindQueueName, Param: "QueueName", Value: name, Reason: ReasonNameFIFO, Max: MaxQueueNameLen}
}

// ErrPurgeTooSoon is a purge within PurgeCooldown of the last.
func ErrPurgeTooSoon(queue string) *Error {
	return &Error{Code: ErrPurgeQueueInProgress, Kind: KindPurgeInProgress, Name: queue, Max: int(PurgeCooldown / time.Second)}
}

// ErrMissing is a required parameter left out.
func ErrMissing(param string) *Error {
	return &Error{Code: ErrMissingParameter, Kind: KindMissingParameter, Param: param}
}

// ErrBatchEntryMissing is a batch refused as a whole because an entry
// lacks param, which SQS answers as an invalid value.
func ErrBatchEntryMissing(param string) *Error {
	return &Error{Code: ErrInvalidParameterValue, Kind: KindMissingParameter, Param: param, Reason: ReasonInBatch}
}

// ErrInvalidParameter is value refused for param, for reason.
func ErrInvalidParameter(param string, value any, reason Reason) *Error {
	return &Error{Code: ErrInvalidParameterValue, Kind: KindInvalidParameter, Param: param, Value: value, Reason: reason}
}

// ErrParameterRange is value outside [min, max] for param. A parameter a
// request may leave out says so with optional: SQS words it otherwise.
func ErrParameterRange(param string, value, min, max int, optional bool) *Error {
	r := ReasonRange
	if optional {
		r = ReasonRangeIfGiven
	}
	return &Error{Code: ErrInvalidParameterValue, Kind: KindInvalidParameter, Param: param, Value: value, Reason: r, Min: min, Max: max}
}

// ErrVisibilityBeyondLimit is a visibility timeout that would keep a
// message in flight longer than MaxInFlightDuration from its receive.
func ErrVisibilityBeyondLimit(value int) *Error {
	return &Error{Code: ErrInvalidParameterValue, Kind: KindInvalidParameter, Param: "VisibilityTimeout", Value: value, Reason: ReasonTotalVisibility, Max: int(MaxInFlightDuration / time.Second)}
}

// ErrRedrivePolicy is a RedrivePolicy refused for reason; value is the
// policy (or the part of it) at fault, field the policy's field it names.
func ErrRedrivePolicy(value any, reason Reason, field string) *Error {
	e := &Error{Code: ErrInvalidParameterValue, Kind: KindInvalidParameter, Param: "RedrivePolicy", Value: value, Reason: reason, Name: field}
	if reason == ReasonMaxReceiveCount {
		e.Min, e.Max = MinMaxReceiveCount, MaxMaxReceiveCount
	}
	return e
}

// ErrInvalidAttribute is value refused for the queue attribute name; reason
// is "" when SQS gives none.
func ErrInvalidAttribute(name string, value any, reason Reason) *Error {
	e := &Error{Code: ErrInvalidAttributeValue, Kind: KindInvalidAttribute, Param: name, Value: value, Reason: reason}
	if reason == ReasonSourcesCount {
		e.Min, e.Max = 1, MaxRedriveSourceQueues
	}
	return e
}

// ErrAttributeRange is value outside [min, max] for the queue attribute
// name.
func ErrAttributeRange(name string, value, min, max int) *Error {
	return &Error{Code: ErrInvalidAttributeValue, Kind: KindInvalidAttribute, Param: name, Value: value, Reason: ReasonRange, Min: min, Max: max}
}

// ErrUnknownAttribute is a queue attribute name SQS does not know.
func ErrUnknownAttribute(name string) *Error {
	return &Error{Code: ErrInvalidAttributeName, Kind: KindUnknownAttribute, Param: name}
}

// ErrFifoOnly is a FIFO queue's attribute named for a standard queue.
func ErrFifoOnly(name string) *Error {
	return &Error{Code: ErrInvalidAttributeName, Kind: KindFifoOnlyAttribute, Param: name}
}

// ErrSSEConflict is SSE-KMS and SSE-SQS asked for at once.
func ErrSSEConflict() *Error {
	return &Error{Code: ErrInvalidAttributeName, Kind: KindSSEConflict, Param: "SqsManagedSseEnabled"}
}

// ErrDeduplicationNeeded is a FIFO send without a deduplication id to a
// queue that does not deduplicate by content.
func ErrDeduplicationNeeded() *Error {
	return &Error{Code: ErrInvalidParameterValue, Kind: KindDeduplicationNeeded, Param: "MessageDeduplicationId"}
}

// ErrInvalidBody is a message body with characters SQS refuses.
func ErrInvalidBody() *Error {
	return &Error{Code: ErrInvalidMessageContents, Kind: KindInvalidBody, Param: "MessageBody"}
}

// ErrTooLong is a message over the queue's MaximumMessageSize, max; in a
// batch SQS words it otherwise.
func ErrTooLong(max int, inBatch bool) *Error {
	e := &Error{Code: ErrMessageTooLong, Kind: KindMessageTooLong, Param: "MessageBody", Max: max}
	if inBatch {
		e.Reason = ReasonInBatch
	}
	return e
}

// ErrMessageAttribute is the message attribute name refused for reason.
// typ is the attribute's data type where the reason names it.
func ErrMessageAttribute(name string, reason Reason, typ string) *Error {
	e := &Error{Code: ErrInvalidParameterValue, Kind: KindMessageAttribute, Param: name, Reason: reason, Name: typ}
	if reason == ReasonNameLength {
		e.Min, e.Max = 1, MaxAttributeNameLen
	}
	return e
}

// ErrTooManyMessageAttributes is a message with n attributes, over max.
func ErrTooManyMessageAttributes(n, max int) *Error {
	return &Error{Code: ErrInvalidParameterValue, Kind: KindMessageAttribute, Reason: ReasonTooMany, Count: n, Max: max}
}

// ErrBatchEmpty is a batch request without entries of entryType.
func ErrBatchEmpty(entryType string) *Error {
	return &Error{Code: ErrEmptyBatchRequest, Kind: KindBatchEmpty, Name: entryType}
}

// ErrBatchTooMany is a batch of n entries, over max.
func ErrBatchTooMany(n, max int) *Error {
	return &Error{Code: ErrTooManyEntriesInBatch, Kind: KindBatchTooMany, Count: n, Max: max}
}

// ErrBatchTooLong is a batch of total bytes, over max.
func ErrBatchTooLong(total, max int) *Error {
	return &Error{Code: ErrBatchRequestTooLong, Kind: KindBatchTooLong, Count: total, Max: max}
}

// ErrBatchEntryID is a batch entry id outside SQS's rule.
func ErrBatchEntryID(id string) *Error {
	return &Error{Code: ErrInvalidBatchEntryID, Kind: KindBatchEntryID, Value: id, Max: 80}
}

// ErrBatchEntryRepeated is a batch entry id given twice.
func ErrBatchEntryRepeated(id string) *Error {
	return &Error{Code: ErrBatchEntryIdsNotDistinct, Kind: KindBatchEntryRepeated, Value: id}
}

// ErrHandleInvalid is a receipt handle refused for reason: not a handle,
// another queue's, or (a batch's change of visibility) a message SQS no
// longer has.
func ErrHandleInvalid(handle string, reason Reason) *Error {
	return &Error{Code: ErrReceiptHandleIsInvalid, Kind: KindHandleInvalid, Param: "ReceiptHandle", Value: handle, Reason: reason}
}

// ErrHandleStale is a real receipt handle whose delivery is over, or whose
// queue has gone, for reason.
func ErrHandleStale(handle string, reason Reason) *Error {
	e := &Error{Code: ErrReceiptHandleStale, Kind: KindHandleStale, Param: "ReceiptHandle", Reason: reason}
	if handle != "" {
		e.Value = handle
	}
	return e
}

// ErrInFlightLimit is a receive from a queue with max messages in flight.
func ErrInFlightLimit(max int, queue string) *Error {
	return &Error{Code: ErrOverLimit, Kind: KindInFlightLimit, Max: max, Name: queue}
}

// ErrResourceMissing is what param names not existing: a move task's
// source or destination, or the task.
func ErrResourceMissing(param string) *Error {
	return &Error{Code: ErrResourceNotFound, Kind: KindResourceMissing, Param: param}
}

// ErrMessageMissing is a message id the queue does not hold.
func ErrMessageMissing(queue, id string) *Error {
	return &Error{Code: ErrResourceNotFound, Kind: KindMessageMissing, Name: queue, Value: id}
}

// ErrNotDeadLetterQueue is a move task from a queue no redrive policy
// names.
func ErrNotDeadLetterQueue() *Error {
	return &Error{Code: ErrInvalidParameterValue, Kind: KindNotDeadLetterQueue, Param: "SourceArn"}
}

// ErrTaskRunning is a second active move task of one source.
func ErrTaskRunning() *Error {
	return &Error{Code: ErrMoveTaskRunning, Kind: KindMoveTaskRunning, Param: "SourceArn"}
}

// ErrPolicyNotEditable is AddPermission on a Policy it cannot parse.
func ErrPolicyNotEditable(cause error) *Error {
	return &Error{Code: ErrInvalidParameterValue, Kind: KindPolicyNotEditable, Param: "Policy", Detail: cause.Error()}
}

// ErrInvalidTags is a queue's tags refused for reason (ReasonTooMany,
// ReasonKeyLength, ReasonValueLength, ReasonCharacters) under max.
func ErrInvalidTags(reason Reason, max int) *Error {
	e := &Error{Code: ErrInvalidParameterValue, Kind: KindInvalidTags, Param: "Tags", Reason: reason, Max: max}
	if reason == ReasonKeyLength {
		e.Min = 1
	}
	return e
}

// ErrClockFixed is a move of a clock that cannot be moved.
func ErrClockFixed() *Error {
	return &Error{Code: ErrUnsupportedOperation, Kind: KindClockFixed}
}

// ErrInvalidState is a state document breaking a rule: where names the
// place in the document, problem the rule, in the engine's words (only the
// control API reads documents).
func ErrInvalidState(where, problem string) *Error {
	return &Error{Code: ErrInvalidParameterValue, Kind: KindInvalidState, Name: where, Detail: problem}
}

// ErrNotThisEndpoint is a queue URL not of this endpoint.
func ErrNotThisEndpoint(address string) *Error {
	return &Error{Code: ErrInvalidAddress, Kind: KindInvalidAddress, Param: "QueueUrl", Value: address}
}

// ErrUnreadableRequest is a request whose parameters could not be read.
func ErrUnreadableRequest(cause error) *Error {
	return &Error{Code: ErrInvalidParameterValue, Kind: KindUnreadableRequest, Detail: cause.Error()}
}

// ErrInternalFailure is a failure of minisqs itself: the store's, or of
// what never fails (random ids); cause says what failed.
func ErrInternalFailure(cause string) *Error {
	return &Error{Code: ErrInternal, Kind: KindInternal, Detail: cause}
}
