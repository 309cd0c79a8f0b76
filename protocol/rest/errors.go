package rest

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/minisqs/minisqs/engine"
)

// Error codes of the API (shared/API.md, "Conventions"). They are stable;
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
	// Codes API.md does not list: a path under /v1 with no operation, and
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
	codeNotFound:        http.StatusNotFound,
	codeNoSubscription:  http.StatusNotFound,
	codeMessageNotFound: http.StatusNotFound,
	codeNoMoveTask:      http.StatusNotFound,
	codeMoveTaskRunning: http.StatusConflict,
}

// engineCodes is the one table from engine failure class to API code. A
// class not listed is an internal error.
//
// Decisions where API.md is silent:
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

// toAPIError maps any error to the API's form.
func toAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var ee *engine.Error
	if errors.As(err, &ee) {
		code, ok := engineCodes[ee.Code]
		if !ok {
			code = codeInternal
		}
		return &apiError{Code: code, Message: ee.Message, Status: statuses[code]}
	}
	return &apiError{Code: codeInternal, Message: err.Error(), Status: http.StatusInternalServerError}
}
