// Package enginetest holds what tests of the engine's users share: one
// error of every catalogue constructor (engine/catalogue.go), so each front
// end can prove it words them all.
package enginetest

import (
	"errors"

	"github.com/minisqs/minisqs/engine"
)

// Catalogue returns an error of every constructor of the catalogue, and of
// every reason a constructor takes.
func Catalogue() []*engine.Error {
	l := engine.AWSLimits
	out := []*engine.Error{
		engine.ErrQueueMissing(""),
		engine.ErrQueueMissing("orders"),
		engine.ErrQueueConflict([]string{"DelaySeconds", "VisibilityTimeout"}),
		engine.ErrNameDeletedRecently(),
		engine.ErrQueueLimit(1000),
		engine.ErrQueueName("a b", l),
		engine.ErrQueueName("a_b", engine.SMQLimits),
		engine.ErrFIFOQueueName("orders"),
		engine.ErrPurgeTooSoon("orders"),
		engine.ErrMissing("QueueUrl"),
		engine.ErrMissing("MessageGroupId"),
		engine.ErrMissing("MessageBody"),
		engine.ErrBatchEntryMissing("MessageGroupId"),
		engine.ErrParameterRange("VisibilityTimeout", 50000, 0, engine.MaxVisibilityTimeout, false),
		engine.ErrParameterRange("VisibilityTimeout", 50000, 0, engine.MaxVisibilityTimeout, true),
		engine.ErrParameterRange("MaxNumberOfMessages", 11, 1, 10, true),
		engine.ErrParameterRange("MaxResults", 0, 1, 1000, true),
		engine.ErrParameterRange("DelaySeconds", 901, 0, 900, false),
		engine.ErrVisibilityBeyondLimit(43200),
		engine.ErrRedrivePolicy(`{"x":1}`, engine.ReasonMissingField, "deadLetterTargetArn"),
		engine.ErrRedrivePolicy(5000, engine.ReasonMaxReceiveCount, "5000"),
		engine.ErrRedrivePolicy("arn:aws:sqs:us-east-1:000000000000:x", engine.ReasonTargetRefuses, "arn:aws:sqs:us-east-1:000000000000:dlq"),
		engine.ErrAttributeRange("VisibilityTimeout", -1, 0, engine.MaxVisibilityTimeout),
		engine.ErrUnknownAttribute("Colour"),
		engine.ErrFifoOnly("FifoQueue"),
		engine.ErrFifoOnly("DeduplicationScope"),
		engine.ErrSSEConflict(),
		engine.ErrDeduplicationNeeded(),
		engine.ErrInvalidBody(),
		engine.ErrTooLong(1024, false),
		engine.ErrTooLong(1024, true),
		engine.ErrTooManyMessageAttributes(11, engine.MaxMessageAttributes),
		engine.ErrBatchEmpty("SendMessageBatchRequestEntry"),
		engine.ErrBatchTooMany(11, 10),
		engine.ErrBatchTooLong(300000, 262144),
		engine.ErrBatchEntryID("a b"),
		engine.ErrBatchEntryRepeated("a"),
		engine.ErrHandleStale("", engine.ReasonQueueGone),
		engine.ErrInFlightLimit(engine.MaxInFlightStandard, "orders"),
		engine.ErrResourceMissing("SourceArn"),
		engine.ErrResourceMissing("TaskHandle"),
		engine.ErrMessageMissing("orders", "m-1"),
		engine.ErrNotDeadLetterQueue(),
		engine.ErrTaskRunning(),
		engine.ErrPolicyNotEditable(errors.New("unexpected end of JSON input")),
		engine.ErrClockFixed(),
		engine.ErrNotThisEndpoint("http://elsewhere/000000000000/q"),
		engine.ErrUnreadableRequest(errors.New("invalid URL escape")),
		engine.ErrInvalidState("queue 0 (q)", "a second queue of that name"),
		engine.ErrInternalFailure("receipt token: no entropy"),
	}
	withCause := engine.ErrInvalidState("queue 1 (r)", "")
	withCause.Cause = engine.ErrAttributeRange("DelaySeconds", 901, 0, 900)
	out = append(out, withCause)
	for _, r := range []engine.Reason{
		engine.ReasonMalformed, engine.ReasonNotBase64, engine.ReasonNotInteger, engine.ReasonNotBool,
		engine.ReasonNotJSON, engine.ReasonWrongQueueType, engine.ReasonCharacters, engine.ReasonExists,
		engine.ReasonNotFound, engine.ReasonUnknownAction, engine.ReasonTaskNotActive,
		engine.ReasonOtherQueueType, engine.ReasonSameQueue, engine.ReasonBadTargetArn,
		engine.ReasonTargetMissing, engine.ReasonTargetMismatch, engine.ReasonFifoAttrMissing,
		engine.ReasonNegative, engine.ReasonOneCondition, engine.ReasonNotHTTPURL,
	} {
		out = append(out, engine.ErrInvalidParameter("Param", "value", r))
	}
	for _, r := range []engine.Reason{
		engine.ReasonMalformed, engine.ReasonNotInteger, engine.ReasonNotBool, engine.ReasonNotJSON,
		engine.ReasonCharacters, engine.ReasonSourcesNotByQueue, engine.ReasonSourcesCount,
		engine.ReasonPermission, engine.ReasonFifoName, engine.ReasonTypeFixed, engine.ReasonThroughputScope,
	} {
		out = append(out, engine.ErrInvalidAttribute("Attribute", "value", r))
	}
	for _, r := range []engine.Reason{
		engine.ReasonNameLength, engine.ReasonCharacters, engine.ReasonNameReserved, engine.ReasonNamePeriods,
		engine.ReasonDuplicate, engine.ReasonSystemName, engine.ReasonSystemValue, engine.ReasonTypeMissing,
		engine.ReasonTypeInvalid, engine.ReasonValueChars, engine.ReasonNotNumber, engine.ReasonTypePrefix,
		engine.ReasonValueMissing,
	} {
		out = append(out, engine.ErrMessageAttribute("attr", r, "Number"))
	}
	for _, r := range []engine.Reason{engine.ReasonNotHandle, engine.ReasonOtherQueue, engine.ReasonBatchGone} {
		out = append(out, engine.ErrHandleInvalid("AQEB", r))
	}
	for _, r := range []engine.Reason{engine.ReasonExpired, engine.ReasonNotAvailable} {
		out = append(out, engine.ErrHandleStale("AQEB", r))
	}
	for _, r := range []engine.Reason{engine.ReasonTooMany, engine.ReasonKeyLength, engine.ReasonValueLength, engine.ReasonCharacters} {
		out = append(out, engine.ErrInvalidTags(r, 50))
	}
	return out
}
