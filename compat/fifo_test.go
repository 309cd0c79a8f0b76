package compat

// FIFO queues and fair queues through real SDKs: the same scenarios run
// through aws-sdk-go-v2 (JSON protocol) and aws-sdk-go v1.46.7 (query
// protocol), each against its own server on a manual clock.
//
// Helpers here are prefixed with "fq" to keep clear of the names other test
// files in this package use.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"testing"
	"time"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	awsv1 "github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/awserr"
	sqsv1 "github.com/aws/aws-sdk-go/service/sqs"
	"github.com/aws/smithy-go"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/server"
)

// fqMsg is one message to send.
type fqMsg struct {
	id, body, group, dedup string
	delay                  *int
}

// fqSent is a send's answer; id is the batch entry id.
type fqSent struct {
	id, messageID, sequenceNumber, md5 string
}

type fqFailed struct {
	id, code    string
	senderFault bool
}

type fqRecv struct {
	max       int
	attemptID string
	// sysNames go in MessageSystemAttributeNames, or in the deprecated
	// AttributeNames when legacy is set (the query protocol has only that).
	sysNames []string
	legacy   bool
}

type fqGot struct {
	messageID, body, handle string
	attrs                   map[string]string
}

// fqAPI is what the scenarios need from an SDK.
type fqAPI interface {
	createQueue(name string, attrs map[string]string) (string, error)
	setAttrs(url string, attrs map[string]string) error
	attrs(url string) (map[string]string, error)
	send(url string, m fqMsg) (fqSent, error)
	sendBatch(url string, ms []fqMsg) ([]fqSent, []fqFailed, error)
	receive(url string, r fqRecv) ([]fqGot, error)
	del(url, handle string) error
	changeVis(url, handle string, secs int) error
	// errInfo gives a failed call's error code and HTTP status.
	errInfo(err error) (code string, status int, ok bool)
}

// aws-sdk-go-v2, JSON protocol.
type fqJSON struct {
	c   *sqsv2.Client
	ctx context.Context
}

func fqOpt(s string) *string {
	if s == "" {
		return nil
	}
	return awsv2.String(s)
}

func fqInt32(p *int) int32 {
	if p == nil {
		return 0
	}
	return int32(*p)
}

func (j fqJSON) createQueue(name string, attrs map[string]string) (string, error) {
	out, err := j.c.CreateQueue(j.ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String(name), Attributes: attrs})
	if err != nil {
		return "", err
	}
	return awsv2.ToString(out.QueueUrl), nil
}

func (j fqJSON) setAttrs(url string, attrs map[string]string) error {
	_, err := j.c.SetQueueAttributes(j.ctx, &sqsv2.SetQueueAttributesInput{QueueUrl: awsv2.String(url), Attributes: attrs})
	return err
}

func (j fqJSON) attrs(url string) (map[string]string, error) {
	out, err := j.c.GetQueueAttributes(j.ctx, &sqsv2.GetQueueAttributesInput{QueueUrl: awsv2.String(url), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll}})
	if err != nil {
		return nil, err
	}
	return out.Attributes, nil
}

func (j fqJSON) send(url string, m fqMsg) (fqSent, error) {
	out, err := j.c.SendMessage(j.ctx, &sqsv2.SendMessageInput{
		QueueUrl: awsv2.String(url), MessageBody: awsv2.String(m.body),
		MessageGroupId: fqOpt(m.group), MessageDeduplicationId: fqOpt(m.dedup), DelaySeconds: fqInt32(m.delay),
	})
	if err != nil {
		return fqSent{}, err
	}
	return fqSent{messageID: awsv2.ToString(out.MessageId), sequenceNumber: awsv2.ToString(out.SequenceNumber), md5: awsv2.ToString(out.MD5OfMessageBody)}, nil
}

func (j fqJSON) sendBatch(url string, ms []fqMsg) ([]fqSent, []fqFailed, error) {
	in := &sqsv2.SendMessageBatchInput{QueueUrl: awsv2.String(url)}
	for _, m := range ms {
		in.Entries = append(in.Entries, types.SendMessageBatchRequestEntry{
			Id: awsv2.String(m.id), MessageBody: awsv2.String(m.body),
			MessageGroupId: fqOpt(m.group), MessageDeduplicationId: fqOpt(m.dedup), DelaySeconds: fqInt32(m.delay),
		})
	}
	out, err := j.c.SendMessageBatch(j.ctx, in)
	if err != nil {
		return nil, nil, err
	}
	var ok []fqSent
	for _, s := range out.Successful {
		ok = append(ok, fqSent{id: awsv2.ToString(s.Id), messageID: awsv2.ToString(s.MessageId), sequenceNumber: awsv2.ToString(s.SequenceNumber), md5: awsv2.ToString(s.MD5OfMessageBody)})
	}
	var failed []fqFailed
	for _, f := range out.Failed {
		failed = append(failed, fqFailed{id: awsv2.ToString(f.Id), code: awsv2.ToString(f.Code), senderFault: f.SenderFault})
	}
	return ok, failed, nil
}

