package compat

// Query-protocol compatibility: every SQS action driven through aws-sdk-go
// v1 (v1.46.7, before its switch to the JSON protocol), checking results,
// error codes and HTTP statuses, plus raw-HTTP checks of the query
// protocol's routing and error documents.
//
// Helpers here are prefixed with "q" to keep clear of the names other test
// files in this package use.

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	awsv1 "github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/awserr"
	sqsv1 "github.com/aws/aws-sdk-go/service/sqs"

	"github.com/minisqs/minisqs/server"
)

// qStart starts a server and returns it with a query-protocol client.
func qStart(t *testing.T, cfg server.Config) (*testServer, *sqsv1.SQS) {
	t.Helper()
	srv := startServer(t, cfg)
	return srv, queryClient(t, srv.URL())
}

// qCreate creates a queue and returns its URL.
func qCreate(t *testing.T, c *sqsv1.SQS, name string, attrs map[string]string) string {
	t.Helper()
	in := &sqsv1.CreateQueueInput{QueueName: awsv1.String(name)}
	if attrs != nil {
		in.Attributes = awsv1.StringMap(attrs)
	}
	out, err := c.CreateQueue(in)
	if err != nil {
		t.Fatalf("CreateQueue %s: %v", name, err)
	}
	return awsv1.StringValue(out.QueueUrl)
}

// qExpectErr checks that err is an AWS request failure with the given code
// and HTTP status, and returns it for further checks.
func qExpectErr(t *testing.T, err error, code string, status int) awserr.RequestFailure {
	t.Helper()
	if err == nil {
		t.Fatalf("expected error %s (%d), got success", code, status)
	}
	var ae awserr.Error
	if !errors.As(err, &ae) {
		t.Fatalf("expected awserr.Error %s, got %T: %v", code, err, err)
	}
	if ae.Code() != code {
		t.Fatalf("error code = %q, want %q (message %q)", ae.Code(), code, ae.Message())
	}
	var rf awserr.RequestFailure
	if !errors.As(err, &rf) {
		t.Fatalf("expected awserr.RequestFailure for %s, got %T: %v", code, err, err)
	}
	if rf.StatusCode() != status {
		t.Fatalf("%s: HTTP status = %d, want %d", code, rf.StatusCode(), status)
	}
	if rf.RequestID() == "" {
		t.Fatalf("%s: no request id", code)
	}
	return rf
}

// qAttrs reads queue attributes.
func qAttrs(t *testing.T, c *sqsv1.SQS, queueURL string, names ...string) map[string]string {
	t.Helper()
	out, err := c.GetQueueAttributes(&sqsv1.GetQueueAttributesInput{QueueUrl: awsv1.String(queueURL), AttributeNames: awsv1.StringSlice(names)})
	if err != nil {
		t.Fatalf("GetQueueAttributes %v: %v", names, err)
	}
	return awsv1.StringValueMap(out.Attributes)
}

// qCounts returns ApproximateNumberOfMessages, ...NotVisible and ...Delayed.
func qCounts(t *testing.T, c *sqsv1.SQS, queueURL string) (visible, inFlight, delayed int) {
	t.Helper()
	a := qAttrs(t, c, queueURL, "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed")
	n := func(k string) int {
		v, err := strconv.Atoi(a[k])
		if err != nil {
			t.Fatalf("attribute %s = %q: %v", k, a[k], err)
		}
		return v
	}
	return n("ApproximateNumberOfMessages"), n("ApproximateNumberOfMessagesNotVisible"), n("ApproximateNumberOfMessagesDelayed")
}

func qExpectCounts(t *testing.T, c *sqsv1.SQS, queueURL string, visible, inFlight, delayed int) {
	t.Helper()
	v, f, d := qCounts(t, c, queueURL)
	if v != visible || f != inFlight || d != delayed {
		t.Fatalf("counts visible/in flight/delayed = %d/%d/%d, want %d/%d/%d", v, f, d, visible, inFlight, delayed)
	}
}

func qSend(t *testing.T, c *sqsv1.SQS, queueURL, body string) *sqsv1.SendMessageOutput {
	t.Helper()
	out, err := c.SendMessage(&sqsv1.SendMessageInput{QueueUrl: awsv1.String(queueURL), MessageBody: awsv1.String(body)})
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	return out
}

// qReceive receives with no wait.
func qReceive(t *testing.T, c *sqsv1.SQS, in *sqsv1.ReceiveMessageInput) []*sqsv1.Message {
	t.Helper()
	if in.WaitTimeSeconds == nil {
		in.WaitTimeSeconds = awsv1.Int64(0)
	}
	out, err := c.ReceiveMessage(in)
	if err != nil {
		t.Fatalf("ReceiveMessage: %v", err)
	}
	return out.Messages
}

func qReceiveOne(t *testing.T, c *sqsv1.SQS, queueURL string) *sqsv1.Message {
	t.Helper()
	msgs := qReceive(t, c, &sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(queueURL), AttributeNames: awsv1.StringSlice([]string{"All"})})
	if len(msgs) != 1 {
		t.Fatalf("received %d messages, want 1", len(msgs))
	}
	return msgs[0]
}

// qMD5OfAttributes is refMD5OfAttributes over aws-sdk-go v1's attributes;
// v1.46.7 checks only MD5OfBody itself, so tests check this digest.
func qMD5OfAttributes(attrs map[string]*sqsv1.MessageAttributeValue) string {
	ref := make(map[string]msgAttr, len(attrs))
	for n, a := range attrs {
		ref[n] = msgAttr{awsv1.StringValue(a.DataType), awsv1.StringValue(a.StringValue), a.BinaryValue}
	}
	return refMD5OfAttributes(ref)
}

func qStrAttr(dataType, v string) *sqsv1.MessageAttributeValue {
	return &sqsv1.MessageAttributeValue{DataType: awsv1.String(dataType), StringValue: awsv1.String(v)}
}

func qBinAttr(dataType string, v []byte) *sqsv1.MessageAttributeValue {
	return &sqsv1.MessageAttributeValue{DataType: awsv1.String(dataType), BinaryValue: v}
}

// ---------------------------------------------------------------------------
// Messages

