package sqs

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/dispatch"
)

// batchEntryID is the regular expression SQS documents, checked by hand.
func TestBatchEntryIDRule(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`)
	for _, s := range []string{"", "a", "A-z_09", strings.Repeat("x", 80), strings.Repeat("x", 81), "a b", "a.b", "é", "a\n", "\x00", "ａ", "-", "_"} {
		if got, want := batchEntryID.MatchString(s), re.MatchString(s); got != want {
			t.Errorf("batchEntryID.MatchString(%q) = %v, want %v", s, got, want)
		}
	}
}

// Calls are reused, lists and all: each answer holds its own request's
// entries only, in both protocols, however long the one before it was.
func TestReusedCallsAnswerTheirOwnRequest(t *testing.T) {
	s := fzService(t)
	serveJSON := func(action, body string) string {
		t.Helper()
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		r.Header.Set("X-Amz-Target", targetPrefix+action)
		w := httptest.NewRecorder()
		s.ServeJSON(w, r)
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", action, w.Code, w.Body)
		}
		return w.Body.String()
	}
	entries := func(n int, prefix string) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"Id":"%s%d","MessageBody":"body %s%d","MessageAttributes":{"n":{"DataType":"Number","StringValue":"%d"}}}`, prefix, i, prefix, i, i)
		}
		return b.String()
	}
	// The seeded message first, out of the way.
	serveJSON("ReceiveMessage", `{"QueueUrl":"`+fzStd+`","MaxNumberOfMessages":10}`)
	for _, n := range []int{10, 1, 3} {
		prefix := fmt.Sprintf("b%d-", n)
		var sent struct {
			Successful []struct{ Id, MD5OfMessageAttributes string }
		}
		json.Unmarshal([]byte(serveJSON("SendMessageBatch", `{"QueueUrl":"`+fzStd+`","Entries":[`+entries(n, prefix)+`]}`)), &sent)
		if len(sent.Successful) != n {
			t.Fatalf("batch of %d: %d sent", n, len(sent.Successful))
		}
		for i, e := range sent.Successful {
			want := md5OfAttributes([]engine.MessageAttribute{{Name: "n", DataType: "Number", StringValue: strconv.Itoa(i)}})
			if e.Id != prefix+strconv.Itoa(i) || e.MD5OfMessageAttributes != want {
				t.Errorf("batch of %d, entry %d: %+v, want id %s%d and digest %s", n, i, e, prefix, i, want)
			}
		}
		var got struct {
			Messages []struct{ Body, ReceiptHandle string }
		}
		json.Unmarshal([]byte(serveJSON("ReceiveMessage", `{"QueueUrl":"`+fzStd+`","MaxNumberOfMessages":10,"MessageAttributeNames":["All"]}`)), &got)
		if len(got.Messages) != n {
			t.Fatalf("batch of %d: %d received", n, len(got.Messages))
		}
		var del []string
		for i, m := range got.Messages {
			if !strings.HasPrefix(m.Body, "body "+prefix) {
				t.Errorf("batch of %d: received %q", n, m.Body)
			}
			del = append(del, fmt.Sprintf(`{"Id":"d%d","ReceiptHandle":"%s"}`, i, m.ReceiptHandle))
		}
		var deleted struct{ Successful []struct{ Id string } }
		json.Unmarshal([]byte(serveJSON("DeleteMessageBatch", `{"QueueUrl":"`+fzStd+`","Entries":[`+strings.Join(del, ",")+`]}`)), &deleted)
		if len(deleted.Successful) != n {
			t.Errorf("batch of %d: %d deleted", n, len(deleted.Successful))
		}
	}
	// The query protocol's calls come from the same pool.
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(fzForm("Action", "SendMessageBatch", "QueueUrl", fzStd,
		"SendMessageBatchRequestEntry.1.Id", "q", "SendMessageBatchRequestEntry.1.MessageBody", "by query")))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	s.ServeQuery(w, r)
	if n := strings.Count(w.Body.String(), "<SendMessageBatchResultEntry>"); w.Code != http.StatusOK || n != 1 {
		t.Errorf("query batch of 1: %d, %d entries\n%s", w.Code, n, w.Body)
	}
}

// A reset call holds nothing of the requests it served, however long each
// answer was: a list's memory past its length was left zero.
func TestResetCallKeepsNoAnswer(t *testing.T) {
	s := fzService(t)
	c := new(call)
	serve := func(action string, in any) {
		t.Helper()
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		if _, err := s.serve(c, r, nil, dispatch.JSON, action, s.actions[action], in); err != nil {
			t.Fatalf("%s: %v", action, err)
		}
	}
	for _, n := range []int{10, 3, 1} {
		in := &SendMessageBatchInput{QueueUrl: fzStd}
		for i := range n {
			body := "body " + strconv.Itoa(i)
			in.Entries = append(in.Entries, SendMessageBatchEntry{Id: "e" + strconv.Itoa(i), MessageBody: &body})
		}
		if n == 3 {
			// An entry that fails takes no message.
			in.Entries = append(in.Entries[:1], append([]SendMessageBatchEntry{{Id: "nobody"}}, in.Entries[1:]...)...)
		}
		serve("SendMessageBatch", in)
		if got := len(c.sendBatch.Successful); got != n {
			t.Fatalf("batch of %d: %d sent", n, got)
		}
		c.reset()
		ten := 10
		serve("ReceiveMessage", &ReceiveMessageInput{QueueUrl: fzStd, MaxNumberOfMessages: &ten})
		var del DeleteMessageBatchInput
		for i, m := range c.messages {
			del.Entries = append(del.Entries, DeleteMessageBatchEntry{Id: "d" + strconv.Itoa(i), ReceiptHandle: m.ReceiptHandle})
		}
		if len(c.messages) == 0 {
			t.Fatalf("batch of %d: nothing received", n)
		}
		c.reset()
		del.QueueUrl = fzStd
		serve("DeleteMessageBatch", &del)
		c.reset()
		for name, held := range map[string]bool{
			"sendResults": slices.ContainsFunc(c.sendResults[:cap(c.sendResults)], func(e SendMessageBatchResultEntry) bool { return e != SendMessageBatchResultEntry{} }),
			"sendEntries": slices.ContainsFunc(c.sendEntries[:cap(c.sendEntries)], func(e sentEntry) bool { return e != sentEntry{} }),
			"newMessages": slices.ContainsFunc(c.newMessages[:cap(c.newMessages)], func(m engine.NewMessage) bool {
				return m.Body != "" || m.Attributes != nil || m.SystemAttributes != nil || m.DelaySeconds != nil
			}),
			"messages": slices.ContainsFunc(c.messages[:cap(c.messages)], func(m Message) bool {
				return m.MessageId != "" || m.Body != "" || m.Attributes != nil || m.MessageAttributes != nil
			}),
			"batchResults": slices.ContainsFunc(c.batchResults[:cap(c.batchResults)], func(e BatchResultEntry) bool { return e != BatchResultEntry{} }),
			"handles":      slices.ContainsFunc(c.handles[:cap(c.handles)], func(h string) bool { return h != "" }),
		} {
			if held {
				t.Errorf("after a batch of %d, the reset call's %s still holds an answer", n, name)
			}
		}
	}
}