func (j fqJSON) receive(url string, r fqRecv) ([]fqGot, error) {
	in := &sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(url), MaxNumberOfMessages: int32(r.max), ReceiveRequestAttemptId: fqOpt(r.attemptID)}
	for _, n := range r.sysNames {
		if r.legacy {
			in.AttributeNames = append(in.AttributeNames, types.QueueAttributeName(n))
		} else {
			in.MessageSystemAttributeNames = append(in.MessageSystemAttributeNames, types.MessageSystemAttributeName(n))
		}
	}
	out, err := j.c.ReceiveMessage(j.ctx, in)
	if err != nil {
		return nil, err
	}
	var got []fqGot
	for _, m := range out.Messages {
		got = append(got, fqGot{messageID: awsv2.ToString(m.MessageId), body: awsv2.ToString(m.Body), handle: awsv2.ToString(m.ReceiptHandle), attrs: m.Attributes})
	}
	return got, nil
}

func (j fqJSON) del(url, handle string) error {
	_, err := j.c.DeleteMessage(j.ctx, &sqsv2.DeleteMessageInput{QueueUrl: awsv2.String(url), ReceiptHandle: awsv2.String(handle)})
	return err
}

func (j fqJSON) changeVis(url, handle string, secs int) error {
	_, err := j.c.ChangeMessageVisibility(j.ctx, &sqsv2.ChangeMessageVisibilityInput{QueueUrl: awsv2.String(url), ReceiptHandle: awsv2.String(handle), VisibilityTimeout: int32(secs)})
	return err
}

func (fqJSON) errInfo(err error) (string, int, bool) {
	var api smithy.APIError
	var re *awshttp.ResponseError
	if !errors.As(err, &api) || !errors.As(err, &re) {
		return "", 0, false
	}
	return api.ErrorCode(), re.HTTPStatusCode(), true
}

// aws-sdk-go v1.46.7, query protocol.
type fqQuery struct{ c *sqsv1.SQS }

func fqOpt1(s string) *string {
	if s == "" {
		return nil
	}
	return awsv1.String(s)
}

func fqInt64(p *int) *int64 {
	if p == nil {
		return nil
	}
	return awsv1.Int64(int64(*p))
}

func (q fqQuery) createQueue(name string, attrs map[string]string) (string, error) {
	out, err := q.c.CreateQueue(&sqsv1.CreateQueueInput{QueueName: awsv1.String(name), Attributes: awsv1.StringMap(attrs)})
	if err != nil {
		return "", err
	}
	return awsv1.StringValue(out.QueueUrl), nil
}

func (q fqQuery) setAttrs(url string, attrs map[string]string) error {
	_, err := q.c.SetQueueAttributes(&sqsv1.SetQueueAttributesInput{QueueUrl: awsv1.String(url), Attributes: awsv1.StringMap(attrs)})
	return err
}

func (q fqQuery) attrs(url string) (map[string]string, error) {
	out, err := q.c.GetQueueAttributes(&sqsv1.GetQueueAttributesInput{QueueUrl: awsv1.String(url), AttributeNames: awsv1.StringSlice([]string{"All"})})
	if err != nil {
		return nil, err
	}
	return awsv1.StringValueMap(out.Attributes), nil
}

func (q fqQuery) send(url string, m fqMsg) (fqSent, error) {
	out, err := q.c.SendMessage(&sqsv1.SendMessageInput{
		QueueUrl: awsv1.String(url), MessageBody: awsv1.String(m.body),
		MessageGroupId: fqOpt1(m.group), MessageDeduplicationId: fqOpt1(m.dedup), DelaySeconds: fqInt64(m.delay),
	})
	if err != nil {
		return fqSent{}, err
	}
	return fqSent{messageID: awsv1.StringValue(out.MessageId), sequenceNumber: awsv1.StringValue(out.SequenceNumber), md5: awsv1.StringValue(out.MD5OfMessageBody)}, nil
}

func (q fqQuery) sendBatch(url string, ms []fqMsg) ([]fqSent, []fqFailed, error) {
	in := &sqsv1.SendMessageBatchInput{QueueUrl: awsv1.String(url)}
	for _, m := range ms {
		in.Entries = append(in.Entries, &sqsv1.SendMessageBatchRequestEntry{
			Id: awsv1.String(m.id), MessageBody: awsv1.String(m.body),
			MessageGroupId: fqOpt1(m.group), MessageDeduplicationId: fqOpt1(m.dedup), DelaySeconds: fqInt64(m.delay),
		})
	}
	out, err := q.c.SendMessageBatch(in)
	if err != nil {
		return nil, nil, err
	}
	var ok []fqSent
	for _, s := range out.Successful {
		ok = append(ok, fqSent{id: awsv1.StringValue(s.Id), messageID: awsv1.StringValue(s.MessageId), sequenceNumber: awsv1.StringValue(s.SequenceNumber), md5: awsv1.StringValue(s.MD5OfMessageBody)})
	}
	var failed []fqFailed
	for _, f := range out.Failed {
		failed = append(failed, fqFailed{id: awsv1.StringValue(f.Id), code: awsv1.StringValue(f.Code), senderFault: awsv1.BoolValue(f.SenderFault)})
	}
	return ok, failed, nil
}