func TestQuerySendMessageAttributes(t *testing.T) {
	srv, c := qStart(t, server.Config{})
	u := qCreate(t, c, "typed", nil)
	attrs := map[string]*sqsv1.MessageAttributeValue{
		"str":          qStrAttr("String", `hello <world> & "friends" 'quoted'`+"\r\n"+"🚀"),
		"num":          qStrAttr("Number", "-12.5e3"),
		"bin":          qBinAttr("Binary", []byte{0, 1, 2, 0xfe, 0xff, '<', '&'}),
		"custom.str":   qStrAttr("String.Custom-Type_1", "x"),
		"custom.num":   qStrAttr("Number.float", "3.14"),
		"custom.bin":   qBinAttr("Binary.gif", []byte("GIF89a")),
		"trace-id_2.x": qStrAttr("String", "v"),
	}
	body := "body"
	out, err := c.SendMessage(&sqsv1.SendMessageInput{QueueUrl: awsv1.String(u), MessageBody: awsv1.String(body), MessageAttributes: attrs})
	if err != nil {
		t.Fatal(err)
	}
	if awsv1.StringValue(out.MD5OfMessageBody) != refMD5(body) {
		t.Fatalf("MD5OfMessageBody = %q", awsv1.StringValue(out.MD5OfMessageBody))
	}
	if want := qMD5OfAttributes(attrs); awsv1.StringValue(out.MD5OfMessageAttributes) != want {
		t.Fatalf("send MD5OfMessageAttributes = %q, want %q", awsv1.StringValue(out.MD5OfMessageAttributes), want)
	}
	if out.MessageId == nil || *out.MessageId == "" {
		t.Fatal("no MessageId")
	}
	if out.MD5OfMessageSystemAttributes != nil {
		t.Fatalf("MD5OfMessageSystemAttributes without system attributes: %q", *out.MD5OfMessageSystemAttributes)
	}

	// A message without attributes has no MD5OfMessageAttributes.
	plain := qSend(t, c, u, "plain")
	if plain.MD5OfMessageAttributes != nil {
		t.Fatalf("MD5OfMessageAttributes without attributes: %q", *plain.MD5OfMessageAttributes)
	}

	msgs := qReceive(t, c, &sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(u), MaxNumberOfMessages: awsv1.Int64(10),
		MessageAttributeNames: awsv1.StringSlice([]string{"All"}), AttributeNames: awsv1.StringSlice([]string{"All"})})
	if len(msgs) != 2 {
		t.Fatalf("received %d, want 2", len(msgs))
	}
	var m *sqsv1.Message
	for _, x := range msgs {
		if awsv1.StringValue(x.MessageId) == *out.MessageId {
			m = x
		} else if x.MD5OfMessageAttributes != nil || len(x.MessageAttributes) != 0 {
			t.Fatalf("plain message has attributes %v / %v", x.MessageAttributes, x.MD5OfMessageAttributes)
		}
	}
	if m == nil {
		t.Fatal("attributed message not received")
	}
	if len(m.MessageAttributes) != len(attrs) {
		t.Fatalf("received %d attributes, want %d: %v", len(m.MessageAttributes), len(attrs), m.MessageAttributes)
	}
	for name, want := range attrs {
		got := m.MessageAttributes[name]
		if got == nil || awsv1.StringValue(got.DataType) != *want.DataType ||
			awsv1.StringValue(got.StringValue) != awsv1.StringValue(want.StringValue) || !bytes.Equal(got.BinaryValue, want.BinaryValue) {
			t.Errorf("attribute %s = %v, want %v", name, got, want)
		}
	}
	if want := qMD5OfAttributes(attrs); awsv1.StringValue(m.MD5OfMessageAttributes) != want {
		t.Fatalf("receive MD5OfMessageAttributes = %q, want %q", awsv1.StringValue(m.MD5OfMessageAttributes), want)
	}
	if got := m.Attributes["SentTimestamp"]; awsv1.StringValue(got) != strconv.FormatInt(srv.Clock.Now().UnixMilli(), 10) {
		t.Fatalf("SentTimestamp = %v", awsv1.StringValue(got))
	}

	// Invalid attributes.
	bad := []map[string]*sqsv1.MessageAttributeValue{
		{"AWS.reserved": qStrAttr("String", "x")},
		{"Amazon.reserved": qStrAttr("String", "x")},
		{".lead": qStrAttr("String", "x")},
		{"trail.": qStrAttr("String", "x")},
		{"dou..ble": qStrAttr("String", "x")},
		{"sp ace": qStrAttr("String", "x")},
		{"t": qStrAttr("Text", "x")},
		{"n": qStrAttr("Number", "not-a-number")},
		{"e": qStrAttr("String", "")},
		{"v": qStrAttr("String", "nul \x00")},
		// A custom type label the XML answer could not carry intact (it
		// would come back altered, no longer matching the digest).
		{"c": qStrAttr("String.\x01label", "x")},
	}
	eleven := map[string]*sqsv1.MessageAttributeValue{}
	for i := 0; i < 11; i++ {
		eleven[fmt.Sprintf("a%d", i)] = qStrAttr("String", "v")
	}
	bad = append(bad, eleven)
	for _, a := range bad {
		_, err := c.SendMessage(&sqsv1.SendMessageInput{QueueUrl: awsv1.String(u), MessageBody: awsv1.String("x"), MessageAttributes: a})
		if err == nil {
			t.Errorf("attributes %v accepted", a)
			continue
		}
		qExpectErr(t, err, "InvalidParameterValue", 400)
	}
}

