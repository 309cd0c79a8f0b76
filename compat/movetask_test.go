package compat

// Message move tasks (StartMessageMoveTask, CancelMessageMoveTask,
// ListMessageMoveTasks) through aws-sdk-go-v2 (JSON protocol) and
// aws-sdk-go v1 (query protocol), and a task carrying on across a restart
// of the real binary.
//
// The in-process tests run on the server's ManualClock: time passes only
// through Advance, and a test polls the task listing, bounded by a
// real-time safety deadline, while the task's goroutine does what the
// clock allows. Identifiers here start with "mv" to keep clear of the other
// test files of the package.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	awsv1 "github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/awserr"
	sqsv1 "github.com/aws/aws-sdk-go/service/sqs"
	"github.com/aws/smithy-go"
	"github.com/google/uuid"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/server"
)

// mvWait bounds, in real time, a wait for something the clock already
// allows.
const mvWait = 5 * time.Second

func mvArn(name string) string { return "arn:aws:sqs:us-east-1:000000000000:" + name }

// mvTask is one ListMessageMoveTasks entry, whichever protocol carried it.
type mvTask struct {
	Handle, Status, Source, Destination, Failure string
	Moved, ToMove, Started                       int64
	Rate                                         int64 // 0 when not reported
}

type mvMessage struct {
	ID, Body, MD5, Handle string
	Attrs                 map[string]string // system attributes
	MsgAttrs              map[string]string // message attributes' string values
}

// mvOrigin is the message attribute send gives every message: its body.
const mvOrigin = "origin"

// mvClient drives one protocol's SDK.
type mvClient interface {
	createQueue(t *testing.T, name string, attrs map[string]string) string
	// send sends body with the String message attribute mvOrigin, whose
	// value is the body.
	send(t *testing.T, url, body string) string
	// receive receives up to 10 messages without waiting, with every
	// system and message attribute.
	receive(t *testing.T, url string) []mvMessage
	visible(t *testing.T, url string) int
	start(source, destination string, rate *int) (string, error)
	cancel(handle string) (int64, error)
	list(source string, max *int) ([]mvTask, error)
	// code is the error's code as the SDK reports it.
	code(t *testing.T, err error) string
}

// JSON protocol: aws-sdk-go-v2.

type mvV2 struct {
	c   *sqsv2.Client
	ctx context.Context
}

func (m mvV2) createQueue(t *testing.T, name string, attrs map[string]string) string {
	t.Helper()
	out, err := m.c.CreateQueue(m.ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String(name), Attributes: attrs})
	if err != nil {
		t.Fatalf("CreateQueue %s: %v", name, err)
	}
	return awsv2.ToString(out.QueueUrl)
}

func (m mvV2) send(t *testing.T, url, body string) string {
	t.Helper()
	out, err := m.c.SendMessage(m.ctx, &sqsv2.SendMessageInput{
		QueueUrl: awsv2.String(url), MessageBody: awsv2.String(body),
		MessageAttributes: map[string]types.MessageAttributeValue{mvOrigin: {DataType: awsv2.String("String"), StringValue: awsv2.String(body)}},
	})
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	return awsv2.ToString(out.MessageId)
}

func (m mvV2) receive(t *testing.T, url string) []mvMessage {
	t.Helper()
	out, err := m.c.ReceiveMessage(m.ctx, &sqsv2.ReceiveMessageInput{
		QueueUrl: awsv2.String(url), MaxNumberOfMessages: 10, // no wait: the queues' default is 0
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
		MessageAttributeNames:       []string{"All"},
	})
	if err != nil {
		t.Fatalf("ReceiveMessage: %v", err)
	}
	var msgs []mvMessage
	for _, x := range out.Messages {
		attrs := map[string]string{}
		for k, v := range x.MessageAttributes {
			attrs[k] = awsv2.ToString(v.StringValue)
		}
		msgs = append(msgs, mvMessage{
			ID: awsv2.ToString(x.MessageId), Body: awsv2.ToString(x.Body), MD5: awsv2.ToString(x.MD5OfBody),
			Handle: awsv2.ToString(x.ReceiptHandle), Attrs: x.Attributes, MsgAttrs: attrs,
		})
	}
	return msgs
}

func (m mvV2) visible(t *testing.T, url string) int {
	t.Helper()
	out, err := m.c.GetQueueAttributes(m.ctx, &sqsv2.GetQueueAttributesInput{
		QueueUrl: awsv2.String(url), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages},
	})
	if err != nil {
		t.Fatalf("GetQueueAttributes: %v", err)
	}
	return mvAtoi(t, out.Attributes["ApproximateNumberOfMessages"])
}

func (m mvV2) start(source, destination string, rate *int) (string, error) {
	in := &sqsv2.StartMessageMoveTaskInput{SourceArn: awsv2.String(source)}
	if destination != "" {
		in.DestinationArn = awsv2.String(destination)
	}
	if rate != nil {
		in.MaxNumberOfMessagesPerSecond = awsv2.Int32(int32(*rate))
	}
	out, err := m.c.StartMessageMoveTask(m.ctx, in)
	if err != nil {
		return "", err
	}
	return awsv2.ToString(out.TaskHandle), nil
}

