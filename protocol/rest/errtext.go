package rest

import (
	"fmt"

	"github.com/minisqs/minisqs/engine"
)

// The REST API words the engine's catalogue (engine/catalogue.go) in its
// own terms: its field names, its sentences (docs/rest-api.md, "Errors").
// The engine checks each rule once; the API does not check it again.

// fieldNames is the API's name of each SQS parameter it takes; queue
// attributes are named by the engine's attribute table.
var fieldNames = map[string]string{
	"MaxNumberOfMessages":          "maxMessages",
	"WaitTimeSeconds":              "waitSeconds",
	"MaxNumberOfMessagesPerSecond": "maxPerSecond",
	"DestinationArn":               "destination",
	"SourceArn":                    "source",
	"MessageBody":                  "body",
	"MessageGroupId":               "groupId",
	"MessageDeduplicationId":       "dedupId",
	"ReceiptHandle":                "receiptHandle",
	"TaskHandle":                   "handle",
	"QueueName":                    "name",
	"Tags":                         "tags",
}

// field is the API's name of param; a name the API does not take is given
// as the engine has it.
func field(param string) string {
	if s, ok := engine.LookupAttribute(param); ok && s.REST != "" {
		return s.REST
	}
	if f, ok := fieldNames[param]; ok {
		return f
	}
	return param
}

// errorText is the API's message for e.
func errorText(e *engine.Error) string {
	f := field(e.Param)
	switch e.Kind {
	case "":
		return e.Detail
	case engine.KindQueueMissing:
		if e.Name != "" {
			return fmt.Sprintf("No queue %q.", e.Name)
		}
		return "No such queue."
	case engine.KindQueueExists:
		return "A queue of that name exists with other settings: " + e.Name + "."
	case engine.KindQueueDeletedRecently:
		return fmt.Sprintf("A queue of that name was deleted less than %d seconds ago.", e.Max)
	case engine.KindQueueLimit:
		return fmt.Sprintf("There are %d queues already, the most there may be.", e.Max)
	case engine.KindQueueName:
		if e.Reason == engine.ReasonNameRuleAlnum {
			return fmt.Sprintf("name must be 1 to %d letters, digits and '-', starting with a letter or digit.", e.Max)
		}
		return fmt.Sprintf("name must be 1 to %d letters, digits, '-' and '_'.", e.Max)
	case engine.KindPurgeInProgress:
		return fmt.Sprintf("Queue %s was purged less than %d seconds ago.", e.Name, e.Max)
	case engine.KindMissingParameter:
		if e.Param == "MessageGroupId" {
			return "groupId is required on a FIFO queue."
		}
		if e.Param == "MessageBody" {
			return "body is required and may not be empty."
		}
		return f + " is required."
	case engine.KindInvalidParameter, engine.KindInvalidAttribute:
		return invalidText(e, f)
	case engine.KindUnknownAttribute:
		return fmt.Sprintf("Unknown field %q.", f)
	case engine.KindFifoOnlyAttribute:
		return f + " applies to FIFO queues only."
	case engine.KindSSEConflict:
		return "A queue is encrypted by KMS or by SQS, not both."
	case engine.KindDeduplicationNeeded:
		return "dedupId is required on a FIFO queue without contentBasedDedup."
	case engine.KindInvalidBody:
		return "body has characters SQS does not allow (XML 1.0's)."
	case engine.KindMessageTooLong:
		return fmt.Sprintf("body and attributes are over %d bytes together.", e.Max)
	case engine.KindMessageAttribute:
		if e.Reason == engine.ReasonTooMany {
			return fmt.Sprintf("A message has at most %d attributes.", e.Max)
		}
		return fmt.Sprintf("Attribute %q is not valid: %s.", e.Param, attributeReason(e))
	case engine.KindBatchEmpty:
		return "A batch needs at least one entry."
	case engine.KindBatchTooMany:
		return fmt.Sprintf("A batch holds at most %d entries; this one has %d.", e.Max, e.Count)
	case engine.KindBatchTooLong:
		return fmt.Sprintf("The batch is %d bytes, over %d.", e.Count, e.Max)
	case engine.KindBatchEntryID:
		return fmt.Sprintf("Entry id %q is not 1 to %d letters, digits, '-' and '_'.", e.Value, e.Max)
	case engine.KindBatchEntryRepeated:
		return fmt.Sprintf("Entry id %q is given twice.", e.Value)
	case engine.KindHandleInvalid:
		if e.Reason == engine.ReasonOtherQueue {
			return "That receipt handle is another queue's."
		}
		return "That is not a receipt handle."
	case engine.KindHandleStale:
		if e.Reason == engine.ReasonQueueGone {
			return "The receipt handle's queue no longer exists."
		}
		return "The receipt handle's delivery is over: the message was acknowledged, received again, moved, purged or expired. Nothing was changed."
	case engine.KindInFlightLimit:
		return fmt.Sprintf("Queue %s has %d messages in flight, the most it may.", e.Name, e.Max)
	case engine.KindResourceMissing:
		return fmt.Sprintf("No %s of that name.", f)
	case engine.KindMessageMissing:
		return fmt.Sprintf("Queue %s has no message %q.", e.Name, e.Value)
	case engine.KindNotDeadLetterQueue:
		return "The queue is no queue's dead-letter queue: no redrive names it."
	case engine.KindMoveTaskRunning:
		return "The queue has a move task running; cancel it or let it finish first."
	case engine.KindPolicyNotEditable:
		return "The queue's policy is not a document that can be edited: " + e.Detail
	case engine.KindInvalidTags:
		switch e.Reason {
		case engine.ReasonTooMany:
			return fmt.Sprintf("A queue has at most %d tags.", e.Max)
		case engine.ReasonKeyLength:
			return fmt.Sprintf("tags: keys must be %d to %d characters.", e.Min, e.Max)
		case engine.ReasonValueLength:
			return fmt.Sprintf("tags: values must be at most %d characters.", e.Max)
		}
		return "tags: keys and values may hold only characters a message body may."
	case engine.KindClockFixed:
		return "This server's clock cannot be moved."
	case engine.KindInvalidAddress:
		return fmt.Sprintf("%v is not a queue URL of this server.", e.Value)
	case engine.KindUnreadableRequest:
		return "Could not read the request: " + e.Detail
	case engine.KindInvalidState:
		if e.Cause != nil {
			return e.Name + ": " + errorText(e.Cause)
		}
		if e.Name == "" {
			return e.Detail
		}
		return e.Name + ": " + e.Detail
	}
	return "Internal error."
}