func (q fqQuery) receive(url string, r fqRecv) ([]fqGot, error) {
	in := &sqsv1.ReceiveMessageInput{QueueUrl: awsv1.String(url), MaxNumberOfMessages: awsv1.Int64(int64(r.max)), ReceiveRequestAttemptId: fqOpt1(r.attemptID)}
	if len(r.sysNames) > 0 {
		in.AttributeNames = awsv1.StringSlice(r.sysNames)
	}
	out, err := q.c.ReceiveMessage(in)
	if err != nil {
		return nil, err
	}
	var got []fqGot
	for _, m := range out.Messages {
		got = append(got, fqGot{messageID: awsv1.StringValue(m.MessageId), body: awsv1.StringValue(m.Body), handle: awsv1.StringValue(m.ReceiptHandle), attrs: awsv1.StringValueMap(m.Attributes)})
	}
	return got, nil
}

func (q fqQuery) del(url, handle string) error {
	_, err := q.c.DeleteMessage(&sqsv1.DeleteMessageInput{QueueUrl: awsv1.String(url), ReceiptHandle: awsv1.String(handle)})
	return err
}

func (q fqQuery) changeVis(url, handle string, secs int) error {
	_, err := q.c.ChangeMessageVisibility(&sqsv1.ChangeMessageVisibilityInput{QueueUrl: awsv1.String(url), ReceiptHandle: awsv1.String(handle), VisibilityTimeout: awsv1.Int64(int64(secs))})
	return err
}

func (fqQuery) errInfo(err error) (string, int, bool) {
	var rf awserr.RequestFailure
	if !errors.As(err, &rf) {
		return "", 0, false
	}
	return rf.Code(), rf.StatusCode(), true
}

// fqEnv is one scenario's server and client.
type fqEnv struct {
	t     *testing.T
	api   fqAPI
	clock *engine.ManualClock
	query bool
}

type fqProtocol struct {
	name   string
	client func(t *testing.T, endpoint string) fqAPI
}

var fqProtocols = []fqProtocol{
	{"json", func(t *testing.T, endpoint string) fqAPI {
		return fqJSON{c: jsonClient(t, endpoint), ctx: context.Background()}
	}},
	{"query", func(t *testing.T, endpoint string) fqAPI { return fqQuery{c: queryClient(t, endpoint)} }},
}

// fqRun runs scenario once per protocol, each on a fresh server.
func fqRun(t *testing.T, scenario func(e *fqEnv)) {
	for _, p := range fqProtocols {
		t.Run(p.name, func(t *testing.T) {
			srv := startServer(t, server.Config{SkipCooldowns: true})
			scenario(&fqEnv{t: t, api: p.client(t, srv.URL()), clock: srv.Clock, query: p.name == "query"})
		})
	}
}

func (e *fqEnv) create(name string, attrs map[string]string) string {
	e.t.Helper()
	url, err := e.api.createQueue(name, attrs)
	if err != nil {
		e.t.Fatalf("CreateQueue %s: %v", name, err)
	}
	return url
}

// createFIFO creates a FIFO queue with content-based deduplication off
// unless attrs say otherwise.
func (e *fqEnv) createFIFO(name string, attrs map[string]string) string {
	e.t.Helper()
	all := map[string]string{"FifoQueue": "true"}
	for k, v := range attrs {
		all[k] = v
	}
	return e.create(name, all)
}

func (e *fqEnv) attrs(url string) map[string]string {
	e.t.Helper()
	a, err := e.api.attrs(url)
	if err != nil {
		e.t.Fatalf("GetQueueAttributes: %v", err)
	}
	return a
}

func (e *fqEnv) send(url string, m fqMsg) fqSent {
	e.t.Helper()
	r, err := e.api.send(url, m)
	if err != nil {
		e.t.Fatalf("SendMessage %q: %v", m.body, err)
	}
	return r
}

func (e *fqEnv) receive(url string, r fqRecv) []fqGot {
	e.t.Helper()
	got, err := e.api.receive(url, r)
	if err != nil {
		e.t.Fatalf("ReceiveMessage: %v", err)
	}
	return got
}

func (e *fqEnv) receiveNone(url string) {
	e.t.Helper()
	if got := e.receive(url, fqRecv{max: 10}); len(got) != 0 {
		e.t.Fatalf("received %q, want nothing", fqBodies(got))
	}
}

func (e *fqEnv) del(url, handle string) {
	e.t.Helper()
	if err := e.api.del(url, handle); err != nil {
		e.t.Fatalf("DeleteMessage: %v", err)
	}
}

// wantErr wants err to carry code with HTTP 400.
func (e *fqEnv) wantErr(err error, code string) {
	e.t.Helper()
	if err == nil {
		e.t.Fatalf("want %s, got success", code)
	}
	got, status, ok := e.api.errInfo(err)
	if !ok {
		e.t.Fatalf("want %s, got %T: %v", code, err, err)
	}
	if got != code || status != 400 {
		e.t.Fatalf("error %s (HTTP %d), want %s (HTTP 400): %v", got, status, code, err)
	}
}

