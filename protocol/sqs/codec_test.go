package sqs

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The body cap holds whether or not a request gives its length, and a body
// shorter than the length it gave is refused, in the protocol's own format.
func TestRequestBodies(t *testing.T) {
	s := fzService(t)
	sendJSON := `{"QueueUrl":"` + fzStd + `","MessageBody":"hello"}`
	tooBig := `{"QueueUrl":"` + fzStd + `","MessageBody":"` + strings.Repeat("x", MaxRequestBytes) + `"}`
	tests := []struct {
		name      string
		body      io.Reader
		length    int64 // -1: unknown, sent chunked
		status    int
		errorType string // __type of a JSON error
	}{
		{"sized", strings.NewReader(sendJSON), int64(len(sendJSON)), http.StatusOK, ""},
		{"chunked", strings.NewReader(sendJSON), -1, http.StatusOK, ""},
		{"empty", strings.NewReader(""), 0, http.StatusBadRequest, shapePrefix + "MissingRequiredParameterException"},
		{"over the cap", strings.NewReader(tooBig), int64(len(tooBig)), http.StatusRequestEntityTooLarge, shapePrefix + "RequestEntityTooLarge"},
		{"over the cap, chunked", strings.NewReader(tooBig), -1, http.StatusRequestEntityTooLarge, shapePrefix + "RequestEntityTooLarge"},
		{"shorter than its length", strings.NewReader(sendJSON), int64(len(sendJSON)) + 10, http.StatusBadRequest, shapePrefix + "MalformedQueryString"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", tc.body)
			r.ContentLength = tc.length
			r.Header.Set("X-Amz-Target", targetPrefix+"SendMessage")
			r.Header.Set("Content-Type", jsonContentType)
			w := httptest.NewRecorder()
			s.ServeJSON(w, r)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			if tc.errorType != "" && !strings.Contains(w.Body.String(), `"__type":"`+tc.errorType+`"`) {
				t.Errorf("body %s, want __type %s", w.Body, tc.errorType)
			}
		})
	}
}
