package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHandlerReplaysAnswers(t *testing.T) {
	dir := t.TempDir()
	recorded := `{"Successful":[{"Id":"0"}],"Failed":[]}`
	if err := os.WriteFile(filepath.Join(dir, "DeleteMessageBatch"), []byte(recorded), 0o644); err != nil {
		t.Fatal(err)
	}
	answers, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := handler(answers)

	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"QueueUrl":"q","Entries":[]}`))
	req.Header.Set("X-Amz-Target", "AmazonSQS.DeleteMessageBatch")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || rec.Body.String() != recorded {
		t.Errorf("DeleteMessageBatch: %d %q, want 200 and the recorded answer", rec.Code, rec.Body)
	}
	for _, name := range []string{"Content-Type", "Content-Length", "x-amzn-RequestId"} {
		if rec.Header().Get(name) == "" {
			t.Errorf("answer without %s, which minisqs sends", name)
		}
	}

	req = httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{}`))
	req.Header.Set("X-Amz-Target", "AmazonSQS.ListQueues")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotImplemented {
		t.Errorf("an action with no recorded answer: %d, want 501", rec.Code)
	}

	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/health", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("/health: %d, want 200", rec.Code)
	}
}

func TestLoadMissingDir(t *testing.T) {
	if _, err := load(filepath.Join(t.TempDir(), "absent")); err == nil {
		t.Error("load of a missing directory: no error")
	}
}