func TestQueryMessageBodyRoundTrip(t *testing.T) {
	_, c := qStart(t, server.Config{})
	u := qCreate(t, c, "bodies", nil)
	bodies := []string{
		`<tag attr="v">a & b</tag>`,
		`quotes " and ' apostrophes`,
		"crlf\r\nlf\ncr\rtab\t end",
		"  leading and trailing spaces  ",
		"emoji 🚀🎉 and CJK 漢字 and accents éü",
		"]]> cdata end & &amp; literal",
		"private use \uE000 and \uFFFD and astral \U0010FFFF",
		strings.Repeat("x<>&", 1000),
	}
	for _, body := range bodies {
		out := qSend(t, c, u, body)
		if awsv1.StringValue(out.MD5OfMessageBody) != refMD5(body) {
			t.Fatalf("MD5OfMessageBody for %q = %q", body, awsv1.StringValue(out.MD5OfMessageBody))
		}
		m := qReceiveOne(t, c, u)
		if got := awsv1.StringValue(m.Body); got != body {
			t.Fatalf("body round trip:\n got %q\nwant %q", got, body)
		}
		if awsv1.StringValue(m.MD5OfBody) != refMD5(body) {
			t.Fatalf("MD5OfBody = %q", awsv1.StringValue(m.MD5OfBody))
		}
		if _, err := c.DeleteMessage(&sqsv1.DeleteMessageInput{QueueUrl: awsv1.String(u), ReceiptHandle: m.ReceiptHandle}); err != nil {
			t.Fatal(err)
		}
	}

	for _, body := range []string{"nul \x00", "bell \x07", "nonchar \uFFFE", "nonchar \uFFFF", "bad utf8 \xff\xfe"} {
		_, err := c.SendMessage(&sqsv1.SendMessageInput{QueueUrl: awsv1.String(u), MessageBody: awsv1.String(body)})
		qExpectErr(t, err, "InvalidMessageContents", 400)
	}
	// An empty body is a missing parameter.
	_, err := c.SendMessage(&sqsv1.SendMessageInput{QueueUrl: awsv1.String(u), MessageBody: awsv1.String("")})
	qExpectErr(t, err, "MissingParameter", 400)
	qExpectCounts(t, c, u, 0, 0, 0)

	// Size: body plus attributes against MaximumMessageSize.
	small := qCreate(t, c, "small", map[string]string{"MaximumMessageSize": "1024"})
	qSend(t, c, small, strings.Repeat("a", 1024))
	_, err = c.SendMessage(&sqsv1.SendMessageInput{QueueUrl: awsv1.String(small), MessageBody: awsv1.String(strings.Repeat("a", 1025))})
	qExpectErr(t, err, "InvalidParameterValue", 400)
	_, err = c.SendMessage(&sqsv1.SendMessageInput{QueueUrl: awsv1.String(small), MessageBody: awsv1.String(strings.Repeat("a", 1000)),
		MessageAttributes: map[string]*sqsv1.MessageAttributeValue{"name": qStrAttr("String", strings.Repeat("v", 20))}})
	qExpectErr(t, err, "InvalidParameterValue", 400)
}

func TestQuerySendMessageDelayAndTraceHeader(t *testing.T) {
	srv, c := qStart(t, server.Config{})
	u := qCreate(t, c, "delayed", nil)
	trace := "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
	sys := map[string]*sqsv1.MessageSystemAttributeValue{
		"AWSTraceHeader": {DataType: awsv1.String("String"), StringValue: awsv1.String(trace)},
	}
	out, err := c.SendMessage(&sqsv1.SendMessageInput{QueueUrl: awsv1.String(u), MessageBody: awsv1.String("later"),
		DelaySeconds: awsv1.Int64(10), MessageSystemAttributes: sys})
	if err != nil {
		t.Fatal(err)
	}
	wantSysMD5 := qMD5OfAttributes(map[string]*sqsv1.MessageAttributeValue{"AWSTraceHeader": qStrAttr("String", trace)})
	if awsv1.StringValue(out.MD5OfMessageSystemAttributes) != wantSysMD5 {
		t.Fatalf("MD5OfMessageSystemAttributes = %q, want %q", awsv1.StringValue(out.MD5OfMessageSystemAttributes), wantSysMD5)
	}
	qExpectCounts(t, c, u, 0, 0, 1)
	if msgs := qReceive(t, c, &sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(u)}); len(msgs) != 0 {
		t.Fatalf("delayed message received early: %v", msgs)
	}
	srv.Clock.Advance(9 * time.Second)
	if msgs := qReceive(t, c, &sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(u)}); len(msgs) != 0 {
		t.Fatalf("delayed message received after 9s: %v", msgs)
	}
	srv.Clock.Advance(time.Second)
	qExpectCounts(t, c, u, 1, 0, 0)
	msgs := qReceive(t, c, &sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(u), AttributeNames: awsv1.StringSlice([]string{"AWSTraceHeader"})})
	if len(msgs) != 1 {
		t.Fatalf("received %d after the delay", len(msgs))
	}
	if got := awsv1.StringValueMap(msgs[0].Attributes); len(got) != 1 || got["AWSTraceHeader"] != trace {
		t.Fatalf("system attributes = %v", got)
	}

	// DelaySeconds 0 overrides a queue delay; absent uses it.
	qd := qCreate(t, c, "queue-delay", map[string]string{"DelaySeconds": "5"})
	if _, err := c.SendMessage(&sqsv1.SendMessageInput{QueueUrl: awsv1.String(qd), MessageBody: awsv1.String("now"), DelaySeconds: awsv1.Int64(0)}); err != nil {
		t.Fatal(err)
	}
	qSend(t, c, qd, "queue default")
	qExpectCounts(t, c, qd, 1, 0, 1)

	_, err = c.SendMessage(&sqsv1.SendMessageInput{QueueUrl: awsv1.String(u), MessageBody: awsv1.String("x"), DelaySeconds: awsv1.Int64(901)})
	qExpectErr(t, err, "InvalidParameterValue", 400)
	_, err = c.SendMessage(&sqsv1.SendMessageInput{QueueUrl: awsv1.String(u), MessageBody: awsv1.String("x"),
		MessageSystemAttributes: map[string]*sqsv1.MessageSystemAttributeValue{"NotATraceHeader": {DataType: awsv1.String("String"), StringValue: awsv1.String("x")}}})
	qExpectErr(t, err, "InvalidParameterValue", 400)
	for _, bad := range []*sqsv1.MessageSystemAttributeValue{
		{DataType: awsv1.String("Number"), StringValue: awsv1.String("1")},
		{DataType: awsv1.String("String"), StringValue: awsv1.String("")},
		// A value the XML answer could not carry intact.
		{DataType: awsv1.String("String"), StringValue: awsv1.String("Root=1\x01")},
	} {
		_, err = c.SendMessage(&sqsv1.SendMessageInput{QueueUrl: awsv1.String(u), MessageBody: awsv1.String("x"),
			MessageSystemAttributes: map[string]*sqsv1.MessageSystemAttributeValue{"AWSTraceHeader": bad}})
		qExpectErr(t, err, "InvalidParameterValue", 400)
	}
	_, err = c.SendMessage(&sqsv1.SendMessageInput{QueueUrl: awsv1.String(u + "-missing"), MessageBody: awsv1.String("x")})
	qExpectErr(t, err, "AWS.SimpleQueueService.NonExistentQueue", 400)
}

