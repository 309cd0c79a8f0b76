package compat

// Message actions over the JSON protocol with aws-sdk-go-v2: SendMessage(Batch),
// ReceiveMessage, DeleteMessage(Batch), ChangeMessageVisibility(Batch) and
// dead-letter redrive.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/minisqs/minisqs/server"
)

func jsStr(dataType, v string) types.MessageAttributeValue {
	return types.MessageAttributeValue{DataType: awsv2.String(dataType), StringValue: awsv2.String(v)}
}

func jsBin(dataType string, v []byte) types.MessageAttributeValue {
	return types.MessageAttributeValue{DataType: awsv2.String(dataType), BinaryValue: v}
}

// jsSameAttributes compares received message attributes with sent ones.
func jsSameAttributes(t *testing.T, got, want map[string]types.MessageAttributeValue) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d attributes %v, want %d", len(got), slices.Sorted(jsKeys(got)), len(want))
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Fatalf("attribute %s missing", k)
		}
		if awsv2.ToString(g.DataType) != awsv2.ToString(w.DataType) || awsv2.ToString(g.StringValue) != awsv2.ToString(w.StringValue) || string(g.BinaryValue) != string(w.BinaryValue) {
			t.Fatalf("attribute %s = {%s %q %v}, want {%s %q %v}", k,
				awsv2.ToString(g.DataType), awsv2.ToString(g.StringValue), g.BinaryValue,
				awsv2.ToString(w.DataType), awsv2.ToString(w.StringValue), w.BinaryValue)
		}
	}
}

func jsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func TestJSONSendMessage(t *testing.T) {
	t.Parallel()

	t.Run("MD5OfMessageBody and round trip", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("bodies", nil)
		bodies := []string{
			"hello",
			"line1\nline2\r\nline3\ttabbed",
			`<xml attr="q">&amp; "quotes" 'single'</xml>`,
			`{"json": [1, 2, {"k": "v"}]}`,
			"ünïcödé ✓ 日本語 𝄞 🎉",
			"\uE000\uFFFD\U0010FFFF",
			strings.Repeat("x", 256*1024),
		}
		ids := map[string]string{}
		for _, b := range bodies {
			out := e.send(url, b)
			if awsv2.ToString(out.MD5OfMessageBody) != refMD5(b) {
				t.Fatalf("MD5OfMessageBody = %q, want %q", awsv2.ToString(out.MD5OfMessageBody), refMD5(b))
			}
			if out.MD5OfMessageAttributes != nil || out.MD5OfMessageSystemAttributes != nil {
				t.Fatalf("attribute MD5s without attributes: %v %v", out.MD5OfMessageAttributes, out.MD5OfMessageSystemAttributes)
			}
			if _, dup := ids[*out.MessageId]; dup {
				t.Fatalf("MessageId %s handed out twice", *out.MessageId)
			}
			ids[*out.MessageId] = b
		}
		for range bodies {
			m := e.receiveOne(url)
			want, ok := ids[*m.MessageId]
			if !ok {
				t.Fatalf("unknown MessageId %s", *m.MessageId)
			}
			if *m.Body != want {
				t.Fatalf("body of %s changed: got %d bytes %.40q, want %d bytes %.40q", *m.MessageId, len(*m.Body), *m.Body, len(want), want)
			}
			if *m.MD5OfBody != refMD5(want) {
				t.Fatalf("MD5OfBody = %q", *m.MD5OfBody)
			}
			delete(ids, *m.MessageId)
		}
		e.receiveNone(url)
	})

	t.Run("message attributes", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("attrs", nil)
		attrs := map[string]types.MessageAttributeValue{
			"str":          jsStr("String", "a value ✓"),
			"num":          jsStr("Number", "-3.14e2"),
			"int":          jsStr("Number", "42"),
			"bin":          jsBin("Binary", []byte{0, 1, 2, 0xfe, 0xff}),
			"custom":       jsStr("String.custom", "labelled"),
			"customNumber": jsStr("Number.float", "1.5"),
			"customBinary": jsBin("Binary.gif", []byte("GIF89a")),
		}
		out, err := e.c.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(url), MessageBody: awsv2.String("with attributes"), MessageAttributes: attrs})
		if err != nil {
			t.Fatal(err)
		}
		want := jsMD5OfAttributes(attrs)
		if awsv2.ToString(out.MD5OfMessageAttributes) != want {
			t.Fatalf("MD5OfMessageAttributes = %q, want %q", awsv2.ToString(out.MD5OfMessageAttributes), want)
		}
		got := e.receive(&sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(url), MessageAttributeNames: []string{"All"}})
		if len(got) != 1 {
			t.Fatalf("received %d", len(got))
		}
		jsSameAttributes(t, got[0].MessageAttributes, attrs)
		if awsv2.ToString(got[0].MD5OfMessageAttributes) != want {
			t.Fatalf("received MD5OfMessageAttributes = %q, want %q", awsv2.ToString(got[0].MD5OfMessageAttributes), want)
		}
	})

	t.Run("MD5OfMessageAttributes known values", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("vectors", nil)
		// Digests published by other implementations' tests (sqslite,
		// LocalStack, an npm validator), all checked against AWS.
		for _, c := range []struct {
			attrs map[string]types.MessageAttributeValue
			md5   string
		}{
			{map[string]types.MessageAttributeValue{"ordinal": jsStr("Number", "1"), "category": jsStr("String", "test")}, "d21ae90c49061e927f57df5f5d72be1f"},
			{map[string]types.MessageAttributeValue{"SellerName": jsStr("String", "Example Store")}, "cd28f3b68aeee4b2eac9c66f2f694b58"},
			{map[string]types.MessageAttributeValue{"timestamp": jsStr("Number", "1493147359900")}, "235c5c510d26fb653d073faed50ae77c"},
		} {
			if got := jsMD5OfAttributes(c.attrs); got != c.md5 {
				t.Fatalf("test helper digest %s, want %s", got, c.md5)
			}
			out, err := e.c.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(url), MessageBody: awsv2.String("v"), MessageAttributes: c.attrs})
			if err != nil {
				t.Fatal(err)
			}
			if got := awsv2.ToString(out.MD5OfMessageAttributes); got != c.md5 {
				t.Fatalf("MD5OfMessageAttributes = %s, want %s", got, c.md5)
			}
		}
	})

	t.Run("invalid message attributes", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("badattrs", nil)
		eleven := map[string]types.MessageAttributeValue{}
		for i := range 11 {
			eleven[fmt.Sprint("a", i)] = jsStr("String", "v")
		}
		for name, attrs := range map[string]map[string]types.MessageAttributeValue{
			"eleven":          eleven,
			"reserved prefix": {"AWS.thing": jsStr("String", "v")},
			"amazon prefix":   {"Amazon.thing": jsStr("String", "v")},
			"leading period":  {".x": jsStr("String", "v")},
			"double period":   {"a..b": jsStr("String", "v")},
			"bad type":        {"x": jsStr("Text", "v")},
			"not a number":    {"x": jsStr("Number", "twelve")},
			"empty string":    {"x": jsStr("String", "")},
			"empty binary":    {"x": jsBin("Binary", nil)},
			"custom no label": {"x": jsStr("String.", "v")},
		} {
			t.Run(name, func(t *testing.T) {
				_, err := e.c.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(url), MessageBody: awsv2.String("b"), MessageAttributes: attrs})
				jsWantCode(t, err, "InvalidParameterValue")
			})
		}
		// A missing DataType the SDK refuses before sending.
		_, err := e.c.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(url), MessageBody: awsv2.String("b"),
			MessageAttributes: map[string]types.MessageAttributeValue{"x": {StringValue: awsv2.String("v")}}})
		if err == nil {
			t.Fatal("attribute without DataType accepted")
		}
		e.wantCounts(url, 0, 0, 0)
	})

	t.Run("AWSTraceHeader", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("traced", nil)
		trace := "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
		sys := map[string]types.MessageSystemAttributeValue{
			"AWSTraceHeader": {DataType: awsv2.String("String"), StringValue: awsv2.String(trace)},
		}
		out, err := e.c.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(url), MessageBody: awsv2.String("traced"), MessageSystemAttributes: sys})
		if err != nil {
			t.Fatal(err)
		}
		if want := jsMD5OfSystemAttributes(sys); awsv2.ToString(out.MD5OfMessageSystemAttributes) != want {
			t.Fatalf("MD5OfMessageSystemAttributes = %q, want %q", awsv2.ToString(out.MD5OfMessageSystemAttributes), want)
		}
		if out.MD5OfMessageAttributes != nil {
			t.Fatalf("MD5OfMessageAttributes without message attributes: %q", *out.MD5OfMessageAttributes)
		}
		got := e.receive(&sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(url), MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAWSTraceHeader}})
		if len(got) != 1 || got[0].Attributes["AWSTraceHeader"] != trace || len(got[0].Attributes) != 1 {
			t.Fatalf("received %+v", got)
		}
		// The trace header is a system attribute, not a message attribute.
		if len(got[0].MessageAttributes) != 0 {
			t.Fatalf("AWSTraceHeader among message attributes: %v", got[0].MessageAttributes)
		}

		// Only AWSTraceHeader may be sent, and only as a String.
		_, err = e.c.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(url), MessageBody: awsv2.String("x"), MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{
			"SenderId": {DataType: awsv2.String("String"), StringValue: awsv2.String("me")},
		}})
		if err == nil {
			t.Fatal("system attribute SenderId accepted")
		}
	})

	t.Run("DelaySeconds per message", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("delayed", nil)
		if _, err := e.c.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(url), MessageBody: awsv2.String("later"), DelaySeconds: 10}); err != nil {
			t.Fatal(err)
		}
		e.send(url, "now")
		if got := e.receiveOne(url); *got.Body != "now" {
			t.Fatalf("received %q first", *got.Body)
		}
		e.receiveNone(url)
		e.wantCounts(url, 0, 1, 1)
		e.advance(9 * time.Second)
		e.receiveNone(url)
		e.advance(time.Second)
		if got := e.receiveOne(url); *got.Body != "later" {
			t.Fatalf("received %q", *got.Body)
		}

		for _, bad := range []int32{-1, 901} {
			_, err := e.c.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(url), MessageBody: awsv2.String("x"), DelaySeconds: bad})
			jsWantCode(t, err, "InvalidParameterValue")
		}
	})

	t.Run("queue DelaySeconds applies unless the message says 0", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("slow", map[string]string{"DelaySeconds": "5"})
		e.send(url, "queue delay")
		e.receiveNone(url)
		e.wantCounts(url, 0, 0, 1)
		// The SDK leaves a zero DelaySeconds out; sent explicitly, 0 means
		// no delay, not the queue's.
		r := jsPost(t, e.srv.URL(), "AmazonSQS.SendMessage", jsMustJSON(t, map[string]any{"QueueUrl": url, "MessageBody": "explicit zero", "DelaySeconds": 0}))
		if r.Status != 200 {
			t.Fatalf("SendMessage: %d %s", r.Status, r.Body)
		}
		if got := e.receiveOne(url); *got.Body != "explicit zero" {
			t.Fatalf("received %q", *got.Body)
		}
		e.advance(5 * time.Second)
		if got := e.receiveOne(url); *got.Body != "queue delay" {
			t.Fatalf("received %q", *got.Body)
		}
	})

	t.Run("InvalidMessageContents", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("strict", nil)
		for _, body := range []string{"nul\x00", "\x08backspace", "bell\a", "\uFFFE", "\uFFFF"} {
			_, err := e.c.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(url), MessageBody: awsv2.String(body)})
			jsWantErr[*types.InvalidMessageContents](t, err, "InvalidMessageContents")
		}
		e.wantCounts(url, 0, 0, 0)
	})

	t.Run("body over MaximumMessageSize", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("small", map[string]string{"MaximumMessageSize": "1024"})
		e.send(url, strings.Repeat("a", 1024))
		_, err := e.c.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(url), MessageBody: awsv2.String(strings.Repeat("a", 1025))})
		jsWantCode(t, err, "InvalidParameterValue")
		// Size counts UTF-8 bytes: 342 three-byte characters are 1026 bytes.
		_, err = e.c.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(url), MessageBody: awsv2.String(strings.Repeat("✓", 342))})
		jsWantCode(t, err, "InvalidParameterValue")
		// Attribute names, types and values count too.
		_, err = e.c.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(url), MessageBody: awsv2.String(strings.Repeat("a", 1000)),
			MessageAttributes: map[string]types.MessageAttributeValue{"name": jsStr("String", strings.Repeat("v", 20))}})
		jsWantCode(t, err, "InvalidParameterValue")
		e.wantCounts(url, 1, 0, 0)

		// The default maximum is 1 MiB.
		big := e.createQueue("big", nil)
		e.send(big, strings.Repeat("b", 1048576))
		_, err = e.c.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(big), MessageBody: awsv2.String(strings.Repeat("b", 1048577))})
		jsWantCode(t, err, "InvalidParameterValue")
	})

	t.Run("missing queue", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		_, err := e.c.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(e.url("nope")), MessageBody: awsv2.String("x")})
		jsWantErr[*types.QueueDoesNotExist](t, err, "AWS.SimpleQueueService.NonExistentQueue")
	})
}

