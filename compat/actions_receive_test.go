package compat

// Per-action cases of ReceiveMessage, long polls and dead-letter redrive.
// Every row runs under every protocol (adapter_test.go); where the
// protocols' answers legitimately differ, the row says so.

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/minisqs/minisqs/server"
)

// polled is what a receive running in the background answered.
type polled struct {
	msgs []message
	err  error
}

// poll starts a receive in the background and waits until it waits on
// the clock (with the engine's sweeper, two timers), so the test may
// advance time past it.
func (e *env) poll(url string, r receiveIn) <-chan polled {
	e.t.Helper()
	ch := make(chan polled, 1)
	go func() {
		msgs, err := e.c.ReceiveMessage(url, r)
		ch <- polled{msgs, err}
	}()
	waitForWaiters(e.t, e.srv.Clock, 2)
	return ch
}

// pending wants the poll still waiting.
func (e *env) pending(ch <-chan polled, after string) {
	e.t.Helper()
	select {
	case r := <-ch:
		e.t.Fatalf("long poll returned %s: %+v", after, r)
	case <-time.After(50 * time.Millisecond):
	}
}

// answered wants the poll's answer, without error, to be the bodies.
func (e *env) answered(ch <-chan polled, want ...string) []message {
	e.t.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			e.t.Fatalf("long poll: %v", r.err)
		}
		if got := bodies(r.msgs); !slices.Equal(got, want) {
			e.t.Fatalf("long poll answered %q, want %q", got, want)
		}
		return r.msgs
	case <-time.After(10 * time.Second):
		e.t.Fatal("long poll did not return")
		return nil
	}
}

