package sqs

import (
	"fmt"

	"github.com/minisqs/minisqs/engine"
)

// Both SQS protocols word the engine's catalogue (engine/catalogue.go) as
// AWS does: the texts below are AWS's, as its answers are recorded
// (LocalStack's validated snapshots, the SDKs' replays) and the compat and
// errors tests fix them.

// internalText is AWS's text of an internal failure.
const internalText = "We encountered an internal error. Please try again."

// errorText is the message SQS gives for e.
func errorText(e *engine.Error) string {
	switch e.Kind {
	case "":
		// A failure of the SQS wire's own framing, worded where it is made.
		return e.Detail
	case engine.KindQueueMissing:
		return "The specified queue does not exist."
	case engine.KindQueueExists:
		return "A queue already exists with the same name and a different value for attribute " + e.Name
	case engine.KindQueueDeletedRecently:
		return fmt.Sprintf("You must wait %d seconds after deleting a queue before you can create another with the same name.", e.Max)
	case engine.KindQueueLimit:
		return fmt.Sprintf("The number of queues has reached the limit of %d.", e.Max)
	case engine.KindQueueName:
		switch e.Reason {
		case engine.ReasonNameRuleAlnum:
			return fmt.Sprintf("Must start with a letter or digit. Can contain letters, digits, and hyphens (-). Up to %d characters.", e.Max)
		case engine.ReasonNameFIFO:
			return fmt.Sprintf("The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to %d in length.", e.Max)
		}
		return fmt.Sprintf("Can only include alphanumeric characters, hyphens, or underscores. 1 to %d in length", e.Max)
	case engine.KindPurgeInProgress:
		return fmt.Sprintf("Only one PurgeQueue operation on %s is allowed every %d seconds.", e.Name, e.Max)
	case engine.KindMissingParameter:
		return "The request must contain the parameter " + e.Param + "."
	case engine.KindInvalidParameter:
		return invalidParameterText(e)
	case engine.KindInvalidAttribute:
		return invalidAttributeText(e)
	case engine.KindUnknownAttribute:
		return "Unknown Attribute " + e.Param + "."
	case engine.KindFifoOnlyAttribute:
		if s, ok := engine.LookupAttribute(e.Param); ok && s.HighThroughput {
			return "You can specify the " + e.Param + " only when FifoQueue is set to true."
		}
		// Even FifoQueue=false is unknown on a standard queue (LocalStack's
		// validated test_create_standard_queue_with_fifo_attribute_raises_error).
		return "Unknown Attribute " + e.Param + "."
	case engine.KindSSEConflict:
		return "You can use one type of server-side encryption (SSE) at one time. You can either enable KMS SSE or SQS SSE."
	case engine.KindDeduplicationNeeded:
		return "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly"
	case engine.KindInvalidBody:
		return "Invalid characters found. Valid unicode characters are #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF"
	case engine.KindMessageTooLong:
		if e.Reason == engine.ReasonInBatch {
			// Within a batch SQS words a message's size otherwise than a
			// single send does (LocalStack's validated
			// test_send_batch_message_size).
			return fmt.Sprintf("One or more parameters cannot be validated. Reason: Message must be shorter than %d bytes.", e.Max)
		}
		return fmt.Sprintf("One or more parameters are invalid. Reason: Message must be shorter than %d bytes.", e.Max)
	case engine.KindMessageAttribute:
		return messageAttributeText(e)
	case engine.KindBatchEmpty:
		return "There should be at least one " + e.Name + " in the request."
	case engine.KindBatchTooMany:
		return fmt.Sprintf("Maximum number of entries per request are %d. You have sent %d.", e.Max, e.Count)
	case engine.KindBatchTooLong:
		return fmt.Sprintf("Batch requests cannot be longer than %d bytes. You have sent %d bytes.", e.Max, e.Count)
	case engine.KindBatchEntryID:
		return fmt.Sprintf("A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most %d letters long.", e.Max)
	case engine.KindBatchEntryRepeated:
		return fmt.Sprintf("Id %v repeated.", e.Value)
	case engine.KindHandleInvalid:
		switch e.Reason {
		case engine.ReasonOtherQueue:
			return fmt.Sprintf("The receipt handle \"%v\" is not valid for this queue.", e.Value)
		case engine.ReasonBatchGone:
			// The batch names a handle of a message deleted or received
			// again otherwise than the single call does (go-cloud's AWS
			// replay TestConformanceSQSTopic/TestDoubleAck, 2026).
			return "Message does not exist or is not available for visibility timeout change"
		}
		return fmt.Sprintf("The input receipt handle \"%v\" is not a valid receipt handle.", e.Value)
	case engine.KindHandleStale:
		if e.Reason == engine.ReasonQueueGone {
			return "The receipt handle's queue no longer exists."
		}
		return parameterText(e, reasonText(e))
	case engine.KindInFlightLimit:
		return fmt.Sprintf("Maximum number of in-flight messages (%d) reached for queue %s.", e.Max, e.Name)
	case engine.KindResourceMissing:
		if e.Param == "TaskHandle" {
			return "Task does not exist."
		}
		return "The resource that you specified for the " + e.Param + " parameter doesn't exist."
	case engine.KindMessageMissing:
		return fmt.Sprintf("Queue %s has no message %v.", e.Name, e.Value)
	case engine.KindNotDeadLetterQueue:
		return "Source queue must be configured as a Dead Letter Queue."
	case engine.KindMoveTaskRunning:
		return "There is already a task running. Only one active task is allowed for a source queue arn at a given time."
	case engine.KindPolicyNotEditable:
		return "The queue's Policy is not a document AddPermission can edit: " + e.Detail
	case engine.KindInvalidTags:
		switch e.Reason {
		case engine.ReasonTooMany:
			return fmt.Sprintf("Too many tags: a queue can have at most %d.", e.Max)
		case engine.ReasonKeyLength:
			return fmt.Sprintf("Tag keys must be %d to %d characters.", e.Min, e.Max)
		case engine.ReasonValueLength:
			return fmt.Sprintf("Tag values must be at most %d characters.", e.Max)
		}
		return "Tag keys and values may contain only characters allowed in a message body."
	case engine.KindClockFixed:
		return "This engine's clock cannot be moved."
	case engine.KindInvalidAddress:
		return fmt.Sprintf("The address %v is not valid for this endpoint.", e.Value)
	case engine.KindUnreadableRequest:
		return "Could not read the request: " + e.Detail
	case engine.KindInvalidState:
		// Only the control API reads state documents; its words serve.
		if e.Cause != nil {
			return e.Name + ": " + errorText(e.Cause)
		}
		if e.Name == "" {
			return e.Detail
		}
		return e.Name + ": " + e.Detail
	}
	return internalText
}