func jsEntry(id, body string) types.SendMessageBatchRequestEntry {
	return types.SendMessageBatchRequestEntry{Id: awsv2.String(id), MessageBody: awsv2.String(body)}
}

func TestJSONSendMessageBatch(t *testing.T) {
	t.Parallel()

	t.Run("all succeed", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("batch", nil)
		attrs := map[string]types.MessageAttributeValue{"k": jsStr("String", "v"), "n": jsStr("Number", "1")}
		entries := []types.SendMessageBatchRequestEntry{jsEntry("first", "one"), jsEntry("second-2", "two"), jsEntry("third_3", "three")}
		entries[1].MessageAttributes = attrs
		entries[2].DelaySeconds = 5
		out, err := e.c.SendMessageBatch(e.ctx, &sqsv2.SendMessageBatchInput{QueueUrl: awsv2.String(url), Entries: entries})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Failed) != 0 || len(out.Successful) != 3 {
			t.Fatalf("Successful %d, Failed %+v", len(out.Successful), out.Failed)
		}
		byID := map[string]types.SendMessageBatchResultEntry{}
		for _, s := range out.Successful {
			byID[*s.Id] = s
		}
		for _, in := range entries {
			s, ok := byID[*in.Id]
			if !ok {
				t.Fatalf("entry %s not in Successful", *in.Id)
			}
			if *s.MD5OfMessageBody != refMD5(*in.MessageBody) || awsv2.ToString(s.MessageId) == "" {
				t.Fatalf("entry %s: %+v", *in.Id, s)
			}
			if want := jsMD5OfAttributes(in.MessageAttributes); awsv2.ToString(s.MD5OfMessageAttributes) != want {
				t.Fatalf("entry %s MD5OfMessageAttributes = %q, want %q", *in.Id, awsv2.ToString(s.MD5OfMessageAttributes), want)
			}
		}
		e.wantCounts(url, 2, 0, 1)
		got := e.receive(&sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(url), MaxNumberOfMessages: 10, MessageAttributeNames: []string{"All"}})
		if len(got) != 2 {
			t.Fatalf("received %d", len(got))
		}
		for _, m := range got {
			switch *m.MessageId {
			case *byID["first"].MessageId:
				if *m.Body != "one" || len(m.MessageAttributes) != 0 {
					t.Fatalf("first: %+v", m)
				}
			case *byID["second-2"].MessageId:
				if *m.Body != "two" {
					t.Fatalf("second: %+v", m)
				}
				jsSameAttributes(t, m.MessageAttributes, attrs)
			default:
				t.Fatalf("unexpected message %s %q", *m.MessageId, *m.Body)
			}
		}
		e.advance(5 * time.Second)
		if m := e.receiveOne(url); *m.MessageId != *byID["third_3"].MessageId {
			t.Fatalf("delayed entry: %+v", m)
		}
	})

	t.Run("one invalid entry", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("mixed", nil)
		entries := []types.SendMessageBatchRequestEntry{jsEntry("ok1", "fine"), jsEntry("bad", "nul\x00"), jsEntry("ok2", "also fine")}
		long := jsEntry("delay", "x")
		long.DelaySeconds = 901
		entries = append(entries, long)
		out, err := e.c.SendMessageBatch(e.ctx, &sqsv2.SendMessageBatchInput{QueueUrl: awsv2.String(url), Entries: entries})
		if err != nil {
			t.Fatal(err)
		}
		var ok []string
		for _, s := range out.Successful {
			ok = append(ok, *s.Id)
		}
		slices.Sort(ok)
		if !slices.Equal(ok, []string{"ok1", "ok2"}) {
			t.Fatalf("Successful = %v", ok)
		}
		failed := map[string]types.BatchResultErrorEntry{}
		for _, f := range out.Failed {
			failed[*f.Id] = f
		}
		if len(failed) != 2 {
			t.Fatalf("Failed = %+v", out.Failed)
		}
		if f := failed["bad"]; !f.SenderFault || awsv2.ToString(f.Code) != "InvalidMessageContents" || awsv2.ToString(f.Message) == "" {
			t.Fatalf("bad entry: SenderFault %v Code %q Message %q", f.SenderFault, awsv2.ToString(f.Code), awsv2.ToString(f.Message))
		}
		if f := failed["delay"]; !f.SenderFault || awsv2.ToString(f.Code) != "InvalidParameterValue" {
			t.Fatalf("delay entry: SenderFault %v Code %q", f.SenderFault, awsv2.ToString(f.Code))
		}
		e.wantCounts(url, 2, 0, 0)
	})

	t.Run("whole-batch errors", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("batches", nil)
		send := func(entries []types.SendMessageBatchRequestEntry) error {
			_, err := e.c.SendMessageBatch(e.ctx, &sqsv2.SendMessageBatchInput{QueueUrl: awsv2.String(url), Entries: entries})
			return err
		}
		jsWantErr[*types.EmptyBatchRequest](t, send([]types.SendMessageBatchRequestEntry{}), "AWS.SimpleQueueService.EmptyBatchRequest")
		var eleven []types.SendMessageBatchRequestEntry
		for i := range 11 {
			eleven = append(eleven, jsEntry(fmt.Sprint("e", i), "x"))
		}
		jsWantErr[*types.TooManyEntriesInBatchRequest](t, send(eleven), "AWS.SimpleQueueService.TooManyEntriesInBatchRequest")
		if err := send(eleven[:10]); err != nil {
			t.Fatalf("ten entries: %v", err)
		}
		jsWantErr[*types.BatchEntryIdsNotDistinct](t, send([]types.SendMessageBatchRequestEntry{jsEntry("same", "1"), jsEntry("other", "2"), jsEntry("same", "3")}), "AWS.SimpleQueueService.BatchEntryIdsNotDistinct")
		for _, id := range []string{"a b", "dot.ted", "", strings.Repeat("x", 81), "ünï"} {
			jsWantErr[*types.InvalidBatchEntryId](t, send([]types.SendMessageBatchRequestEntry{jsEntry("good", "1"), jsEntry(id, "2")}), "AWS.SimpleQueueService.InvalidBatchEntryId")
		}
		if err := send([]types.SendMessageBatchRequestEntry{jsEntry(strings.Repeat("x", 80), "ok")}); err != nil {
			t.Fatalf("80-character id: %v", err)
		}
		// Over 1 MiB in total, though each message is within its limit.
		half := strings.Repeat("h", 600*1024)
		err := send([]types.SendMessageBatchRequestEntry{jsEntry("a", half), jsEntry("b", half)})
		jsWantErr[*types.BatchRequestTooLong](t, err, "AWS.SimpleQueueService.BatchRequestTooLong")
		e.wantCounts(url, 11, 0, 0)
		// Exactly 1 MiB in total is allowed.
		exact := strings.Repeat("h", 512*1024)
		if err := send([]types.SendMessageBatchRequestEntry{jsEntry("a", exact), jsEntry("b", exact)}); err != nil {
			t.Fatalf("batch of exactly 1 MiB: %v", err)
		}
		e.wantCounts(url, 13, 0, 0)

		_, err = e.c.SendMessageBatch(e.ctx, &sqsv2.SendMessageBatchInput{QueueUrl: awsv2.String(e.url("nope")), Entries: []types.SendMessageBatchRequestEntry{jsEntry("a", "x")}})
		jsWantErr[*types.QueueDoesNotExist](t, err, "AWS.SimpleQueueService.NonExistentQueue")
	})
}

