package rest_test

import (
	"testing"
	"time"
)

type moveTaskOut struct {
	Handle        string  `json:"handle"`
	Source        string  `json:"source"`
	Destination   *string `json:"destination"`
	MaxPerSecond  *int    `json:"maxPerSecond"`
	Status        string  `json:"status"`
	Moved         int64   `json:"moved"`
	ToMove        int64   `json:"toMove"`
	FailureReason string  `json:"failureReason"`
	StartedAt     string  `json:"startedAt"`
}

// deadLetter sends n messages to src and dead-letters them, and whatever
// else src holds, into its DLQ.
func (v *env) deadLetter(src string, n int) {
	v.t.Helper()
	for i := range n {
		v.sendOK(src, msg{"body": "poison " + string(rune('a'+i))})
	}
	if got := v.receive(src, msg{"maxMessages": 10, "visibilityTimeoutSeconds": 0}); len(got) < n {
		v.t.Fatalf("received %d of %d", len(got), n)
	}
	// maxReceiveCount 1: the next receive dead-letters them all.
	if got := v.receive(src, msg{"maxMessages": 10}); len(got) != 0 {
		v.t.Fatalf("received %+v", got)
	}
}

// awaitTask polls the queue's newest task until it has the status.
func (v *env) awaitTask(queue, status string) moveTaskOut {
	v.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var out struct{ Tasks []moveTaskOut }
		v.must(200, "GET", "/v1/queues/"+queue+"/move-tasks", nil).Decode(v.t, &out)
		if len(out.Tasks) > 0 && out.Tasks[0].Status == status {
			return out.Tasks[0]
		}
		if time.Now().After(deadline) {
			v.t.Fatalf("no %s task on %s: %+v", status, queue, out.Tasks)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestMoveTasks(t *testing.T) {
	v := newEnv(t)
	dlq := v.createQueue(msg{"name": "dlq"})
	v.createQueue(msg{"name": "src", "redrive": msg{"deadLetterQueue": dlq.ID, "maxReceiveCount": 1}})
	other := v.createQueue(msg{"name": "other"})
	v.createQueue(msg{"name": "f", "type": "fifo"})
	v.deadLetter("src", 3)

	// Back to the source queue.
	var started moveTaskOut
	v.must(201, "POST", "/v1/queues/dlq/move-tasks", nil).Decode(t, &started)
	if started.Source != dlq.ID || started.Destination != nil || started.MaxPerSecond != nil || started.ToMove != 3 || started.Handle == "" || !timeRE.MatchString(started.StartedAt) {
		t.Errorf("started: %+v", started)
	}
	done := v.awaitTask("dlq", "completed")
	if done.Moved != 3 || done.Handle != started.Handle {
		t.Errorf("done: %+v", done)
	}
	if q := v.getQueue("src"); q.Counts.Visible != 3 {
		t.Errorf("src after the redrive: %+v", q.Counts)
	}

	// To a chosen queue, one a second: cancelled after the first batch.
	// Tasks started at one instant have no order, so time moves first.
	v.clock.Advance(time.Second)
	v.deadLetter("src", 3)
	var slow moveTaskOut
	v.must(201, "POST", "/v1/queues/dlq/move-tasks", msg{"destination": "other", "maxPerSecond": 1}).Decode(t, &slow)
	if slow.Destination == nil || *slow.Destination != other.ID || slow.MaxPerSecond == nil || *slow.MaxPerSecond != 1 {
		t.Errorf("slow: %+v", slow)
	}
	v.fails(409, "move_task_running", validRequest, "POST", "/v1/queues/dlq/move-tasks", nil)
	var cancelled moveTaskOut
	v.must(200, "POST", "/v1/queues/dlq/move-tasks/cancel", nil).Decode(t, &cancelled)
	if cancelled.Status != "cancelling" && cancelled.Status != "cancelled" {
		t.Errorf("cancel answered %+v", cancelled)
	}
	end := v.awaitTask("dlq", "cancelled")
	if end.Moved > 1 {
		t.Errorf("moved %d at one a second without the clock moving", end.Moved)
	}
	v.fails(404, "move_task_not_found", validRequest, "POST", "/v1/queues/dlq/move-tasks/cancel", nil)
	var list struct{ Tasks []moveTaskOut }
	v.must(200, "GET", "/v1/queues/dlq/move-tasks", nil).Decode(t, &list)
	if len(list.Tasks) != 2 || list.Tasks[0].Handle != slow.Handle {
		t.Errorf("tasks, newest first: %+v", list.Tasks)
	}

	v.fails(400, "invalid_request", validRequest, "POST", "/v1/queues/other/move-tasks", nil)
	v.fails(400, "invalid_request", validRequest, "POST", "/v1/queues/dlq/move-tasks", msg{"destination": "nope"})
	v.fails(400, "invalid_request", validRequest, "POST", "/v1/queues/dlq/move-tasks", msg{"destination": "dlq"})
	v.fails(400, "invalid_request", validRequest, "POST", "/v1/queues/dlq/move-tasks", msg{"destination": "f"})
	v.fails(400, "invalid_request", invalidRequest, "POST", "/v1/queues/dlq/move-tasks", msg{"maxPerSecond": 501})
	v.fails(400, "invalid_request", invalidRequest, "POST", "/v1/queues/dlq/move-tasks", msg{"rate": 1})
	v.fails(404, "queue_not_found", validRequest, "POST", "/v1/queues/nope/move-tasks", nil)
	v.fails(404, "queue_not_found", validRequest, "GET", "/v1/queues/nope/move-tasks", nil)
}