func (m mvV2) cancel(handle string) (int64, error) {
	out, err := m.c.CancelMessageMoveTask(m.ctx, &sqsv2.CancelMessageMoveTaskInput{TaskHandle: awsv2.String(handle)})
	if err != nil {
		return 0, err
	}
	return out.ApproximateNumberOfMessagesMoved, nil
}

func (m mvV2) list(source string, max *int) ([]mvTask, error) {
	in := &sqsv2.ListMessageMoveTasksInput{SourceArn: awsv2.String(source)}
	if max != nil {
		in.MaxResults = awsv2.Int32(int32(*max))
	}
	out, err := m.c.ListMessageMoveTasks(m.ctx, in)
	if err != nil {
		return nil, err
	}
	var tasks []mvTask
	for _, r := range out.Results {
		task := mvTask{
			Handle: awsv2.ToString(r.TaskHandle), Status: awsv2.ToString(r.Status),
			Source: awsv2.ToString(r.SourceArn), Destination: awsv2.ToString(r.DestinationArn),
			Failure: awsv2.ToString(r.FailureReason), Moved: r.ApproximateNumberOfMessagesMoved,
			ToMove: awsv2.ToInt64(r.ApproximateNumberOfMessagesToMove), Started: r.StartedTimestamp,
		}
		if r.MaxNumberOfMessagesPerSecond != nil {
			task.Rate = int64(*r.MaxNumberOfMessagesPerSecond)
		}
		tasks = append(tasks, task)
	}
	return tasks, nil
}

func (mvV2) code(t *testing.T, err error) string {
	t.Helper()
	var api smithy.APIError
	if !errors.As(err, &api) {
		t.Fatalf("want an API error, got %T: %v", err, err)
	}
	if api.ErrorMessage() == "" {
		t.Errorf("%s has no message", api.ErrorCode())
	}
	return api.ErrorCode()
}

// Query protocol: aws-sdk-go v1.

type mvV1 struct{ c *sqsv1.SQS }

func (m mvV1) createQueue(t *testing.T, name string, attrs map[string]string) string {
	t.Helper()
	return qCreate(t, m.c, name, attrs)
}

func (m mvV1) send(t *testing.T, url, body string) string {
	t.Helper()
	out, err := m.c.SendMessage(&sqsv1.SendMessageInput{
		QueueUrl: awsv1.String(url), MessageBody: awsv1.String(body),
		MessageAttributes: map[string]*sqsv1.MessageAttributeValue{mvOrigin: {DataType: awsv1.String("String"), StringValue: awsv1.String(body)}},
	})
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	return awsv1.StringValue(out.MessageId)
}

func (m mvV1) receive(t *testing.T, url string) []mvMessage {
	t.Helper()
	in := &sqsv1.ReceiveMessageInput{
		QueueUrl: awsv1.String(url), MaxNumberOfMessages: awsv1.Int64(10),
		AttributeNames:        awsv1.StringSlice([]string{"All"}),
		MessageAttributeNames: awsv1.StringSlice([]string{"All"}),
	}
	var msgs []mvMessage
	for _, x := range qReceive(t, m.c, in) {
		attrs := map[string]string{}
		for k, v := range x.MessageAttributes {
			attrs[k] = awsv1.StringValue(v.StringValue)
		}
		msgs = append(msgs, mvMessage{
			ID: awsv1.StringValue(x.MessageId), Body: awsv1.StringValue(x.Body), MD5: awsv1.StringValue(x.MD5OfBody),
			Handle: awsv1.StringValue(x.ReceiptHandle), Attrs: awsv1.StringValueMap(x.Attributes), MsgAttrs: attrs,
		})
	}
	return msgs
}

func (m mvV1) visible(t *testing.T, url string) int {
	t.Helper()
	v, _, _ := qCounts(t, m.c, url)
	return v
}

func (m mvV1) start(source, destination string, rate *int) (string, error) {
	in := &sqsv1.StartMessageMoveTaskInput{SourceArn: awsv1.String(source)}
	if destination != "" {
		in.DestinationArn = awsv1.String(destination)
	}
	if rate != nil {
		in.MaxNumberOfMessagesPerSecond = awsv1.Int64(int64(*rate))
	}
	out, err := m.c.StartMessageMoveTask(in)
	if err != nil {
		return "", err
	}
	return awsv1.StringValue(out.TaskHandle), nil
}

func (m mvV1) cancel(handle string) (int64, error) {
	out, err := m.c.CancelMessageMoveTask(&sqsv1.CancelMessageMoveTaskInput{TaskHandle: awsv1.String(handle)})
	if err != nil {
		return 0, err
	}
	return awsv1.Int64Value(out.ApproximateNumberOfMessagesMoved), nil
}