// visible returns ApproximateNumberOfMessages.
func (e *fqEnv) visible(url string) int {
	e.t.Helper()
	n, err := strconv.Atoi(e.attrs(url)["ApproximateNumberOfMessages"])
	if err != nil {
		e.t.Fatalf("ApproximateNumberOfMessages: %v", err)
	}
	return n
}

func fqBodies(got []fqGot) []string {
	out := make([]string, len(got))
	for i, g := range got {
		out[i] = g.body
	}
	return out
}

func fqHandles(got []fqGot) []string {
	out := make([]string, len(got))
	for i, g := range got {
		out[i] = g.handle
	}
	return out
}

// fqByGroup splits bodies by their MessageGroupId attribute, keeping order.
func fqByGroup(t *testing.T, got []fqGot) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, g := range got {
		id, ok := g.attrs["MessageGroupId"]
		if !ok {
			t.Fatalf("message %q has no MessageGroupId attribute: %v", g.body, g.attrs)
		}
		out[id] = append(out[id], g.body)
	}
	return out
}

func fqSeq(t *testing.T, s string) *big.Int {
	t.Helper()
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || n.Sign() <= 0 {
		t.Fatalf("SequenceNumber %q is not a positive decimal number", s)
	}
	return n
}

var fqFIFONames = []string{"MessageGroupId", "MessageDeduplicationId", "SequenceNumber"}

func TestFIFOCompatQueueAttributes(t *testing.T) {
	fqRun(t, func(e *fqEnv) {
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
		_, err := e.api.createQueue("bad.fifo", map[string]string{"FifoQueue": "true", "FifoThroughputLimit": "perMessageGroupId"})
		e.wantErr(err, "InvalidAttributeValue")
		e.wantErr(e.api.setAttrs(high, map[string]string{"DeduplicationScope": "queue"}), "InvalidAttributeValue")

		// The type is fixed; FIFO names need the suffix.
		_, err = e.api.createQueue("plain", map[string]string{"FifoQueue": "true"})
		e.wantErr(err, "InvalidParameterValue")
		if err := e.api.setAttrs(url, map[string]string{"FifoQueue": "false"}); err == nil {
			e.t.Error("SetQueueAttributes changed a FIFO queue's type")
		}
		if a := e.attrs(url); a["FifoQueue"] != "true" {
			e.t.Errorf("FifoQueue = %q after a refused change", a["FifoQueue"])
		}
	})
}

func TestFIFOCompatSendAndReceiveOrder(t *testing.T) {
	fqRun(t, func(e *fqEnv) {
		url := e.createFIFO("orders.fifo", map[string]string{"ContentBasedDeduplication": "true"})
		var seqs []string
		first := e.send(url, fqMsg{body: "a1", group: "a"})
		if first.messageID == "" || first.md5 == "" {
			e.t.Fatalf("send answer %+v", first)
		}
		seqs = append(seqs, first.sequenceNumber)

		ok, failed, err := e.api.sendBatch(url, []fqMsg{
			{id: "e1", body: "b1", group: "b", dedup: "b1-id"},
			{id: "e2", body: "a2", group: "a"},
			{id: "e3", body: "b2", group: "b", dedup: "b2-id"},
			{id: "e4", body: "c1", group: "c"},
		})
		if err != nil || len(failed) != 0 || len(ok) != 4 {
			e.t.Fatalf("SendMessageBatch: ok %+v failed %+v err %v", ok, failed, err)
		}
		for i, s := range ok {
			if s.id != fmt.Sprintf("e%d", i+1) {
				e.t.Errorf("batch result %d has id %q", i, s.id)
			}
			seqs = append(seqs, s.sequenceNumber)
		}
		seqs = append(seqs, e.send(url, fqMsg{body: "a3", group: "a"}).sequenceNumber)
		for i := 1; i < len(seqs); i++ {
			if fqSeq(e.t, seqs[i]).Cmp(fqSeq(e.t, seqs[i-1])) <= 0 {
				e.t.Errorf("SequenceNumber %d %s not after %s", i, seqs[i], seqs[i-1])
			}
		}

		got := e.receive(url, fqRecv{max: 10, sysNames: fqFIFONames, legacy: e.query})
		groups := fqByGroup(e.t, got)
		for g, want := range map[string][]string{"a": {"a1", "a2", "a3"}, "b": {"b1", "b2"}, "c": {"c1"}} {
			if !slices.Equal(groups[g], want) {
				e.t.Errorf("group %s received %q, want %q (all %q)", g, groups[g], want, fqBodies(got))
			}
		}
		seqOf := map[string]string{"a1": seqs[0], "b1": seqs[1], "a2": seqs[2], "b2": seqs[3], "c1": seqs[4], "a3": seqs[5]}
		for _, m := range got {
			if m.attrs["SequenceNumber"] != seqOf[m.body] {
				e.t.Errorf("%s: SequenceNumber attribute %q, sent as %q", m.body, m.attrs["SequenceNumber"], seqOf[m.body])
			}
			dedup := m.attrs["MessageDeduplicationId"]
			switch m.body {
			case "b1", "b2":
				if dedup != m.body+"-id" {
					e.t.Errorf("%s: MessageDeduplicationId %q", m.body, dedup)
				}
			default:
				sum := sha256.Sum256([]byte(m.body))
				if dedup != hex.EncodeToString(sum[:]) {
					e.t.Errorf("%s: content-based MessageDeduplicationId %q", m.body, dedup)
				}
			}
		}
		// Every group is in flight.
		e.receiveNone(url)
		// Releasing a1 gives it back though a2 and a3, sent after it, are
		// still out, as AWS does (LocalStack's validated test_fifo_message_
		// group_visibility_after_terminate_visibility_timeout).
		byBody := map[string]fqGot{}
		for _, m := range got {
			byBody[m.body] = m
		}
		if err := e.api.changeVis(url, byBody["a1"].handle, 0); err != nil {
			e.t.Fatalf("ChangeMessageVisibility: %v", err)
		}
		again := e.receive(url, fqRecv{max: 10, sysNames: []string{"All"}})
		if len(again) != 1 || again[0].body != "a1" || again[0].attrs["ApproximateReceiveCount"] != "2" {
			e.t.Fatalf("redelivery got %q %v", fqBodies(again), again)
		}
		e.receiveNone(url)
	})
}