func TestJSONReceiveMessage(t *testing.T) {
	t.Parallel()

	t.Run("MaxNumberOfMessages", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("many", nil)
		for i := range 15 {
			e.send(url, fmt.Sprint("m", i))
		}
		// Absent means one.
		if got := e.receive(&sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(url)}); len(got) != 1 {
			t.Fatalf("default receive returned %d", len(got))
		}
		if got := e.receive(&sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(url), MaxNumberOfMessages: 3}); len(got) != 3 {
			t.Fatalf("MaxNumberOfMessages 3 returned %d", len(got))
		}
		got := e.receive(&sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(url), MaxNumberOfMessages: 10})
		if len(got) == 0 || len(got) > 10 {
			t.Fatalf("MaxNumberOfMessages 10 returned %d", len(got))
		}
		seen := map[string]bool{}
		for _, m := range got {
			if seen[*m.MessageId] {
				t.Fatalf("message %s twice in one receive", *m.MessageId)
			}
			seen[*m.MessageId] = true
		}

		for _, in := range []*sqsv2.ReceiveMessageInput{
			{QueueUrl: awsv2.String(url), MaxNumberOfMessages: 11},
			{QueueUrl: awsv2.String(url), MaxNumberOfMessages: -1},
			{QueueUrl: awsv2.String(url), VisibilityTimeout: 43201},
			{QueueUrl: awsv2.String(url), VisibilityTimeout: -1},
			{QueueUrl: awsv2.String(url), WaitTimeSeconds: 21},
			{QueueUrl: awsv2.String(url), WaitTimeSeconds: -1},
		} {
			_, err := e.c.ReceiveMessage(e.ctx, in)
			jsWantCode(t, err, "InvalidParameterValue")
		}
		r := jsPost(t, e.srv.URL(), "AmazonSQS.ReceiveMessage", jsMustJSON(t, map[string]any{"QueueUrl": url, "MaxNumberOfMessages": 0}))
		r.wantError(t, 400, "InvalidParameterValueException", "InvalidParameterValue")
	})

	t.Run("VisibilityTimeout per receive", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("vis", nil)
		sent := e.send(url, "short lease")
		got := e.receive(&sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(url), VisibilityTimeout: 5})
		if len(got) != 1 {
			t.Fatalf("received %d", len(got))
		}
		e.advance(4 * time.Second)
		e.receiveNone(url)
		e.advance(time.Second)
		m := e.receiveOne(url) // with the queue's 30 s
		if *m.MessageId != *sent.MessageId || m.Attributes["ApproximateReceiveCount"] != "2" {
			t.Fatalf("redelivery: %s count %q", *m.MessageId, m.Attributes["ApproximateReceiveCount"])
		}
		e.advance(29 * time.Second)
		e.receiveNone(url)
		e.advance(time.Second)
		m = e.receiveOne(url)
		if m.Attributes["ApproximateReceiveCount"] != "3" {
			t.Fatalf("third delivery count %q", m.Attributes["ApproximateReceiveCount"])
		}
	})

	t.Run("visibility expiry redelivers", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("redeliver", map[string]string{"VisibilityTimeout": "20"})
		sent := e.send(url, "again")
		first := e.receiveOne(url)
		if first.Attributes["ApproximateReceiveCount"] != "1" {
			t.Fatalf("first count %q", first.Attributes["ApproximateReceiveCount"])
		}
		e.wantCounts(url, 0, 1, 0)
		e.advance(20 * time.Second)
		e.wantCounts(url, 1, 0, 0)
		second := e.receiveOne(url)
		if *second.MessageId != *sent.MessageId || *second.Body != "again" {
			t.Fatalf("second delivery %+v", second)
		}
		if second.Attributes["ApproximateReceiveCount"] != "2" {
			t.Fatalf("second count %q", second.Attributes["ApproximateReceiveCount"])
		}
		if *second.ReceiptHandle == *first.ReceiptHandle {
			t.Fatal("redelivery reused the receipt handle")
		}
		// The first receive time stays.
		if second.Attributes["ApproximateFirstReceiveTimestamp"] != first.Attributes["ApproximateFirstReceiveTimestamp"] {
			t.Fatalf("ApproximateFirstReceiveTimestamp moved from %q to %q", first.Attributes["ApproximateFirstReceiveTimestamp"], second.Attributes["ApproximateFirstReceiveTimestamp"])
		}
	})

	t.Run("long poll answered by a send", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("waiting", nil)
		type result struct {
			out *sqsv2.ReceiveMessageOutput
			err error
		}
		done := make(chan result, 1)
		go func() {
			out, err := e.c.ReceiveMessage(e.ctx, &sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(url), WaitTimeSeconds: 20})
			done <- result{out, err}
		}()
		waitForWaiters(t, e.srv.Clock, 2) // the engine's sweeper and the poll
		select {
		case r := <-done:
			t.Fatalf("long poll returned before any send: %+v %v", r.out, r.err)
		default:
		}
		sent := e.send(url, "wake up")
		select {
		case r := <-done:
			if r.err != nil {
				t.Fatal(r.err)
			}
			if len(r.out.Messages) != 1 || *r.out.Messages[0].MessageId != *sent.MessageId || *r.out.Messages[0].Body != "wake up" {
				t.Fatalf("long poll returned %+v", r.out.Messages)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("long poll did not return after a send")
		}
	})

	t.Run("long poll times out empty", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("quiet", nil)
		done := make(chan *sqsv2.ReceiveMessageOutput, 1)
		errc := make(chan error, 1)
		go func() {
			out, err := e.c.ReceiveMessage(e.ctx, &sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(url), WaitTimeSeconds: 5})
			if err != nil {
				errc <- err
				return
			}
			done <- out
		}()
		waitForWaiters(t, e.srv.Clock, 2)
		e.advance(4 * time.Second)
		select {
		case out := <-done:
			t.Fatalf("long poll returned after 4 of 5 seconds: %+v", out.Messages)
		case err := <-errc:
			t.Fatal(err)
		default:
		}
		waitForWaiters(t, e.srv.Clock, 2)
		e.advance(time.Second)
		select {
		case out := <-done:
			if len(out.Messages) != 0 {
				t.Fatalf("timed-out poll returned %d messages", len(out.Messages))
			}
		case err := <-errc:
			t.Fatal(err)
		case <-time.After(10 * time.Second):
			t.Fatal("long poll did not end when its wait ran out")
		}
	})

	t.Run("queue ReceiveMessageWaitTimeSeconds applies when absent", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("patient", map[string]string{"ReceiveMessageWaitTimeSeconds": "10"})
		done := make(chan []types.Message, 1)
		go func() {
			out, err := e.c.ReceiveMessage(e.ctx, &sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(url)})
			if err != nil {
				t.Error(err)
				done <- nil
				return
			}
			done <- out.Messages
		}()
		waitForWaiters(t, e.srv.Clock, 2)
		e.advance(10 * time.Second)
		select {
		case msgs := <-done:
			if len(msgs) != 0 {
				t.Fatalf("returned %d", len(msgs))
			}
		case <-time.After(10 * time.Second):
			t.Fatal("queue-level long poll did not end")
		}
		// A message sent with a delay wakes a poll when it becomes visible.
		if _, err := e.c.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(url), MessageBody: awsv2.String("soon"), DelaySeconds: 3}); err != nil {
			t.Fatal(err)
		}
		go func() {
			out, err := e.c.ReceiveMessage(e.ctx, &sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(url), WaitTimeSeconds: 20})
			if err != nil {
				t.Error(err)
				done <- nil
				return
			}
			done <- out.Messages
		}()
		waitForWaiters(t, e.srv.Clock, 2)
		e.advance(3 * time.Second)
		select {
		case msgs := <-done:
			if len(msgs) != 1 || *msgs[0].Body != "soon" {
				t.Fatalf("poll over a delayed message returned %+v", msgs)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("poll did not return when the delay ended")
		}
	})

	t.Run("system attributes", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("sys", nil)
		sentAt := e.srv.Clock.Now()
		trace := "Root=1-00000000-000000000000000000000001"
		if _, err := e.c.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(url), MessageBody: awsv2.String("sys"),
			MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{"AWSTraceHeader": {DataType: awsv2.String("String"), StringValue: awsv2.String(trace)}}}); err != nil {
			t.Fatal(err)
		}
		e.advance(2 * time.Second)
		receivedAt := e.srv.Clock.Now()
		got := e.receive(&sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(url), VisibilityTimeout: 1,
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}})
		if len(got) != 1 {
			t.Fatalf("received %d", len(got))
		}
		a := got[0].Attributes
		want := map[string]string{
			"SentTimestamp":                    strconv.FormatInt(sentAt.UnixMilli(), 10),
			"ApproximateReceiveCount":          "1",
			"ApproximateFirstReceiveTimestamp": strconv.FormatInt(receivedAt.UnixMilli(), 10),
			"AWSTraceHeader":                   trace,
		}
		for k, v := range want {
			if a[k] != v {
				t.Errorf("%s = %q, want %q", k, a[k], v)
			}
		}
		if a["SenderId"] == "" {
			t.Errorf("no SenderId in %v", a)
		}
		for _, k := range []string{"SequenceNumber", "MessageGroupId", "MessageDeduplicationId", "DeadLetterQueueSourceArn"} {
			if v, ok := a[k]; ok {
				t.Errorf("standard-queue message has %s = %q", k, v)
			}
		}

		receiveWith := func(in *sqsv2.ReceiveMessageInput) map[string]string {
			t.Helper()
			e.advance(time.Second) // the 1-second lease ends
			in.QueueUrl = awsv2.String(url)
			in.VisibilityTimeout = 1
			got := e.receive(in)
			if len(got) != 1 {
				t.Fatalf("received %d", len(got))
			}
			return got[0].Attributes
		}
		a = receiveWith(&sqsv2.ReceiveMessageInput{MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameSentTimestamp}})
		if len(a) != 1 || a["SentTimestamp"] != want["SentTimestamp"] {
			t.Fatalf("SentTimestamp only: %v", a)
		}
		a = receiveWith(&sqsv2.ReceiveMessageInput{MessageSystemAttributeNames: []types.MessageSystemAttributeName{
			types.MessageSystemAttributeNameApproximateReceiveCount, types.MessageSystemAttributeNameSenderId, types.MessageSystemAttributeNameApproximateFirstReceiveTimestamp}})
		if len(a) != 3 || a["ApproximateReceiveCount"] != "3" || a["SenderId"] == "" || a["ApproximateFirstReceiveTimestamp"] != want["ApproximateFirstReceiveTimestamp"] {
			t.Fatalf("three names: %v", a)
		}
		// The deprecated AttributeNames work as before.
		a = receiveWith(&sqsv2.ReceiveMessageInput{AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll}})
		if a["SentTimestamp"] != want["SentTimestamp"] || a["ApproximateReceiveCount"] != "4" || a["AWSTraceHeader"] != trace || a["SenderId"] == "" {
			t.Fatalf("AttributeNames All: %v", a)
		}
		a = receiveWith(&sqsv2.ReceiveMessageInput{AttributeNames: []types.QueueAttributeName{"SentTimestamp", "ApproximateReceiveCount"}})
		if len(a) != 2 || a["SentTimestamp"] != want["SentTimestamp"] || a["ApproximateReceiveCount"] != "5" {
			t.Fatalf("AttributeNames SentTimestamp, ApproximateReceiveCount: %v", a)
		}
		// Neither: no attributes at all.
		a = receiveWith(&sqsv2.ReceiveMessageInput{})
		if len(a) != 0 {
			t.Fatalf("no names: %v", a)
		}
	})

	t.Run("message attribute names", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("mattrs", nil)
		attrs := map[string]types.MessageAttributeValue{
			"foo.a":  jsStr("String", "1"),
			"foo.b":  jsBin("Binary", []byte{9}),
			"food":   jsStr("String", "under foo.*, which SQS reads as the prefix foo"),
			"bar":    jsStr("Number", "2"),
			"barbar": jsStr("String.x", "3"),
		}
		if _, err := e.c.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(url), MessageBody: awsv2.String("m"), MessageAttributes: attrs}); err != nil {
			t.Fatal(err)
		}
		pick := func(names ...string) map[string]types.MessageAttributeValue {
			out := map[string]types.MessageAttributeValue{}
			for _, n := range names {
				out[n] = attrs[n]
			}
			return out
		}
		for _, c := range []struct {
			names []string
			want  map[string]types.MessageAttributeValue
		}{
			{[]string{"All"}, attrs},
			{[]string{".*"}, attrs},
			{[]string{"bar"}, pick("bar")},
			{[]string{"bar", "food", "missing"}, pick("bar", "food")},
			// AWS answers "Hel.*" with Hello and Help.Me (localstack/localstack
			// test_sqs.snapshot.json, test_receive_message_message_attribute_
			// names_filters[sqs]).
			{[]string{"foo.*"}, pick("foo.a", "foo.b", "food")},
			{[]string{"foo.*", "barbar"}, pick("foo.a", "foo.b", "food", "barbar")},
			{[]string{"*"}, attrs},
			{[]string{"missing"}, nil},
			{nil, nil},
		} {
			got := e.receive(&sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(url), MessageAttributeNames: c.names, VisibilityTimeout: 1})
			if len(got) != 1 {
				t.Fatalf("%v: received %d", c.names, len(got))
			}
			jsSameAttributes(t, got[0].MessageAttributes, c.want)
			// The digest covers the attributes returned.
			if want := jsMD5OfAttributes(c.want); awsv2.ToString(got[0].MD5OfMessageAttributes) != want {
				t.Fatalf("%v: MD5OfMessageAttributes = %q, want %q", c.names, awsv2.ToString(got[0].MD5OfMessageAttributes), want)
			}
			e.advance(time.Second)
		}
	})

	t.Run("missing queue", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		_, err := e.c.ReceiveMessage(e.ctx, &sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(e.url("nope"))})
		jsWantErr[*types.QueueDoesNotExist](t, err, "AWS.SimpleQueueService.NonExistentQueue")
	})
}

