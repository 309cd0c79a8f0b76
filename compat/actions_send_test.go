package compat

// Per-action cases of SendMessage and SendMessageBatch. Every row runs
// under every protocol (adapter_test.go); where the protocols' answers
// legitimately differ, the row says so.

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// sameAttrs wants received message attributes to be the sent ones.
func sameAttrs(t *testing.T, got, want map[string]msgAttr) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d attributes %v, want %d %v", len(got), slices.Sorted(maps.Keys(got)), len(want), slices.Sorted(maps.Keys(want)))
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Fatalf("attribute %s missing", k)
		}
		if g.DataType != w.DataType || g.StringValue != w.StringValue || string(g.BinaryValue) != string(w.BinaryValue) {
			t.Fatalf("attribute %s = %+v, want %+v", k, g, w)
		}
	}
}

// traceHeader is an AWSTraceHeader system attribute.
func traceHeader(v string) map[string]msgAttr {
	return map[string]msgAttr{"AWSTraceHeader": strAttr("String", v)}
}

const trace = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"

func TestSendMessage(t *testing.T) {
	runCases(t, []actionCase{
		{name: "MD5OfMessageBody and round trip", run: func(e *env) {
			url := e.createQueue("bodies", nil)
			for _, b := range []string{
				"hello",
				"line1\nline2\r\nline3\ttabbed",
				"crlf\r\nlf\ncr\rtab\t end",
				`<xml attr="q">&amp; "quotes" 'single'</xml>`,
				`quotes " and ' apostrophes`,
				"]]> cdata end & &amp; literal",
				"  leading and trailing spaces  ",
				`{"json": [1, 2, {"k": "v"}]}`,
				"ünïcödé ✓ 日本語 𝄞 🎉 漢字 éü",
				"private use \uE000 and \uFFFD and astral \U0010FFFF",
				strings.Repeat("x<>&", 1000),
				strings.Repeat("x", 256*1024),
			} {
				out := e.send(url, b)
				if out.MD5Body != refMD5(b) || out.MD5Attrs != "" || out.MD5SysAttrs != "" {
					e.t.Fatalf("send %.40q: %+v, want MD5OfMessageBody %s and no attribute digests", b, out, refMD5(b))
				}
				m := e.receiveOne(url)
				if m.MessageID != out.MessageID || m.Body != b || m.MD5Body != refMD5(b) {
					e.t.Fatalf("body of %s changed: got %d bytes %.40q (MD5 %s), want %d bytes %.40q", out.MessageID, len(m.Body), m.Body, m.MD5Body, len(b), b)
				}
				e.del(url, m.Handle)
			}
			e.receiveNone(url)
		}},
		{name: "MessageIds are distinct", rest: true, run: func(e *env) {
			url := e.createQueue("ids", nil)
			seen := map[string]bool{}
			for i := range 20 {
				id := e.send(url, fmt.Sprint(i)).MessageID
				if seen[id] {
					e.t.Fatalf("MessageId %s handed out twice", id)
				}
				seen[id] = true
			}
		}},
		{name: "invalid bodies", rest: true, run: func(e *env) {
			url := e.createQueue("strict", nil)
			bad := []string{"nul\x00", "\x08backspace", "bell\a", "\uFFFE", "\uFFFF"}
			if e.is("query") {
				// JSON cannot carry bytes that are not UTF-8: aws-sdk-go-v2
				// sends them as U+FFFD, which is valid.
				bad = append(bad, "bad utf8 \xff\xfe")
			}
			for _, body := range bad {
				_, err := e.c.SendMessage(url, sendIn{Body: body})
				e.wantErr(err, "InvalidMessageContents", 400)
			}
			// An empty body is a missing parameter.
			_, err := e.c.SendMessage(url, sendIn{Body: ""})
			e.wantErr(err, "MissingParameter", 400)
			e.wantCounts(url, 0, 0, 0)
		}},
		{name: "message attributes", run: func(e *env) {
			url := e.createQueue("attrs", nil)
			attrs := map[string]msgAttr{
				"str":          strAttr("String", "a value ✓ <world> & \"friends\" 'quoted'\r\n🚀"),
				"num":          strAttr("Number", "-3.14e2"),
				"int":          strAttr("Number", "42"),
				"bin":          binAttr("Binary", []byte{0, 1, 2, 0xfe, 0xff, '<', '&'}),
				"custom":       strAttr("String.Custom-Type_1", "labelled"),
				"customNumber": strAttr("Number.float", "1.5"),
				"customBinary": binAttr("Binary.gif", []byte("GIF89a")),
				"trace-id_2.x": strAttr("String", "v"),
			}
			out := e.sendMsg(url, sendIn{Body: "with attributes", Attrs: attrs})
			want := refMD5OfAttributes(attrs)
			if out.MD5Body != refMD5("with attributes") || out.MD5Attrs != want || out.MD5SysAttrs != "" {
				e.t.Fatalf("send: %+v, want MD5OfMessageAttributes %s", out, want)
			}
			// A message without attributes has no digest of them.
			plain := e.send(url, "plain")
			got := e.receive(url, receiveIn{Max: ptr(10), MsgAttrNames: []string{"All"}, SysNames: []string{"All"}})
			if len(got) != 2 {
				e.t.Fatalf("received %d, want 2", len(got))
			}
			for _, m := range got {
				switch m.MessageID {
				case out.MessageID:
					sameAttrs(e.t, m.MsgAttrs, attrs)
					if m.MD5Attrs != want {
						e.t.Fatalf("received MD5OfMessageAttributes = %q, want %q", m.MD5Attrs, want)
					}
					if want := fmt.Sprint(e.srv.Clock.Now().UnixMilli()); m.Attrs["SentTimestamp"] != want {
						e.t.Fatalf("SentTimestamp = %q, want %s", m.Attrs["SentTimestamp"], want)
					}
				case plain.MessageID:
					if m.MD5Attrs != "" || len(m.MsgAttrs) != 0 {
						e.t.Fatalf("plain message has attributes %v / %q", m.MsgAttrs, m.MD5Attrs)
					}
				default:
					e.t.Fatalf("unknown message %s", m.MessageID)
				}
			}
		}},
		{name: "MD5OfMessageAttributes known values", run: func(e *env) {
			url := e.createQueue("vectors", nil)
			// Digests published by other implementations' tests (sqslite,
			// LocalStack, an npm validator), all checked against AWS.
			for _, c := range []struct {
				attrs map[string]msgAttr
				md5   string
			}{
				{map[string]msgAttr{"ordinal": strAttr("Number", "1"), "category": strAttr("String", "test")}, "d21ae90c49061e927f57df5f5d72be1f"},
				{map[string]msgAttr{"SellerName": strAttr("String", "Example Store")}, "cd28f3b68aeee4b2eac9c66f2f694b58"},
				{map[string]msgAttr{"timestamp": strAttr("Number", "1493147359900")}, "235c5c510d26fb653d073faed50ae77c"},
			} {
				if got := refMD5OfAttributes(c.attrs); got != c.md5 {
					e.t.Fatalf("test helper digest %s, want %s", got, c.md5)
				}
				if got := e.sendMsg(url, sendIn{Body: "v", Attrs: c.attrs}).MD5Attrs; got != c.md5 {
					e.t.Fatalf("MD5OfMessageAttributes = %s, want %s", got, c.md5)
				}
			}
		}},
		{name: "invalid message attributes", run: func(e *env) {
			url := e.createQueue("badattrs", nil)
			eleven := map[string]msgAttr{}
			for i := range 11 {
				eleven[fmt.Sprint("a", i)] = strAttr("String", "v")
			}
			for name, attrs := range map[string]map[string]msgAttr{
				"eleven":          eleven,
				"reserved prefix": {"AWS.thing": strAttr("String", "v")},
				"amazon prefix":   {"Amazon.thing": strAttr("String", "v")},
				"leading period":  {".x": strAttr("String", "v")},
				"trailing period": {"trail.": strAttr("String", "v")},
				"double period":   {"a..b": strAttr("String", "v")},
				"space":           {"sp ace": strAttr("String", "v")},
				"bad type":        {"x": strAttr("Text", "v")},
				"not a number":    {"x": strAttr("Number", "twelve")},
				"empty string":    {"x": strAttr("String", "")},
				"empty binary":    {"x": binAttr("Binary", nil)},
				"nul in value":    {"x": strAttr("String", "nul \x00")},
				"custom no label": {"x": strAttr("String.", "v")},
				// A custom type label the XML answer could not carry intact
				// (it would come back altered, no longer matching the digest).
				"control in label": {"x": strAttr("String.\x01label", "v")},
			} {
				_, err := e.c.SendMessage(url, sendIn{Body: "b", Attrs: attrs})
				if ae := asAPIError(err); ae == nil || ae.Code != "InvalidParameterValue" {
					e.t.Errorf("%s: %v, want InvalidParameterValue", name, err)
					continue
				}
				e.wantErr(err, "InvalidParameterValue", 400)
			}
			// A missing DataType the SDKs refuse before sending.
			if _, err := e.c.SendMessage(url, sendIn{Body: "b", Attrs: map[string]msgAttr{"x": {StringValue: "v"}}}); err == nil {
				e.t.Fatal("attribute without DataType accepted")
			}
			e.wantCounts(url, 0, 0, 0)
		}},
		{name: "AWSTraceHeader", run: func(e *env) {
			url := e.createQueue("traced", nil)
			out := e.sendMsg(url, sendIn{Body: "traced", SysAttrs: traceHeader(trace)})
			if want := refMD5OfAttributes(traceHeader(trace)); out.MD5SysAttrs != want || out.MD5Attrs != "" {
				e.t.Fatalf("send: %+v, want MD5OfMessageSystemAttributes %s and no MD5OfMessageAttributes", out, want)
			}
			got := e.receive(url, receiveIn{SysNames: []string{"AWSTraceHeader"}})
			if len(got) != 1 || len(got[0].Attrs) != 1 || got[0].Attrs["AWSTraceHeader"] != trace {
				e.t.Fatalf("received %+v", got)
			}
			// The trace header is a system attribute, not a message attribute.
			if len(got[0].MsgAttrs) != 0 {
				e.t.Fatalf("AWSTraceHeader among message attributes: %v", got[0].MsgAttrs)
			}
			// Only AWSTraceHeader may be sent, and only as a String that
			// the XML answer can carry intact.
			for _, sys := range []map[string]msgAttr{
				{"SenderId": strAttr("String", "me")},
				{"NotATraceHeader": strAttr("String", "x")},
				{"AWSTraceHeader": strAttr("Number", "1")},
				{"AWSTraceHeader": strAttr("String", "")},
				{"AWSTraceHeader": strAttr("String", "Root=1\x01")},
			} {
				_, err := e.c.SendMessage(url, sendIn{Body: "x", SysAttrs: sys})
				e.wantErr(err, "InvalidParameterValue", 400)
			}
		}},
		{name: "DelaySeconds per message", run: func(e *env) {
			url := e.createQueue("delayed", nil)
			out := e.sendMsg(url, sendIn{Body: "later", Delay: ptr(10), SysAttrs: traceHeader(trace)})
			if out.MD5SysAttrs != refMD5OfAttributes(traceHeader(trace)) {
				e.t.Fatalf("MD5OfMessageSystemAttributes = %q", out.MD5SysAttrs)
			}
			e.wantCounts(url, 0, 0, 1)
			e.send(url, "now")
			if got := e.receiveOne(url); got.Body != "now" {
				e.t.Fatalf("received %q first", got.Body)
			}
			e.receiveNone(url)
			e.wantCounts(url, 0, 1, 1)
			e.advance(9 * time.Second)
			e.receiveNone(url)
			e.advance(time.Second)
			e.wantCounts(url, 1, 1, 0)
			got := e.receive(url, receiveIn{SysNames: []string{"AWSTraceHeader"}})
			if len(got) != 1 || got[0].Body != "later" || len(got[0].Attrs) != 1 || got[0].Attrs["AWSTraceHeader"] != trace {
				e.t.Fatalf("after the delay: %+v", got)
			}
			for _, bad := range []int{-1, 901} {
				_, err := e.c.SendMessage(url, sendIn{Body: "x", Delay: ptr(bad)})
				e.wantErr(err, "InvalidParameterValue", 400)
			}
		}},
		{name: "queue DelaySeconds applies unless the message says 0", rest: true, run: func(e *env) {
			url := e.createQueue("slow", map[string]string{"DelaySeconds": "5"})
			e.send(url, "queue delay")
			e.receiveNone(url)
			e.wantCounts(url, 0, 0, 1)
			// Sent explicitly, 0 means no delay, not the queue's.
			// aws-sdk-go-v2 leaves a zero DelaySeconds out, so the JSON
			// protocol's is posted by hand.
			if e.proto.explicitZero {
				e.sendMsg(url, sendIn{Body: "explicit zero", Delay: ptr(0)})
			} else {
				r := postJSON(e.t, e.srv.URL(), "AmazonSQS.SendMessage", mustJSON(e.t, map[string]any{"QueueUrl": url, "MessageBody": "explicit zero", "DelaySeconds": 0}))
				if r.Status != 200 {
					e.t.Fatalf("SendMessage: %d %s", r.Status, r.Body)
				}
			}
			e.wantCounts(url, 1, 0, 1)
			if got := e.receiveOne(url); got.Body != "explicit zero" {
				e.t.Fatalf("received %q", got.Body)
			}
			e.advance(5 * time.Second)
			if got := e.receiveOne(url); got.Body != "queue delay" {
				e.t.Fatalf("received %q", got.Body)
			}
		}},
		{name: "body over MaximumMessageSize", run: func(e *env) {
			url := e.createQueue("small", map[string]string{"MaximumMessageSize": "1024"})
			e.send(url, strings.Repeat("a", 1024))
			for _, m := range []sendIn{
				{Body: strings.Repeat("a", 1025)},
				// Size counts UTF-8 bytes: 342 three-byte characters are 1026 bytes.
				{Body: strings.Repeat("✓", 342)},
				// Attribute names, types and values count too.
				{Body: strings.Repeat("a", 1000), Attrs: map[string]msgAttr{"name": strAttr("String", strings.Repeat("v", 20))}},
			} {
				_, err := e.c.SendMessage(url, m)
				e.wantErr(err, "InvalidParameterValue", 400)
			}
			e.wantCounts(url, 1, 0, 0)
			// The default maximum is 1 MiB.
			big := e.createQueue("big", nil)
			e.send(big, strings.Repeat("b", 1048576))
			_, err := e.c.SendMessage(big, sendIn{Body: strings.Repeat("b", 1048577)})
			e.wantErr(err, "InvalidParameterValue", 400)
		}},
		{name: "missing queue", rest: true, run: func(e *env) {
			_, err := e.c.SendMessage(e.url("nope"), sendIn{Body: "x"})
			e.wantErr(err, nonExistentQueue, 400)
		}},
	})
}

