package rest_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/minisqs/minisqs/internal/apitest"
)

func TestSendReceiveAcknowledge(t *testing.T) {
	v := newEnv(t)
	v.createQueue(msg{"name": "q"})
	res := v.sendOK("q", msg{"body": "héllo", "attributes": msg{"kind": "greeting", "lang": "fr"}}, msg{"body": "second"})
	if res[0].SequenceNumber != "" || res[0].MessageID == res[1].MessageID {
		t.Errorf("results: %+v", res)
	}
	if q := v.getQueue("q"); q.Counts.Visible != 2 {
		t.Errorf("counts: %+v", q.Counts)
	}
	v.clock.Advance(2 * time.Second)
	got := v.receive("q", msg{"maxMessages": 10})
	if len(got) != 2 {
		t.Fatalf("received %d", len(got))
	}
	m := got[0]
	if m.MessageID != res[0].MessageID || m.Body != "héllo" || m.Attributes["kind"] != "greeting" || m.Attributes["lang"] != "fr" ||
		m.ReceiveCount != 1 || m.SentAt != "2026-01-02T03:04:05.000Z" || m.FirstReceivedAt != "2026-01-02T03:04:07.000Z" ||
		m.ReceiptHandle == "" || m.GroupID != "" || m.SequenceNumber != "" {
		t.Errorf("received %+v", m)
	}
	if len(got[1].Attributes) != 0 || !strings.Contains(string(v.must(200, "POST", "/v1/queues/q/messages/receive", nil).Body), `"messages":[]`) {
		t.Errorf("attributes of a message without any: %+v", got[1].Attributes)
	}
	if q := v.getQueue("q"); q.Counts.InFlight != 2 || q.Counts.Visible != 0 {
		t.Errorf("counts: %+v", q.Counts)
	}
	r := v.ack(m.ReceiptHandle, got[1].ReceiptHandle, m.ReceiptHandle, "not-a-handle")
	if r[0].Error != nil || r[1].Error != nil {
		t.Errorf("ack: %+v %+v", r[0], r[1])
	}
	if r[2].Error == nil || r[2].Error.Code != "receipt_handle_stale" {
		t.Errorf("second ack of one handle: %+v", r[2])
	}
	if r[3].Error == nil || r[3].Error.Code != "invalid_request" {
		t.Errorf("ack of a malformed handle: %+v", r[3])
	}
	if q := v.getQueue("q"); q.Counts.InFlight != 0 {
		t.Errorf("counts after ack: %+v", q.Counts)
	}
	// Defaults: one message; the queue's visibility timeout.
	v.sendOK("q", msg{"body": "a"}, msg{"body": "b"})
	if got := v.receive("q", msg{}); len(got) != 1 {
		t.Errorf("default maxMessages gave %d", len(got))
	}
	v.clock.Advance(29 * time.Second)
	if got := v.receive("q", msg{"maxMessages": 10}); len(got) != 1 {
		t.Errorf("before the visibility timeout ends: %d", len(got))
	}
	v.clock.Advance(time.Second)
	if got := v.receive("q", msg{"maxMessages": 10, "visibilityTimeoutSeconds": 5}); len(got) != 1 || got[0].Body != "a" || got[0].ReceiveCount != 2 {
		t.Errorf("after the timeout: %+v", got)
	}
}