func TestJSONDeadLetterRedrive(t *testing.T) {
	t.Parallel()

	t.Run("end to end", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		dlq := e.createQueue("redrive-dlq", nil)
		src := e.createQueue("redrive-src", map[string]string{
			"VisibilityTimeout": "10",
			"RedrivePolicy":     `{"deadLetterTargetArn":"` + jsArn("redrive-dlq") + `","maxReceiveCount":2}`,
		})
		attrs := map[string]types.MessageAttributeValue{"kind": jsStr("String", "poison")}
		sent, err := e.c.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(src), MessageBody: awsv2.String("poison pill"), MessageAttributes: attrs})
		if err != nil {
			t.Fatal(err)
		}
		sources, err := e.c.ListDeadLetterSourceQueues(e.ctx, &sqsv2.ListDeadLetterSourceQueuesInput{QueueUrl: awsv2.String(dlq)})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(sources.QueueUrls, []string{src}) {
			t.Fatalf("dead-letter sources = %v", sources.QueueUrls)
		}

		for i := 1; i <= 2; i++ {
			m := e.receiveOne(src)
			if *m.MessageId != *sent.MessageId || m.Attributes["ApproximateReceiveCount"] != strconv.Itoa(i) {
				t.Fatalf("receive %d: %s count %q", i, *m.MessageId, m.Attributes["ApproximateReceiveCount"])
			}
			e.advance(10 * time.Second)
		}
		// The third receive finds the count reached and moves the message.
		e.receiveNone(src)
		e.wantCounts(src, 0, 0, 0)
		e.wantCounts(dlq, 1, 0, 0)

		got := e.receive(&sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(dlq), MessageAttributeNames: []string{"All"},
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}})
		if len(got) != 1 {
			t.Fatalf("dead-letter queue returned %d", len(got))
		}
		m := got[0]
		if *m.MessageId != *sent.MessageId || *m.Body != "poison pill" {
			t.Fatalf("dead letter %s %q, want %s", *m.MessageId, *m.Body, *sent.MessageId)
		}
		if m.Attributes["DeadLetterQueueSourceArn"] != jsArn("redrive-src") {
			t.Fatalf("DeadLetterQueueSourceArn = %q", m.Attributes["DeadLetterQueueSourceArn"])
		}
		jsSameAttributes(t, m.MessageAttributes, attrs)
		if m.Attributes["SentTimestamp"] == "" {
			t.Fatalf("dead letter lost SentTimestamp: %v", m.Attributes)
		}
		if _, err := e.c.DeleteMessage(e.ctx, &sqsv2.DeleteMessageInput{QueueUrl: awsv2.String(dlq), ReceiptHandle: m.ReceiptHandle}); err != nil {
			t.Fatal(err)
		}
		e.wantCounts(dlq, 0, 0, 0)
	})

	t.Run("string maxReceiveCount of 1", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		dlq := e.createQueue("dlq", nil)
		src := e.createQueue("src", nil)
		if err := e.setAttrs(src, map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"` + jsArn("dlq") + `","maxReceiveCount":"1"}`}); err != nil {
			t.Fatal(err)
		}
		sent := e.send(src, "once only")
		e.send(src, "deleted in time")
		got := e.receive(&sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(src), MaxNumberOfMessages: 2})
		if len(got) != 2 {
			t.Fatalf("received %d", len(got))
		}
		for _, m := range got {
			if *m.MessageId != *sent.MessageId {
				if _, err := e.c.DeleteMessage(e.ctx, &sqsv2.DeleteMessageInput{QueueUrl: awsv2.String(src), ReceiptHandle: m.ReceiptHandle}); err != nil {
					t.Fatal(err)
				}
			}
		}
		e.advance(30 * time.Second)
		e.receiveNone(src)
		m := e.receiveOne(dlq)
		if *m.MessageId != *sent.MessageId {
			t.Fatalf("dead letter %s, want %s", *m.MessageId, *sent.MessageId)
		}
		e.receiveNone(dlq)
	})
}
