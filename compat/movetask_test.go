package compat

// Message move tasks (StartMessageMoveTask, CancelMessageMoveTask,
// ListMessageMoveTasks) through aws-sdk-go-v2 (JSON protocol) and
// aws-sdk-go v1 (query protocol), and a task carrying on across a restart
// of the real binary.
//
// The in-process tests run on the server's ManualClock: time passes only
// through Advance, and a test polls the task listing, bounded by a
// real-time safety deadline, while the task's goroutine does what the
// clock allows.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/server"
)

// moveWait bounds, in real time, a wait for something the clock already
// allows.
const moveWait = 5 * time.Second

// originAttr is the message attribute sendOrigin gives every message: its
// body.
const originAttr = "origin"

// sendOrigin sends body with the String message attribute originAttr, whose
// value is the body, and returns its MessageId.
func (e *env) sendOrigin(url, body string) string {
	e.t.Helper()
	return e.sendMsg(url, sendIn{Body: body, Attrs: map[string]msgAttr{originAttr: strAttr("String", body)}}).MessageID
}

// receiveAll receives up to 10 messages without waiting, with every
// system and message attribute.
func (e *env) receiveAll(url string) []message {
	e.t.Helper()
	return e.receive(url, receiveIn{Max: ptr(10), Wait: ptr(0), SysNames: []string{"All"}, MsgAttrNames: []string{"All"}})
}

// setup creates name-dlq and name, which dead-letters into it after one
// receive, sends bodies to the source and dead-letters them: received
// once, the leases run out on the clock, and the next receive moves them.
// It returns the two URLs and the message ids by body.
func (e *env) setup(name string, bodies ...string) (srcURL, dlqURL string, ids map[string]string) {
	t := e.t
	t.Helper()
	dlqURL = e.createQueue(name+"-dlq", nil)
	srcURL = e.createQueue(name, map[string]string{
		"VisibilityTimeout": "30",
		"RedrivePolicy":     `{"deadLetterTargetArn":"` + arn(name+"-dlq") + `","maxReceiveCount":"1"}`,
	})
	ids = map[string]string{}
	for _, b := range bodies {
		ids[b] = e.sendOrigin(srcURL, b)
	}
	got := 0
	for i := 0; got < len(bodies); i++ {
		if i > 100 {
			t.Fatalf("received %d of %d", got, len(bodies))
		}
		got += len(e.receiveAll(srcURL))
	}
	e.advance(30 * time.Second)
	if msgs := e.receiveAll(srcURL); len(msgs) != 0 {
		t.Fatalf("second receive returned %d messages; want them dead-lettered", len(msgs))
	}
	if n := e.visible(dlqURL); n != len(bodies) {
		t.Fatalf("dead-letter queue holds %d messages, want %d", n, len(bodies))
	}
	return srcURL, dlqURL, ids
}

