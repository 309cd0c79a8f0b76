package sqs

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/dispatch"
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

// Codes that no action returns and only fault rules answer with: the SQS
// model's errors minisqs has no cause for, and AWS's common errors (the SQS
// API Reference, "Common Errors").
const (
	errInvalidIDFormat      engine.Code = "InvalidIdFormat"
	errInvalidSecurity      engine.Code = "InvalidSecurity"
	errKmsAccessDenied      engine.Code = "KmsAccessDenied"
	errKmsDisabled          engine.Code = "KmsDisabled"
	errKmsInvalidKeyUsage   engine.Code = "KmsInvalidKeyUsage"
	errKmsInvalidState      engine.Code = "KmsInvalidState"
	errKmsNotFound          engine.Code = "KmsNotFound"
	errKmsOptInRequired     engine.Code = "KmsOptInRequired"
	errKmsThrottled         engine.Code = "KmsThrottled"
	errMessageNotInflight   engine.Code = "MessageNotInflight"
	errRequestThrottled     engine.Code = "RequestThrottled"
	errAccessDenied         engine.Code = "AccessDeniedException"
	errIncompleteSignature  engine.Code = "IncompleteSignature"
	errInternalFailure      engine.Code = "InternalFailure"
	errInvalidClientTokenID engine.Code = "InvalidClientTokenId"
	errNotAuthorized        engine.Code = "NotAuthorized"
	errOptInRequired        engine.Code = "OptInRequired"
	errRequestExpired       engine.Code = "RequestExpired"
	errServiceUnavailable   engine.Code = "ServiceUnavailable"
	errThrottlingException  engine.Code = "ThrottlingException"
	errValidationError      engine.Code = "ValidationError"
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
	engine.ErrMoveTaskRunning:          {"InvalidParameterValueException", "InvalidParameterValue", 400, true},
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

	errInvalidIDFormat:       {"InvalidIdFormat", "InvalidIdFormat", 400, true},
	errInvalidSecurity:       {"InvalidSecurity", "InvalidSecurity", 403, true},
	errKmsAccessDenied:       {"KmsAccessDenied", "KMS.AccessDeniedException", 400, true},
	errKmsDisabled:           {"KmsDisabled", "KMS.DisabledException", 400, true},
	errKmsInvalidKeyUsage:    {"KmsInvalidKeyUsage", "KMS.InvalidKeyUsageException", 400, true},
	errKmsInvalidState:       {"KmsInvalidState", "KMS.InvalidStateException", 400, true},
	errKmsNotFound:           {"KmsNotFound", "KMS.NotFoundException", 400, true},
	errKmsOptInRequired:      {"KmsOptInRequired", "KMS.OptInRequired", 403, true},
	errKmsThrottled:          {"KmsThrottled", "KMS.ThrottlingException", 400, true},
	errMessageNotInflight:    {"MessageNotInflight", "AWS.SimpleQueueService.MessageNotInflight", 400, true},
	errRequestThrottled:      {"RequestThrottled", "RequestThrottled", 403, true},
	errAccessDenied:          {"AccessDeniedException", "AccessDeniedException", 400, true},
	errIncompleteSignature:   {"IncompleteSignature", "IncompleteSignature", 400, true},
	errMissingAuthToken:      {"MissingAuthenticationToken", "MissingAuthenticationToken", 403, true},
	errSignatureDoesNotMatch: {"SignatureDoesNotMatch", "SignatureDoesNotMatch", 403, true},
	errInternalFailure:       {"InternalFailure", "InternalFailure", 500, false},
	errInvalidClientTokenID:  {"InvalidClientTokenId", "InvalidClientTokenId", 403, true},
	errNotAuthorized:         {"NotAuthorized", "NotAuthorized", 400, true},
	errOptInRequired:         {"OptInRequired", "OptInRequired", 403, true},
	errRequestExpired:        {"RequestExpired", "RequestExpired", 400, true},
	errServiceUnavailable:    {"ServiceUnavailable", "ServiceUnavailable", 503, false},
	errThrottlingException:   {"ThrottlingException", "ThrottlingException", 400, true},
	errValidationError:       {"ValidationError", "ValidationError", 400, true},
}

// wireByName finds an entry of wireErrors by the names AWS gives it: its
// shape and its query code. Fault rules name errors so.
var wireByName = func() map[string]wireError {
	m := make(map[string]wireError, 2*len(wireErrors))
	for _, w := range wireErrors {
		m[w.shape] = w
		m[w.queryCode] = w
	}
	return m
}()

// ErrorCodes lists, sorted, every name of an error that both SQS protocols
// can answer with: each error's shape name and its query code.
func ErrorCodes() []string {
	return slices.Sorted(maps.Keys(wireByName))
}

// toWire returns the wire identity and message of err.
func toWire(err error) (wireError, string) {
	var fe *dispatch.FaultError
	if errors.As(err, &fe) {
		if w, ok := wireByName[fe.Code]; ok {
			return w, fe.Message()
		}
	}
	var e *engine.Error
	if errors.As(err, &e) {
		if w, ok := wireErrors[e.Code]; ok {
			return w, errorText(e)
		}
	}
	return wireErrors[engine.ErrInternal], internalText
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

// wireErrorf builds a failure of the SQS wire itself (its framing, its
// signatures), which no engine rule makes and so no catalogue entry words.
func wireErrorf(code engine.Code, format string, args ...any) *engine.Error {
	return &engine.Error{Code: code, Detail: fmt.Sprintf(format, args...)}
}
