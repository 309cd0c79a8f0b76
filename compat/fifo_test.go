package compat

// FIFO queues and fair queues: each scenario runs under every protocol
// (adapter_test.go), each against its own server on a manual clock.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/minisqs/minisqs/server"
)

// byGroup splits bodies by their MessageGroupId attribute, keeping order.
func byGroup(t *testing.T, got []message) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, g := range got {
		id, ok := g.Attrs["MessageGroupId"]
		if !ok {
			t.Fatalf("message %q has no MessageGroupId attribute: %v", g.Body, g.Attrs)
		}
		out[id] = append(out[id], g.Body)
	}
	return out
}

func seqNumber(t *testing.T, s string) *big.Int {
	t.Helper()
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || n.Sign() <= 0 {
		t.Fatalf("SequenceNumber %q is not a positive decimal number", s)
	}
	return n
}

var fifoNames = []string{"MessageGroupId", "MessageDeduplicationId", "SequenceNumber"}

func TestFIFOCompatQueueAttributes(t *testing.T) {
	eachProtocol(t, server.Config{SkipCooldowns: true}, func(e *env) {
		url := e.createFIFO("orders.fifo", map[string]string{"ContentBasedDeduplication": "true"})
		a := e.attrs(url)
		for k, want := range map[string]string{
			"FifoQueue": "true", "ContentBasedDeduplication": "true",
			"DeduplicationScope": "queue", "FifoThroughputLimit": "perQueue",
		} {
			if a[k] != want {
				e.t.Errorf("%s = %q, want %q (all: %v)", k, a[k], want, a)
			}
		}

		high := e.createFIFO("high.fifo", map[string]string{"DeduplicationScope": "messageGroup", "FifoThroughputLimit": "perMessageGroupId"})
		a = e.attrs(high)
		if a["DeduplicationScope"] != "messageGroup" || a["FifoThroughputLimit"] != "perMessageGroupId" || a["ContentBasedDeduplication"] != "false" {
			e.t.Errorf("high-throughput FIFO attributes %v", a)
		}
		_, err := e.c.CreateQueue("bad.fifo", map[string]string{"FifoQueue": "true", "FifoThroughputLimit": "perMessageGroupId"}, nil)
		wantErr(e.t, err, "InvalidAttributeValue", 400)
		wantErr(e.t, e.c.SetQueueAttributes(high, map[string]string{"DeduplicationScope": "queue"}), "InvalidAttributeValue", 400)

		// The type is fixed; FIFO names need the suffix.
		_, err = e.c.CreateQueue("plain", map[string]string{"FifoQueue": "true"}, nil)
		wantErr(e.t, err, "InvalidParameterValue", 400)
		if err := e.c.SetQueueAttributes(url, map[string]string{"FifoQueue": "false"}); err == nil {
			e.t.Error("SetQueueAttributes changed a FIFO queue's type")
		}
		if a := e.attrs(url); a["FifoQueue"] != "true" {
			e.t.Errorf("FifoQueue = %q after a refused change", a["FifoQueue"])
		}
	})
}