func (m mvV1) list(source string, max *int) ([]mvTask, error) {
	in := &sqsv1.ListMessageMoveTasksInput{SourceArn: awsv1.String(source)}
	if max != nil {
		in.MaxResults = awsv1.Int64(int64(*max))
	}
	out, err := m.c.ListMessageMoveTasks(in)
	if err != nil {
		return nil, err
	}
	var tasks []mvTask
	for _, r := range out.Results {
		tasks = append(tasks, mvTask{
			Handle: awsv1.StringValue(r.TaskHandle), Status: awsv1.StringValue(r.Status),
			Source: awsv1.StringValue(r.SourceArn), Destination: awsv1.StringValue(r.DestinationArn),
			Failure: awsv1.StringValue(r.FailureReason), Moved: awsv1.Int64Value(r.ApproximateNumberOfMessagesMoved),
			ToMove: awsv1.Int64Value(r.ApproximateNumberOfMessagesToMove), Started: awsv1.Int64Value(r.StartedTimestamp),
			Rate: awsv1.Int64Value(r.MaxNumberOfMessagesPerSecond),
		})
	}
	return tasks, nil
}

func (mvV1) code(t *testing.T, err error) string {
	t.Helper()
	var ae awserr.Error
	if !errors.As(err, &ae) {
		t.Fatalf("want an awserr.Error, got %T: %v", err, err)
	}
	if ae.Message() == "" {
		t.Errorf("%s has no message", ae.Code())
	}
	return ae.Code()
}

// mvEnv is one test's server on a manual clock, with one protocol's client.
type mvEnv struct {
	t   *testing.T
	srv *testServer
	c   mvClient
}

// mvProtocols runs body once per protocol, each on a server of its own.
func mvProtocols(t *testing.T, body func(e *mvEnv)) {
	for _, p := range []struct {
		name string
		make func(url string) mvClient
	}{
		{"json-v2", func(url string) mvClient { return mvV2{c: jsonClient(t, url), ctx: context.Background()} }},
		{"query-v1", func(url string) mvClient { return mvV1{c: queryClient(t, url)} }},
	} {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			srv := startServer(t, server.Config{})
			body(&mvEnv{t: t, srv: srv, c: p.make(srv.URL())})
		})
	}
}

func mvAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}

// setup creates name-dlq and name, which dead-letters into it after one
// receive, sends bodies to the source and dead-letters them: received
// once, the leases run out on the clock, and the next receive moves them.
// It returns the two URLs and the message ids by body.
func (e *mvEnv) setup(name string, bodies ...string) (srcURL, dlqURL string, ids map[string]string) {
	t := e.t
	t.Helper()
	dlqURL = e.c.createQueue(t, name+"-dlq", nil)
	srcURL = e.c.createQueue(t, name, map[string]string{
		"VisibilityTimeout": "30",
		"RedrivePolicy":     `{"deadLetterTargetArn":"` + mvArn(name+"-dlq") + `","maxReceiveCount":"1"}`,
	})
	ids = map[string]string{}
	for _, b := range bodies {
		ids[b] = e.c.send(t, srcURL, b)
	}
	got := 0
	for i := 0; got < len(bodies); i++ {
		if i > 100 {
			t.Fatalf("received %d of %d", got, len(bodies))
		}
		got += len(e.c.receive(t, srcURL))
	}
	e.srv.Clock.Advance(30 * time.Second)
	if msgs := e.c.receive(t, srcURL); len(msgs) != 0 {
		t.Fatalf("second receive returned %d messages; want them dead-lettered", len(msgs))
	}
	if n := e.c.visible(t, dlqURL); n != len(bodies) {
		t.Fatalf("dead-letter queue holds %d messages, want %d", n, len(bodies))
	}
	return srcURL, dlqURL, ids
}

// task returns the listed task with the given handle; a finished task is
// listed without its handle, so "" finds the newest task.
func (e *mvEnv) task(source, handle string) mvTask {
	e.t.Helper()
	tasks, err := e.c.list(source, awsv2.Int(10))
	if err != nil {
		e.t.Fatalf("ListMessageMoveTasks: %v", err)
	}
	if len(tasks) == 0 {
		e.t.Fatal("ListMessageMoveTasks listed no task")
	}
	if handle == "" {
		return tasks[0]
	}
	for _, task := range tasks {
		if task.Handle == handle {
			return task
		}
	}
	// Finished: listed without a handle. The newest is the one the tests
	// mean.
	return tasks[0]
}

// await polls the newest task of source until cond holds.
func (e *mvEnv) await(source, what string, cond func(mvTask) bool) mvTask {
	e.t.Helper()
	deadline := time.Now().Add(mvWait)
	for {
		task := e.task(source, "")
		if cond(task) {
			return task
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("task never became %s: %+v", what, task)
		}
	}
}

func (e *mvEnv) awaitStatus(source, status string) mvTask {
	e.t.Helper()
	return e.await(source, status, func(m mvTask) bool { return m.Status == status })
}

// awaitIdle waits until the newest task has moved want messages and waits
// on its next tick: the sweeper's timer and the task's are on the clock.
func (e *mvEnv) awaitIdle(source string, want int64) mvTask {
	e.t.Helper()
	return e.await(source, "idle", func(m mvTask) bool {
		return m.Moved == want && (m.Status != "RUNNING" || e.srv.Clock.Waiters() >= 2)
	})
}