func TestQuerySendMessageBatch(t *testing.T) {
	_, c := qStart(t, server.Config{})
	u := qCreate(t, c, "batch", nil)
	entry := func(id, body string) *sqsv1.SendMessageBatchRequestEntry {
		return &sqsv1.SendMessageBatchRequestEntry{Id: awsv1.String(id), MessageBody: awsv1.String(body)}
	}
	attrs := map[string]*sqsv1.MessageAttributeValue{"k": qStrAttr("String", "v"), "n": qStrAttr("Number", "7")}
	withAttrs := entry("with-attrs", "b2")
	withAttrs.MessageAttributes = attrs
	out, err := c.SendMessageBatch(&sqsv1.SendMessageBatchInput{QueueUrl: awsv1.String(u), Entries: []*sqsv1.SendMessageBatchRequestEntry{
		entry("a", "b1 <&>"), withAttrs, entry("c_3", "b3"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Successful) != 3 || len(out.Failed) != 0 {
		t.Fatalf("batch: %d ok, %d failed: %v", len(out.Successful), len(out.Failed), out.Failed)
	}
	ids := map[string]*sqsv1.SendMessageBatchResultEntry{}
	for _, s := range out.Successful {
		ids[awsv1.StringValue(s.Id)] = s
		if awsv1.StringValue(s.MessageId) == "" {
			t.Fatalf("entry %s has no MessageId", awsv1.StringValue(s.Id))
		}
	}
	if ids["a"] == nil || awsv1.StringValue(ids["a"].MD5OfMessageBody) != refMD5("b1 <&>") {
		t.Fatalf("entry a = %v", ids["a"])
	}
	if ids["with-attrs"] == nil || awsv1.StringValue(ids["with-attrs"].MD5OfMessageAttributes) != qMD5OfAttributes(attrs) {
		t.Fatalf("entry with-attrs = %v, want MD5OfMessageAttributes %s", ids["with-attrs"], qMD5OfAttributes(attrs))
	}
	if ids["a"].MD5OfMessageAttributes != nil {
		t.Fatalf("entry a without attributes has MD5OfMessageAttributes %q", *ids["a"].MD5OfMessageAttributes)
	}
	qExpectCounts(t, c, u, 3, 0, 0)

	// Partial failure: bad entries go to Failed, good ones are sent.
	delayed := entry("too-late", "d")
	delayed.DelaySeconds = awsv1.Int64(901)
	out, err = c.SendMessageBatch(&sqsv1.SendMessageBatchInput{QueueUrl: awsv1.String(u), Entries: []*sqsv1.SendMessageBatchRequestEntry{
		entry("good1", "fine"), entry("bad-char", "nul\x00"), delayed, entry("good2", "also fine"), entry("empty", ""),
	}})
	if err != nil {
		t.Fatal(err)
	}
	okIDs := map[string]bool{}
	for _, s := range out.Successful {
		okIDs[awsv1.StringValue(s.Id)] = true
	}
	if len(out.Successful) != 2 || !okIDs["good1"] || !okIDs["good2"] {
		t.Fatalf("Successful = %v", out.Successful)
	}
	failed := map[string]*sqsv1.BatchResultErrorEntry{}
	for _, f := range out.Failed {
		failed[awsv1.StringValue(f.Id)] = f
	}
	for id, code := range map[string]string{"bad-char": "InvalidMessageContents", "too-late": "InvalidParameterValue", "empty": "MissingParameter"} {
		f := failed[id]
		if f == nil {
			t.Fatalf("entry %s not in Failed: %v", id, out.Failed)
		}
		if awsv1.StringValue(f.Code) != code || !awsv1.BoolValue(f.SenderFault) || awsv1.StringValue(f.Message) == "" {
			t.Errorf("Failed[%s] = %v, want code %s, sender fault, a message", id, f, code)
		}
	}
	qExpectCounts(t, c, u, 5, 0, 0)

	// Whole-batch errors.
	send := func(entries []*sqsv1.SendMessageBatchRequestEntry) error {
		_, err := c.SendMessageBatch(&sqsv1.SendMessageBatchInput{QueueUrl: awsv1.String(u), Entries: entries})
		return err
	}
	qExpectErr(t, send([]*sqsv1.SendMessageBatchRequestEntry{}), "AWS.SimpleQueueService.EmptyBatchRequest", 400)
	var eleven []*sqsv1.SendMessageBatchRequestEntry
	for i := 0; i < 11; i++ {
		eleven = append(eleven, entry(fmt.Sprintf("e%d", i), "x"))
	}
	qExpectErr(t, send(eleven), "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", 400)
	qExpectErr(t, send([]*sqsv1.SendMessageBatchRequestEntry{entry("same", "1"), entry("same", "2")}), "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", 400)
	qExpectErr(t, send([]*sqsv1.SendMessageBatchRequestEntry{entry("bad id!", "1")}), "AWS.SimpleQueueService.InvalidBatchEntryId", 400)
	qExpectErr(t, send([]*sqsv1.SendMessageBatchRequestEntry{entry(strings.Repeat("i", 81), "1")}), "AWS.SimpleQueueService.InvalidBatchEntryId", 400)
	big := strings.Repeat("b", 600*1024)
	qExpectErr(t, send([]*sqsv1.SendMessageBatchRequestEntry{entry("big1", big), entry("big2", big)}), "AWS.SimpleQueueService.BatchRequestTooLong", 400)
	// None of the refused batches sent anything.
	qExpectCounts(t, c, u, 5, 0, 0)

	_, err = c.SendMessageBatch(&sqsv1.SendMessageBatchInput{QueueUrl: awsv1.String(u + "-missing"), Entries: []*sqsv1.SendMessageBatchRequestEntry{entry("a", "b")}})
	qExpectErr(t, err, "AWS.SimpleQueueService.NonExistentQueue", 400)
}

func TestQueryReceiveMessage(t *testing.T) {
	srv, c := qStart(t, server.Config{})
	u := qCreate(t, c, "recv", map[string]string{"VisibilityTimeout": "30"})
	for i := 0; i < 15; i++ {
		qSend(t, c, u, fmt.Sprintf("m%02d", i))
	}
	// Without MaxNumberOfMessages: one message.
	first := qReceive(t, c, &sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(u)})
	if len(first) != 1 {
		t.Fatalf("default receive got %d", len(first))
	}
	if first[0].Attributes != nil || first[0].MessageAttributes != nil {
		t.Fatalf("unrequested attributes: %v %v", first[0].Attributes, first[0].MessageAttributes)
	}
	// MaxNumberOfMessages 10.
	ten := qReceive(t, c, &sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(u), MaxNumberOfMessages: awsv1.Int64(10)})
	if len(ten) < 1 || len(ten) > 10 {
		t.Fatalf("receive of 10 got %d", len(ten))
	}
	seen := map[string]bool{awsv1.StringValue(first[0].Body): true}
	for _, m := range ten {
		b := awsv1.StringValue(m.Body)
		if seen[b] {
			t.Fatalf("message %s delivered twice while in flight", b)
		}
		seen[b] = true
	}
	// Drain the rest (bounded).
	for i := 0; i < 20 && len(seen) < 15; i++ {
		for _, m := range qReceive(t, c, &sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(u), MaxNumberOfMessages: awsv1.Int64(10)}) {
			seen[awsv1.StringValue(m.Body)] = true
		}
	}
	if len(seen) != 15 {
		t.Fatalf("received %d distinct messages, want 15", len(seen))
	}
	qExpectCounts(t, c, u, 0, 15, 0)
	if msgs := qReceive(t, c, &sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(u)}); len(msgs) != 0 {
		t.Fatalf("received %d while all in flight", len(msgs))
	}

	// Bad parameters.
	for _, in := range []*sqsv1.ReceiveMessageInput{
		{QueueUrl: awsv1.String(u), MaxNumberOfMessages: awsv1.Int64(11)},
		{QueueUrl: awsv1.String(u), MaxNumberOfMessages: awsv1.Int64(0)},
		{QueueUrl: awsv1.String(u), VisibilityTimeout: awsv1.Int64(43201)},
		{QueueUrl: awsv1.String(u), WaitTimeSeconds: awsv1.Int64(21)},
		{QueueUrl: awsv1.String(u), WaitTimeSeconds: awsv1.Int64(-1)},
	} {
		_, err := c.ReceiveMessage(in)
		qExpectErr(t, err, "InvalidParameterValue", 400)
	}
	_, err := c.ReceiveMessage(&sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(u + "-missing")})
	qExpectErr(t, err, "AWS.SimpleQueueService.NonExistentQueue", 400)
	_ = srv
}

