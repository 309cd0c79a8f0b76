package rest

// Move tasks: StartMoveTask, ListMoveTasks and CancelMoveTask, the REST
// form of SQS's message move tasks (API_StartMessageMoveTask and its
// siblings): a dead-letter queue's visible messages go back to the queues
// they came from, or to a chosen queue, at a bounded rate. A queue runs at
// most one task at a time, so cancelling names the queue, not the task.

import (
	"net/http"
	"strings"
	"time"

	"github.com/minisqs/minisqs/engine"
)

// listedMoveTasks is how many of a queue's tasks a listing gives: the most
// SQS's ListMessageMoveTasks gives (MaxResults, 1 to 10).
const listedMoveTasks = 10

type startMoveTaskInput struct {
	// Destination is a queue's id, slug or name; empty sends each message
	// back to the queue it was dead-lettered from.
	Destination  string `json:"destination"`
	MaxPerSecond *int   `json:"maxPerSecond"`
}

type moveTaskJSON struct {
	Handle        string  `json:"handle"`
	Source        string  `json:"source"`
	Destination   *string `json:"destination"`
	MaxPerSecond  *int    `json:"maxPerSecond"`
	Status        string  `json:"status"`
	Moved         int64   `json:"moved"`
	ToMove        int64   `json:"toMove"`
	FailureReason string  `json:"failureReason,omitempty"`
	StartedAt     string  `json:"startedAt"`
}

type moveTasksOutput struct {
	Tasks []moveTaskJSON `json:"tasks"`
}

// queueRef answers a queue named by ARN as its id, or the ARN when the queue
// is gone.
func (a *API) queueRef(arn string) string {
	if q, err := a.e.QueueByArn(arn); err == nil {
		return q.ID()
	}
	return arn
}

func (a *API) moveTaskJSON(t engine.MoveTask) moveTaskJSON {
	out := moveTaskJSON{
		Handle:        t.Handle,
		Source:        a.queueRef(t.SourceArn),
		Status:        strings.ToLower(t.Status),
		Moved:         t.Moved,
		ToMove:        t.ToMove,
		FailureReason: t.FailureReason,
		StartedAt:     formatTime(time.UnixMilli(t.Started)),
	}
	if t.DestinationArn != "" {
		d := a.queueRef(t.DestinationArn)
		out.Destination = &d
	}
	if t.MaxPerSecond != 0 {
		r := t.MaxPerSecond
		out.MaxPerSecond = &r
	}
	return out
}

// startMoveTask starts moving the dead-letter queue's visible messages and
// answers 201 with the task.
func (a *API) startMoveTask(c *call) (int, any, error) {
	q, err := a.queue(c)
	if err != nil {
		return 0, nil, err
	}
	var in startMoveTaskInput
	if err := c.decode(&in, true); err != nil {
		return 0, nil, err
	}
	if len(a.e.DeadLetterSourceQueues(q)) == 0 {
		return 0, nil, apiErrorf(codeInvalidRequest, "Queue %s is no queue's dead-letter queue: no redrive names it.", q.Name())
	}
	dst := ""
	if in.Destination != "" {
		d, err := a.e.LookupQueueIn(c.ns, in.Destination)
		switch {
		case err != nil:
			return 0, nil, apiErrorf(codeInvalidRequest, "destination: no queue %q.", in.Destination)
		case d == q:
			return 0, nil, apiErrorf(codeInvalidRequest, "destination is the queue the messages are moved from.")
		case d.IsFIFO() != q.IsFIFO():
			return 0, nil, apiErrorf(codeInvalidRequest, "destination must be of the same type as %s.", q.Name())
		}
		dst = d.Arn()
	}
	handle, err := a.e.StartMoveTask(q.Arn(), dst, in.MaxPerSecond)
	if err != nil {
		if engine.CodeOf(err) == engine.ErrMoveTaskRunning {
			return 0, nil, apiErrorf(codeMoveTaskRunning, "Queue %s has a move task running; cancel it or let it finish first.", q.Name())
		}
		return 0, nil, err
	}
	t, err := a.moveTask(q, func(t engine.MoveTask) bool { return t.Handle == handle })
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, t, nil
}

// moveTask finds one of the queue's recent tasks.
func (a *API) moveTask(q *engine.Queue, match func(engine.MoveTask) bool) (moveTaskJSON, error) {
	tasks, err := a.e.MoveTasks(q.Arn(), listedMoveTasks)
	if err != nil {
		return moveTaskJSON{}, err
	}
	for _, t := range tasks {
		if match(t) {
			return a.moveTaskJSON(t), nil
		}
	}
	return moveTaskJSON{}, apiErrorf(codeNoMoveTask, "Queue %s has no such move task.", q.Name())
}

// listMoveTasks answers the queue's most recent tasks, newest first.
func (a *API) listMoveTasks(c *call) (int, any, error) {
	q, err := a.queue(c)
	if err != nil {
		return 0, nil, err
	}
	tasks, err := a.e.MoveTasks(q.Arn(), listedMoveTasks)
	if err != nil {
		return 0, nil, err
	}
	out := moveTasksOutput{Tasks: make([]moveTaskJSON, len(tasks))}
	for i, t := range tasks {
		out.Tasks[i] = a.moveTaskJSON(t)
	}
	return http.StatusOK, out, nil
}

// cancelMoveTask cancels the queue's running task and answers it, now
// cancelling: it stops before its next batch.
func (a *API) cancelMoveTask(c *call) (int, any, error) {
	q, err := a.queue(c)
	if err != nil {
		return 0, nil, err
	}
	running, err := a.moveTask(q, func(t engine.MoveTask) bool { return t.Status == engine.TaskRunning })
	if err != nil {
		return 0, nil, apiErrorf(codeNoMoveTask, "Queue %s has no move task running.", q.Name())
	}
	if _, err := a.e.CancelMoveTask(running.Handle); err != nil {
		if engine.CodeOf(err) == engine.ErrInvalidParameterValue {
			// It ended meanwhile.
			return 0, nil, apiErrorf(codeNoMoveTask, "Queue %s has no move task running.", q.Name())
		}
		return 0, nil, err
	}
	t, err := a.moveTask(q, func(t engine.MoveTask) bool { return t.Handle == running.Handle })
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, t, nil
}