func TestSendPerMessageErrors(t *testing.T) {
	v := newEnv(t)
	v.createQueue(msg{"name": "q"})
	attrs := msg{}
	for i := range 11 {
		attrs[fmt.Sprintf("a%d", i)] = "v"
	}
	// 256 KiB exactly is accepted; one byte more is not; attribute names
	// and values count.
	res := v.send("q",
		msg{"body": "ok-1"},
		msg{"body": bigString(256 << 10)},
		msg{"body": bigString(256<<10 + 1)},
		msg{"body": bigString(256<<10 - 4), "attributes": msg{"ab": "cd"}},
		msg{"body": bigString(256<<10 - 4), "attributes": msg{"ab": "cde"}},
		msg{"body": "x", "dedupId": "d"},
		msg{"body": "x", "delaySeconds": 60},
		msg{"body": "\u0000 is not allowed"},
		msg{"body": "x", "attributes": msg{"AWS.reserved": "v"}},
		msg{"body": "ok-2"},
	)
	want := []string{"", "", "message_too_large", "", "message_too_large", "invalid_request", "", "invalid_request", "invalid_request", ""}
	for i, r := range res {
		code := ""
		if r.Error != nil {
			code = r.Error.Code
			if r.Error.Message == "" || r.MessageID != "" {
				t.Errorf("result %d: %+v", i, r)
			}
		} else if r.MessageID == "" {
			t.Errorf("result %d has neither id nor error", i)
		}
		if code != want[i] {
			t.Errorf("message %d: code %q, want %q (%+v)", i, code, want[i], r.Error)
		}
	}
	if q := v.getQueue("q"); q.Counts.Visible != 4 || q.Counts.Delayed != 1 {
		t.Errorf("stored: %+v", q.Counts)
	}
	// Refused by the document too: bad shapes within one message fail the
	// request as a whole, as they are malformed JSON for the API.
	for _, body := range []any{
		msg{"messages": []msg{}},
		msg{"messages": make([]msg, 11)},
		msg{},
		msg{"messages": []msg{{"body": "x", "attributes": attrs}}},
		msg{"messages": []msg{{"body": ""}}},
		msg{"messages": []msg{{"body": "x", "delaySeconds": 901}}},
		msg{"messages": []msg{{"body": "x", "extra": 1}}},
		msg{"messages": []msg{{"body": 5}}},
		msg{"messages": []msg{{"body": "x", "attributes": msg{"n": 1}}}},
	} {
		r := v.do("POST", "/v1/queues/q/messages", body, invalidRequest)
		if r.Status == 200 {
			// Per-message checks: the request is fine as a whole.
			var out struct{ Results []sendResult }
			r.Decode(t, &out)
			if len(out.Results) != 1 || out.Results[0].Error == nil || out.Results[0].Error.Code != "invalid_request" {
				t.Errorf("%s: %s", apitest.JSON(body), r.Body)
			}
			continue
		}
		if r.Status != 400 || r.ErrCode(t) != "invalid_request" {
			t.Errorf("%s: %d %s", apitest.JSON(body), r.Status, r.Body)
		}
	}
	v.fails(404, "queue_not_found", validRequest, "POST", "/v1/queues/nope/messages", msg{"messages": []msg{{"body": "x"}}})
}

func TestDelays(t *testing.T) {
	v := newEnv(t)
	v.createQueue(msg{"name": "d", "delaySeconds": 10})
	v.sendOK("d", msg{"body": "queue delay"}, msg{"body": "own delay", "delaySeconds": 0}, msg{"body": "longer", "delaySeconds": 30})
	if q := v.getQueue("d"); q.Counts.Visible != 1 || q.Counts.Delayed != 2 {
		t.Errorf("counts: %+v", q.Counts)
	}
	v.clock.Advance(10 * time.Second)
	if q := v.getQueue("d"); q.Counts.Visible != 2 || q.Counts.Delayed != 1 {
		t.Errorf("counts after 10 s: %+v", q.Counts)
	}
}

func TestPeek(t *testing.T) {
	v := newEnv(t)
	v.createQueue(msg{"name": "q"})
	for i := range 12 {
		v.sendOK("q", msg{"body": fmt.Sprint(i), "attributes": msg{"i": fmt.Sprint(i)}})
	}
	got := v.peek("q", "")
	if len(got) != 10 || got[0].Body != "0" || got[0].Attributes["i"] != "0" || got[0].ReceiptHandle != "" || got[0].ReceiveCount != 0 {
		t.Fatalf("peek: %d %+v", len(got), got[0])
	}
	if got := v.peek("q", "?limit=100"); len(got) != 12 {
		t.Errorf("limit 100: %d", len(got))
	}
	if got := v.peek("q", "?limit=2"); len(got) != 2 || got[1].Body != "1" {
		t.Errorf("limit 2: %+v", got)
	}
	// Peeking leases nothing and counts no receive.
	if q := v.getQueue("q"); q.Counts.Visible != 12 || q.Counts.InFlight != 0 {
		t.Errorf("counts: %+v", q.Counts)
	}
	r := v.receive("q", msg{"maxMessages": 3})
	if r[0].ReceiveCount != 1 {
		t.Errorf("receiveCount after peeks: %d", r[0].ReceiveCount)
	}
	if got := v.peek("q", "?limit=1"); got[0].Body != "3" {
		t.Errorf("peek shows in-flight messages: %+v", got)
	}
	v.fails(400, "invalid_request", invalidRequest, "GET", "/v1/queues/q/messages?limit=0", nil)
	v.fails(400, "invalid_request", invalidRequest, "GET", "/v1/queues/q/messages?limit=101", nil)
	v.fails(404, "queue_not_found", validRequest, "GET", "/v1/queues/nope/messages", nil)
}

func TestReceiveInvalid(t *testing.T) {
	v := newEnv(t)
	v.createQueue(msg{"name": "q"})
	for _, body := range []any{
		msg{"maxMessages": 0},
		msg{"maxMessages": 11},
		msg{"waitSeconds": 21},
		msg{"waitSeconds": -1},
		msg{"visibilityTimeoutSeconds": 43201},
		msg{"attemptId": "x"},
		`{"maxMessages": "1"}`,
	} {
		v.fails(400, "invalid_request", invalidRequest, "POST", "/v1/queues/q/messages/receive", body)
	}
	v.fails(404, "queue_not_found", validRequest, "POST", "/v1/queues/nope/messages/receive", msg{})
}

