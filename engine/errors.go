package engine

import (
	"errors"
	"fmt"
)

// Code names a class of engine failure. The names follow the SQS API's
// error shapes; each front end maps a Code to its own wire form in one place.
type Code string

// The engine's failure classes.
const (
	ErrQueueDoesNotExist        Code = "QueueDoesNotExist"
	ErrQueueNameExists          Code = "QueueNameExists"
	ErrQueueDeletedRecently     Code = "QueueDeletedRecently"
	ErrPurgeQueueInProgress     Code = "PurgeQueueInProgress"
	ErrInvalidAttributeName     Code = "InvalidAttributeName"
	ErrInvalidAttributeValue    Code = "InvalidAttributeValue"
	ErrInvalidParameterValue    Code = "InvalidParameterValue"
	ErrMissingParameter         Code = "MissingParameter"
	ErrInvalidMessageContents   Code = "InvalidMessageContents"
	ErrMessageTooLong           Code = "MessageTooLong"
	ErrReceiptHandleIsInvalid   Code = "ReceiptHandleIsInvalid"
	ErrReceiptHandleStale       Code = "ReceiptHandleStale"
	ErrOverLimit                Code = "OverLimit"
	ErrUnsupportedOperation     Code = "UnsupportedOperation"
	ErrResourceNotFound         Code = "ResourceNotFound"
	ErrInvalidAddress           Code = "InvalidAddress"
	ErrInternal                 Code = "InternalError"
	ErrTooManyEntriesInBatch    Code = "TooManyEntriesInBatchRequest"
	ErrEmptyBatchRequest        Code = "EmptyBatchRequest"
	ErrBatchEntryIdsNotDistinct Code = "BatchEntryIdsNotDistinct"
	ErrBatchRequestTooLong      Code = "BatchRequestTooLong"
	ErrInvalidBatchEntryID      Code = "InvalidBatchEntryId"
	// ErrMoveTaskRunning is a second active move task of one source, which
	// SQS answers as an InvalidParameterValue.
	ErrMoveTaskRunning Code = "MoveTaskRunning"
)

// Errorf builds an *Error outside the catalogue (catalogue.go): a failure
// of a front end's own framing, worded by it, with no catalogue entry.
// Engine code never uses it.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// CodeOf returns the Code of err, or ErrInternal when err is not an *Error.
func CodeOf(err error) Code {
	if e, ok := err.(*Error); ok { // most are; errors.As allocates
		return e.Code
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ErrInternal
}

// BatchFailure returns the first of errs that is ErrInternal, or nil. The
// store records a batch in one transaction, so such an error means none of
// the batch's changes took effect: front ends answer the request as a whole
// with it, as SQS answers an internal failure, rather than entry by entry.
func BatchFailure(errs []error) error {
	for _, err := range errs {
		if err != nil && CodeOf(err) == ErrInternal {
			return err
		}
	}
	return nil
}

// SendFailure is BatchFailure for the results of a send.
func SendFailure(results []SendResult) error {
	for _, r := range results {
		if r.Err != nil && CodeOf(r.Err) == ErrInternal {
			return r.Err
		}
	}
	return nil
}