// entry is a batch entry of a plain message.
func entry(id, body string) sendIn { return sendIn{ID: id, Body: body} }

func TestSendMessageBatch(t *testing.T) {
	runCases(t, []actionCase{
		{name: "all succeed", run: func(e *env) {
			url := e.createQueue("batch", nil)
			attrs := map[string]msgAttr{"k": strAttr("String", "v"), "n": strAttr("Number", "1")}
			entries := []sendIn{entry("first", "one <&>"), entry("second-2", "two"), entry("third_3", "three")}
			entries[1].Attrs = attrs
			entries[2].Delay = ptr(5)
			ok, failed, err := e.c.SendMessageBatch(url, entries)
			if err != nil {
				e.t.Fatal(err)
			}
			if len(failed) != 0 || len(ok) != 3 {
				e.t.Fatalf("Successful %d, Failed %+v", len(ok), failed)
			}
			byID := map[string]sendOut{}
			for _, s := range ok {
				byID[s.ID] = s
			}
			for _, in := range entries {
				s, found := byID[in.ID]
				if !found {
					e.t.Fatalf("entry %s not in Successful", in.ID)
				}
				// No attributes, no digest of them.
				if s.MD5Body != refMD5(in.Body) || s.MessageID == "" || s.MD5Attrs != refMD5OfAttributes(in.Attrs) {
					e.t.Fatalf("entry %s: %+v, want MD5OfMessageAttributes %q", in.ID, s, refMD5OfAttributes(in.Attrs))
				}
			}
			e.wantCounts(url, 2, 0, 1)
			got := e.receive(url, receiveIn{Max: ptr(10), MsgAttrNames: []string{"All"}})
			if len(got) != 2 {
				e.t.Fatalf("received %d", len(got))
			}
			for _, m := range got {
				switch m.MessageID {
				case byID["first"].MessageID:
					if m.Body != "one <&>" || len(m.MsgAttrs) != 0 {
						e.t.Fatalf("first: %+v", m)
					}
				case byID["second-2"].MessageID:
					if m.Body != "two" {
						e.t.Fatalf("second: %+v", m)
					}
					sameAttrs(e.t, m.MsgAttrs, attrs)
				default:
					e.t.Fatalf("unexpected message %s %q", m.MessageID, m.Body)
				}
			}
			e.advance(5 * time.Second)
			if m := e.receiveOne(url); m.MessageID != byID["third_3"].MessageID {
				e.t.Fatalf("delayed entry: %+v", m)
			}
		}},
		{name: "invalid entries", rest: true, run: func(e *env) {
			url := e.createQueue("mixed", nil)
			late := entry("too-late", "x")
			late.Delay = ptr(901)
			ok, failed, err := e.c.SendMessageBatch(url, []sendIn{entry("good1", "fine"), entry("bad-char", "nul\x00"), late, entry("good2", "also fine"), entry("empty", "")})
			if err != nil {
				e.t.Fatal(err)
			}
			var okIDs []string
			for _, s := range ok {
				okIDs = append(okIDs, s.ID)
			}
			wantBatch(e.t, okIDs, failed, []string{"good1", "good2"}, map[string]string{"bad-char": e.code("InvalidMessageContents"), "too-late": e.code("InvalidParameterValue"), "empty": e.code("MissingParameter")})
			e.wantCounts(url, 2, 0, 0)
		}},
		{name: "plain bodies among ones that need checking", rest: true, run: func(e *env) {
			// The JSON decoder vouches for bodies of printable ASCII without
			// escapes, which the engine then does not check again: each other
			// body, before or after one, is still checked, invalid ones
			// failing alone.
			url := e.createQueue("vouched", nil)
			long := strings.Repeat("plain body ", 30)
			good := map[string]string{
				"plain":   "plain ~ printable {} [] <&>",
				"escaped": "{\"json\": \"in a body\"}\r\n\ttabbed \\ /",
				"unicode": "é ✓ 😀 \uFFFD \uE000",
				"long":    long,
				"last":    "plain after the others",
			}
			bad := map[string]string{
				"nul":     "plain then nul\x00",
				"nonchar": "\uFFFE",
				"late":    long + "\uFFFF",
				"control": "\x1f" + long,
			}
			var entries []sendIn
			for _, id := range []string{"plain", "nul", "escaped", "nonchar", "unicode", "late", "long", "control", "last"} {
				body, ok := good[id]
				if !ok {
					body = bad[id]
				}
				entries = append(entries, entry(id, body))
			}
			ok, failed, err := e.c.SendMessageBatch(url, entries)
			if err != nil {
				e.t.Fatal(err)
			}
			okIDs, byID := sentEntries(ok)
			for _, s := range ok {
				if !e.is("rest") && s.MD5Body != refMD5(good[s.ID]) {
					e.t.Fatalf("entry %s: MD5OfMessageBody %s, want %s", s.ID, s.MD5Body, refMD5(good[s.ID]))
				}
			}
			wantFailed := map[string]string{}
			for id := range bad {
				wantFailed[id] = e.code("InvalidMessageContents")
			}
			wantBatch(e.t, okIDs, failed, slices.Collect(maps.Keys(good)), wantFailed)
			got := e.receive(url, receiveIn{Max: ptr(10)})
			if len(got) != len(good) {
				e.t.Fatalf("received %d messages, want %d", len(got), len(good))
			}
			for _, m := range got {
				if id := byID[m.MessageID]; m.Body != good[id] {
					e.t.Fatalf("entry %s: received body %.40q, want %.40q", id, m.Body, good[id])
				}
			}
		}},
		{name: "entries repeating the last entry's attributes", run: func(e *env) {
			// SDKs spell equal attributes the same for each entry, and the
			// JSON decoder reads such a spelling once: each entry still gets
			// its own answer, an invalid list failing each entry that
			// repeats it, and the list after it read again.
			url := e.createQueue("repeated-attrs", nil)
			a := map[string]msgAttr{"kind": strAttr("String", "order ✓"), "n": strAttr("Number", "1"), "bin": binAttr("Binary", []byte{0, 0xff})}
			b := map[string]msgAttr{"kind": strAttr("String", "other")}
			bad := map[string]msgAttr{"n": strAttr("Number", "not a number")}
			badSys := map[string]msgAttr{"AWSTraceHeader": strAttr("Number", "1")}
			cases := []struct {
				id         string
				attrs, sys map[string]msgAttr
				fail       bool
			}{
				{"a1", a, traceHeader(trace), false}, {"a2", a, traceHeader(trace), false},
				{"bad1", bad, nil, true}, {"bad2", bad, nil, true}, {"a3", a, nil, false},
				{"b1", b, badSys, true}, {"b2", b, badSys, true}, {"b3", b, traceHeader(trace), false},
				{"none", nil, nil, false}, {"a4", a, traceHeader(trace), false},
			}
			var entries []sendIn
			wantAttrs := map[string]map[string]msgAttr{}
			var wantOK []string
			wantFailed := map[string]string{}
			for _, c := range cases {
				entries = append(entries, sendIn{ID: c.id, Body: "body " + c.id, Attrs: c.attrs, SysAttrs: c.sys})
				if c.fail {
					wantFailed[c.id] = e.code("InvalidParameterValue")
					continue
				}
				wantOK = append(wantOK, c.id)
				wantAttrs[c.id] = c.attrs
			}
			ok, failed, err := e.c.SendMessageBatch(url, entries)
			if err != nil {
				e.t.Fatal(err)
			}
			okIDs, byID := sentEntries(ok)
			for _, s := range ok {
				if want := refMD5OfAttributes(wantAttrs[s.ID]); s.MD5Attrs != want {
					e.t.Fatalf("entry %s: MD5OfMessageAttributes %q, want %q", s.ID, s.MD5Attrs, want)
				}
			}
			wantBatch(e.t, okIDs, failed, wantOK, wantFailed)
			got := e.receive(url, receiveIn{Max: ptr(10), MsgAttrNames: []string{"All"}})
			if len(got) != len(wantOK) {
				e.t.Fatalf("received %d messages, want %d", len(got), len(wantOK))
			}
			for _, m := range got {
				sameAttrs(e.t, m.MsgAttrs, wantAttrs[byID[m.MessageID]])
			}
		}},
		{name: "whole-batch errors", run: func(e *env) {
			url := e.createQueue("batches", nil)
			send := func(entries ...sendIn) error {
				_, _, err := e.c.SendMessageBatch(url, entries)
				return err
			}
			var eleven []sendIn
			for _, id := range elevenIDs() {
				eleven = append(eleven, entry(id, "x"))
			}
			e.wantErr(send(), "AWS.SimpleQueueService.EmptyBatchRequest", 400)
			e.wantErr(send(eleven...), "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", 400)
			if err := send(eleven[:10]...); err != nil {
				e.t.Fatalf("ten entries: %v", err)
			}
			e.wantErr(send(entry("same", "1"), entry("other", "2"), entry("same", "3")), "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", 400)
			// "", 81 characters and other ids are TestFidelityBatchRequestErrors's.
			for _, id := range []string{"a b", "bad id!", "dot.ted", "ünï"} {
				e.wantErr(send(entry("good", "1"), entry(id, "2")), "AWS.SimpleQueueService.InvalidBatchEntryId", 400)
			}
			if err := send(entry(strings.Repeat("x", 80), "ok")); err != nil {
				e.t.Fatalf("80-character id: %v", err)
			}
			// Over 1 MiB in total, though each message is within its limit.
			half := strings.Repeat("h", 600*1024)
			e.wantErr(send(entry("a", half), entry("b", half)), "AWS.SimpleQueueService.BatchRequestTooLong", 400)
			// None of the refused batches sent anything.
			e.wantCounts(url, 11, 0, 0)
			// Exactly 1 MiB in total is allowed.
			exact := strings.Repeat("h", 512*1024)
			if err := send(entry("a", exact), entry("b", exact)); err != nil {
				e.t.Fatalf("batch of exactly 1 MiB: %v", err)
			}
			e.wantCounts(url, 13, 0, 0)
			_, _, err := e.c.SendMessageBatch(e.url("nope"), []sendIn{entry("a", "x")})
			e.wantErr(err, nonExistentQueue, 400)
		}},
	})
}

// sentEntries lists the ids of a batch's sent entries, and maps each
// message id to its entry's id.
func sentEntries(ok []sendOut) (ids []string, byMessageID map[string]string) {
	byMessageID = map[string]string{}
	for _, s := range ok {
		ids = append(ids, s.ID)
		byMessageID[s.MessageID] = s.ID
	}
	return ids, byMessageID
}