func TestReceiveMessage(t *testing.T) {
	runCases(t, []actionCase{
		{name: "MaxNumberOfMessages", rest: true, run: func(e *env) {
			url := e.createQueue("many", nil)
			for i := range 15 {
				e.send(url, fmt.Sprintf("m%02d", i))
			}
			// Absent means one, with no attributes unasked for.
			first := e.receive(url, receiveIn{})
			if len(first) != 1 || first[0].Attrs != nil || first[0].MsgAttrs != nil {
				e.t.Fatalf("default receive returned %+v", first)
			}
			if got := e.receive(url, receiveIn{Max: ptr(3)}); len(got) != 3 {
				e.t.Fatalf("MaxNumberOfMessages 3 returned %d", len(got))
			}
			// No message twice while in flight, none when all are.
			seen := map[string]bool{}
			for i := 0; i < 20 && len(seen) < 11; i++ {
				got := e.receive(url, receiveIn{Max: ptr(10)})
				if len(got) == 0 || len(got) > 10 {
					e.t.Fatalf("MaxNumberOfMessages 10 returned %d", len(got))
				}
				for _, m := range got {
					if seen[m.MessageID] {
						e.t.Fatalf("message %s delivered twice while in flight", m.MessageID)
					}
					seen[m.MessageID] = true
				}
			}
			if len(seen) != 11 {
				e.t.Fatalf("received %d distinct messages, want 11", len(seen))
			}
			e.wantCounts(url, 0, 15, 0)
			e.receiveNone(url)

			for _, r := range []receiveIn{
				{Max: ptr(11)},
				{Max: ptr(-1)},
				{Visibility: ptr(43201)},
				{Visibility: ptr(-1)},
				{Wait: ptr(21)},
				{Wait: ptr(-1)},
			} {
				_, err := e.c.ReceiveMessage(url, r)
				e.wantErr(err, "InvalidParameterValue", 400)
			}
			// aws-sdk-go-v2 leaves a zero MaxNumberOfMessages out.
			if e.proto.explicitZero {
				_, err := e.c.ReceiveMessage(url, receiveIn{Max: ptr(0)})
				e.wantErr(err, "InvalidParameterValue", 400)
			} else {
				r := postJSON(e.t, e.srv.URL(), "AmazonSQS.ReceiveMessage", mustJSON(e.t, map[string]any{"QueueUrl": url, "MaxNumberOfMessages": 0}))
				r.wantError(e.t, 400, "InvalidParameterValueException", "InvalidParameterValue")
			}
		}},
		{name: "VisibilityTimeout per receive", run: func(e *env) {
			url := e.createQueue("vis", nil)
			sent := e.send(url, "short lease")
			sentAt := strconv.FormatInt(e.srv.Clock.Now().UnixMilli(), 10)
			e.advance(2 * time.Second)
			firstAt := strconv.FormatInt(e.srv.Clock.Now().UnixMilli(), 10)
			got := e.receive(url, receiveIn{Visibility: ptr(5), SysNames: []string{"All"}})
			if len(got) != 1 || got[0].MessageID != sent.MessageID {
				e.t.Fatalf("received %+v", got)
			}
			wantAttrs(e.t, got[0].Attrs, map[string]string{
				"ApproximateReceiveCount":          "1",
				"SentTimestamp":                    sentAt,
				"ApproximateFirstReceiveTimestamp": firstAt,
				"SenderId":                         defaultAccount,
			})
			// The receive's 5 s apply, not the queue's 30 s.
			e.advance(4 * time.Second)
			e.receiveNone(url)
			e.advance(time.Second)
			again := e.receive(url, receiveIn{SysNames: []string{"ApproximateReceiveCount", "ApproximateFirstReceiveTimestamp"}})
			if len(again) != 1 || len(again[0].Attrs) != 2 || again[0].Attrs["ApproximateReceiveCount"] != "2" || again[0].Attrs["ApproximateFirstReceiveTimestamp"] != firstAt {
				e.t.Fatalf("redelivery: %+v", again)
			}
			if again[0].Handle == got[0].Handle {
				e.t.Fatal("redelivery reused the receipt handle")
			}
			// Now with the queue's 30 s.
			e.advance(29 * time.Second)
			e.receiveNone(url)
			e.advance(time.Second)
			if m := e.receiveOne(url); m.Attrs["ApproximateReceiveCount"] != "3" {
				e.t.Fatalf("third delivery count %q", m.Attrs["ApproximateReceiveCount"])
			}
			e.advance(30 * time.Second)
			// A receive's VisibilityTimeout 0 leaves the message visible.
			// aws-sdk-go-v2 leaves a zero out, so only the query protocol
			// can send it.
			if e.proto.explicitZero {
				if got := e.receive(url, receiveIn{Visibility: ptr(0)}); len(got) != 1 {
					e.t.Fatalf("receive with visibility 0 got %d", len(got))
				}
				if m := e.receive(url, receiveIn{Visibility: ptr(0), SysNames: []string{"ApproximateReceiveCount"}}); len(m) != 1 || m[0].Attrs["ApproximateReceiveCount"] != "5" {
					e.t.Fatalf("receive after a 0 s lease = %+v", m)
				}
			}
		}},
		{name: "visibility expiry redelivers", rest: true, run: func(e *env) {
			url := e.createQueue("redeliver", map[string]string{"VisibilityTimeout": "20"})
			sent := e.send(url, "again")
			first := e.receiveOne(url)
			if first.Attrs["ApproximateReceiveCount"] != "1" {
				e.t.Fatalf("first count %q", first.Attrs["ApproximateReceiveCount"])
			}
			e.wantCounts(url, 0, 1, 0)
			e.advance(20 * time.Second)
			e.wantCounts(url, 1, 0, 0)
			second := e.receiveOne(url)
			if second.MessageID != sent.MessageID || second.Body != "again" || second.Attrs["ApproximateReceiveCount"] != "2" {
				e.t.Fatalf("second delivery %+v", second)
			}
			if second.Handle == first.Handle {
				e.t.Fatal("redelivery reused the receipt handle")
			}
			// The first receive time stays.
			if a, b := first.Attrs["ApproximateFirstReceiveTimestamp"], second.Attrs["ApproximateFirstReceiveTimestamp"]; a != b {
				e.t.Fatalf("ApproximateFirstReceiveTimestamp moved from %q to %q", a, b)
			}
		}},
		{name: "system attributes", run: func(e *env) {
			url := e.createQueue("sys", nil)
			sentAt := e.srv.Clock.Now()
			trace := "Root=1-00000000-000000000000000000000001"
			e.sendMsg(url, sendIn{Body: "sys", SysAttrs: traceHeader(trace)})
			e.advance(2 * time.Second)
			receivedAt := e.srv.Clock.Now()
			got := e.receive(url, receiveIn{Visibility: ptr(1), SysNames: []string{"All"}})
			if len(got) != 1 {
				e.t.Fatalf("received %d", len(got))
			}
			a := got[0].Attrs
			want := map[string]string{
				"SentTimestamp":                    strconv.FormatInt(sentAt.UnixMilli(), 10),
				"ApproximateReceiveCount":          "1",
				"ApproximateFirstReceiveTimestamp": strconv.FormatInt(receivedAt.UnixMilli(), 10),
				"AWSTraceHeader":                   trace,
				"SenderId":                         defaultAccount,
			}
			wantAttrs(e.t, a, want)
			for _, k := range []string{"SequenceNumber", "MessageGroupId", "MessageDeduplicationId", "DeadLetterQueueSourceArn"} {
				if v, ok := a[k]; ok {
					e.t.Errorf("standard-queue message has %s = %q", k, v)
				}
			}

			count := 1
			receiveWith := func(names []string, legacy bool) map[string]string {
				e.t.Helper()
				e.advance(time.Second) // the 1-second lease ends
				count++
				got := e.receive(url, receiveIn{Visibility: ptr(1), SysNames: names, Legacy: legacy})
				if len(got) != 1 {
					e.t.Fatalf("received %d", len(got))
				}
				return got[0].Attrs
			}
			for _, legacy := range []bool{false, true} {
				if e.is("query") && !legacy {
					continue // the query protocol has only AttributeNames
				}
				if a := receiveWith([]string{"SentTimestamp"}, legacy); len(a) != 1 || a["SentTimestamp"] != want["SentTimestamp"] {
					e.t.Fatalf("SentTimestamp only: %v", a)
				}
				if a := receiveWith([]string{"SentTimestamp", "SenderId"}, legacy); len(a) != 2 || a["SentTimestamp"] != want["SentTimestamp"] || a["SenderId"] != defaultAccount {
					e.t.Fatalf("SentTimestamp, SenderId: %v", a)
				}
				a := receiveWith([]string{"ApproximateReceiveCount", "SenderId", "ApproximateFirstReceiveTimestamp"}, legacy)
				if len(a) != 3 || a["ApproximateReceiveCount"] != strconv.Itoa(count) || a["SenderId"] != defaultAccount || a["ApproximateFirstReceiveTimestamp"] != want["ApproximateFirstReceiveTimestamp"] {
					e.t.Fatalf("three names: %v", a)
				}
				a = receiveWith([]string{"All"}, legacy)
				if a["SentTimestamp"] != want["SentTimestamp"] || a["ApproximateReceiveCount"] != strconv.Itoa(count) || a["AWSTraceHeader"] != trace || a["SenderId"] != defaultAccount {
					e.t.Fatalf("All: %v", a)
				}
			}
			// No names: no attributes at all.
			if a := receiveWith(nil, false); len(a) != 0 {
				e.t.Fatalf("no names: %v", a)
			}
		}},
		{name: "message attribute names", run: func(e *env) {
			url := e.createQueue("mattrs", nil)
			attrs := map[string]msgAttr{
				"foo.a":  strAttr("String", "1"),
				"foo.b":  binAttr("Binary", []byte{9, 8, 7}),
				"food":   strAttr("String", "under foo.*, which SQS reads as the prefix foo"),
				"bar":    strAttr("Number", "2"),
				"barbar": strAttr("String.x", "3"),
			}
			e.sendMsg(url, sendIn{Body: "m", Attrs: attrs})
			pick := func(names ...string) map[string]msgAttr {
				out := map[string]msgAttr{}
				for _, n := range names {
					out[n] = attrs[n]
				}
				return out
			}
			for _, c := range []struct {
				names []string
				want  map[string]msgAttr
			}{
				{[]string{"All"}, attrs},
				{[]string{".*"}, attrs},
				{[]string{"*"}, attrs},
				{[]string{"bar"}, pick("bar")},
				{[]string{"foo.a", "bar"}, pick("foo.a", "bar")},
				{[]string{"bar", "food", "missing"}, pick("bar", "food")},
				// AWS answers "Hel.*" with Hello and Help.Me
				// (localstack/localstack test_sqs.snapshot.json,
				// test_receive_message_message_attribute_names_filters).
				{[]string{"foo.*"}, pick("foo.a", "foo.b", "food")},
				{[]string{"foo.*", "barbar"}, pick("foo.a", "foo.b", "food", "barbar")},
				{[]string{"missing"}, nil},
				{nil, nil},
			} {
				got := e.receive(url, receiveIn{MsgAttrNames: c.names, Visibility: ptr(1)})
				if len(got) != 1 {
					e.t.Fatalf("%v: received %d", c.names, len(got))
				}
				sameAttrs(e.t, got[0].MsgAttrs, c.want)
				// The digest covers the attributes returned; none, none.
				if want := refMD5OfAttributes(c.want); got[0].MD5Attrs != want {
					e.t.Fatalf("%v: MD5OfMessageAttributes = %q, want %q", c.names, got[0].MD5Attrs, want)
				}
				e.advance(time.Second)
			}
		}},
		{name: "missing queue", rest: true, run: func(e *env) {
			_, err := e.c.ReceiveMessage(e.url("nope"), receiveIn{})
			e.wantErr(err, nonExistentQueue, 400)
		}},
	})
}