func TestChangeVisibility(t *testing.T) {
	v := newEnv(t)
	v.createQueue(msg{"name": "q"})
	v.sendOK("q", msg{"body": "m"})
	h := v.receive("q", msg{})[0].ReceiptHandle

	// Extend: still hidden after the queue's 30 s.
	v.must(204, "POST", "/v1/messages/visibility", msg{"receiptHandle": h, "visibilityTimeoutSeconds": 100})
	v.clock.Advance(99 * time.Second)
	if got := v.receive("q", msg{}); len(got) != 0 {
		t.Fatal("visible before the extended timeout")
	}
	// After the timeout ends the handle still works, until another receive.
	v.clock.Advance(2 * time.Second)
	v.must(204, "POST", "/v1/messages/visibility", msg{"receiptHandle": h, "visibilityTimeoutSeconds": 0})
	got := v.receive("q", msg{})
	if len(got) != 1 || got[0].ReceiveCount != 2 {
		t.Fatalf("after release: %+v", got)
	}
	v.fails(409, "receipt_handle_stale", validRequest, "POST", "/v1/messages/visibility", msg{"receiptHandle": h, "visibilityTimeoutSeconds": 10})
	if r := v.ack(h); r[0].Error == nil || r[0].Error.Code != "receipt_handle_stale" {
		t.Errorf("old handle acknowledged: %+v", r[0])
	}
	h2 := got[0].ReceiptHandle
	// At most 12 hours in flight from the receive.
	v.must(204, "POST", "/v1/messages/visibility", msg{"receiptHandle": h2, "visibilityTimeoutSeconds": 43200})
	v.clock.Advance(time.Hour)
	v.fails(400, "invalid_request", validRequest, "POST", "/v1/messages/visibility", msg{"receiptHandle": h2, "visibilityTimeoutSeconds": 43200})
	v.must(204, "POST", "/v1/messages/visibility", msg{"receiptHandle": h2, "visibilityTimeoutSeconds": 39600})

	for _, body := range []any{
		msg{"receiptHandle": h2},
		msg{"visibilityTimeoutSeconds": 5},
		msg{"receiptHandle": h2, "visibilityTimeoutSeconds": 43201},
		msg{"receiptHandle": h2, "visibilityTimeoutSeconds": -1},
		msg{"receiptHandle": "", "visibilityTimeoutSeconds": 1},
		msg{"receiptHandle": h2, "visibilityTimeoutSeconds": 1, "queue": "q"},
	} {
		v.fails(400, "invalid_request", invalidRequest, "POST", "/v1/messages/visibility", body)
	}
	v.fails(400, "invalid_request", validRequest, "POST", "/v1/messages/visibility", msg{"receiptHandle": "garbage", "visibilityTimeoutSeconds": 1})
	for _, body := range []any{msg{"receiptHandles": []string{}}, msg{"receiptHandles": make([]string, 11)}, msg{}, `{"receiptHandles": "x"}`} {
		v.fails(400, "invalid_request", invalidRequest, "POST", "/v1/messages/acknowledge", body)
	}
}

func TestLongPoll(t *testing.T) {
	v := newEnv(t)
	v.createQueue(msg{"name": "q"})
	// Answers at the first message.
	wait := async(func() []received { return v.receive("q", msg{"waitSeconds": 20}) })
	waitForWaiters(t, v.clock, 2)
	v.sendOK("q", msg{"body": "wake"})
	if got := wait(t); len(got) != 1 || got[0].Body != "wake" {
		t.Fatalf("long poll: %+v", got)
	}
	// Answers empty when the wait ends.
	wait = async(func() []received { return v.receive("q", msg{"waitSeconds": 5}) })
	// The sweeper's timer, the queue's for the end of "wake"'s lease, which
	// a waiting poll sets, and the poll's own: the clock moves only once the
	// poll's is there, or the poll would wait from the time after the move.
	waitForWaiters(t, v.clock, 3)
	v.clock.Advance(5 * time.Second)
	if got := wait(t); len(got) != 0 {
		t.Fatalf("empty long poll: %+v", got)
	}
	// The queue's receiveWaitSeconds makes every receive wait.
	v.must(200, "PATCH", "/v1/queues/q", msg{"receiveWaitSeconds": 20})
	wait = async(func() []received { return v.receive("q", msg{}) })
	waitForWaiters(t, v.clock, 2)
	v.sendOK("q", msg{"body": "again"})
	if got := wait(t); len(got) != 1 {
		t.Fatalf("queue wait: %+v", got)
	}
	// A queue deleted during the poll answers 404.
	failed := async(func() *resp {
		return v.do("POST", "/v1/queues/q/messages/receive", msg{"waitSeconds": 20}, validRequest)
	})
	waitForWaiters(t, v.clock, 2)
	v.must(204, "DELETE", "/v1/queues/q", nil)
	if r := failed(t); r.Status != 404 || r.ErrCode(t) != "queue_not_found" {
		t.Fatalf("long poll on a deleted queue: %d %s", r.Status, r.Body)
	}
}