func mvWantTask(t *testing.T, got mvTask, status string, moved, toMove int64) {
	t.Helper()
	if got.Status != status || got.Moved != moved || got.ToMove != toMove {
		t.Fatalf("task %s moved %d of %d, want %s moved %d of %d (%+v)", got.Status, got.Moved, got.ToMove, status, moved, toMove, got)
	}
}

func mvBodies(msgs []mvMessage) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Body
	}
	sort.Strings(out)
	return out
}

// peek returns the visible messages of the queue name in delivery order,
// straight from the engine: what a receive would return, without receiving.
func (e *mvEnv) peek(name string) []engine.Message {
	e.t.Helper()
	q, err := e.srv.Engine().Queue(name)
	if err != nil {
		e.t.Fatalf("Queue(%s): %v", name, err)
	}
	ms, err := q.Peek(100)
	if err != nil {
		e.t.Fatalf("Peek(%s): %v", name, err)
	}
	return ms
}

// mvWantNewID checks that id, a moved message's MessageId, is a fresh
// random UUID: none of the old ids, and not seen before (seen records it).
func mvWantNewID(t *testing.T, body, id string, old, seen map[string]bool) {
	t.Helper()
	u, err := uuid.Parse(id)
	switch {
	case err != nil || u.String() != id || u.Version() != 4 || u.Variant() != uuid.RFC4122:
		t.Errorf("%s: MessageId %q after the move is not a random UUID", body, id)
	case old[id]:
		t.Errorf("%s: MessageId %s after the move is an old message's, want a new one", body, id)
	case seen[id]:
		t.Errorf("%s: MessageId %s given to two moved messages", body, id)
	}
	seen[id] = true
}

// mvWantRedriven checks that got, received where a move task put them, are
// the messages of before (the dead-letter queue's messages before the
// move, in delivery order) redriven as SQS does: "All redriven messages are
// considered new messages with a new messageID and enqueueTime" (SQS
// Developer Guide, "Configure a dead-letter queue redrive"). Each has a
// fresh MessageId and the SentTimestamp movedAt (milliseconds), keeps its
// body, MD5 and message attributes and its place in the order, and is
// received for the first time with no dead-letter source.
func mvWantRedriven(t *testing.T, got []mvMessage, before []engine.Message, movedAt int64) {
	t.Helper()
	if len(got) != len(before) {
		t.Fatalf("received %d moved messages, want %d", len(got), len(before))
	}
	old := map[string]bool{}
	for _, m := range before {
		old[m.ID] = true
	}
	seen := map[string]bool{}
	for i, m := range got {
		was := before[i]
		if m.Body != was.Body {
			t.Errorf("received %q where %q was next, want the order kept (received %q)", m.Body, was.Body, mvBodiesInOrder(got))
			continue
		}
		mvWantNewID(t, m.Body, m.ID, old, seen)
		if m.MD5 != was.MD5OfBody || m.MD5 != refMD5(m.Body) {
			t.Errorf("%s: MD5OfBody %s after the move, was %s", m.Body, m.MD5, was.MD5OfBody)
		}
		if len(m.MsgAttrs) != 1 || m.MsgAttrs[mvOrigin] != m.Body {
			t.Errorf("%s: message attributes %v after the move, want %s=%s", m.Body, m.MsgAttrs, mvOrigin, m.Body)
		}
		if want := strconv.FormatInt(movedAt, 10); m.Attrs["SentTimestamp"] != want {
			t.Errorf("%s: SentTimestamp %q after the move, want the move at %s (was sent at %d)", m.Body, m.Attrs["SentTimestamp"], want, was.SentAt.UnixMilli())
		}
		if m.Attrs["ApproximateReceiveCount"] != "1" {
			t.Errorf("%s: ApproximateReceiveCount %q, want 1", m.Body, m.Attrs["ApproximateReceiveCount"])
		}
		if src, ok := m.Attrs["DeadLetterQueueSourceArn"]; ok {
			t.Errorf("%s: DeadLetterQueueSourceArn %q after the move", m.Body, src)
		}
	}
}

func mvBodiesInOrder(msgs []mvMessage) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Body
	}
	return out
}