func TestFIFOCompatDeduplication(t *testing.T) {
	fqRun(t, func(e *fqEnv) {
		url := e.createFIFO("explicit.fifo", nil)
		first := e.send(url, fqMsg{body: "one", group: "g", dedup: "d1"})
		dup := e.send(url, fqMsg{body: "two", group: "g", dedup: "d1"})
		if dup.messageID != first.messageID || dup.sequenceNumber != first.sequenceNumber {
			e.t.Errorf("duplicate answered %+v, want the first %+v", dup, first)
		}
		if n := e.visible(url); n != 1 {
			e.t.Errorf("%d messages after a duplicate send", n)
		}
		// Deleting the message does not end the window.
		got := e.receive(url, fqRecv{max: 10})
		if len(got) != 1 || got[0].body != "one" || got[0].messageID != first.messageID {
			e.t.Fatalf("received %q", fqBodies(got))
		}
		e.del(url, got[0].handle)
		if r := e.send(url, fqMsg{body: "three", group: "g", dedup: "d1"}); r.messageID != first.messageID {
			e.t.Errorf("send after deletion stored as %s", r.messageID)
		}
		e.receiveNone(url)
		e.clock.Advance(5 * time.Minute)
		if r := e.send(url, fqMsg{body: "four", group: "g", dedup: "d1"}); r.messageID == first.messageID {
			e.t.Error("send 5 minutes later deduplicated")
		}
		if n := e.visible(url); n != 1 {
			e.t.Errorf("%d messages after the window", n)
		}

		cb := e.createFIFO("content.fifo", map[string]string{"ContentBasedDeduplication": "true"})
		x := e.send(cb, fqMsg{body: "same", group: "g"})
		if r := e.send(cb, fqMsg{body: "same", group: "g"}); r.messageID != x.messageID {
			e.t.Errorf("same body stored twice: %s and %s", x.messageID, r.messageID)
		}
		if r := e.send(cb, fqMsg{body: "other", group: "g"}); r.messageID == x.messageID {
			e.t.Error("different body deduplicated")
		}
		// In a batch too.
		ok, failed, err := e.api.sendBatch(cb, []fqMsg{{id: "a", body: "same", group: "g"}, {id: "b", body: "new", group: "g"}})
		if err != nil || len(failed) != 0 || len(ok) != 2 {
			e.t.Fatalf("batch: %+v %+v %v", ok, failed, err)
		}
		if ok[0].messageID != x.messageID || ok[1].messageID == x.messageID {
			e.t.Errorf("batch dedup: %+v, first was %s", ok, x.messageID)
		}
		if n := e.visible(cb); n != 3 {
			e.t.Errorf("content-based queue holds %d, want 3", n)
		}

		// messageGroup scope: the same id in two groups is two messages.
		mg := e.createFIFO("scoped.fifo", map[string]string{"DeduplicationScope": "messageGroup"})
		a := e.send(mg, fqMsg{body: "x", group: "g1", dedup: "d"})
		b := e.send(mg, fqMsg{body: "x", group: "g2", dedup: "d"})
		if a.messageID == b.messageID {
			e.t.Error("messageGroup scope deduplicated across groups")
		}
	})
}

