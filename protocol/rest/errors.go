package rest

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/dispatch"
)

// Error codes of the API (docs/rest-api.md, "Errors"). They are stable;
// the message beside them is for people.
const (
	codeInvalidRequest  = "invalid_request"
	codeUnauthorized    = "unauthorized"
	codeForbidden       = "forbidden"
	codeQueueNotFound   = "queue_not_found"
	codeQueueExists     = "queue_exists"
	codeQueueInUse      = "queue_in_use"
	codeHandleStale     = "receipt_handle_stale"
	codeMessageTooLarge = "message_too_large"
	codePurgeInProgress = "purge_in_progress"
	codeTooManyRequests = "too_many_requests"
	codeInternal        = "internal_error"
	// A fault rule's ServiceUnavailable.
	codeUnavailable = "service_unavailable"
	// The 404s of paths and subscriptions: a path under /v1 with no operation, and
	// GetSubscription or DeleteSubscription of a queue without one.
	codeNotFound       = "not_found"
	codeNoSubscription = "subscription_not_found"
	// DeleteMessage of an id the queue does not hold; CancelMoveTask of a
	// queue with no task running; StartMoveTask while one runs.
	codeMessageNotFound = "message_not_found"
	codeNoMoveTask      = "move_task_not_found"
	codeMoveTaskRunning = "move_task_running"
)

// statuses is the HTTP status of each code.
var statuses = map[string]int{
	codeInvalidRequest:  http.StatusBadRequest,
	codeUnauthorized:    http.StatusUnauthorized,
	codeForbidden:       http.StatusForbidden,
	codeQueueNotFound:   http.StatusNotFound,
	codeQueueExists:     http.StatusConflict,
	codeQueueInUse:      http.StatusConflict,
	codeHandleStale:     http.StatusConflict,
	codeMessageTooLarge: http.StatusRequestEntityTooLarge,
	codePurgeInProgress: http.StatusTooManyRequests,
	codeTooManyRequests: http.StatusTooManyRequests,
	codeInternal:        http.StatusInternalServerError,
	codeUnavailable:     http.StatusServiceUnavailable,
	codeNotFound:        http.StatusNotFound,
	codeNoSubscription:  http.StatusNotFound,
	codeMessageNotFound: http.StatusNotFound,
	codeNoMoveTask:      http.StatusNotFound,
	codeMoveTaskRunning: http.StatusConflict,
}

// engineCodes is the one table from engine failure class to API code. A
// class not listed is an internal error.
//
// Decisions beyond the code table (docs/rest-api.md, "Errors"):
//   - ReceiptHandleIsInvalid (a string that is not a receipt handle at all)
//     is invalid_request 400; receipt_handle_stale 409 is kept for real
//     handles whose delivery is over.
//   - QueueDeletedRecently (a name reused within 60 s of its queue's
//     deletion) is queue_exists 409: the name is still held.
//   - OverLimit (too many messages in flight) is too_many_requests 429.
var engineCodes = map[engine.Code]string{
	engine.ErrQueueDoesNotExist:        codeQueueNotFound,
	engine.ErrQueueNameExists:          codeQueueExists,
	engine.ErrQueueDeletedRecently:     codeQueueExists,
	engine.ErrPurgeQueueInProgress:     codePurgeInProgress,
	engine.ErrMessageTooLong:           codeMessageTooLarge,
	engine.ErrBatchRequestTooLong:      codeMessageTooLarge,
	engine.ErrReceiptHandleStale:       codeHandleStale,
	engine.ErrReceiptHandleIsInvalid:   codeInvalidRequest,
	engine.ErrInvalidAttributeName:     codeInvalidRequest,
	engine.ErrInvalidAttributeValue:    codeInvalidRequest,
	engine.ErrInvalidParameterValue:    codeInvalidRequest,
	engine.ErrMissingParameter:         codeInvalidRequest,
	engine.ErrInvalidMessageContents:   codeInvalidRequest,
	engine.ErrUnsupportedOperation:     codeInvalidRequest,
	engine.ErrInvalidAddress:           codeInvalidRequest,
	engine.ErrTooManyEntriesInBatch:    codeInvalidRequest,
	engine.ErrEmptyBatchRequest:        codeInvalidRequest,
	engine.ErrBatchEntryIdsNotDistinct: codeInvalidRequest,
	engine.ErrInvalidBatchEntryID:      codeInvalidRequest,
	engine.ErrResourceNotFound:         codeNotFound,
	engine.ErrOverLimit:                codeTooManyRequests,
	engine.ErrMoveTaskRunning:          codeMoveTaskRunning,
	engine.ErrInternal:                 codeInternal,
}

// apiError is an error as the API answers it.
type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Status  int    `json:"-"`
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

func apiErrorf(code, format string, args ...any) *apiError {
	return &apiError{Code: code, Message: fmt.Sprintf(format, args...), Status: statuses[code]}
}

// faultCodes is what a fault rule's AWS error code is in the API: a
// throttle (a code the AWS SDKs retry as throttling, as aws-sdk-go-v2's
// aws/retry DefaultThrottleErrorCodes and botocore's standard retry mode
// list them) is too_many_requests 429, ServiceUnavailable is 503, and any
// other is internal_error 500.
var faultCodes = map[string]string{
	"ThrottlingException": codeTooManyRequests,
	"RequestThrottled":    codeTooManyRequests,
	"ServiceUnavailable":  codeUnavailable,
}

// toAPIError maps any error to the API's form.
func toAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var fe *dispatch.FaultError
	if errors.As(err, &fe) {
		code, ok := faultCodes[fe.Code]
		if !ok {
			code = codeInternal
		}
		return &apiError{Code: code, Message: fe.Message(), Status: statuses[code]}
	}
	var ee *engine.Error
	if errors.As(err, &ee) {
		code, ok := engineCodes[ee.Code]
		if !ok {
			code = codeInternal
		}
		return &apiError{Code: code, Message: errorText(ee), Status: statuses[code]}
	}
	return &apiError{Code: codeInternal, Message: err.Error(), Status: http.StatusInternalServerError}
}