func TestFIFOCompatSendAndReceiveOrder(t *testing.T) {
	eachProtocol(t, server.Config{SkipCooldowns: true}, func(e *env) {
		url := e.createFIFO("orders.fifo", map[string]string{"ContentBasedDeduplication": "true"})
		var seqs []string
		first := e.sendMsg(url, sendIn{Body: "a1", Group: ptr("a")})
		if first.MessageID == "" || first.MD5Body == "" {
			e.t.Fatalf("send answer %+v", first)
		}
		seqs = append(seqs, first.SequenceNumber)

		ok, failed, err := e.c.SendMessageBatch(url, []sendIn{
			{ID: "e1", Body: "b1", Group: ptr("b"), Dedup: ptr("b1-id")},
			{ID: "e2", Body: "a2", Group: ptr("a")},
			{ID: "e3", Body: "b2", Group: ptr("b"), Dedup: ptr("b2-id")},
			{ID: "e4", Body: "c1", Group: ptr("c")},
		})
		if err != nil || len(failed) != 0 || len(ok) != 4 {
			e.t.Fatalf("SendMessageBatch: ok %+v failed %+v err %v", ok, failed, err)
		}
		for i, s := range ok {
			if s.ID != fmt.Sprintf("e%d", i+1) {
				e.t.Errorf("batch result %d has id %q", i, s.ID)
			}
			seqs = append(seqs, s.SequenceNumber)
		}
		seqs = append(seqs, e.sendMsg(url, sendIn{Body: "a3", Group: ptr("a")}).SequenceNumber)
		for i := 1; i < len(seqs); i++ {
			if seqNumber(e.t, seqs[i]).Cmp(seqNumber(e.t, seqs[i-1])) <= 0 {
				e.t.Errorf("SequenceNumber %d %s not after %s", i, seqs[i], seqs[i-1])
			}
		}

		got := e.receive(url, receiveIn{Max: ptr(10), SysNames: fifoNames, Legacy: e.is("query")})
		groups := byGroup(e.t, got)
		for g, want := range map[string][]string{"a": {"a1", "a2", "a3"}, "b": {"b1", "b2"}, "c": {"c1"}} {
			if !slices.Equal(groups[g], want) {
				e.t.Errorf("group %s received %q, want %q (all %q)", g, groups[g], want, bodies(got))
			}
		}
		seqOf := map[string]string{"a1": seqs[0], "b1": seqs[1], "a2": seqs[2], "b2": seqs[3], "c1": seqs[4], "a3": seqs[5]}
		for _, m := range got {
			if m.Attrs["SequenceNumber"] != seqOf[m.Body] {
				e.t.Errorf("%s: SequenceNumber attribute %q, sent as %q", m.Body, m.Attrs["SequenceNumber"], seqOf[m.Body])
			}
			dedup := m.Attrs["MessageDeduplicationId"]
			switch m.Body {
			case "b1", "b2":
				if dedup != m.Body+"-id" {
					e.t.Errorf("%s: MessageDeduplicationId %q", m.Body, dedup)
				}
			default:
				sum := sha256.Sum256([]byte(m.Body))
				if dedup != hex.EncodeToString(sum[:]) {
					e.t.Errorf("%s: content-based MessageDeduplicationId %q", m.Body, dedup)
				}
			}
		}
		// Every group is in flight.
		e.receiveNone(url)
		// Releasing a1 gives it back though a2 and a3, sent after it, are
		// still out, as AWS does (LocalStack's validated test_fifo_message_
		// group_visibility_after_terminate_visibility_timeout).
		byBody := map[string]message{}
		for _, m := range got {
			byBody[m.Body] = m
		}
		if err := e.c.ChangeMessageVisibility(url, byBody["a1"].Handle, 0); err != nil {
			e.t.Fatalf("ChangeMessageVisibility: %v", err)
		}
		again := e.receive(url, receiveIn{Max: ptr(10), SysNames: []string{"All"}})
		if len(again) != 1 || again[0].Body != "a1" || again[0].Attrs["ApproximateReceiveCount"] != "2" {
			e.t.Fatalf("redelivery got %q %v", bodies(again), again)
		}
		e.receiveNone(url)
	})
}