func TestFIFOCompatReceiveRequestAttemptId(t *testing.T) {
	fqRun(t, func(e *fqEnv) {
		url := e.createFIFO("attempts.fifo", map[string]string{"ContentBasedDeduplication": "true", "VisibilityTimeout": "30"})
		for _, m := range []fqMsg{{body: "a1", group: "a"}, {body: "b1", group: "b"}, {body: "a2", group: "a"}} {
			e.send(url, m)
		}
		r := fqRecv{max: 10, attemptID: "attempt-1"}
		first := e.receive(url, r)
		if len(first) != 3 {
			e.t.Fatalf("first receive got %q", fqBodies(first))
		}
		again := e.receive(url, r)
		if !slices.Equal(fqHandles(again), fqHandles(first)) || !slices.Equal(fqBodies(again), fqBodies(first)) {
			e.t.Fatalf("retry got %q, want the same messages and handles as %q", fqBodies(again), fqBodies(first))
		}
		// Another attempt id finds every group in flight.
		if got := e.receive(url, fqRecv{max: 10, attemptID: "attempt-2"}); len(got) != 0 {
			e.t.Fatalf("new attempt got %q", fqBodies(got))
		}
		// The retried handles work.
		e.del(url, again[0].handle)
		rest := e.receive(url, r)
		if !slices.Equal(fqHandles(rest), fqHandles(first[1:])) {
			e.t.Fatalf("retry after a delete got %q, want %q", fqBodies(rest), fqBodies(first[1:]))
		}
		// After five minutes the attempt is new: new handles.
		e.clock.Advance(5 * time.Minute)
		fresh := e.receive(url, r)
		if len(fresh) != 2 {
			e.t.Fatalf("receive after the window got %q", fqBodies(fresh))
		}
		for _, m := range fresh {
			if slices.Contains(fqHandles(first), m.handle) {
				e.t.Errorf("%s: old receipt handle after the window", m.body)
			}
		}
		// An invalid attempt id is refused.
		_, err := e.api.receive(url, fqRecv{max: 1, attemptID: "has space"})
		e.wantErr(err, "InvalidParameterValue")
	})
}

func TestFIFOCompatDeadLetterRedrive(t *testing.T) {
	fqRun(t, func(e *fqEnv) {
		dlq := e.createFIFO("dead.fifo", nil)
		dlqArn := e.attrs(dlq)["QueueArn"]
		std := e.create("std-dlq", nil)
		stdArn := e.attrs(std)["QueueArn"]
		policy := func(arn string) string {
			return fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":"1"}`, arn)
		}
		// A FIFO queue's dead-letter queue must be FIFO.
		_, err := e.api.createQueue("bad.fifo", map[string]string{"FifoQueue": "true", "RedrivePolicy": policy(stdArn)})
		e.wantErr(err, "InvalidParameterValue")

		src := e.createFIFO("src.fifo", map[string]string{"VisibilityTimeout": "30", "RedrivePolicy": policy(dlqArn)})
		srcArn := e.attrs(src)["QueueArn"]
		ids := map[string]string{}
		for _, m := range []fqMsg{{body: "a1", group: "a", dedup: "1"}, {body: "a2", group: "a", dedup: "2"}, {body: "b1", group: "b", dedup: "3"}, {body: "a3", group: "a", dedup: "4"}} {
			ids[m.body] = e.send(src, m).messageID
		}
		if got := e.receive(src, fqRecv{max: 10}); len(got) != 4 {
			e.t.Fatalf("source receive got %q", fqBodies(got))
		}
		e.clock.Advance(30 * time.Second)
		// Each has been received once: the next receive moves them all.
		e.receiveNone(src)
		got := e.receive(dlq, fqRecv{max: 10, sysNames: []string{"All"}, legacy: true})
		groups := fqByGroup(e.t, got)
		if !slices.Equal(groups["a"], []string{"a1", "a2", "a3"}) || !slices.Equal(groups["b"], []string{"b1"}) {
			e.t.Fatalf("DLQ received %q", fqBodies(got))
		}
		for _, m := range got {
			if m.messageID != ids[m.body] {
				e.t.Errorf("%s: DLQ MessageId %s, sent as %s", m.body, m.messageID, ids[m.body])
			}
			if m.attrs["DeadLetterQueueSourceArn"] != srcArn {
				e.t.Errorf("%s: DeadLetterQueueSourceArn %q, want %q", m.body, m.attrs["DeadLetterQueueSourceArn"], srcArn)
			}
			if m.attrs["SequenceNumber"] == "" {
				e.t.Errorf("%s: no SequenceNumber in the FIFO DLQ", m.body)
			}
			// Moved into a FIFO dead-letter queue, a message's
			// deduplication id (sent as "1" to "4") becomes its MessageId.
			if m.attrs["MessageDeduplicationId"] != m.messageID {
				e.t.Errorf("%s: DLQ MessageDeduplicationId %q, want the MessageId %s", m.body, m.attrs["MessageDeduplicationId"], m.messageID)
			}
		}
		// The DLQ keeps group order for consumers: group a stays blocked.
		e.receiveNone(dlq)
	})
}