func TestQueryReceiveVisibilityAndRedelivery(t *testing.T) {
	srv, c := qStart(t, server.Config{})
	u := qCreate(t, c, "redeliver", nil) // VisibilityTimeout 30
	sent := qSend(t, c, u, "again")
	sentAt := srv.Clock.Now().UnixMilli()

	srv.Clock.Advance(2 * time.Second)
	firstAt := srv.Clock.Now().UnixMilli()
	m1 := qReceive(t, c, &sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(u), VisibilityTimeout: awsv1.Int64(5),
		AttributeNames: awsv1.StringSlice([]string{"All"})})
	if len(m1) != 1 {
		t.Fatalf("first receive got %d", len(m1))
	}
	a := awsv1.StringValueMap(m1[0].Attributes)
	want := map[string]string{
		"ApproximateReceiveCount":          "1",
		"SentTimestamp":                    strconv.FormatInt(sentAt, 10),
		"ApproximateFirstReceiveTimestamp": strconv.FormatInt(firstAt, 10),
		"SenderId":                         "000000000000",
	}
	for k, v := range want {
		if a[k] != v {
			t.Errorf("attribute %s = %q, want %q (all: %v)", k, a[k], v, a)
		}
	}
	if awsv1.StringValue(m1[0].MessageId) != awsv1.StringValue(sent.MessageId) {
		t.Fatalf("MessageId %q, sent %q", awsv1.StringValue(m1[0].MessageId), awsv1.StringValue(sent.MessageId))
	}

	// The receive's VisibilityTimeout (5 s) applies, not the queue's 30 s.
	srv.Clock.Advance(4 * time.Second)
	if msgs := qReceive(t, c, &sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(u)}); len(msgs) != 0 {
		t.Fatal("message visible before its visibility timeout ended")
	}
	srv.Clock.Advance(time.Second)
	m2 := qReceive(t, c, &sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(u),
		AttributeNames: awsv1.StringSlice([]string{"ApproximateReceiveCount", "ApproximateFirstReceiveTimestamp"})})
	if len(m2) != 1 {
		t.Fatalf("redelivery got %d", len(m2))
	}
	a2 := awsv1.StringValueMap(m2[0].Attributes)
	if len(a2) != 2 || a2["ApproximateReceiveCount"] != "2" || a2["ApproximateFirstReceiveTimestamp"] != strconv.FormatInt(firstAt, 10) {
		t.Fatalf("redelivery attributes = %v", a2)
	}
	if awsv1.StringValue(m2[0].ReceiptHandle) == awsv1.StringValue(m1[0].ReceiptHandle) {
		t.Fatal("redelivery reused the receipt handle")
	}

	// VisibilityTimeout 0 on a receive leaves the message visible.
	m3 := qReceive(t, c, &sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(u)})
	if len(m3) != 0 {
		t.Fatal("message visible during the queue's 30 s timeout")
	}
	srv.Clock.Advance(30 * time.Second)
	z := qReceive(t, c, &sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(u), VisibilityTimeout: awsv1.Int64(0)})
	if len(z) != 1 {
		t.Fatalf("receive got %d", len(z))
	}
	z2 := qReceive(t, c, &sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(u), VisibilityTimeout: awsv1.Int64(0),
		AttributeNames: awsv1.StringSlice([]string{"ApproximateReceiveCount"})})
	if len(z2) != 1 || awsv1.StringValue(z2[0].Attributes["ApproximateReceiveCount"]) != "4" {
		t.Fatalf("receive after a 0 s lease = %v", z2)
	}
}