func TestFIFOCompatDeduplication(t *testing.T) {
	eachProtocol(t, server.Config{SkipCooldowns: true}, func(e *env) {
		url := e.createFIFO("explicit.fifo", nil)
		first := e.sendMsg(url, sendIn{Body: "one", Group: ptr("g"), Dedup: ptr("d1")})
		dup := e.sendMsg(url, sendIn{Body: "two", Group: ptr("g"), Dedup: ptr("d1")})
		if dup.MessageID != first.MessageID || dup.SequenceNumber != first.SequenceNumber {
			e.t.Errorf("duplicate answered %+v, want the first %+v", dup, first)
		}
		if n := e.visible(url); n != 1 {
			e.t.Errorf("%d messages after a duplicate send", n)
		}
		// Deleting the message does not end the window.
		got := e.receive(url, receiveIn{Max: ptr(10)})
		if len(got) != 1 || got[0].Body != "one" || got[0].MessageID != first.MessageID {
			e.t.Fatalf("received %q", bodies(got))
		}
		e.del(url, got[0].Handle)
		if r := e.sendMsg(url, sendIn{Body: "three", Group: ptr("g"), Dedup: ptr("d1")}); r.MessageID != first.MessageID {
			e.t.Errorf("send after deletion stored as %s", r.MessageID)
		}
		e.receiveNone(url)
		e.advance(5 * time.Minute)
		if r := e.sendMsg(url, sendIn{Body: "four", Group: ptr("g"), Dedup: ptr("d1")}); r.MessageID == first.MessageID {
			e.t.Error("send 5 minutes later deduplicated")
		}
		if n := e.visible(url); n != 1 {
			e.t.Errorf("%d messages after the window", n)
		}

		cb := e.createFIFO("content.fifo", map[string]string{"ContentBasedDeduplication": "true"})
		x := e.sendMsg(cb, sendIn{Body: "same", Group: ptr("g")})
		if r := e.sendMsg(cb, sendIn{Body: "same", Group: ptr("g")}); r.MessageID != x.MessageID {
			e.t.Errorf("same body stored twice: %s and %s", x.MessageID, r.MessageID)
		}
		if r := e.sendMsg(cb, sendIn{Body: "other", Group: ptr("g")}); r.MessageID == x.MessageID {
			e.t.Error("different body deduplicated")
		}
		// In a batch too.
		ok, failed, err := e.c.SendMessageBatch(cb, []sendIn{{ID: "a", Body: "same", Group: ptr("g")}, {ID: "b", Body: "new", Group: ptr("g")}})
		if err != nil || len(failed) != 0 || len(ok) != 2 {
			e.t.Fatalf("batch: %+v %+v %v", ok, failed, err)
		}
		if ok[0].MessageID != x.MessageID || ok[1].MessageID == x.MessageID {
			e.t.Errorf("batch Dedup: %+v, first was %s", ok, x.MessageID)
		}
		if n := e.visible(cb); n != 3 {
			e.t.Errorf("content-based queue holds %d, want 3", n)
		}

		// messageGroup scope: the same id in two groups is two messages.
		mg := e.createFIFO("scoped.fifo", map[string]string{"DeduplicationScope": "messageGroup"})
		a := e.sendMsg(mg, sendIn{Body: "x", Group: ptr("g1"), Dedup: ptr("d")})
		b := e.sendMsg(mg, sendIn{Body: "x", Group: ptr("g2"), Dedup: ptr("d")})
		if a.MessageID == b.MessageID {
			e.t.Error("messageGroup scope deduplicated across groups")
		}
	})
}

func TestFIFOCompatReceiveRequestAttemptId(t *testing.T) {
	eachProtocol(t, server.Config{SkipCooldowns: true}, func(e *env) {
		url := e.createFIFO("attempts.fifo", map[string]string{"ContentBasedDeduplication": "true", "VisibilityTimeout": "30"})
		for _, m := range []sendIn{{Body: "a1", Group: ptr("a")}, {Body: "b1", Group: ptr("b")}, {Body: "a2", Group: ptr("a")}} {
			e.sendMsg(url, m)
		}
		r := receiveIn{Max: ptr(10), AttemptID: "attempt-1"}
		first := e.receive(url, r)
		if len(first) != 3 {
			e.t.Fatalf("first receive got %q", bodies(first))
		}
		again := e.receive(url, r)
		if !slices.Equal(handles(again), handles(first)) || !slices.Equal(bodies(again), bodies(first)) {
			e.t.Fatalf("retry got %q, want the same messages and handles as %q", bodies(again), bodies(first))
		}
		// Another attempt id finds every group in flight.
		if got := e.receive(url, receiveIn{Max: ptr(10), AttemptID: "attempt-2"}); len(got) != 0 {
			e.t.Fatalf("new attempt got %q", bodies(got))
		}
		// The retried handles work.
		e.del(url, again[0].Handle)
		rest := e.receive(url, r)
		if !slices.Equal(handles(rest), handles(first[1:])) {
			e.t.Fatalf("retry after a delete got %q, want %q", bodies(rest), bodies(first[1:]))
		}
		// After five minutes the attempt is new: new handles.
		e.advance(5 * time.Minute)
		fresh := e.receive(url, r)
		if len(fresh) != 2 {
			e.t.Fatalf("receive after the window got %q", bodies(fresh))
		}
		for _, m := range fresh {
			if slices.Contains(handles(first), m.Handle) {
				e.t.Errorf("%s: old receipt handle after the window", m.Body)
			}
		}
		// An invalid attempt id is refused.
		_, err := e.c.ReceiveMessage(url, receiveIn{Max: ptr(1), AttemptID: "has space"})
		wantErr(e.t, err, "InvalidParameterValue", 400)
	})
}

