package rest

// What the API shares with the other JSON handler sets on its port (the
// control API under /_minisqs): one error shape, one writer, one body
// decoder, one time format and one check of bearer tokens, so that every
// JSON answer of minisqs reads alike.

import (
	"net/http"
	"time"
)

// Error codes that other handler sets answer with.
const (
	CodeInvalidRequest = codeInvalidRequest
	CodeQueueNotFound  = codeQueueNotFound
	CodeNotFound       = codeNotFound
	CodeInternal       = codeInternal
)

// Errorf is an error as the API answers it: code, one of the API's, and a
// message for people. WriteError renders it with the code's status.
func Errorf(code, format string, args ...any) error { return apiErrorf(code, format, args...) }

// WriteJSON puts v on the wire as JSON with the status; a nil v writes no
// body.
func WriteJSON(w http.ResponseWriter, status int, v any) { write(w, status, v) }

// WriteError puts err on the wire as {"error": {"code", "message"}}, mapping
// engine failures as the API does.
func WriteError(w http.ResponseWriter, err error) { writeError(w, err) }

// DecodeJSON reads r's JSON body into v as the API reads its own: unknown
// fields and trailing data refused, at most limit bytes (0 for
// MaxRequestBytes), an empty body taken as {} when emptyOK.
func DecodeJSON(w http.ResponseWriter, r *http.Request, v any, limit int64, emptyOK bool) error {
	return (&call{w: w, r: r, limit: limit}).decode(v, emptyOK)
}

// AuthorizeAdmin checks that r carries an admin's bearer token when tokens
// are configured.
func AuthorizeAdmin(tokens map[string]Role, r *http.Request) error {
	return authorize(tokens, r, permAdmin)
}

// FormatTime renders t as the API does: RFC 3339 in UTC, with milliseconds.
func FormatTime(t time.Time) string { return formatTime(t) }