func TestMoveTaskRoundTrip(t *testing.T) {
	mvProtocols(t, func(e *mvEnv) {
		t := e.t
		srcURL, dlqURL, ids := e.setup("orders", "m1", "m2", "m3")
		dlq := mvArn("orders-dlq")
		before := e.peek("orders-dlq")
		for _, m := range before {
			if m.ID != ids[m.Body] {
				t.Fatalf("%s: dead-lettered with MessageId %s, sent as %s", m.Body, m.ID, ids[m.Body])
			}
		}
		// A minute on, the move makes them new messages sent then.
		e.srv.Clock.Advance(time.Minute)
		startedAt := e.srv.Clock.Now().UnixMilli()

		h, err := e.c.start(dlq, "", nil)
		if err != nil || h == "" {
			t.Fatalf("StartMessageMoveTask = %q, %v", h, err)
		}
		first := e.task(dlq, h)
		if first.Status != "RUNNING" && first.Status != "COMPLETED" {
			t.Fatalf("first listing %+v", first)
		}
		if first.Status == "RUNNING" && first.Handle != h {
			t.Errorf("running task listed with handle %q, want %q", first.Handle, h)
		}
		if first.Source != dlq || first.ToMove != 3 || first.Moved < 0 || first.Moved > 3 {
			t.Errorf("first listing %+v", first)
		}

		task := e.awaitStatus(dlq, "COMPLETED")
		mvWantTask(t, task, "COMPLETED", 3, 3)
		if task.Handle != "" || task.Destination != "" || task.Failure != "" || task.Rate != 0 {
			t.Errorf("completed task %+v: want no handle, destination, failure or rate", task)
		}
		if task.Source != dlq || task.Started != startedAt {
			t.Errorf("completed task source %s started %d, want %s %d", task.Source, task.Started, dlq, startedAt)
		}

		if n := e.c.visible(t, dlqURL); n != 0 {
			t.Errorf("dead-letter queue still holds %d", n)
		}
		msgs := e.c.receive(t, srcURL)
		if got := mvBodies(msgs); len(got) != 3 || got[0] != "m1" || got[1] != "m2" || got[2] != "m3" {
			t.Fatalf("source received %q", got)
		}
		// One batch at the start: all moved at startedAt.
		mvWantRedriven(t, msgs, before, startedAt)
	})
}

func TestMoveTaskToDestinationAndList(t *testing.T) {
	mvProtocols(t, func(e *mvEnv) {
		t := e.t
		_, dlqURL, _ := e.setup("orders", "m1", "m2")
		dstURL := e.c.createQueue(t, "parking", nil)
		dlq := mvArn("orders-dlq")

		if _, err := e.c.start(dlq, mvArn("parking"), awsv2.Int(500)); err != nil {
			t.Fatalf("StartMessageMoveTask: %v", err)
		}
		task := e.awaitStatus(dlq, "COMPLETED")
		mvWantTask(t, task, "COMPLETED", 2, 2)
		if task.Destination != mvArn("parking") || task.Rate != 500 {
			t.Errorf("task %+v: want destination parking, rate 500", task)
		}
		if got := mvBodies(e.c.receive(t, dstURL)); len(got) != 2 || got[0] != "m1" || got[1] != "m2" {
			t.Errorf("destination received %q", got)
		}
		if n := e.c.visible(t, dlqURL); n != 0 {
			t.Errorf("dead-letter queue still holds %d", n)
		}

		// A second, later task on the now empty queue; MaxResults defaults
		// to 1, the newest.
		e.srv.Clock.Advance(time.Second)
		if _, err := e.c.start(dlq, "", nil); err != nil {
			t.Fatalf("second StartMessageMoveTask: %v", err)
		}
		e.awaitStatus(dlq, "COMPLETED")
		one, err := e.c.list(dlq, nil)
		if err != nil || len(one) != 1 {
			t.Fatalf("ListMessageMoveTasks without MaxResults: %+v, %v", one, err)
		}
		if one[0].Destination != "" || one[0].ToMove != 0 || one[0].Started != e.srv.Clock.Now().UnixMilli() {
			t.Errorf("newest task %+v", one[0])
		}
		all, err := e.c.list(dlq, awsv2.Int(10))
		if err != nil || len(all) != 2 {
			t.Fatalf("ListMessageMoveTasks MaxResults 10: %+v, %v", all, err)
		}
		if all[0].Started <= all[1].Started || all[1].Destination != mvArn("parking") {
			t.Errorf("tasks not newest first: %+v", all)
		}
	})
}

func TestMoveTaskCancel(t *testing.T) {
	mvProtocols(t, func(e *mvEnv) {
		t := e.t
		srcURL, dlqURL, _ := e.setup("orders", "m1", "m2", "m3", "m4")
		dlq := mvArn("orders-dlq")

		h, err := e.c.start(dlq, "", awsv2.Int(1))
		if err != nil {
			t.Fatalf("StartMessageMoveTask: %v", err)
		}
		running := e.awaitIdle(dlq, 1)
		mvWantTask(t, running, "RUNNING", 1, 4)
		if running.Handle != h || running.Rate != 1 {
			t.Errorf("running task %+v: want handle %s, rate 1", running, h)
		}
		moved, err := e.c.cancel(h)
		if err != nil || moved != 1 {
			t.Fatalf("CancelMessageMoveTask = %d, %v; want 1 moved", moved, err)
		}
		task := e.awaitStatus(dlq, "CANCELLED")
		mvWantTask(t, task, "CANCELLED", 1, 4)
		if task.Handle != "" {
			t.Errorf("cancelled task listed with handle %q", task.Handle)
		}
		// Time passes; nothing more moves.
		e.srv.Clock.Advance(10 * time.Second)
		mvWantTask(t, e.task(dlq, ""), "CANCELLED", 1, 4)
		if v, d := e.c.visible(t, srcURL), e.c.visible(t, dlqURL); v != 1 || d != 3 {
			t.Errorf("source %d, dead-letter queue %d; want 1 and 3", v, d)
		}

		// The task is over: cancelling it again fails, and so does an
		// unknown handle.
		if _, err := e.c.cancel(h); err == nil {
			t.Error("cancelling a cancelled task succeeded")
		} else {
			e.c.code(t, err)
		}
		unknown := base64.StdEncoding.EncodeToString([]byte(`{"taskId":"10f57157-fc38-4da9-a113-4de7e12d05aa","sourceArn":"` + dlq + `"}`))
		_, err = e.c.cancel(unknown)
		if err == nil {
			t.Fatal("cancelling an unknown task succeeded")
		}
		if code := e.c.code(t, err); code != "ResourceNotFoundException" {
			t.Errorf("unknown handle: code %q, want ResourceNotFoundException", code)
		}
	})
}