// readTimeout is the server's read timeouts in the row that outlives them.
const readTimeout = 100 * time.Millisecond

func TestLongPoll(t *testing.T) {
	runCases(t, []actionCase{
		{name: "answered by a send", rest: true, run: func(e *env) {
			url := e.createQueue("waiting", nil)
			ch := e.poll(url, receiveIn{Wait: ptr(20)})
			e.pending(ch, "before any send")
			sent := e.send(url, "wake up")
			if m := e.answered(ch, "wake up"); m[0].MessageID != sent.MessageID {
				e.t.Fatalf("long poll returned %s, sent %s", m[0].MessageID, sent.MessageID)
			}
		}},
		{name: "ends empty when its wait passes", rest: true, run: func(e *env) {
			url := e.createQueue("quiet", nil)
			for _, wait := range []int{5, 20} {
				ch := e.poll(url, receiveIn{Wait: ptr(wait)})
				e.advance(time.Duration(wait-1) * time.Second)
				e.pending(ch, fmt.Sprintf("after %d of %d seconds", wait-1, wait))
				waitForWaiters(e.t, e.srv.Clock, 2)
				e.advance(time.Second)
				e.answered(ch)
			}
		}},
		{name: "outlives the read timeouts", rest: true, cfg: server.Config{ReadHeaderTimeout: readTimeout, ReadTimeout: readTimeout, IdleTimeout: readTimeout}, run: func(e *env) {
			// A 20-second long poll stays open, and is answered by a send,
			// well after the server's timeouts on slow clients have passed:
			// waiting is not reading, and only the manual clock ends it.
			url := e.createQueue("patient", nil)
			ch := e.poll(url, receiveIn{Wait: ptr(20)})
			// Real time, past every read timeout: a deadline left on the
			// poll's connection would have ended it by now.
			time.Sleep(5 * readTimeout)
			e.pending(ch, fmt.Sprintf("after %v of real time", 5*readTimeout))
			sent := e.send(url, "still there")
			if m := e.answered(ch, "still there"); m[0].MessageID != sent.MessageID {
				e.t.Fatalf("long poll returned %s, sent %s", m[0].MessageID, sent.MessageID)
			}
		}},
		{name: "the queue's ReceiveMessageWaitTimeSeconds applies when absent", rest: true, run: func(e *env) {
			url := e.createQueue("patient", map[string]string{"ReceiveMessageWaitTimeSeconds": "10"})
			ch := e.poll(url, receiveIn{})
			e.advance(9 * time.Second)
			e.pending(ch, "after 9 of the queue's 10 seconds")
			e.advance(time.Second)
			e.answered(ch)
			// A message sent with a delay answers a poll when it becomes
			// visible.
			e.sendMsg(url, sendIn{Body: "soon", Delay: ptr(3)})
			ch = e.poll(url, receiveIn{Wait: ptr(20), Visibility: ptr(5)})
			e.advance(3 * time.Second)
			e.answered(ch, "soon")
			// So does a message whose lease ends.
			ch = e.poll(url, receiveIn{})
			e.advance(5 * time.Second)
			e.answered(ch, "soon")
		}},
	})
}

