package rest_test

import (
	"testing"
	"time"
)

type peeked struct {
	MessageID       string            `json:"messageId"`
	Body            string            `json:"body"`
	Attributes      map[string]string `json:"attributes"`
	State           string            `json:"state"`
	ReceiveCount    int               `json:"receiveCount"`
	FirstReceivedAt string            `json:"firstReceivedAt"`
	VisibleAt       string            `json:"visibleAt"`
	ExpiresAt       string            `json:"expiresAt"`
	GroupID         string            `json:"groupId"`
	SequenceNumber  string            `json:"sequenceNumber"`
	DedupID         string            `json:"dedupId"`
}

func (v *env) peekAll(queue, query string) []peeked {
	v.t.Helper()
	var out struct{ Messages []peeked }
	v.must(200, "GET", "/v1/queues/"+queue+"/messages"+query, nil).Decode(v.t, &out)
	return out.Messages
}

func TestPeekStates(t *testing.T) {
	v := newEnv(t)
	v.createQueue(msg{"name": "q"})
	v.sendOK("q", msg{"body": "a"}, msg{"body": "b", "attributes": msg{"k": "v"}}, msg{"body": "later", "delaySeconds": 60})
	r := v.receive("q", msg{"visibilityTimeoutSeconds": 30})

	if got := v.peekAll("q", ""); len(got) != 1 || got[0].Body != "b" || got[0].State != "visible" || got[0].VisibleAt != "" {
		t.Fatalf("default peek: %+v", got)
	}
	got := v.peekAll("q", "?state=visible,inFlight,delayed")
	if len(got) != 3 || got[0].Body != "b" || got[1].Body != "a" || got[2].Body != "later" {
		t.Fatalf("every state: %+v", got)
	}
	a := got[1]
	if a.State != "inFlight" || a.ReceiveCount != 1 || a.MessageID != r[0].MessageID ||
		a.VisibleAt != "2026-01-02T03:04:35.000Z" || a.FirstReceivedAt != "2026-01-02T03:04:05.000Z" {
		t.Errorf("in flight: %+v", a)
	}
	if l := got[2]; l.State != "delayed" || l.VisibleAt != "2026-01-02T03:05:05.000Z" || l.FirstReceivedAt != "" || l.ReceiveCount != 0 {
		t.Errorf("delayed: %+v", l)
	}
	if b := got[0]; b.Attributes["k"] != "v" || b.ExpiresAt != "2026-01-06T03:04:05.000Z" {
		t.Errorf("visible: %+v", b)
	}
	if got := v.peekAll("q", "?state=delayed&limit=5"); len(got) != 1 || got[0].Body != "later" {
		t.Errorf("delayed only: %+v", got)
	}
	// Peeking leased nothing: the handle still works.
	if res := v.ack(r[0].ReceiptHandle); res[0].Error != nil {
		t.Errorf("acknowledge after peeks: %+v", res[0].Error)
	}
	v.fails(400, "invalid_request", invalidRequest, "GET", "/v1/queues/q/messages?state=gone", nil)
	v.fails(400, "invalid_request", invalidRequest, "GET", "/v1/queues/q/messages?state=", nil)
}

func TestPeekFIFO(t *testing.T) {
	v := newEnv(t)
	v.createQueue(msg{"name": "f", "type": "fifo"})
	v.sendOK("f", msg{"body": "1", "groupId": "g", "dedupId": "d1"}, msg{"body": "2", "groupId": "g", "dedupId": "d2"})
	v.receive("f", msg{})
	got := v.peekAll("f", "?state=visible,inFlight")
	if len(got) != 2 || got[0].Body != "2" || got[1].Body != "1" {
		t.Fatalf("peek: %+v", got)
	}
	if got[0].GroupID != "g" || got[0].DedupID != "d2" || got[0].SequenceNumber == "" || got[1].State != "inFlight" {
		t.Errorf("FIFO fields: %+v", got)
	}
}

func TestDeleteMessage(t *testing.T) {
	v := newEnv(t)
	v.createQueue(msg{"name": "q"})
	res := v.sendOK("q", msg{"body": "gone"}, msg{"body": "stays"})
	h := v.receive("q", msg{})[0].ReceiptHandle
	v.must(204, "DELETE", "/v1/queues/q/messages/"+res[0].MessageID, nil)
	if got := v.peekAll("q", "?state=visible,inFlight,delayed"); len(got) != 1 || got[0].Body != "stays" {
		t.Errorf("after the delete: %+v", got)
	}
	if r := v.ack(h); r[0].Error == nil || r[0].Error.Code != "receipt_handle_stale" {
		t.Errorf("handle of the deleted message: %+v", r[0])
	}
	v.fails(404, "message_not_found", validRequest, "DELETE", "/v1/queues/q/messages/"+res[0].MessageID, nil)
	v.fails(404, "queue_not_found", validRequest, "DELETE", "/v1/queues/nope/messages/"+res[1].MessageID, nil)
	v.clock.Advance(time.Second)
	if q := v.getQueue("q"); q.Counts.Visible != 1 || q.Counts.InFlight != 0 {
		t.Errorf("counts: %+v", q.Counts)
	}
}