func TestFIFOCompatDeadLetterRedrive(t *testing.T) {
	eachProtocol(t, server.Config{SkipCooldowns: true}, func(e *env) {
		dlq := e.createFIFO("dead.fifo", nil)
		dlqArn := e.attrs(dlq)["QueueArn"]
		std := e.createQueue("std-dlq", nil)
		stdArn := e.attrs(std)["QueueArn"]
		policy := func(arn string) string {
			return fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":"1"}`, arn)
		}
		// A FIFO queue's dead-letter queue must be FIFO.
		_, err := e.c.CreateQueue("bad.fifo", map[string]string{"FifoQueue": "true", "RedrivePolicy": policy(stdArn)}, nil)
		wantErr(e.t, err, "InvalidParameterValue", 400)

		src := e.createFIFO("src.fifo", map[string]string{"VisibilityTimeout": "30", "RedrivePolicy": policy(dlqArn)})
		srcArn := e.attrs(src)["QueueArn"]
		ids := map[string]string{}
		for _, m := range []sendIn{{Body: "a1", Group: ptr("a"), Dedup: ptr("1")}, {Body: "a2", Group: ptr("a"), Dedup: ptr("2")}, {Body: "b1", Group: ptr("b"), Dedup: ptr("3")}, {Body: "a3", Group: ptr("a"), Dedup: ptr("4")}} {
			ids[m.Body] = e.sendMsg(src, m).MessageID
		}
		if got := e.receive(src, receiveIn{Max: ptr(10)}); len(got) != 4 {
			e.t.Fatalf("source receive got %q", bodies(got))
		}
		e.advance(30 * time.Second)
		// Each has been received once: the next receive moves them all.
		e.receiveNone(src)
		got := e.receive(dlq, receiveIn{Max: ptr(10), SysNames: []string{"All"}, Legacy: true})
		groups := byGroup(e.t, got)
		if !slices.Equal(groups["a"], []string{"a1", "a2", "a3"}) || !slices.Equal(groups["b"], []string{"b1"}) {
			e.t.Fatalf("DLQ received %q", bodies(got))
		}
		for _, m := range got {
			if m.MessageID != ids[m.Body] {
				e.t.Errorf("%s: DLQ MessageId %s, sent as %s", m.Body, m.MessageID, ids[m.Body])
			}
			if m.Attrs["DeadLetterQueueSourceArn"] != srcArn {
				e.t.Errorf("%s: DeadLetterQueueSourceArn %q, want %q", m.Body, m.Attrs["DeadLetterQueueSourceArn"], srcArn)
			}
			if m.Attrs["SequenceNumber"] == "" {
				e.t.Errorf("%s: no SequenceNumber in the FIFO DLQ", m.Body)
			}
			// Moved into a FIFO dead-letter queue, a message's
			// deduplication id (sent as "1" to "4") becomes its MessageId.
			if m.Attrs["MessageDeduplicationId"] != m.MessageID {
				e.t.Errorf("%s: DLQ MessageDeduplicationId %q, want the MessageId %s", m.Body, m.Attrs["MessageDeduplicationId"], m.MessageID)
			}
		}
		// The DLQ keeps group order for consumers: group a stays blocked.
		e.receiveNone(dlq)
	})
}