func TestMoveTaskErrors(t *testing.T) {
	mvProtocols(t, func(e *mvEnv) {
		t := e.t
		e.setup("orders", "m1", "m2")
		dlq := mvArn("orders-dlq")
		e.c.createQueue(t, "plain", nil)
		e.c.createQueue(t, "plain.fifo", map[string]string{"FifoQueue": "true"})

		wantCode := func(what string, err error, code string) {
			t.Helper()
			if err == nil {
				t.Fatalf("%s: no error, want %s", what, code)
			}
			if got := e.c.code(t, err); got != code {
				t.Fatalf("%s: code %q, want %q (%v)", what, got, code, err)
			}
		}
		_, err := e.c.start(mvArn("missing"), "", nil)
		wantCode("unknown source", err, "ResourceNotFoundException")
		_, err = e.c.start(mvArn("plain"), "", nil)
		wantCode("source not a dead-letter queue", err, "InvalidParameterValue")
		_, err = e.c.start(dlq, mvArn("missing"), nil)
		wantCode("unknown destination", err, "ResourceNotFoundException")
		_, err = e.c.start(dlq, dlq, nil)
		wantCode("destination is the source", err, "InvalidParameterValue")
		_, err = e.c.start(dlq, mvArn("plain.fifo"), nil)
		wantCode("FIFO destination of a standard source", err, "InvalidParameterValue")
		for _, rate := range []int{0, 501} {
			_, err = e.c.start(dlq, "", awsv2.Int(rate))
			wantCode("rate out of range", err, "InvalidParameterValue")
		}
		_, err = e.c.list(mvArn("missing"), nil)
		wantCode("list of unknown source", err, "ResourceNotFoundException")
		_, err = e.c.list(dlq, awsv2.Int(11))
		wantCode("MaxResults 11", err, "InvalidParameterValue")
		if tasks, err := e.c.list(dlq, awsv2.Int(10)); err != nil || len(tasks) != 0 {
			t.Fatalf("refused starts left tasks: %+v, %v", tasks, err)
		}

		// One active task per source.
		if _, err := e.c.start(dlq, "", awsv2.Int(1)); err != nil {
			t.Fatalf("StartMessageMoveTask: %v", err)
		}
		e.awaitIdle(dlq, 1)
		_, err = e.c.start(dlq, "", nil)
		wantCode("second active task", err, "InvalidParameterValue")
		_, err = e.c.start(dlq, mvArn("plain"), awsv2.Int(10))
		wantCode("second active task with a destination", err, "InvalidParameterValue")
		// It finishes on the next tick; then another may start.
		e.srv.Clock.Advance(time.Second)
		mvWantTask(t, e.awaitStatus(dlq, "COMPLETED"), "COMPLETED", 2, 2)
		if _, err := e.c.start(dlq, "", nil); err != nil {
			t.Fatalf("StartMessageMoveTask after the first ended: %v", err)
		}
	})
}

func TestMoveTaskFailsForMessageWithoutSource(t *testing.T) {
	mvProtocols(t, func(e *mvEnv) {
		t := e.t
		_, dlqURL, _ := e.setup("orders")
		dlq := mvArn("orders-dlq")
		e.c.send(t, dlqURL, "sent straight to the DLQ")
		if _, err := e.c.start(dlq, "", nil); err != nil {
			t.Fatalf("StartMessageMoveTask: %v", err)
		}
		task := e.awaitStatus(dlq, "FAILED")
		if task.Failure == "" || task.Moved != 0 || task.ToMove != 1 {
			t.Errorf("failed task %+v: want a FailureReason, 0 of 1 moved", task)
		}
		if n := e.c.visible(t, dlqURL); n != 1 {
			t.Errorf("dead-letter queue holds %d, want the message left in place", n)
		}
	})
}

