package rest

import (
	"testing"

	"github.com/minisqs/minisqs/engine"
)

func TestCountsCap(t *testing.T) {
	for _, tc := range []struct {
		in   engine.Counts
		want countsJSON
	}{
		{engine.Counts{}, countsJSON{}},
		{engine.Counts{Visible: 100_000, InFlight: 3, Delayed: 2}, countsJSON{Visible: 100_000, InFlight: 3, Delayed: 2}},
		{engine.Counts{Visible: 100_001}, countsJSON{Visible: 100_000, Truncated: true}},
		{engine.Counts{InFlight: 250_000, Delayed: 7}, countsJSON{InFlight: 100_000, Delayed: 7, Truncated: true}},
		{engine.Counts{Delayed: 1 << 30}, countsJSON{Delayed: 100_000, Truncated: true}},
	} {
		if got := countsOf(tc.in); got != tc.want {
			t.Errorf("countsOf(%+v) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// TestEngineCodesMapped checks that every engine failure class has a code,
// and every code a status.
func TestEngineCodesMapped(t *testing.T) {
	for _, c := range []engine.Code{
		engine.ErrQueueDoesNotExist, engine.ErrQueueNameExists, engine.ErrQueueDeletedRecently,
		engine.ErrPurgeQueueInProgress, engine.ErrInvalidAttributeName, engine.ErrInvalidAttributeValue,
		engine.ErrInvalidParameterValue, engine.ErrMissingParameter, engine.ErrInvalidMessageContents,
		engine.ErrMessageTooLong, engine.ErrReceiptHandleIsInvalid, engine.ErrReceiptHandleStale,
		engine.ErrOverLimit, engine.ErrUnsupportedOperation,
		engine.ErrResourceNotFound, engine.ErrInvalidAddress, engine.ErrInternal,
		engine.ErrTooManyEntriesInBatch, engine.ErrEmptyBatchRequest, engine.ErrBatchEntryIdsNotDistinct,
		engine.ErrBatchRequestTooLong, engine.ErrInvalidBatchEntryID,
	} {
		code, ok := engineCodes[c]
		if !ok {
			t.Errorf("engine code %s has no API code", c)
			continue
		}
		if statuses[code] == 0 {
			t.Errorf("API code %s (for %s) has no status", code, c)
		}
		ae := toAPIError(engine.Errorf(c, "x"))
		if ae.Code != code || ae.Status != statuses[code] {
			t.Errorf("toAPIError(%s) = %+v", c, ae)
		}
	}
	want := map[engine.Code]struct {
		code   string
		status int
	}{
		engine.ErrQueueDoesNotExist:      {"queue_not_found", 404},
		engine.ErrQueueNameExists:        {"queue_exists", 409},
		engine.ErrReceiptHandleStale:     {"receipt_handle_stale", 409},
		engine.ErrReceiptHandleIsInvalid: {"invalid_request", 400},
		engine.ErrPurgeQueueInProgress:   {"purge_in_progress", 429},
		engine.ErrMessageTooLong:         {"message_too_large", 413},
		engine.ErrInvalidParameterValue:  {"invalid_request", 400},
	}
	for c, w := range want {
		if ae := toAPIError(engine.Errorf(c, "x")); ae.Code != w.code || ae.Status != w.status {
			t.Errorf("%s answers %s %d, want %s %d", c, ae.Code, ae.Status, w.code, w.status)
		}
	}
}