func TestFIFOCompatErrors(t *testing.T) {
	eachProtocol(t, server.Config{SkipCooldowns: true}, func(e *env) {
		url := e.createFIFO("errors.fifo", nil)
		// An entry without its group id, or without the deduplication id
		// the queue needs, fails the whole batch, as in SQS.
		for _, bad := range []sendIn{{ID: "nogroup", Body: "x", Dedup: ptr("ng")}, {ID: "nodedup", Body: "x", Group: ptr("g")}} {
			_, _, err := e.c.SendMessageBatch(url, []sendIn{{ID: "good", Body: "x", Group: ptr("g"), Dedup: ptr("first")}, bad})
			wantErr(e.t, err, "InvalidParameterValue", 400)
		}
		e.receiveNone(url)

		_, err := e.c.SendMessage(url, sendIn{Body: "x", Dedup: ptr("d")})
		wantErr(e.t, err, "MissingParameter", 400)
		_, err = e.c.SendMessage(url, sendIn{Body: "x", Group: ptr("g")})
		wantErr(e.t, err, "InvalidParameterValue", 400)
		_, err = e.c.SendMessage(url, sendIn{Body: "x", Group: ptr("g"), Dedup: ptr("d"), Delay: ptr(5)})
		wantErr(e.t, err, "InvalidParameterValue", 400)
		_, err = e.c.SendMessage(url, sendIn{Body: "x", Group: ptr("bad group"), Dedup: ptr("d")})
		wantErr(e.t, err, "InvalidParameterValue", 400)
		if e.is("query") {
			// aws-sdk-go v1 sends an explicit DelaySeconds=0, which SQS
			// accepts on a FIFO queue (and aws-sdk-go-v2 leaves out).
			e.sendMsg(url, sendIn{Body: "zero", Group: ptr("g"), Dedup: ptr("z"), Delay: ptr(0)})
		}

		ok, failed, err := e.c.SendMessageBatch(url, []sendIn{
			{ID: "good", Body: "x", Group: ptr("g"), Dedup: ptr("good")},
			{ID: "delayed", Body: "x", Group: ptr("g"), Dedup: ptr("dl"), Delay: ptr(3)},
		})
		if err != nil || len(ok) != 1 || ok[0].ID != "good" || ok[0].SequenceNumber == "" {
			e.t.Fatalf("batch: ok %+v err %v", ok, err)
		}
		codes := map[string]string{}
		for _, f := range failed {
			codes[f.ID] = f.Code
			if !f.SenderFault {
				e.t.Errorf("failed entry %s not a sender fault", f.ID)
			}
		}
		if codes["delayed"] != "InvalidParameterValue" || len(codes) != 1 {
			e.t.Errorf("batch failures %+v", failed)
		}

		std := e.createQueue("standard", nil)
		_, err = e.c.SendMessage(std, sendIn{Body: "x", Dedup: ptr("d")})
		wantErr(e.t, err, "InvalidParameterValue", 400)
		_, err = e.c.SendMessage(std, sendIn{Body: "x", Group: ptr("g"), Dedup: ptr("d")})
		wantErr(e.t, err, "InvalidParameterValue", 400)
	})
}

// A FIFO queue refuses to delete with a handle whose visibility timeout
// has ended, where a standard queue would delete.
func TestFIFOCompatDeleteWithExpiredHandle(t *testing.T) {
	eachProtocol(t, server.Config{SkipCooldowns: true}, func(e *env) {
		url := e.createFIFO("expiry.fifo", map[string]string{"VisibilityTimeout": "30"})
		e.sendMsg(url, sendIn{Body: "m", Group: ptr("g"), Dedup: ptr("d")})
		first := e.receive(url, receiveIn{Max: ptr(1)})
		e.advance(31 * time.Second)
		wantErr(e.t, e.c.DeleteMessage(url, first[0].Handle), "InvalidParameterValue", 400)
		again := e.receive(url, receiveIn{Max: ptr(1)})
		if len(again) != 1 || again[0].Body != "m" {
			e.t.Fatalf("after a refused delete: %q", bodies(again))
		}
		e.del(url, again[0].Handle)
		e.receiveNone(url)
	})
}