func TestQueryReceiveMessageAttributeSelection(t *testing.T) {
	_, c := qStart(t, server.Config{})
	u := qCreate(t, c, "select", nil)
	attrs := map[string]*sqsv1.MessageAttributeValue{
		"foo.a": qStrAttr("String", "1"),
		"foo.b": qStrAttr("Number", "2"),
		"foob":  qStrAttr("String", "under the prefix foo, as SQS reads foo.*"),
		"bar":   qBinAttr("Binary", []byte{9, 8, 7}),
	}
	if _, err := c.SendMessage(&sqsv1.SendMessageInput{QueueUrl: awsv1.String(u), MessageBody: awsv1.String("sel"), MessageAttributes: attrs}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		names []string
		want  []string
	}{
		{nil, nil},
		{[]string{"All"}, []string{"bar", "foo.a", "foo.b", "foob"}},
		{[]string{".*"}, []string{"bar", "foo.a", "foo.b", "foob"}},
		{[]string{"bar"}, []string{"bar"}},
		// "foo.*" is the prefix "foo", dot or not: AWS answers "Hel.*" with
		// Hello and Help.Me (localstack/localstack test_sqs.snapshot.json,
		// test_receive_message_message_attribute_names_filters[sqs_query]).
		{[]string{"foo.*"}, []string{"foo.a", "foo.b", "foob"}},
		{[]string{"*"}, []string{"bar", "foo.a", "foo.b", "foob"}},
		{[]string{"foo.a", "bar"}, []string{"bar", "foo.a"}},
		{[]string{"nothing"}, nil},
	}
	for _, tc := range cases {
		msgs := qReceive(t, c, &sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(u), VisibilityTimeout: awsv1.Int64(0),
			MessageAttributeNames: awsv1.StringSlice(tc.names)})
		if len(msgs) != 1 {
			t.Fatalf("%v: received %d", tc.names, len(msgs))
		}
		m := msgs[0]
		var got []string
		sel := map[string]*sqsv1.MessageAttributeValue{}
		for k := range m.MessageAttributes {
			got = append(got, k)
			sel[k] = attrs[k]
		}
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("MessageAttributeNames %v returned %v, want %v", tc.names, got, tc.want)
			continue
		}
		if len(tc.want) == 0 {
			if m.MD5OfMessageAttributes != nil {
				t.Errorf("%v: MD5OfMessageAttributes %q with no attributes returned", tc.names, *m.MD5OfMessageAttributes)
			}
			continue
		}
		if want := qMD5OfAttributes(sel); awsv1.StringValue(m.MD5OfMessageAttributes) != want {
			t.Errorf("%v: MD5OfMessageAttributes = %q, want %q (of the returned attributes)", tc.names, awsv1.StringValue(m.MD5OfMessageAttributes), want)
		}
	}

	// System attributes: specific names return only those.
	msgs := qReceive(t, c, &sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(u), VisibilityTimeout: awsv1.Int64(0),
		AttributeNames: awsv1.StringSlice([]string{"SentTimestamp", "SenderId"})})
	if len(msgs) != 1 {
		t.Fatalf("received %d", len(msgs))
	}
	if a := awsv1.StringValueMap(msgs[0].Attributes); len(a) != 2 || a["SentTimestamp"] == "" || a["SenderId"] == "" {
		t.Fatalf("system attributes = %v", a)
	}
}

func TestQueryReceiveLongPoll(t *testing.T) {
	srv, c := qStart(t, server.Config{})
	u := qCreate(t, c, "longpoll", nil)

	type result struct {
		msgs []*sqsv1.Message
		err  error
	}
	poll := func() chan result {
		ch := make(chan result, 1)
		go func() {
			out, err := c.ReceiveMessage(&sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(u), WaitTimeSeconds: awsv1.Int64(20)})
			if err != nil {
				ch <- result{err: err}
				return
			}
			ch <- result{msgs: out.Messages}
		}()
		return ch
	}
	wait := func(ch chan result) result {
		t.Helper()
		select {
		case r := <-ch:
			return r
		case <-time.After(10 * time.Second):
			t.Fatal("long poll did not return")
			return result{}
		}
	}

	// A concurrent send answers a waiting long poll.
	ch := poll()
	waitForWaiters(t, srv.Clock, 2) // the engine's sweeper plus the poll
	select {
	case r := <-ch:
		t.Fatalf("long poll returned before any send: %+v", r)
	default:
	}
	qSend(t, c, u, "wake up")
	r := wait(ch)
	if r.err != nil || len(r.msgs) != 1 || awsv1.StringValue(r.msgs[0].Body) != "wake up" {
		t.Fatalf("long poll answered with %+v", r)
	}

	// With nothing sent it ends empty when its 20 s pass.
	ch = poll()
	waitForWaiters(t, srv.Clock, 2)
	srv.Clock.Advance(19 * time.Second)
	select {
	case r := <-ch:
		t.Fatalf("long poll ended after 19 s: %+v", r)
	case <-time.After(50 * time.Millisecond):
	}
	srv.Clock.Advance(time.Second)
	r = wait(ch)
	if r.err != nil || len(r.msgs) != 0 {
		t.Fatalf("expired long poll = %+v", r)
	}

	// The queue's ReceiveMessageWaitTimeSeconds applies when the call
	// names no wait; a message becoming visible again answers it too.
	if _, err := c.SetQueueAttributes(&sqsv1.SetQueueAttributesInput{QueueUrl: awsv1.String(u),
		Attributes: awsv1.StringMap(map[string]string{"ReceiveMessageWaitTimeSeconds": "20"})}); err != nil {
		t.Fatal(err)
	}
	ch2 := make(chan result, 1)
	go func() {
		out, err := c.ReceiveMessage(&sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(u)})
		if err != nil {
			ch2 <- result{err: err}
			return
		}
		ch2 <- result{msgs: out.Messages}
	}()
	waitForWaiters(t, srv.Clock, 2)
	srv.Clock.Advance(11 * time.Second) // the "wake up" message's 30 s lease ends
	r = wait(ch2)
	if r.err != nil || len(r.msgs) != 1 || awsv1.StringValue(r.msgs[0].Body) != "wake up" {
		t.Fatalf("queue-default long poll answered with %+v", r)
	}
}