// parameterText is SQS's "Value V for parameter P is invalid. Reason: R"
// sentence, without the value or the reason where there is none.
func parameterText(e *engine.Error, reason string) string {
	s := "Value "
	if e.Value != nil {
		s += fmt.Sprint(e.Value) + " "
	}
	s += "for parameter " + e.Param + " is invalid."
	if reason != "" {
		s += " Reason: " + reason
	}
	return s
}

func invalidParameterText(e *engine.Error) string {
	switch {
	case e.Param == "NextToken":
		return "Invalid NextToken value."
	case e.Reason == engine.ReasonFifoAttrMissing:
		return "The queue name ends with .fifo but the FifoQueue attribute is not set to true."
	}
	return parameterText(e, reasonText(e))
}

func invalidAttributeText(e *engine.Error) string {
	switch e.Reason {
	case engine.ReasonSourcesNotByQueue, engine.ReasonSourcesCount, engine.ReasonPermission, engine.ReasonNotJSON:
		return parameterText(e, reasonText(e))
	case engine.ReasonFifoName:
		return "Invalid value for the parameter FifoQueue. Reason: The name of a FIFO queue can only end with .fifo suffix"
	case engine.ReasonTypeFixed:
		return "Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported."
	case engine.ReasonThroughputScope:
		return "Invalid value for the parameter FifoThroughputLimit. Reason: The perMessageGroupId value is allowed only when the value for DeduplicationScope is messageGroup."
	}
	return "Invalid value for the parameter " + e.Param + "."
}