// invalidText words a refused value of the field f.
func invalidText(e *engine.Error, f string) string {
	switch e.Reason {
	case engine.ReasonRange, engine.ReasonRangeIfGiven:
		return fmt.Sprintf("%s must be from %d to %d.", f, e.Min, e.Max)
	case engine.ReasonMaxReceiveCount:
		return fmt.Sprintf("redrive.maxReceiveCount must be from %d to %d.", e.Min, e.Max)
	case engine.ReasonTotalVisibility:
		return fmt.Sprintf("%s would keep the message in flight over %d seconds from its receive.", f, e.Max)
	case engine.ReasonWrongQueueType:
		if e.Param == "DelaySeconds" {
			return "delaySeconds is refused on a FIFO queue: the queue's delaySeconds applies."
		}
		return f + " applies to FIFO queues only."
	case engine.ReasonNotHTTPURL:
		return f + " must be an http or https URL."
	case engine.ReasonNegative:
		return f + " must be above 0."
	case engine.ReasonOneCondition:
		return "Give exactly one condition: visible, inFlight, empty or bodyContains."
	case engine.ReasonOtherQueueType:
		return f + " must be of the same type as the queue."
	case engine.ReasonSameQueue:
		return f + " is the queue the messages are moved from."
	case engine.ReasonTaskNotActive:
		return "The move task has ended."
	case engine.ReasonTargetMissing:
		return "redrive.deadLetterQueue: no such queue."
	case engine.ReasonTargetMismatch:
		return "redrive.deadLetterQueue must be of the same type as the queue, in the same account."
	case engine.ReasonTargetRefuses:
		return "redrive.deadLetterQueue " + e.Name + " refuses this queue (its redrive allow policy)."
	case engine.ReasonTypeFixed:
		return "A queue's type is fixed at creation."
	case engine.ReasonFifoName, engine.ReasonFifoAttrMissing:
		return "A FIFO queue's SQS name ends in .fifo, and only a FIFO queue's."
	case engine.ReasonThroughputScope:
		return "perMessageGroupId throughput needs messageGroup deduplication scope."
	case engine.ReasonCharacters:
		return f + " holds characters it may not."
	}
	if e.Value != nil {
		return fmt.Sprintf("%s: %v is not a valid value.", f, e.Value)
	}
	return f + " is not valid."
}

// attributeReason says what is wrong with a message attribute.
func attributeReason(e *engine.Error) string {
	switch e.Reason {
	case engine.ReasonNameLength:
		return fmt.Sprintf("a name is %d to %d characters", e.Min, e.Max)
	case engine.ReasonCharacters:
		return "a name holds letters, digits, '-', '_' and '.'"
	case engine.ReasonNameReserved:
		return "names starting with AWS. or Amazon. are reserved"
	case engine.ReasonNamePeriods:
		return "a name may not start or end with '.', nor hold '..'"
	case engine.ReasonDuplicate:
		return "it is given twice"
	case engine.ReasonValueChars:
		return "its value has characters a message body may not hold"
	case engine.ReasonValueMissing:
		return "its value may not be empty"
	}
	return "its type or value is not valid"
}
