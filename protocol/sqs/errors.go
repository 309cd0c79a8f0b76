package sqs

import (
	"errors"
	"net/http"

	"github.com/minisqs/minisqs/engine"
)

// Codes of failures that only the wire protocols produce.
const (
	errMissingAction    engine.Code = "MissingAction"
	errInvalidAction    engine.Code = "InvalidAction"
	errUnknownOperation engine.Code = "UnknownOperation"
	errSerialization    engine.Code = "Serialization"
	errMalformedQuery   engine.Code = "MalformedQueryString"
	errRequestTooLarge  engine.Code = "RequestEntityTooLarge"
)

// wireError is how one failure class looks on the wire: the JSON protocol's
// error shape (the "__type" after "com.amazonaws.sqs#"), the query
// protocol's code (also sent in the JSON protocol's x-amzn-query-error
// header, which the SDKs read first), the HTTP status and who is at fault.
//
// Shapes, codes and statuses follow the SQS Smithy model's awsQueryError
// and httpError traits (aws-sdk-js-v3 clients/client-sqs schemas);
// InvalidParameterValue and MissingParameter are unmodelled and answered
// as AWS does, with the shapes InvalidParameterValueException and
// MissingRequiredParameterException.
type wireError struct {
	shape     string
	queryCode string
	status    int
	sender    bool
}

// wireErrors is the single table from failure class to wire identity.
var wireErrors = map[engine.Code]wireError{
	engine.ErrQueueDoesNotExist:        {"QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", 400, true},
	engine.ErrQueueNameExists:          {"QueueNameExists", "QueueAlreadyExists", 400, true},
	engine.ErrQueueDeletedRecently:     {"QueueDeletedRecently", "AWS.SimpleQueueService.QueueDeletedRecently", 400, true},
	engine.ErrPurgeQueueInProgress:     {"PurgeQueueInProgress", "AWS.SimpleQueueService.PurgeQueueInProgress", 403, true},
	engine.ErrInvalidAttributeName:     {"InvalidAttributeName", "InvalidAttributeName", 400, true},
	engine.ErrInvalidAttributeValue:    {"InvalidAttributeValue", "InvalidAttributeValue", 400, true},
	engine.ErrInvalidParameterValue:    {"InvalidParameterValueException", "InvalidParameterValue", 400, true},
	engine.ErrMissingParameter:         {"MissingRequiredParameterException", "MissingParameter", 400, true},
	engine.ErrInvalidMessageContents:   {"InvalidMessageContents", "InvalidMessageContents", 400, true},
	engine.ErrMessageTooLong:           {"InvalidParameterValueException", "InvalidParameterValue", 400, true},
	engine.ErrReceiptHandleIsInvalid:   {"ReceiptHandleIsInvalid", "ReceiptHandleIsInvalid", 404, true},
	engine.ErrReceiptHandleStale:       {"InvalidParameterValueException", "InvalidParameterValue", 400, true},
	engine.ErrOverLimit:                {"OverLimit", "OverLimit", 403, true},
	engine.ErrUnsupportedOperation:     {"UnsupportedOperation", "AWS.SimpleQueueService.UnsupportedOperation", 400, true},
	engine.ErrResourceNotFound:         {"ResourceNotFoundException", "ResourceNotFoundException", 404, true},
	engine.ErrInvalidAddress:           {"InvalidAddress", "InvalidAddress", 404, true},
	engine.ErrTooManyEntriesInBatch:    {"TooManyEntriesInBatchRequest", "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", 400, true},
	engine.ErrEmptyBatchRequest:        {"EmptyBatchRequest", "AWS.SimpleQueueService.EmptyBatchRequest", 400, true},
	engine.ErrBatchEntryIdsNotDistinct: {"BatchEntryIdsNotDistinct", "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", 400, true},
	engine.ErrBatchRequestTooLong:      {"BatchRequestTooLong", "AWS.SimpleQueueService.BatchRequestTooLong", 400, true},
	engine.ErrInvalidBatchEntryID:      {"InvalidBatchEntryId", "AWS.SimpleQueueService.InvalidBatchEntryId", 400, true},
	engine.ErrInternal:                 {"InternalError", "InternalError", 500, false},

	errMissingAction:    {"MissingAction", "MissingAction", 400, true},
	errInvalidAction:    {"InvalidAction", "InvalidAction", 400, true},
	errUnknownOperation: {"UnknownOperationException", "UnknownOperationException", 400, true},
	errSerialization:    {"SerializationException", "SerializationException", 400, true},
	errMalformedQuery:   {"MalformedQueryString", "MalformedQueryString", 400, true},
	errRequestTooLarge:  {"RequestEntityTooLarge", "RequestEntityTooLarge", http.StatusRequestEntityTooLarge, true},
}

// toWire returns the wire identity and message of err.
func toWire(err error) (wireError, string) {
	var e *engine.Error
	if errors.As(err, &e) {
		if w, ok := wireErrors[e.Code]; ok {
			return w, e.Message
		}
	}
	return wireErrors[engine.ErrInternal], "We encountered an internal error. Please try again."
}

// queryMessage is the text the query protocol sends: the same as the JSON
// protocol's but for a missing queue, where AWS names the WSDL version.
func (w wireError) queryMessage(msg string) string {
	if w.shape == "QueueDoesNotExist" {
		return "The specified queue does not exist for this wsdl version."
	}
	return msg
}

func (w wireError) faultType() string {
	if w.sender {
		return "Sender"
	}
	return "Receiver"
}
