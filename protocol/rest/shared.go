package rest

import (
	"net/http"
	"time"
)

// The API's conventions for other JSON endpoints on the same port, such as
// the test-control API under /_minisqs/, so that they read and answer as
// the API does.

// Error codes other endpoints answer with.
const (
	CodeInvalidRequest = codeInvalidRequest
	CodeNotFound       = codeNotFound
)

// Errorf returns an error with one of the API's codes, which WriteError
// answers with that code's status; an unknown code is internal_error.
func Errorf(code, format string, args ...any) error {
	if _, ok := statuses[code]; !ok {
		code = codeInternal
	}
	return apiErrorf(code, format, args...)
}

// Decode reads r's JSON body into v as the API's operations read theirs:
// within MaxRequestBytes, refusing a missing body, unknown fields and
// trailing data, with errors that WriteError answers as invalid_request.
func Decode(w http.ResponseWriter, r *http.Request, v any) error {
	return (&call{r: r, w: w}).decode(v, false)
}

// Write answers with v as JSON; a nil v writes no body.
func Write(w http.ResponseWriter, status int, v any) { write(w, status, v) }

// WriteError answers with err as {"error": {"code", "message"}}.
func WriteError(w http.ResponseWriter, err error) { writeError(w, err) }

// FormatTime writes t as the API writes times: RFC 3339 with milliseconds,
// in UTC.
func FormatTime(t time.Time) string { return formatTime(t) }