func TestFIFOCompatErrors(t *testing.T) {
	fqRun(t, func(e *fqEnv) {
		url := e.createFIFO("errors.fifo", nil)
		// An entry without its group id, or without the deduplication id
		// the queue needs, fails the whole batch, as in SQS.
		for _, bad := range []fqMsg{{id: "nogroup", body: "x", dedup: "ng"}, {id: "nodedup", body: "x", group: "g"}} {
			_, _, err := e.api.sendBatch(url, []fqMsg{{id: "good", body: "x", group: "g", dedup: "first"}, bad})
			e.wantErr(err, "InvalidParameterValue")
		}
		e.receiveNone(url)

		_, err := e.api.send(url, fqMsg{body: "x", dedup: "d"})
		e.wantErr(err, "MissingParameter")
		_, err = e.api.send(url, fqMsg{body: "x", group: "g"})
		e.wantErr(err, "InvalidParameterValue")
		_, err = e.api.send(url, fqMsg{body: "x", group: "g", dedup: "d", delay: awsv2.Int(5)})
		e.wantErr(err, "InvalidParameterValue")
		_, err = e.api.send(url, fqMsg{body: "x", group: "bad group", dedup: "d"})
		e.wantErr(err, "InvalidParameterValue")
		if e.query {
			// aws-sdk-go v1 sends an explicit DelaySeconds=0, which SQS
			// accepts on a FIFO queue (and aws-sdk-go-v2 leaves out).
			e.send(url, fqMsg{body: "zero", group: "g", dedup: "z", delay: awsv2.Int(0)})
		}

		ok, failed, err := e.api.sendBatch(url, []fqMsg{
			{id: "good", body: "x", group: "g", dedup: "good"},
			{id: "delayed", body: "x", group: "g", dedup: "dl", delay: awsv2.Int(3)},
		})
		if err != nil || len(ok) != 1 || ok[0].id != "good" || ok[0].sequenceNumber == "" {
			e.t.Fatalf("batch: ok %+v err %v", ok, err)
		}
		codes := map[string]string{}
		for _, f := range failed {
			codes[f.id] = f.code
			if !f.senderFault {
				e.t.Errorf("failed entry %s not a sender fault", f.id)
			}
		}
		if codes["delayed"] != "InvalidParameterValue" || len(codes) != 1 {
			e.t.Errorf("batch failures %+v", failed)
		}

		std := e.create("standard", nil)
		_, err = e.api.send(std, fqMsg{body: "x", dedup: "d"})
		e.wantErr(err, "InvalidParameterValue")
		_, err = e.api.send(std, fqMsg{body: "x", group: "g", dedup: "d"})
		e.wantErr(err, "InvalidParameterValue")
	})
}

// A FIFO queue refuses to delete with a handle whose visibility timeout
// has ended, where a standard queue would delete.
func TestFIFOCompatDeleteWithExpiredHandle(t *testing.T) {
	fqRun(t, func(e *fqEnv) {
		url := e.createFIFO("expiry.fifo", map[string]string{"VisibilityTimeout": "30"})
		e.send(url, fqMsg{body: "m", group: "g", dedup: "d"})
		first := e.receive(url, fqRecv{max: 1})
		e.clock.Advance(31 * time.Second)
		e.wantErr(e.api.del(url, first[0].handle), "InvalidParameterValue")
		again := e.receive(url, fqRecv{max: 1})
		if len(again) != 1 || again[0].body != "m" {
			e.t.Fatalf("after a refused delete: %q", fqBodies(again))
		}
		e.del(url, again[0].handle)
		e.receiveNone(url)
	})
}