// TestMoveTaskAcrossRestart runs the binary with --db on the wall clock: a
// slow task is running when the process stops, and after the restart it
// carries on and completes.
func TestMoveTaskAcrossRestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "minisqs.db")
	p := startProcess(t, "--db", db)
	c := processClient(t, p.URL)

	if _, err := c.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("jobs-dlq")}); err != nil {
		t.Fatal(err)
	}
	src, err := c.CreateQueue(ctx, &sqsv2.CreateQueueInput{
		QueueName: awsv2.String("jobs"),
		Attributes: map[string]string{
			"RedrivePolicy": `{"deadLetterTargetArn":"` + mvArn("jobs-dlq") + `","maxReceiveCount":"1"}`,
			// A received message is visible again at once (the SDK leaves
			// a VisibilityTimeout of 0 out of a receive).
			"VisibilityTimeout": "0",
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	sent := []string{"j1", "j2", "j3", "j4", "j5"}
	for _, b := range sent {
		out, err := c.SendMessage(ctx, &sqsv2.SendMessageInput{
			QueueUrl: src.QueueUrl, MessageBody: awsv2.String(b),
			MessageAttributes: map[string]types.MessageAttributeValue{mvOrigin: {DataType: awsv2.String("String"), StringValue: awsv2.String(b)}},
		})
		if err != nil {
			t.Fatal(err)
		}
		ids[awsv2.ToString(out.MessageId)] = true
	}
	// Each receive makes the messages visible again at once, and the next
	// dead-letters them: no waiting on the wall clock.
	dlqURL := p.URL + "/000000000000/jobs-dlq"
	for i := 0; ; i++ {
		if i > 50 {
			t.Fatal("messages never reached the dead-letter queue")
		}
		if mvV2Visible(t, c, dlqURL) == 5 {
			break
		}
		if _, err := c.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{QueueUrl: src.QueueUrl, MaxNumberOfMessages: 10}); err != nil {
			t.Fatal(err)
		}
	}

	start, err := c.StartMessageMoveTask(ctx, &sqsv2.StartMessageMoveTaskInput{SourceArn: awsv2.String(mvArn("jobs-dlq")), MaxNumberOfMessagesPerSecond: awsv2.Int32(1)})
	if err != nil {
		t.Fatal(err)
	}
	before := mvV2Newest(t, c, mvArn("jobs-dlq"))
	// At one a second, five messages take four seconds after the first.
	if awsv2.ToString(before.Status) != "RUNNING" || awsv2.ToString(before.TaskHandle) != awsv2.ToString(start.TaskHandle) || before.ApproximateNumberOfMessagesMoved >= 5 {
		t.Fatalf("before the restart: %+v", before)
	}
	p.stop(t, syscall.SIGTERM)

	p = startProcess(t, "--db", db)
	c = processClient(t, p.URL)
	deadline := time.Now().Add(10 * time.Second)
	var after types.ListMessageMoveTasksResultEntry
	for {
		after = mvV2Newest(t, c, mvArn("jobs-dlq"))
		if s := awsv2.ToString(after.Status); s != "RUNNING" {
			if s != "COMPLETED" {
				t.Fatalf("after the restart the task is %s: %+v", s, after)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task still running 10 s after the restart: moved %d", after.ApproximateNumberOfMessagesMoved)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if after.ApproximateNumberOfMessagesMoved != 5 || awsv2.ToInt64(after.ApproximateNumberOfMessagesToMove) != 5 {
		t.Errorf("completed task moved %d of %d, want 5 of 5", after.ApproximateNumberOfMessagesMoved, awsv2.ToInt64(after.ApproximateNumberOfMessagesToMove))
	}
	if after.StartedTimestamp != before.StartedTimestamp {
		t.Errorf("StartedTimestamp %d after the restart, was %d", after.StartedTimestamp, before.StartedTimestamp)
	}
	if n := mvV2Visible(t, c, dlqURL); n != 0 {
		t.Errorf("dead-letter queue still holds %d", n)
	}
	// The moved messages are new ones (see mvWantRedriven): new ids, sent
	// when the task moved them, between its start and now, in the order
	// it moved them; body, MD5 and attributes kept.
	receivedAt := time.Now().UnixMilli()
	seen := map[string]bool{}
	var bodies []string
	var lastSent int64
	for i := 0; len(bodies) < 5 && i < 10; i++ {
		out, err := c.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{
			QueueUrl: awsv2.String(p.URL + "/000000000000/jobs"), MaxNumberOfMessages: 10, VisibilityTimeout: 600,
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
			MessageAttributeNames:       []string{"All"},
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out.Messages {
			body := awsv2.ToString(m.Body)
			bodies = append(bodies, body)
			mvWantNewID(t, body, awsv2.ToString(m.MessageId), ids, seen)
			if md5 := awsv2.ToString(m.MD5OfBody); md5 != refMD5(body) {
				t.Errorf("%s: MD5OfBody %s, want %s", body, md5, refMD5(body))
			}
			if v := m.MessageAttributes[mvOrigin]; len(m.MessageAttributes) != 1 || awsv2.ToString(v.StringValue) != body {
				t.Errorf("%s: message attributes %+v, want %s=%s", body, m.MessageAttributes, mvOrigin, body)
			}
			sentAt, err := strconv.ParseInt(m.Attributes["SentTimestamp"], 10, 64)
			if err != nil || sentAt < after.StartedTimestamp || sentAt > receivedAt || sentAt < lastSent {
				t.Errorf("%s: SentTimestamp %q, want the move: from the task's start %d to %d, and not before the previous message's %d",
					body, m.Attributes["SentTimestamp"], after.StartedTimestamp, receivedAt, lastSent)
			}
			lastSent = max(lastSent, sentAt)
			if n := m.Attributes["ApproximateReceiveCount"]; n != "1" {
				t.Errorf("%s: ApproximateReceiveCount %q, want 1", body, n)
			}
			if arn, ok := m.Attributes["DeadLetterQueueSourceArn"]; ok {
				t.Errorf("%s: DeadLetterQueueSourceArn %q after the move", body, arn)
			}
		}
	}
	if got := slices.Sorted(slices.Values(bodies)); !slices.Equal(got, sent) {
		t.Fatalf("received %q from the source, want each of %q once", bodies, sent)
	}
}

func mvV2Visible(t *testing.T, c *sqsv2.Client, url string) int {
	t.Helper()
	return mvV2{c: c, ctx: context.Background()}.visible(t, url)
}

func mvV2Newest(t *testing.T, c *sqsv2.Client, source string) types.ListMessageMoveTasksResultEntry {
	t.Helper()
	out, err := c.ListMessageMoveTasks(context.Background(), &sqsv2.ListMessageMoveTasksInput{SourceArn: awsv2.String(source)})
	if err != nil {
		t.Fatalf("ListMessageMoveTasks: %v", err)
	}
	if len(out.Results) != 1 {
		t.Fatalf("ListMessageMoveTasks listed %d tasks, want 1", len(out.Results))
	}
	return out.Results[0]
}

// Move task answers in AWS's words, from localstack/localstack
// tests/aws/services/sqs/test_sqs_move_task.snapshot.json (recorded
// 30-04-2024): test_source_needs_redrive_policy,
// test_start_multiple_move_tasks, test_cancel_with_invalid_task_handle,
// test_cancel_with_invalid_source_arn_in_task_handle and
// test_cancel_with_invalid_task_id_in_task_handle; and the handle AWS
// gives, the base64 of {"taskId":"<uuid>","sourceArn":"<arn>"}
// (test_basic_move_task_workflow, markers.aws.validated).
func TestMoveTaskFidelity(t *testing.T) {
	mvProtocols(t, func(e *mvEnv) {
		t := e.t
		e.setup("orders", "m1", "m2")
		dlq := mvArn("orders-dlq")
		e.c.createQueue(t, "plain", nil)
		want := func(what string, err error, status int, code, message string) {
			t.Helper()
			fdWant(t, what, err, status, code, message)
		}
		_, err := e.c.start(mvArn("plain"), mvArn("orders"), nil)
		want("not a dead-letter queue", err, 400, "InvalidParameterValue", "Source queue must be configured as a Dead Letter Queue.")
		_, err = e.c.start(dlq, mvArn("plain")+"doesntexist", nil)
		want("unknown destination", err, 404, "ResourceNotFoundException", "The resource that you specified for the DestinationArn parameter doesn't exist.")

		h, err := e.c.start(dlq, "", awsv2.Int(1))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := base64.StdEncoding.DecodeString(h)
		var handle struct {
			TaskID    string `json:"taskId"`
			SourceArn string `json:"sourceArn"`
		}
		if err != nil || json.Unmarshal(raw, &handle) != nil || handle.SourceArn != dlq {
			t.Fatalf("TaskHandle %q decodes to %s (%v)", h, raw, err)
		}
		if _, err := uuid.Parse(handle.TaskID); err != nil {
			t.Fatalf("taskId %q: %v", handle.TaskID, err)
		}
		e.awaitIdle(dlq, 1)
		_, err = e.c.start(dlq, "", nil)
		want("second task", err, 400, "InvalidParameterValue", "There is already a task running. Only one active task is allowed for a source queue arn at a given time.")

		encode := func(id, arn string) string {
			return base64.StdEncoding.EncodeToString([]byte(`{"taskId":"` + id + `","sourceArn":"` + arn + `"}`))
		}
		_, err = e.c.cancel("foobared")
		want("undecodable handle", err, 400, "InvalidParameterValue", "Value for parameter TaskHandle is invalid.")
		_, err = e.c.cancel(encode("10f57157-fc38-4da9-a113-4de7e12d05dd", "arn:aws:sqs:us-east-1:878966065785:test-queue-doesnt-exist-123456"))
		want("unknown source", err, 404, "ResourceNotFoundException", "The resource that you specified for the SourceArn parameter doesn't exist.")
		_, err = e.c.cancel(encode("10f57157-fc38-4da9-a113-4de7e12d05aa", dlq))
		want("unknown task", err, 404, "ResourceNotFoundException", "Task does not exist.")
		if moved, err := e.c.cancel(h); err != nil || moved != 1 {
			t.Fatalf("cancel: %d, %v", moved, err)
		}
	})
}