// task returns the listed task with the given handle; a finished task is
// listed without its handle, so "" finds the newest task.
func (e *env) task(source, handle string) moveTask {
	e.t.Helper()
	tasks, err := e.c.ListMessageMoveTasks(source, ptr(10))
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
func (e *env) await(source, what string, cond func(moveTask) bool) moveTask {
	e.t.Helper()
	deadline := time.Now().Add(moveWait)
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

func (e *env) awaitStatus(source, status string) moveTask {
	e.t.Helper()
	return e.await(source, status, func(m moveTask) bool { return m.Status == status })
}

// awaitIdle waits until the newest task has moved want messages and waits
// on its next tick: the sweeper's timer and the task's are on the clock.
func (e *env) awaitIdle(source string, want int64) moveTask {
	e.t.Helper()
	return e.await(source, "idle", func(m moveTask) bool {
		return m.Moved == want && (m.Status != "RUNNING" || e.srv.Clock.Waiters() >= 2)
	})
}

func wantTask(t *testing.T, got moveTask, status string, moved, toMove int64) {
	t.Helper()
	if got.Status != status || got.Moved != moved || got.ToMove != toMove {
		t.Fatalf("task %s moved %d of %d, want %s moved %d of %d (%+v)", got.Status, got.Moved, got.ToMove, status, moved, toMove, got)
	}
}

// peek returns the visible messages of the queue name in delivery order,
// straight from the engine: what a receive would return, without receiving.
func (e *env) peek(name string) []engine.Message {
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

// wantNewID checks that id, a moved message's MessageId, is a fresh
// random UUID: none of the old ids, and not seen before (seen records it).
func wantNewID(t *testing.T, body, id string, old, seen map[string]bool) {
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

// wantRedriven checks that got, received where a move task put them, are
// the messages of before (the dead-letter queue's messages before the
// move, in delivery order) redriven as SQS does: "All redriven messages are
// considered new messages with a new messageID and enqueueTime" (SQS
// Developer Guide, "Configure a dead-letter queue redrive"). Each has a
// fresh MessageId and the SentTimestamp movedAt (milliseconds), keeps its
// body, MD5 and message attributes and its place in the order, and is
// received for the first time with no dead-letter source.
func wantRedriven(t *testing.T, got []message, before []engine.Message, movedAt int64) {
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
			t.Errorf("received %q where %q was next, want the order kept (received %q)", m.Body, was.Body, bodies(got))
			continue
		}
		wantNewID(t, m.Body, m.MessageID, old, seen)
		if m.MD5Body != was.MD5OfBody || m.MD5Body != refMD5(m.Body) {
			t.Errorf("%s: MD5OfBody %s after the move, was %s", m.Body, m.MD5Body, was.MD5OfBody)
		}
		if len(m.MsgAttrs) != 1 || m.MsgAttrs[originAttr].StringValue != m.Body {
			t.Errorf("%s: message attributes %v after the move, want %s=%s", m.Body, m.MsgAttrs, originAttr, m.Body)
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

func TestMoveTaskRoundTrip(t *testing.T) {
	eachProtocol(t, server.Config{}, func(e *env) {
		t := e.t
		srcURL, dlqURL, ids := e.setup("orders", "m1", "m2", "m3")
		dlq := arn("orders-dlq")
		before := e.peek("orders-dlq")
		for _, m := range before {
			if m.ID != ids[m.Body] {
				t.Fatalf("%s: dead-lettered with MessageId %s, sent as %s", m.Body, m.ID, ids[m.Body])
			}
		}
		// A minute on, the move makes them new messages sent then.
		e.advance(time.Minute)
		startedAt := e.srv.Clock.Now().UnixMilli()

		h, err := e.c.StartMessageMoveTask(dlq, "", nil)
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
		wantTask(t, task, "COMPLETED", 3, 3)
		if task.Handle != "" || task.Destination != "" || task.Failure != "" || task.Rate != 0 {
			t.Errorf("completed task %+v: want no handle, destination, failure or rate", task)
		}
		if task.Source != dlq || task.Started != startedAt {
			t.Errorf("completed task source %s started %d, want %s %d", task.Source, task.Started, dlq, startedAt)
		}

		if n := e.visible(dlqURL); n != 0 {
			t.Errorf("dead-letter queue still holds %d", n)
		}
		msgs := e.receiveAll(srcURL)
		if got := slices.Sorted(slices.Values(bodies(msgs))); len(got) != 3 || got[0] != "m1" || got[1] != "m2" || got[2] != "m3" {
			t.Fatalf("source received %q", got)
		}
		// One batch at the start: all moved at startedAt.
		wantRedriven(t, msgs, before, startedAt)
	})
}

func TestMoveTaskToDestinationAndList(t *testing.T) {
	eachProtocol(t, server.Config{}, func(e *env) {
		t := e.t
		_, dlqURL, _ := e.setup("orders", "m1", "m2")
		dstURL := e.createQueue("parking", nil)
		dlq := arn("orders-dlq")

		if _, err := e.c.StartMessageMoveTask(dlq, arn("parking"), ptr(500)); err != nil {
			t.Fatalf("StartMessageMoveTask: %v", err)
		}
		task := e.awaitStatus(dlq, "COMPLETED")
		wantTask(t, task, "COMPLETED", 2, 2)
		if task.Destination != arn("parking") || task.Rate != 500 {
			t.Errorf("task %+v: want destination parking, rate 500", task)
		}
		if got := slices.Sorted(slices.Values(bodies(e.receiveAll(dstURL)))); len(got) != 2 || got[0] != "m1" || got[1] != "m2" {
			t.Errorf("destination received %q", got)
		}
		if n := e.visible(dlqURL); n != 0 {
			t.Errorf("dead-letter queue still holds %d", n)
		}

		// A second, later task on the now empty queue; MaxResults defaults
		// to 1, the newest.
		e.advance(time.Second)
		if _, err := e.c.StartMessageMoveTask(dlq, "", nil); err != nil {
			t.Fatalf("second StartMessageMoveTask: %v", err)
		}
		e.awaitStatus(dlq, "COMPLETED")
		one, err := e.c.ListMessageMoveTasks(dlq, nil)
		if err != nil || len(one) != 1 {
			t.Fatalf("ListMessageMoveTasks without MaxResults: %+v, %v", one, err)
		}
		if one[0].Destination != "" || one[0].ToMove != 0 || one[0].Started != e.srv.Clock.Now().UnixMilli() {
			t.Errorf("newest task %+v", one[0])
		}
		all, err := e.c.ListMessageMoveTasks(dlq, ptr(10))
		if err != nil || len(all) != 2 {
			t.Fatalf("ListMessageMoveTasks MaxResults 10: %+v, %v", all, err)
		}
		if all[0].Started <= all[1].Started || all[1].Destination != arn("parking") {
			t.Errorf("tasks not newest first: %+v", all)
		}
	})
}

func TestMoveTaskCancel(t *testing.T) {
	eachProtocol(t, server.Config{}, func(e *env) {
		t := e.t
		srcURL, dlqURL, _ := e.setup("orders", "m1", "m2", "m3", "m4")
		dlq := arn("orders-dlq")

		h, err := e.c.StartMessageMoveTask(dlq, "", ptr(1))
		if err != nil {
			t.Fatalf("StartMessageMoveTask: %v", err)
		}
		running := e.awaitIdle(dlq, 1)
		wantTask(t, running, "RUNNING", 1, 4)
		if running.Handle != h || running.Rate != 1 {
			t.Errorf("running task %+v: want handle %s, rate 1", running, h)
		}
		moved, err := e.c.CancelMessageMoveTask(h)
		if err != nil || moved != 1 {
			t.Fatalf("CancelMessageMoveTask = %d, %v; want 1 moved", moved, err)
		}
		task := e.awaitStatus(dlq, "CANCELLED")
		wantTask(t, task, "CANCELLED", 1, 4)
		if task.Handle != "" {
			t.Errorf("cancelled task listed with handle %q", task.Handle)
		}
		// Time passes; nothing more moves.
		e.advance(10 * time.Second)
		wantTask(t, e.task(dlq, ""), "CANCELLED", 1, 4)
		if v, d := e.visible(srcURL), e.visible(dlqURL); v != 1 || d != 3 {
			t.Errorf("source %d, dead-letter queue %d; want 1 and 3", v, d)
		}

		// The task is over: cancelling it again fails, and so does an
		// unknown handle.
		if _, err := e.c.CancelMessageMoveTask(h); err == nil {
			t.Error("cancelling a cancelled task succeeded")
		} else {
			mustAPIError(t, err)
		}
		unknown := base64.StdEncoding.EncodeToString([]byte(`{"taskId":"10f57157-fc38-4da9-a113-4de7e12d05aa","sourceArn":"` + dlq + `"}`))
		_, err = e.c.CancelMessageMoveTask(unknown)
		if err == nil {
			t.Fatal("cancelling an unknown task succeeded")
		}
		if code := mustAPIError(t, err).Code; code != "ResourceNotFoundException" {
			t.Errorf("unknown handle: code %q, want ResourceNotFoundException", code)
		}
	})
}

func TestMoveTaskErrors(t *testing.T) {
	eachProtocol(t, server.Config{}, func(e *env) {
		t := e.t
		e.setup("orders", "m1", "m2")
		dlq := arn("orders-dlq")
		e.createQueue("plain", nil)
		e.createQueue("plain.fifo", map[string]string{"FifoQueue": "true"})

		wantCode := func(what string, err error, code string) {
			t.Helper()
			if err == nil {
				t.Fatalf("%s: no error, want %s", what, code)
			}
			if got := mustAPIError(t, err).Code; got != code {
				t.Fatalf("%s: code %q, want %q (%v)", what, got, code, err)
			}
		}
		_, err := e.c.StartMessageMoveTask(arn("missing"), "", nil)
		wantCode("unknown source", err, "ResourceNotFoundException")
		_, err = e.c.StartMessageMoveTask(arn("plain"), "", nil)
		wantCode("source not a dead-letter queue", err, "InvalidParameterValue")
		_, err = e.c.StartMessageMoveTask(dlq, arn("missing"), nil)
		wantCode("unknown destination", err, "ResourceNotFoundException")
		_, err = e.c.StartMessageMoveTask(dlq, dlq, nil)
		wantCode("destination is the source", err, "InvalidParameterValue")
		_, err = e.c.StartMessageMoveTask(dlq, arn("plain.fifo"), nil)
		wantCode("FIFO destination of a standard source", err, "InvalidParameterValue")
		for _, rate := range []int{0, 501} {
			_, err = e.c.StartMessageMoveTask(dlq, "", ptr(rate))
			wantCode("rate out of range", err, "InvalidParameterValue")
		}
		_, err = e.c.ListMessageMoveTasks(arn("missing"), nil)
		wantCode("list of unknown source", err, "ResourceNotFoundException")
		_, err = e.c.ListMessageMoveTasks(dlq, ptr(11))
		wantCode("MaxResults 11", err, "InvalidParameterValue")
		if tasks, err := e.c.ListMessageMoveTasks(dlq, ptr(10)); err != nil || len(tasks) != 0 {
			t.Fatalf("refused starts left tasks: %+v, %v", tasks, err)
		}

		// One active task per source.
		if _, err := e.c.StartMessageMoveTask(dlq, "", ptr(1)); err != nil {
			t.Fatalf("StartMessageMoveTask: %v", err)
		}
		e.awaitIdle(dlq, 1)
		_, err = e.c.StartMessageMoveTask(dlq, "", nil)
		wantCode("second active task", err, "InvalidParameterValue")
		_, err = e.c.StartMessageMoveTask(dlq, arn("plain"), ptr(10))
		wantCode("second active task with a destination", err, "InvalidParameterValue")
		// It finishes on the next tick; then another may start.
		e.advance(time.Second)
		wantTask(t, e.awaitStatus(dlq, "COMPLETED"), "COMPLETED", 2, 2)
		if _, err := e.c.StartMessageMoveTask(dlq, "", nil); err != nil {
			t.Fatalf("StartMessageMoveTask after the first ended: %v", err)
		}
	})
}

func TestMoveTaskFailsForMessageWithoutSource(t *testing.T) {
	eachProtocol(t, server.Config{}, func(e *env) {
		t := e.t
		_, dlqURL, _ := e.setup("orders")
		dlq := arn("orders-dlq")
		e.sendOrigin(dlqURL, "sent straight to the DLQ")
		if _, err := e.c.StartMessageMoveTask(dlq, "", nil); err != nil {
			t.Fatalf("StartMessageMoveTask: %v", err)
		}
		task := e.awaitStatus(dlq, "FAILED")
		if task.Failure == "" || task.Moved != 0 || task.ToMove != 1 {
			t.Errorf("failed task %+v: want a FailureReason, 0 of 1 moved", task)
		}
		if n := e.visible(dlqURL); n != 1 {
			t.Errorf("dead-letter queue holds %d, want the message left in place", n)
		}
	})
}

// TestMoveTaskAcrossRestart runs the binary with --db on the wall clock: a
// slow task is running when the process stops, and after the restart it
// carries on and completes.
func TestMoveTaskAcrossRestart(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "minisqs.db")
	p := startProcess(t, "--db", db)
	// A server of its own: env's helpers over the binary's client.
	e := &env{t: t, c: v2Client{c: processClient(t, p.URL), ctx: context.Background()}}

	if _, err := e.c.CreateQueue("jobs-dlq", nil, nil); err != nil {
		t.Fatal(err)
	}
	srcURL, err := e.c.CreateQueue("jobs", map[string]string{
		"RedrivePolicy": `{"deadLetterTargetArn":"` + arn("jobs-dlq") + `","maxReceiveCount":"1"}`,
		// A received message is visible again at once (the SDK leaves
		// a VisibilityTimeout of 0 out of a receive).
		"VisibilityTimeout": "0",
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	sent := []string{"j1", "j2", "j3", "j4", "j5"}
	for _, b := range sent {
		ids[e.sendOrigin(srcURL, b)] = true
	}
	// Each receive makes the messages visible again at once, and the next
	// dead-letters them: no waiting on the wall clock.
	dlqURL := p.URL + "/000000000000/jobs-dlq"
	for i := 0; ; i++ {
		if i > 50 {
			t.Fatal("messages never reached the dead-letter queue")
		}
		if e.visible(dlqURL) == 5 {
			break
		}
		e.receive(srcURL, receiveIn{Max: ptr(10)})
	}

	h, err := e.c.StartMessageMoveTask(arn("jobs-dlq"), "", ptr(1))
	if err != nil {
		t.Fatal(err)
	}
	before := e.only(arn("jobs-dlq"))
	// At one a second, five messages take four seconds after the first.
	if before.Status != "RUNNING" || before.Handle != h || before.Moved >= 5 {
		t.Fatalf("before the restart: %+v", before)
	}
	p.stop(t, syscall.SIGTERM)

	p = startProcess(t, "--db", db)
	e.c = v2Client{c: processClient(t, p.URL), ctx: context.Background()}
	deadline := time.Now().Add(10 * time.Second)
	var after moveTask
	for {
		after = e.only(arn("jobs-dlq"))
		if after.Status != "RUNNING" {
			if after.Status != "COMPLETED" {
				t.Fatalf("after the restart the task is %s: %+v", after.Status, after)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task still running 10 s after the restart: moved %d", after.Moved)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if after.Moved != 5 || after.ToMove != 5 {
		t.Errorf("completed task moved %d of %d, want 5 of 5", after.Moved, after.ToMove)
	}
	if after.Started != before.Started {
		t.Errorf("StartedTimestamp %d after the restart, was %d", after.Started, before.Started)
	}
	if n := e.visible(dlqURL); n != 0 {
		t.Errorf("dead-letter queue still holds %d", n)
	}
	// The moved messages are new ones (see wantRedriven): new ids, sent
	// when the task moved them, between its start and now, in the order
	// it moved them; body, MD5 and attributes kept.
	receivedAt := time.Now().UnixMilli()
	seen := map[string]bool{}
	var got []string
	var lastSent int64
	for i := 0; len(got) < 5 && i < 10; i++ {
		for _, m := range e.receive(p.URL+"/000000000000/jobs", receiveIn{Max: ptr(10), Visibility: ptr(600), SysNames: []string{"All"}, MsgAttrNames: []string{"All"}}) {
			body := m.Body
			got = append(got, body)
			wantNewID(t, body, m.MessageID, ids, seen)
			if m.MD5Body != refMD5(body) {
				t.Errorf("%s: MD5OfBody %s, want %s", body, m.MD5Body, refMD5(body))
			}
			if v := m.MsgAttrs[originAttr]; len(m.MsgAttrs) != 1 || v.StringValue != body {
				t.Errorf("%s: message attributes %+v, want %s=%s", body, m.MsgAttrs, originAttr, body)
			}
			sentAt, err := strconv.ParseInt(m.Attrs["SentTimestamp"], 10, 64)
			if err != nil || sentAt < after.Started || sentAt > receivedAt || sentAt < lastSent {
				t.Errorf("%s: SentTimestamp %q, want the move: from the task's start %d to %d, and not before the previous message's %d",
					body, m.Attrs["SentTimestamp"], after.Started, receivedAt, lastSent)
			}
			lastSent = max(lastSent, sentAt)
			if n := m.Attrs["ApproximateReceiveCount"]; n != "1" {
				t.Errorf("%s: ApproximateReceiveCount %q, want 1", body, n)
			}
			if arn, ok := m.Attrs["DeadLetterQueueSourceArn"]; ok {
				t.Errorf("%s: DeadLetterQueueSourceArn %q after the move", body, arn)
			}
		}
	}
	if sorted := slices.Sorted(slices.Values(got)); !slices.Equal(sorted, sent) {
		t.Fatalf("received %q from the source, want each of %q once", got, sent)
	}
}

// only returns the one task ListMessageMoveTasks lists for source.
func (e *env) only(source string) moveTask {
	e.t.Helper()
	tasks, err := e.c.ListMessageMoveTasks(source, nil)
	if err != nil {
		e.t.Fatalf("ListMessageMoveTasks: %v", err)
	}
	if len(tasks) != 1 {
		e.t.Fatalf("ListMessageMoveTasks listed %d tasks, want 1", len(tasks))
	}
	return tasks[0]
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
	eachProtocol(t, server.Config{}, func(e *env) {
		t := e.t
		e.setup("orders", "m1", "m2")
		dlq := arn("orders-dlq")
		e.createQueue("plain", nil)
		want := func(what string, err error, status int, code, message string) {
			t.Helper()
			wantMessage(t, what, err, status, code, message)
		}
		_, err := e.c.StartMessageMoveTask(arn("plain"), arn("orders"), nil)
		want("not a dead-letter queue", err, 400, "InvalidParameterValue", "Source queue must be configured as a Dead Letter Queue.")
		_, err = e.c.StartMessageMoveTask(dlq, arn("plain")+"doesntexist", nil)
		want("unknown destination", err, 404, "ResourceNotFoundException", "The resource that you specified for the DestinationArn parameter doesn't exist.")

		h, err := e.c.StartMessageMoveTask(dlq, "", ptr(1))
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
		_, err = e.c.StartMessageMoveTask(dlq, "", nil)
		want("second task", err, 400, "InvalidParameterValue", "There is already a task running. Only one active task is allowed for a source queue arn at a given time.")

		encode := func(id, arn string) string {
			return base64.StdEncoding.EncodeToString([]byte(`{"taskId":"` + id + `","sourceArn":"` + arn + `"}`))
		}
		_, err = e.c.CancelMessageMoveTask("foobared")
		want("undecodable handle", err, 400, "InvalidParameterValue", "Value for parameter TaskHandle is invalid.")
		_, err = e.c.CancelMessageMoveTask(encode("10f57157-fc38-4da9-a113-4de7e12d05dd", "arn:aws:sqs:us-east-1:878966065785:test-queue-doesnt-exist-123456"))
		want("unknown source", err, 404, "ResourceNotFoundException", "The resource that you specified for the SourceArn parameter doesn't exist.")
		_, err = e.c.CancelMessageMoveTask(encode("10f57157-fc38-4da9-a113-4de7e12d05aa", dlq))
		want("unknown task", err, 404, "ResourceNotFoundException", "Task does not exist.")
		if moved, err := e.c.CancelMessageMoveTask(h); err != nil || moved != 1 {
			t.Fatalf("cancel: %d, %v", moved, err)
		}
	})
}