func TestFairQueueCompatGroupID(t *testing.T) {
	fqRun(t, func(e *fqEnv) {
		url := e.create("tenants", nil)
		r := e.send(url, fqMsg{body: "hello", group: "tenant-a"})
		if r.sequenceNumber != "" {
			e.t.Errorf("standard queue send returned SequenceNumber %q", r.sequenceNumber)
		}
		ok, failed, err := e.api.sendBatch(url, []fqMsg{{id: "1", body: "batched", group: "tenant-b"}, {id: "2", body: "plain"}})
		if err != nil || len(ok) != 2 || len(failed) != 0 {
			e.t.Fatalf("batch: %+v %+v %v", ok, failed, err)
		}
		got := e.receive(url, fqRecv{max: 10, sysNames: []string{"MessageGroupId"}})
		want := map[string]string{"hello": "tenant-a", "batched": "tenant-b", "plain": ""}
		if len(got) != 3 {
			e.t.Fatalf("received %q", fqBodies(got))
		}
		for _, m := range got {
			if m.attrs["MessageGroupId"] != want[m.body] {
				e.t.Errorf("%s: MessageGroupId %q, want %q (attributes %v)", m.body, m.attrs["MessageGroupId"], want[m.body], m.attrs)
			}
			if _, ok := m.attrs["SequenceNumber"]; ok {
				e.t.Errorf("%s: standard queue message has a SequenceNumber", m.body)
			}
		}
		// Not asked for, not returned.
		for _, m := range got {
			if err := e.api.changeVis(url, m.handle, 0); err != nil {
				e.t.Fatal(err)
			}
		}
		for _, m := range e.receive(url, fqRecv{max: 10}) {
			if len(m.attrs) != 0 {
				e.t.Errorf("%s: attributes %v returned unasked", m.body, m.attrs)
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
	fqRun(t, func(e *fqEnv) {
		url := e.createFIFO("released.fifo", map[string]string{"VisibilityTimeout": "30", "ContentBasedDeduplication": "true"})
		for _, m := range []fqMsg{{body: "g1-m1", group: "group-1"}, {body: "g1-m2", group: "group-1"}, {body: "g2-m1", group: "group-2"}} {
			e.send(url, m)
		}
		got := e.receive(url, fqRecv{max: 2})
		if !slices.Equal(fqBodies(got), []string{"g1-m1", "g1-m2"}) {
			e.t.Fatalf("first receive %q", fqBodies(got))
		}
		if err := e.api.changeVis(url, got[0].handle, 0); err != nil {
			e.t.Fatal(err)
		}
		if again := e.receive(url, fqRecv{max: 3}); !slices.Equal(fqBodies(again), []string{"g2-m1", "g1-m1"}) {
			e.t.Errorf("after releasing g1-m1: %q, recorded [g2-m1 g1-m1]", fqBodies(again))
		}

		ext := e.createFIFO("extended.fifo", map[string]string{"VisibilityTimeout": "1"})
		for _, b := range []string{"foo", "bar", "baz"} {
			e.send(ext, fqMsg{body: b, group: "1", dedup: b})
		}
		got = e.receive(ext, fqRecv{max: 5})
		if !slices.Equal(fqBodies(got), []string{"foo", "bar", "baz"}) {
			e.t.Fatalf("receive %q", fqBodies(got))
		}
		if err := e.api.changeVis(ext, got[1].handle, 4); err != nil {
			e.t.Fatal(err)
		}
		e.clock.Advance(2500 * time.Millisecond)
		if again := e.receive(ext, fqRecv{max: 5}); !slices.Equal(fqBodies(again), []string{"foo"}) {
			e.t.Errorf("with bar extended: %q, recorded [foo]", fqBodies(again))
		}

		del := e.createFIFO("deleted.fifo", map[string]string{"ContentBasedDeduplication": "true"})
		for _, m := range []fqMsg{
			{body: "g1-m1", group: "group-1"}, {body: "g2-m1", group: "group-2"}, {body: "g1-m2", group: "group-1"},
			{body: "g2-m2", group: "group-2"}, {body: "g1-m2", group: "group-1"}, {body: "g1-m3", group: "group-1"},
			{body: "g1-m4", group: "group-1"}, {body: "g3-m1", group: "group-3"},
		} {
			e.send(del, m)
		}
		got = e.receive(del, fqRecv{max: 2})
		if !slices.Equal(fqBodies(got), []string{"g1-m1", "g1-m2"}) {
			e.t.Fatalf("receive %q", fqBodies(got))
		}
		e.del(del, got[0].handle)
		e.del(del, got[1].handle)
		want := []string{"g2-m1", "g2-m2", "g1-m3", "g1-m4", "g3-m1"}
		if rest := e.receive(del, fqRecv{max: 10}); !slices.Equal(fqBodies(rest), want) {
			e.t.Errorf("after deleting g1's first two: %q, recorded %q", fqBodies(rest), want)
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
	fqRun(t, func(e *fqEnv) {
		url := e.create("tenants", map[string]string{"VisibilityTimeout": "43200"})
		for b := range 4 {
			var batch []fqMsg
			for i := range 10 {
				n := 10*b + i
				batch = append(batch, fqMsg{id: strconv.Itoa(n), body: fmt.Sprintf("noisy-%d", n), group: "noisy"})
			}
			if _, failed, err := e.api.sendBatch(url, batch); err != nil || len(failed) != 0 {
				e.t.Fatalf("batch: %v %v", failed, err)
			}
		}
		var held []fqGot
		for range 3 {
			held = append(held, e.receive(url, fqRecv{max: 10})...)
		}
		if len(held) != 30 {
			e.t.Fatalf("received %d of the noisy tenant's, want 30", len(held))
		}
		e.send(url, fqMsg{body: "quiet-0", group: "quiet"})
		if got := e.receive(url, fqRecv{max: 1}); !slices.Equal(fqBodies(got), []string{"quiet-0"}) {
			e.t.Fatalf("with a noisy tenant: %q, want [quiet-0]", fqBodies(got))
		}
		for _, m := range held[:20] {
			e.del(url, m.handle)
		}
		// 10 of 11 in flight, yet still marked: it keeps sending.
		e.clock.Advance(4 * time.Minute)
		e.send(url, fqMsg{body: "noisy-40", group: "noisy"})
		e.send(url, fqMsg{body: "quiet-1", group: "quiet"})
		if got := e.receive(url, fqRecv{max: 1}); !slices.Equal(fqBodies(got), []string{"quiet-1"}) {
			e.t.Fatalf("after its share fell: %q, want [quiet-1]", fqBodies(got))
		}
		e.clock.Advance(5 * time.Minute)
		e.send(url, fqMsg{body: "quiet-2", group: "quiet"})
		if got := e.receive(url, fqRecv{max: 1}); !slices.Equal(fqBodies(got), []string{"noisy-30"}) {
			e.t.Fatalf("after 5 minutes without a send: %q, want [noisy-30]", fqBodies(got))
		}
	})
}