func TestFIFO(t *testing.T) {
	v := newEnv(t)
	v.createQueue(msg{"name": "f", "type": "fifo"})
	res := v.send("f",
		msg{"body": "a1", "groupId": "a", "dedupId": "1"},
		msg{"body": "b1", "groupId": "b", "dedupId": "2"},
		msg{"body": "a2", "groupId": "a", "dedupId": "3"},
		msg{"body": "no group", "dedupId": "4"},
		msg{"body": "delayed", "groupId": "a", "dedupId": "5", "delaySeconds": 0},
		msg{"body": "no dedup", "groupId": "a"},
		msg{"body": "a1 again", "groupId": "a", "dedupId": "1"},
	)
	for i, wantErr := range []bool{false, false, false, true, true, true, false} {
		if (res[i].Error != nil) != wantErr {
			t.Errorf("result %d: %+v", i, res[i])
		}
		if !wantErr && res[i].SequenceNumber == "" {
			t.Errorf("result %d has no sequenceNumber", i)
		}
	}
	if res[6].MessageID != res[0].MessageID || res[6].SequenceNumber != res[0].SequenceNumber {
		t.Errorf("deduplicated send: %+v, first %+v", res[6], res[0])
	}
	if q := v.getQueue("f"); q.Counts.Visible != 3 {
		t.Errorf("stored: %+v", q.Counts)
	}
	// Order within a group; a group with a message in flight yields nothing more.
	got := v.receive("f", msg{"maxMessages": 10})
	if len(got) != 3 {
		t.Fatalf("received %+v", got)
	}
	byGroup := map[string][]string{}
	for _, m := range got {
		byGroup[m.GroupID] = append(byGroup[m.GroupID], m.Body)
		if m.SequenceNumber == "" {
			t.Errorf("no sequenceNumber: %+v", m)
		}
	}
	if strings.Join(byGroup["a"], ",") != "a1,a2" || strings.Join(byGroup["b"], ",") != "b1" {
		t.Errorf("groups: %v", byGroup)
	}
	v.sendOK("f", msg{"body": "a3", "groupId": "a", "dedupId": "6"})
	if got := v.receive("f", msg{"maxMessages": 10}); len(got) != 0 {
		t.Errorf("group a yielded while in flight: %+v", got)
	}
	v.ack(got[0].ReceiptHandle, got[1].ReceiptHandle, got[2].ReceiptHandle)
	if got := v.receive("f", msg{}); len(got) != 1 || got[0].Body != "a3" {
		t.Errorf("after ack: %+v", got)
	}

	// Content-based deduplication.
	v.createQueue(msg{"name": "c", "type": "fifo", "contentBasedDedup": true})
	r1 := v.sendOK("c", msg{"body": "same", "groupId": "g"})
	r2 := v.sendOK("c", msg{"body": "same", "groupId": "g"})
	if r1[0].MessageID != r2[0].MessageID {
		t.Errorf("content dedup: %s %s", r1[0].MessageID, r2[0].MessageID)
	}
	v.clock.Advance(5 * time.Minute)
	if r3 := v.sendOK("c", msg{"body": "same", "groupId": "g"}); r3[0].MessageID == r1[0].MessageID {
		t.Error("deduplicated after the 5-minute window")
	}
}

func TestDeadLetter(t *testing.T) {
	v := newEnv(t)
	dlq := v.createQueue(msg{"name": "dlq"})
	v.createQueue(msg{"name": "src", "redrive": msg{"deadLetterQueue": dlq.ID, "maxReceiveCount": 2}})
	id := v.sendOK("src", msg{"body": "poison"})[0].MessageID
	for i := 1; i <= 2; i++ {
		got := v.receive("src", msg{})
		if len(got) != 1 || got[0].ReceiveCount != i {
			t.Fatalf("receive %d: %+v", i, got)
		}
		v.must(204, "POST", "/v1/messages/visibility", msg{"receiptHandle": got[0].ReceiptHandle, "visibilityTimeoutSeconds": 0})
	}
	if got := v.receive("src", msg{}); len(got) != 0 {
		t.Fatalf("third receive returned %+v", got)
	}
	if q := v.getQueue("dlq"); q.Counts.Visible != 1 {
		t.Fatalf("dlq: %+v", q.Counts)
	}
	if got := v.peek("dlq", ""); len(got) != 1 || got[0].MessageID != id {
		t.Errorf("dlq holds %+v", got)
	}
}