func TestFairQueueCompatGroupID(t *testing.T) {
	eachProtocol(t, server.Config{SkipCooldowns: true}, func(e *env) {
		url := e.createQueue("tenants", nil)
		r := e.sendMsg(url, sendIn{Body: "hello", Group: ptr("tenant-a")})
		if r.SequenceNumber != "" {
			e.t.Errorf("standard queue send returned SequenceNumber %q", r.SequenceNumber)
		}
		ok, failed, err := e.c.SendMessageBatch(url, []sendIn{{ID: "1", Body: "batched", Group: ptr("tenant-b")}, {ID: "2", Body: "plain"}})
		if err != nil || len(ok) != 2 || len(failed) != 0 {
			e.t.Fatalf("batch: %+v %+v %v", ok, failed, err)
		}
		got := e.receive(url, receiveIn{Max: ptr(10), SysNames: []string{"MessageGroupId"}})
		want := map[string]string{"hello": "tenant-a", "batched": "tenant-b", "plain": ""}
		if len(got) != 3 {
			e.t.Fatalf("received %q", bodies(got))
		}
		for _, m := range got {
			if m.Attrs["MessageGroupId"] != want[m.Body] {
				e.t.Errorf("%s: MessageGroupId %q, want %q (attributes %v)", m.Body, m.Attrs["MessageGroupId"], want[m.Body], m.Attrs)
			}
			if _, ok := m.Attrs["SequenceNumber"]; ok {
				e.t.Errorf("%s: standard queue message has a SequenceNumber", m.Body)
			}
		}
		// Not asked for, not returned.
		for _, m := range got {
			if err := e.c.ChangeMessageVisibility(url, m.Handle, 0); err != nil {
				e.t.Fatal(err)
			}
		}
		for _, m := range e.receive(url, receiveIn{Max: ptr(10)}) {
			if len(m.Attrs) != 0 {
				e.t.Errorf("%s: attributes %v returned unasked", m.Body, m.Attrs)
			}
		}
	})
}

// FIFO groups under visibility changes, as AWS answered
// localstack/localstack tests/aws/services/sqs/test_sqs.py (each
// markers.aws.validated; orderings the test marks "aws"):
// test_fifo_message_group_visibility_after_terminate_visibility_timeout (a
// released head comes back though a later message of its group is in
// flight, after the group that waited), test_fifo_group_visibility_extends_
// with_change_message_visibility[1-visible] (recorded 19-11-2025: extending
// bar keeps bar and baz back and gives foo) and
// test_fifo_message_group_visibility_after_delete (a freed group goes by
// when its new head was sent).
func TestFIFOCompatVisibilityChanges(t *testing.T) {
	eachProtocol(t, server.Config{SkipCooldowns: true}, func(e *env) {
		url := e.createFIFO("released.fifo", map[string]string{"VisibilityTimeout": "30", "ContentBasedDeduplication": "true"})
		for _, m := range []sendIn{{Body: "g1-m1", Group: ptr("group-1")}, {Body: "g1-m2", Group: ptr("group-1")}, {Body: "g2-m1", Group: ptr("group-2")}} {
			e.sendMsg(url, m)
		}
		got := e.receive(url, receiveIn{Max: ptr(2)})
		if !slices.Equal(bodies(got), []string{"g1-m1", "g1-m2"}) {
			e.t.Fatalf("first receive %q", bodies(got))
		}
		if err := e.c.ChangeMessageVisibility(url, got[0].Handle, 0); err != nil {
			e.t.Fatal(err)
		}
		if again := e.receive(url, receiveIn{Max: ptr(3)}); !slices.Equal(bodies(again), []string{"g2-m1", "g1-m1"}) {
			e.t.Errorf("after releasing g1-m1: %q, recorded [g2-m1 g1-m1]", bodies(again))
		}

		ext := e.createFIFO("extended.fifo", map[string]string{"VisibilityTimeout": "1"})
		for _, b := range []string{"foo", "bar", "baz"} {
			e.sendMsg(ext, sendIn{Body: b, Group: ptr("1"), Dedup: ptr(b)})
		}
		got = e.receive(ext, receiveIn{Max: ptr(5)})
		if !slices.Equal(bodies(got), []string{"foo", "bar", "baz"}) {
			e.t.Fatalf("receive %q", bodies(got))
		}
		if err := e.c.ChangeMessageVisibility(ext, got[1].Handle, 4); err != nil {
			e.t.Fatal(err)
		}
		e.advance(2500 * time.Millisecond)
		if again := e.receive(ext, receiveIn{Max: ptr(5)}); !slices.Equal(bodies(again), []string{"foo"}) {
			e.t.Errorf("with bar extended: %q, recorded [foo]", bodies(again))
		}

		del := e.createFIFO("deleted.fifo", map[string]string{"ContentBasedDeduplication": "true"})
		for _, m := range []sendIn{
			{Body: "g1-m1", Group: ptr("group-1")}, {Body: "g2-m1", Group: ptr("group-2")}, {Body: "g1-m2", Group: ptr("group-1")},
			{Body: "g2-m2", Group: ptr("group-2")}, {Body: "g1-m2", Group: ptr("group-1")}, {Body: "g1-m3", Group: ptr("group-1")},
			{Body: "g1-m4", Group: ptr("group-1")}, {Body: "g3-m1", Group: ptr("group-3")},
		} {
			e.sendMsg(del, m)
		}
		got = e.receive(del, receiveIn{Max: ptr(2)})
		if !slices.Equal(bodies(got), []string{"g1-m1", "g1-m2"}) {
			e.t.Fatalf("receive %q", bodies(got))
		}
		e.del(del, got[0].Handle)
		e.del(del, got[1].Handle)
		want := []string{"g2-m1", "g2-m2", "g1-m3", "g1-m4", "g3-m1"}
		if rest := e.receive(del, receiveIn{Max: ptr(10)}); !slices.Equal(bodies(rest), want) {
			e.t.Errorf("after deleting g1's first two: %q, recorded %q", bodies(rest), want)
		}
	})
}