func TestDeadLetterRedrive(t *testing.T) {
	runCases(t, []actionCase{
		{name: "end to end", run: func(e *env) {
			dlq := e.createQueue("redrive-dlq", nil)
			src := e.createQueue("redrive-src", map[string]string{
				"VisibilityTimeout": "10",
				"RedrivePolicy":     redrive("redrive-dlq", "2")["RedrivePolicy"],
			})
			attrs := map[string]msgAttr{"kind": strAttr("String", "poison")}
			sent := e.sendMsg(src, sendIn{Body: "poison pill", Attrs: attrs})
			if sources, _, err := e.c.ListDeadLetterSourceQueues(dlq, nil, ""); err != nil || !slices.Equal(sources, []string{src}) {
				e.t.Fatalf("dead-letter sources = %v, %v", sources, err)
			}
			for i := 1; i <= 2; i++ {
				m := e.receiveOne(src)
				if m.MessageID != sent.MessageID || m.Attrs["ApproximateReceiveCount"] != strconv.Itoa(i) {
					e.t.Fatalf("receive %d: %s count %q", i, m.MessageID, m.Attrs["ApproximateReceiveCount"])
				}
				e.advance(10 * time.Second)
			}
			// The receive that finds the count reached moves the message.
			e.receiveNone(src)
			e.wantCounts(src, 0, 0, 0)
			e.wantCounts(dlq, 1, 0, 0)

			got := e.receive(dlq, receiveIn{MsgAttrNames: []string{"All"}, SysNames: []string{"All"}})
			if len(got) != 1 {
				e.t.Fatalf("dead-letter queue returned %d", len(got))
			}
			m := got[0]
			if m.MessageID != sent.MessageID || m.Body != "poison pill" {
				e.t.Fatalf("dead letter %s %q, want %s", m.MessageID, m.Body, sent.MessageID)
			}
			if m.Attrs["DeadLetterQueueSourceArn"] != arn("redrive-src") || m.Attrs["SentTimestamp"] == "" {
				e.t.Fatalf("dead letter's system attributes: %v", m.Attrs)
			}
			sameAttrs(e.t, m.MsgAttrs, attrs)
			e.del(dlq, m.Handle)
			e.wantCounts(dlq, 0, 0, 0)
		}},
		{name: "string maxReceiveCount of 1", rest: true, run: func(e *env) {
			dlq := e.createQueue("dlq", nil)
			src := e.createQueue("src", nil)
			if err := e.setAttrs(src, redrive("dlq", `"1"`)); err != nil {
				e.t.Fatal(err)
			}
			sent := e.send(src, "once only")
			e.send(src, "deleted in time")
			got := e.receive(src, receiveIn{Max: ptr(2)})
			if len(got) != 2 {
				e.t.Fatalf("received %d", len(got))
			}
			for _, m := range got {
				if m.MessageID != sent.MessageID {
					e.del(src, m.Handle)
				}
			}
			e.advance(30 * time.Second)
			e.receiveNone(src)
			if m := e.receiveOne(dlq); m.MessageID != sent.MessageID {
				e.t.Fatalf("dead letter %s, want %s", m.MessageID, sent.MessageID)
			}
			e.receiveNone(dlq)
		}},
	})
}