func TestQueryDeadLetterRedrive(t *testing.T) {
	srv, c := qStart(t, server.Config{})
	dlq := qCreate(t, c, "orders-dlq", nil)
	src := qCreate(t, c, "orders-main", map[string]string{
		"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:orders-dlq","maxReceiveCount":"2"}`,
	})
	sent, err := c.SendMessage(&sqsv1.SendMessageInput{QueueUrl: awsv1.String(src), MessageBody: awsv1.String("poison"),
		MessageAttributes: map[string]*sqsv1.MessageAttributeValue{"kind": qStrAttr("String", "bad")}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 2; i++ {
		m := qReceiveOne(t, c, src)
		if got := awsv1.StringValue(m.Attributes["ApproximateReceiveCount"]); got != strconv.Itoa(i) {
			t.Fatalf("receive %d: ApproximateReceiveCount = %s", i, got)
		}
		srv.Clock.Advance(31 * time.Second)
	}
	// The receive that finds the count at maxReceiveCount moves the message.
	if msgs := qReceive(t, c, &sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(src)}); len(msgs) != 0 {
		t.Fatalf("message received a third time instead of dead-lettered: %v", msgs)
	}
	qExpectCounts(t, c, src, 0, 0, 0)
	qExpectCounts(t, c, dlq, 1, 0, 0)
	msgs := qReceive(t, c, &sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(dlq), AttributeNames: awsv1.StringSlice([]string{"All"}),
		MessageAttributeNames: awsv1.StringSlice([]string{"All"})})
	if len(msgs) != 1 {
		t.Fatalf("DLQ received %d", len(msgs))
	}
	m := msgs[0]
	if awsv1.StringValue(m.Body) != "poison" || awsv1.StringValue(m.MessageId) != awsv1.StringValue(sent.MessageId) {
		t.Fatalf("DLQ message = %v", m)
	}
	if got := awsv1.StringValue(m.Attributes["DeadLetterQueueSourceArn"]); got != "arn:aws:sqs:us-east-1:000000000000:orders-main" {
		t.Fatalf("DeadLetterQueueSourceArn = %q", got)
	}
	if awsv1.StringValue(m.MessageAttributes["kind"].StringValue) != "bad" {
		t.Fatalf("message attributes lost: %v", m.MessageAttributes)
	}
	if _, err := c.DeleteMessage(&sqsv1.DeleteMessageInput{QueueUrl: awsv1.String(dlq), ReceiptHandle: m.ReceiptHandle}); err != nil {
		t.Fatal(err)
	}
	qExpectCounts(t, c, dlq, 0, 0, 0)
}

// ---------------------------------------------------------------------------
// Raw HTTP

type qXMLError struct {
	XMLName xml.Name `xml:"ErrorResponse"`
	Error   struct {
		Type    string `xml:"Type"`
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	} `xml:"Error"`
	RequestID string `xml:"RequestId"`
}

// qRaw sends a query-protocol request and returns status, header and body.
func qRaw(t *testing.T, method, target string, form url.Values) (*http.Response, []byte) {
	t.Helper()
	var req *http.Request
	var err error
	if method == http.MethodGet {
		if form != nil {
			target += "?" + form.Encode()
		}
		req, err = http.NewRequest(method, target, nil)
	} else {
		req, err = http.NewRequest(method, target, strings.NewReader(form.Encode()))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("x-amzn-RequestId") == "" {
		t.Fatalf("%s %s: no x-amzn-RequestId header (status %d)", method, target, resp.StatusCode)
	}
	return resp, body
}

// qRawError checks an XML error document.
func qRawError(t *testing.T, resp *http.Response, body []byte, status int, code string) qXMLError {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d: %s", resp.StatusCode, status, body)
	}
	var e qXMLError
	if err := xml.Unmarshal(body, &e); err != nil {
		t.Fatalf("error body is not an ErrorResponse: %v\n%s", err, body)
	}
	if e.Error.Code != code || e.Error.Type != "Sender" || e.Error.Message == "" {
		t.Fatalf("error = %+v, want code %s, type Sender, a message\n%s", e, code, body)
	}
	if e.RequestID == "" || e.RequestID != resp.Header.Get("x-amzn-RequestId") {
		t.Fatalf("RequestId %q, header %q", e.RequestID, resp.Header.Get("x-amzn-RequestId"))
	}
	if e.XMLName.Space != "http://queue.amazonaws.com/doc/2012-11-05/" || !bytes.Contains(body, []byte("<Detail")) {
		t.Fatalf("ErrorResponse namespace %q or Detail element missing:\n%s", e.XMLName.Space, body)
	}
	if !strings.Contains(resp.Header.Get("Content-Type"), "xml") {
		t.Fatalf("Content-Type %q", resp.Header.Get("Content-Type"))
	}
	return e
}

func TestQueryRawHTTP(t *testing.T) {
	srv, c := qStart(t, server.Config{})
	u := qCreate(t, c, "raw", nil)
	base := srv.URL()

	// GET with the parameters in the query string.
	resp, body := qRaw(t, http.MethodGet, base+"/", url.Values{"Action": {"ListQueues"}, "Version": {"2012-11-05"}})
	if resp.StatusCode != 200 {
		t.Fatalf("GET ListQueues: %d %s", resp.StatusCode, body)
	}
	var list struct {
		XMLName   xml.Name `xml:"http://queue.amazonaws.com/doc/2012-11-05/ ListQueuesResponse"`
		QueueUrls []string `xml:"ListQueuesResult>QueueUrl"`
		RequestID string   `xml:"ResponseMetadata>RequestId"`
	}
	if err := xml.Unmarshal(body, &list); err != nil {
		t.Fatalf("ListQueues response: %v\n%s", err, body)
	}
	if len(list.QueueUrls) != 1 || list.QueueUrls[0] != u {
		t.Fatalf("ListQueues = %v, want [%s]", list.QueueUrls, u)
	}
	if list.RequestID == "" || list.RequestID != resp.Header.Get("x-amzn-RequestId") {
		t.Fatalf("RequestId %q, header %q", list.RequestID, resp.Header.Get("x-amzn-RequestId"))
	}

	// POST to the queue's own path without QueueUrl.
	resp, body = qRaw(t, http.MethodPost, base+"/000000000000/raw", url.Values{"Action": {"SendMessage"}, "MessageBody": {"x"}})
	if resp.StatusCode != 200 {
		t.Fatalf("SendMessage to the queue path: %d %s", resp.StatusCode, body)
	}
	var sent struct {
		MessageID string `xml:"SendMessageResult>MessageId"`
		MD5       string `xml:"SendMessageResult>MD5OfMessageBody"`
	}
	if err := xml.Unmarshal(body, &sent); err != nil || sent.MessageID == "" || sent.MD5 != refMD5("x") {
		t.Fatalf("SendMessage response %+v (%v):\n%s", sent, err, body)
	}
	// GET to the queue path works too.
	resp, body = qRaw(t, http.MethodGet, base+"/000000000000/raw", url.Values{"Action": {"GetQueueAttributes"}, "AttributeName.1": {"ApproximateNumberOfMessages"}})
	if resp.StatusCode != 200 || !strings.Contains(string(body), "<Name>ApproximateNumberOfMessages</Name><Value>1</Value>") {
		t.Fatalf("GetQueueAttributes on the queue path: %d %s", resp.StatusCode, body)
	}
	m := qReceiveOne(t, c, u)
	if awsv1.StringValue(m.Body) != "x" || awsv1.StringValue(m.MessageId) != sent.MessageID {
		t.Fatalf("received %v", m)
	}

	// A receive answer in XML escapes what needs escaping, in the forms SQS
	// uses: entities for quotes, newlines and tabs as they are, &#xD; for a
	// carriage return (a parser would read a raw one as a newline).
	const special = "a\"b'c<d>e&f\rg\nh\ti&#34;j"
	qSend(t, c, u, special)
	resp, body = qRaw(t, http.MethodPost, base+"/", url.Values{"Action": {"ReceiveMessage"}, "QueueUrl": {u}})
	if resp.StatusCode != 200 {
		t.Fatalf("ReceiveMessage: %d %s", resp.StatusCode, body)
	}
	var recv struct {
		Body string `xml:"ReceiveMessageResult>Message>Body"`
	}
	if err := xml.Unmarshal(body, &recv); err != nil || recv.Body != special {
		t.Fatalf("raw receive body %q (%v):\n%s", recv.Body, err, body)
	}
	if want := "<Body>a&quot;b&apos;c&lt;d&gt;e&amp;f&#xD;g\nh\ti&amp;#34;j</Body>"; !bytes.Contains(body, []byte(want)) {
		t.Fatalf("receive answer does not hold %q:\n%q", want, body)
	}
	qSend(t, c, u, special)
	if m := qReceiveOne(t, c, u); awsv1.StringValue(m.Body) != special {
		t.Fatalf("aws-sdk-go read the body as %q", awsv1.StringValue(m.Body))
	}

	// An empty receive is an empty result.
	resp, body = qRaw(t, http.MethodPost, base+"/", url.Values{"Action": {"ReceiveMessage"}, "QueueUrl": {u}})
	if resp.StatusCode != 200 || strings.Contains(string(body), "<Message>") {
		t.Fatalf("empty receive: %d %s", resp.StatusCode, body)
	}

	// Missing and unknown actions.
	resp, body = qRaw(t, http.MethodPost, base+"/", url.Values{"QueueName": {"q"}})
	qRawError(t, resp, body, 400, "MissingAction")
	resp, body = qRaw(t, http.MethodGet, base+"/", nil)
	qRawError(t, resp, body, 400, "MissingAction")
	resp, body = qRaw(t, http.MethodPost, base+"/", url.Values{"Action": {"LaunchRocket"}})
	qRawError(t, resp, body, 400, "InvalidAction")

	// A missing queue, in the query protocol's words.
	resp, body = qRaw(t, http.MethodPost, base+"/", url.Values{"Action": {"GetQueueAttributes"}, "QueueUrl": {base + "/000000000000/ghost"}})
	e := qRawError(t, resp, body, 400, "AWS.SimpleQueueService.NonExistentQueue")
	if e.Error.Message != "The specified queue does not exist for this wsdl version." {
		t.Fatalf("message = %q", e.Error.Message)
	}
	resp, body = qRaw(t, http.MethodPost, base+"/000000000000/ghost", url.Values{"Action": {"SendMessage"}, "MessageBody": {"x"}})
	qRawError(t, resp, body, 400, "AWS.SimpleQueueService.NonExistentQueue")

	// Missing parameters.
	resp, body = qRaw(t, http.MethodPost, base+"/", url.Values{"Action": {"CreateQueue"}})
	qRawError(t, resp, body, 400, "MissingParameter")
	resp, body = qRaw(t, http.MethodPost, base+"/", url.Values{"Action": {"SendMessage"}, "MessageBody": {"x"}})
	qRawError(t, resp, body, 400, "MissingParameter")
	resp, body = qRaw(t, http.MethodPost, base+"/", url.Values{"Action": {"SendMessage"}, "QueueUrl": {u}})
	qRawError(t, resp, body, 400, "MissingParameter")
	resp, body = qRaw(t, http.MethodPost, base+"/", url.Values{"Action": {"ChangeMessageVisibility"}, "QueueUrl": {u}, "ReceiptHandle": {"h"}})
	qRawError(t, resp, body, 400, "MissingParameter")
	// A malformed number.
	resp, body = qRaw(t, http.MethodPost, base+"/", url.Values{"Action": {"ReceiveMessage"}, "QueueUrl": {u}, "MaxNumberOfMessages": {"many"}})
	qRawError(t, resp, body, 400, "InvalidParameterValue")

	// A success also carries the request id header and the namespace.
	resp, body = qRaw(t, http.MethodPost, base+"/", url.Values{"Action": {"GetQueueUrl"}, "QueueName": {"raw"}})
	if resp.StatusCode != 200 || !strings.Contains(string(body), `xmlns="http://queue.amazonaws.com/doc/2012-11-05/"`) ||
		!strings.Contains(string(body), "<QueueUrl>"+u+"</QueueUrl>") {
		t.Fatalf("GetQueueUrl: %d %s", resp.StatusCode, body)
	}
}