// A fair queue's noisy tenant stays passed over after its share of the
// messages in flight falls, until it has sent nothing for 5 minutes ("How
// Amazon SQS fair queues work", SQS Developer Guide: a tenant is noisy with
// more than 10% of the messages in flight and at least 30 of its own, and
// is no longer noisy once its backlog is drained or after 5 consecutive
// minutes without a send).
func TestFairQueueCompatNoisyTenantBecomesQuiet(t *testing.T) {
	eachProtocol(t, server.Config{SkipCooldowns: true}, func(e *env) {
		url := e.createQueue("tenants", map[string]string{"VisibilityTimeout": "43200"})
		for b := range 4 {
			var batch []sendIn
			for i := range 10 {
				n := 10*b + i
				batch = append(batch, sendIn{ID: strconv.Itoa(n), Body: fmt.Sprintf("noisy-%d", n), Group: ptr("noisy")})
			}
			if _, failed, err := e.c.SendMessageBatch(url, batch); err != nil || len(failed) != 0 {
				e.t.Fatalf("batch: %v %v", failed, err)
			}
		}
		var held []message
		for range 3 {
			held = append(held, e.receive(url, receiveIn{Max: ptr(10)})...)
		}
		if len(held) != 30 {
			e.t.Fatalf("received %d of the noisy tenant's, want 30", len(held))
		}
		e.sendMsg(url, sendIn{Body: "quiet-0", Group: ptr("quiet")})
		if got := e.receive(url, receiveIn{Max: ptr(1)}); !slices.Equal(bodies(got), []string{"quiet-0"}) {
			e.t.Fatalf("with a noisy tenant: %q, want [quiet-0]", bodies(got))
		}
		for _, m := range held[:20] {
			e.del(url, m.Handle)
		}
		// 10 of 11 in flight, yet still marked: it keeps sending.
		e.advance(4 * time.Minute)
		e.sendMsg(url, sendIn{Body: "noisy-40", Group: ptr("noisy")})
		e.sendMsg(url, sendIn{Body: "quiet-1", Group: ptr("quiet")})
		if got := e.receive(url, receiveIn{Max: ptr(1)}); !slices.Equal(bodies(got), []string{"quiet-1"}) {
			e.t.Fatalf("after its share fell: %q, want [quiet-1]", bodies(got))
		}
		e.advance(5 * time.Minute)
		e.sendMsg(url, sendIn{Body: "quiet-2", Group: ptr("quiet")})
		if got := e.receive(url, receiveIn{Max: ptr(1)}); !slices.Equal(bodies(got), []string{"noisy-30"}) {
			e.t.Fatalf("after 5 minutes without a send: %q, want [noisy-30]", bodies(got))
		}
	})
}