// reasonText is the "Reason:" part of SQS's invalid-value sentence.
func reasonText(e *engine.Error) string {
	switch e.Reason {
	case engine.ReasonRange:
		switch e.Param {
		case "DelaySeconds":
			return fmt.Sprintf("DelaySeconds must be >= %d and <= %d.", e.Min, e.Max)
		}
		return fmt.Sprintf("Must be between %d and %d.", e.Min, e.Max)
	case engine.ReasonRangeIfGiven:
		switch e.Param {
		case "MaxNumberOfMessages":
			return fmt.Sprintf("Must be between %d and %d, if provided.", e.Min, e.Max)
		case "MaxResults":
			return fmt.Sprintf("MaxResults must be an integer between %d and %d.", e.Min, e.Max)
		}
		return fmt.Sprintf("Must be >= %d and <= %d, if provided.", e.Min, e.Max)
	case engine.ReasonNotBase64:
		return "not valid base64."
	case engine.ReasonNotInteger:
		return "must be an integer."
	case engine.ReasonNotBool:
		return "must be true or false."
	case engine.ReasonNotJSON:
		if s, ok := engine.LookupAttribute(e.Param); ok && s.Kind == engine.AttrRedrivePolicy {
			return "Redrive policy is not a valid JSON map."
		}
		return "not valid JSON."
	case engine.ReasonWrongQueueType:
		return "The request include parameter that is not valid for this queue type."
	case engine.ReasonCharacters:
		if e.Param == "Label" {
			return "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length."
		}
		return e.Param + " can only include alphanumeric and punctuation characters. 1 to 128 in length."
	case engine.ReasonExists:
		return "Already exists."
	case engine.ReasonNotFound:
		return "can't find label."
	case engine.ReasonUnknownAction:
		return "Please refer to the appropriate WSDL for a list of valid actions."
	case engine.ReasonTotalVisibility:
		return fmt.Sprintf("Total VisibilityTimeout for the message is beyond the limit [%d seconds].", e.Max)
	case engine.ReasonTaskNotActive:
		return "Only active tasks can be cancelled."
	case engine.ReasonOtherQueueType:
		return "The source and destination queues must be of the same type."
	case engine.ReasonSameQueue:
		return "Source queue arn and destination queue arn cannot be the same."
	case engine.ReasonMissingField:
		return "Redrive policy does not contain mandatory attribute: " + e.Name + "."
	case engine.ReasonBadTargetArn:
		return "Invalid value for deadLetterTargetArn."
	case engine.ReasonTargetMissing:
		return "Dead letter target does not exist."
	case engine.ReasonTargetMismatch:
		return "Dead-letter target owner should be same as the source; a FIFO queue's dead-letter queue must also be FIFO and a standard queue's standard."
	case engine.ReasonTargetRefuses:
		return "Queue " + e.Name + " does not allow this queue to use it as a dead-letter queue (RedriveAllowPolicy)."
	case engine.ReasonMaxReceiveCount:
		return fmt.Sprintf("Invalid value for maxReceiveCount: %s, valid values are from %d to %d both inclusive.", e.Name, e.Min, e.Max)
	case engine.ReasonSourcesNotByQueue:
		return "sourceQueueArns may be given only with redrivePermission byQueue."
	case engine.ReasonSourcesCount:
		return fmt.Sprintf("byQueue needs %d to %d sourceQueueArns.", e.Min, e.Max)
	case engine.ReasonPermission:
		return "redrivePermission must be allowAll, denyAll or byQueue."
	case engine.ReasonExpired:
		return "The receipt handle has expired."
	case engine.ReasonNotAvailable:
		return "Message does not exist or is not available for visibility timeout change."
	case engine.ReasonNegative:
		return "Must be positive."
	case engine.ReasonOneCondition:
		return "A wait needs exactly one condition: visible, inFlight, empty or bodyContains."
	case engine.ReasonNotHTTPURL:
		return "Must be an http or https URL."
	}
	return ""
}

func messageAttributeText(e *engine.Error) string {
	n := e.Param
	switch e.Reason {
	case engine.ReasonNameLength:
		return fmt.Sprintf("Message attribute name '%s' is invalid. Reason: Message attribute name must be %d to %d characters long.", n, e.Min, e.Max)
	case engine.ReasonCharacters:
		return "Message attribute name '" + n + "' is invalid. Reason: Message attribute name can only contain alphanumeric characters, hyphens, underscores and periods."
	case engine.ReasonNameReserved:
		return "Message attribute name '" + n + "' is invalid. Reason: Message attribute names starting with 'AWS.' or 'Amazon.' are reserved for use by Amazon."
	case engine.ReasonNamePeriods:
		return "Message attribute name '" + n + "' is invalid. Reason: Message attribute name cannot start or end with a period, or contain consecutive periods."
	case engine.ReasonTooMany:
		return fmt.Sprintf("Number of message attributes [%d] exceeds the allowed maximum [%d].", e.Count, e.Max)
	case engine.ReasonDuplicate:
		return "Message attribute name '" + n + "' is duplicated."
	case engine.ReasonSystemName:
		return "Message system attribute name '" + n + "' is invalid."
	case engine.ReasonSystemValue:
		return "Message system attribute '" + n + "' must be of type String with a non-empty value."
	case engine.ReasonTypeMissing:
		return "The message attribute '" + n + "' must contain non-empty message attribute type."
	case engine.ReasonTypeInvalid:
		return "The message attribute '" + n + "' has an invalid message attribute type."
	case engine.ReasonValueChars:
		return "The message attribute '" + n + "' contains characters outside the allowed set."
	case engine.ReasonNotNumber:
		return "Can't cast the value of message (user) attribute '" + n + "' to a number."
	case engine.ReasonTypePrefix:
		return "The type of message (user) attribute '" + n + "' is invalid. You must use only the following supported type prefixes: Binary, Number, String."
	}
	return "Message (user) attribute '" + n + "' must contain a non-empty value of type '" + e.Name + "'."
}

// ErrorMessage is the message both SQS protocols give for e. The config
// file, which names queue attributes as SQS does, words its errors so too.
func ErrorMessage(e *engine.Error) string { return errorText(e) }
