package engine

// Message move tasks: moving messages out of a dead-letter queue, back to
// the queues they came from or to a named destination (API_StartMessageMoveTask,
// API_CancelMessageMoveTask, API_ListMessageMoveTasks). Tasks are kept in the
// store and, like SQS's, carry on after a restart.

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"
)

// Move task states.
const (
	TaskRunning    = "RUNNING"
	TaskCompleted  = "COMPLETED"
	TaskCancelling = "CANCELLING"
	TaskCancelled  = "CANCELLED"
	TaskFailed     = "FAILED"
)

// Move task limits: at most 500 messages a second (API_StartMessageMoveTask);
// without a rate SQS picks one, and minisqs picks the maximum. A source
// lists its 10 most recent tasks (API_ListMessageMoveTasks).
const (
	MaxMovePerSecond     = 500
	maxListedMoveTasks   = 10
	moveTaskTickInterval = time.Second
	moveTaskPrefix       = "t:"
)

// MoveTask is a message move task as ListMessageMoveTasks reports it.
type MoveTask struct {
	Handle         string `json:"handle"`
	SourceArn      string `json:"sourceArn"`
	DestinationArn string `json:"destinationArn,omitempty"`
	// MaxPerSecond is the rate asked for; 0 lets minisqs choose.
	MaxPerSecond  int    `json:"maxPerSecond,omitempty"`
	Status        string `json:"status"`
	Moved         int64  `json:"moved"`
	ToMove        int64  `json:"toMove"`
	FailureReason string `json:"failureReason,omitempty"`
	Started       int64  `json:"started"` // unix milliseconds
}

// moveTasks is the engine's registry of tasks.
type moveTasks struct {
	mu       sync.Mutex // guards byHandle and every task's fields
	byHandle map[string]*moveTask
	wg       sync.WaitGroup
}

type moveTask struct {
	MoveTask
	cancel chan struct{}
	// halted, set by Reset and Load, stops the task without a word to the
	// store: its record goes with everything else. halt, closed once the
	// store agrees, ends its goroutine.
	halted bool
	halt   chan struct{}
	runMu  sync.Mutex // serialises its batches; guards nextAt
	nextAt int64      // when its next batch is due
}

func (t *moveTask) active() bool { return t.Status == TaskRunning || t.Status == TaskCancelling }

// StartMoveTask starts moving the visible messages of the dead-letter queue
// sourceArn to destinationArn, or to each message's original queue when
// destinationArn is empty.
func (e *Engine) StartMoveTask(sourceArn, destinationArn string, maxPerSecond *int) (string, error) {
	src, err := e.QueueByArn(sourceArn)
	if err != nil {
		return "", ErrResourceMissing("SourceArn")
	}
	if len(e.DeadLetterSourceQueues(src)) == 0 {
		return "", ErrNotDeadLetterQueue()
	}
	if destinationArn != "" {
		dst, err := e.QueueByArn(destinationArn)
		if err != nil {
			return "", ErrResourceMissing("DestinationArn")
		}
		// "the redrive destination ... if both queues are the same type"
		// (SQS Developer Guide, dead-letter queue redrive).
		if dst.IsFIFO() != src.IsFIFO() {
			return "", ErrInvalidParameter("DestinationArn", destinationArn, ReasonOtherQueueType)
		}
		if destinationArn == sourceArn {
			return "", ErrInvalidParameter("DestinationArn", destinationArn, ReasonSameQueue)
		}
	}
	rate := 0
	if maxPerSecond != nil {
		if *maxPerSecond < 1 || *maxPerSecond > MaxMovePerSecond {
			return "", ErrParameterRange("MaxNumberOfMessagesPerSecond", *maxPerSecond, 1, MaxMovePerSecond, false)
		}
		rate = *maxPerSecond
	}
	// Counted before the tasks' lock: a queue's lock is never taken under it.
	toMove := int64(src.Counts().Visible)
	e.tasks.mu.Lock()
	defer e.tasks.mu.Unlock()
	for _, t := range e.tasks.byHandle {
		if t.SourceArn == sourceArn && t.active() {
			return "", ErrTaskRunning()
		}
	}
	id, err := e.newID()
	if err != nil {
		return "", err
	}
	t := &moveTask{MoveTask: MoveTask{
		Handle:         encodeTaskHandle(id, sourceArn),
		SourceArn:      sourceArn,
		DestinationArn: destinationArn,
		MaxPerSecond:   rate,
		Status:         TaskRunning,
		ToMove:         toMove,
		Started:        e.clock.Now().UnixMilli(),
	}}
	if err := e.saveTaskLocked(t); err != nil {
		return "", err
	}
	e.runTaskLocked(t)
	return t.Handle, nil
}

// taskHandle is what a task handle says, as AWS writes it: the standard
// base64, padded, of this JSON (LocalStack's test_basic_move_task_workflow
// decodes AWS's handles so; the API_ListMessageMoveTasks sample handle
// decodes to {"taskId":"dc169e04-...","sourceArn":"arn:aws:sqs:..."}).
type taskHandle struct {
	TaskID    string `json:"taskId"`
	SourceArn string `json:"sourceArn"`
}

func encodeTaskHandle(id, sourceArn string) string {
	b, _ := json.Marshal(taskHandle{id, sourceArn})
	return base64.StdEncoding.EncodeToString(b)
}

// decodeTaskHandle reads a task handle: AWS's form, or the base64 of
// "id|sourceArn" that tasks stored by earlier versions of minisqs carry.
func decodeTaskHandle(h string) (id, sourceArn string, ok bool) {
	b, err := base64.StdEncoding.DecodeString(h)
	if err != nil {
		return "", "", false
	}
	var th taskHandle
	if json.Unmarshal(b, &th) == nil && th.TaskID != "" && th.SourceArn != "" {
		return th.TaskID, th.SourceArn, true
	}
	id, sourceArn, ok = strings.Cut(string(b), "|")
	return id, sourceArn, ok && id != "" && sourceArn != ""
}

// CancelMoveTask stops a running task and returns how many messages it had
// moved. The errors are AWS's (LocalStack's validated
// test_cancel_with_invalid_task_handle, test_cancel_with_invalid_source_arn_
// in_task_handle and test_cancel_with_invalid_task_id_in_task_handle).
func (e *Engine) CancelMoveTask(handle string) (int64, error) {
	id, sourceArn, ok := decodeTaskHandle(handle)
	if !ok {
		return 0, ErrInvalidParameter("TaskHandle", nil, ReasonMalformed)
	}
	if _, err := e.QueueByArn(sourceArn); err != nil {
		return 0, ErrResourceMissing("SourceArn")
	}
	e.tasks.mu.Lock()
	defer e.tasks.mu.Unlock()
	t := e.tasks.byHandle[handle]
	if t == nil {
		// The same task, its handle written otherwise.
		for _, c := range e.tasks.byHandle {
			if cid, carn, _ := decodeTaskHandle(c.Handle); cid == id && carn == sourceArn {
				t = c
				break
			}
		}
	}
	if t == nil {
		return 0, ErrResourceMissing("TaskHandle")
	}
	if t.Status != TaskRunning {
		return 0, ErrInvalidParameter("TaskHandle", handle, ReasonTaskNotActive)
	}
	// The store first: a cancel it did not record would undo itself at the
	// next start.
	if !t.halted {
		next := t.MoveTask
		next.Status = TaskCancelling
		if err := e.store.update(func(tx recordTx) error { return putTaskTx(tx, next) }); err != nil {
			return 0, err
		}
	}
	t.Status = TaskCancelling
	close(t.cancel)
	return t.Moved, nil
}

// MoveTasks lists up to max of the most recent tasks of a source queue,
// newest first.
func (e *Engine) MoveTasks(sourceArn string, max int) ([]MoveTask, error) {
	if _, err := e.QueueByArn(sourceArn); err != nil {
		return nil, ErrResourceMissing("SourceArn")
	}
	if max < 1 || max > maxListedMoveTasks {
		return nil, ErrParameterRange("MaxResults", max, 1, maxListedMoveTasks, false)
	}
	e.tasks.mu.Lock()
	defer e.tasks.mu.Unlock()
	var out []MoveTask
	for _, t := range e.tasks.byHandle {
		if t.SourceArn == sourceArn {
			out = append(out, t.MoveTask)
		}
	}
	slices.SortFunc(out, func(a, b MoveTask) int {
		if a.Started != b.Started {
			return int(b.Started - a.Started)
		}
		return strings.Compare(b.Handle, a.Handle)
	})
	return out[:min(len(out), max)], nil
}

func (e *Engine) saveTaskLocked(t *moveTask) error {
	if t.halted {
		return nil
	}
	return e.store.update(func(tx recordTx) error { return putTaskTx(tx, t.MoveTask) })
}

func putTaskTx(tx recordTx, t MoveTask) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return tx.set(moveTaskPrefix+t.Handle, string(b))
}

// loadTasks reads the stored tasks and resumes the running ones; a task
// being cancelled when the engine stopped ends cancelled.
func (e *Engine) loadTasks() error {
	e.tasks.byHandle = map[string]*moveTask{}
	var tasks []*moveTask
	err := e.store.view(func(tx recordTx) error {
		return tx.ascend(moveTaskPrefix, func(k, v string) bool {
			t := &moveTask{}
			if err := json.Unmarshal([]byte(v), &t.MoveTask); err != nil {
				e.log.Error("skipping unreadable move task", "key", k, "err", err)
				return true
			}
			tasks = append(tasks, t)
			return true
		})
	})
	if err != nil {
		return err
	}
	e.tasks.mu.Lock()
	defer e.tasks.mu.Unlock()
	for _, t := range tasks {
		switch t.Status {
		case TaskRunning:
			e.runTaskLocked(t)
			continue
		case TaskCancelling:
			t.Status = TaskCancelled
			if err := e.saveTaskLocked(t); err != nil {
				return err
			}
		}
		e.tasks.byHandle[t.Handle] = t
	}
	return nil
}

// runTaskLocked registers t and starts moving its messages: one batch at
// once, then one a second at its rate.
func (e *Engine) runTaskLocked(t *moveTask) {
	t.cancel = make(chan struct{})
	t.halt = make(chan struct{})
	t.nextAt = e.clock.Now().UnixNano()
	e.tasks.byHandle[t.Handle] = t
	e.tasks.wg.Add(1)
	go func() {
		defer e.tasks.wg.Done()
		for {
			wait, done := e.runDueBatches(t)
			if done {
				return
			}
			tick, stop := e.clock.After(wait)
			select {
			case <-tick:
			case <-t.cancel:
				stop()
				e.finishTask(t, TaskCancelled, "")
				return
			case <-t.halt:
				stop()
				return
			case <-e.closing:
				stop()
				return
			}
		}
	}()
}

// moveBatch moves one second's worth of messages and reports whether the
// task has ended.
func (e *Engine) moveBatch(t *moveTask) bool {
	e.tasks.mu.Lock()
	status, rate, src, dst := t.Status, t.MaxPerSecond, t.SourceArn, t.DestinationArn
	remaining := t.ToMove - t.Moved
	e.tasks.mu.Unlock()
	if status != TaskRunning {
		return status != TaskCancelling
	}
	if rate == 0 {
		rate = MaxMovePerSecond
	}
	source, err := e.QueueByArn(src)
	if err != nil {
		e.finishTask(t, TaskFailed, "AWS.SimpleQueueService.NonExistentQueue")
		return true
	}
	n := int(min(int64(rate), remaining))
	moved, reason := e.moveMessages(source, dst, n)
	e.tasks.mu.Lock()
	t.Moved += int64(moved)
	done := t.Moved >= t.ToMove || moved < n
	e.tasks.mu.Unlock()
	switch {
	case reason != "":
		e.finishTask(t, TaskFailed, reason)
	case done:
		e.finishTask(t, TaskCompleted, "")
	default:
		e.tasks.mu.Lock()
		err := e.saveTaskLocked(t)
		e.tasks.mu.Unlock()
		if err != nil {
			e.log.Error("saving move task", "handle", t.Handle, "err", err)
		}
		return false
	}
	return true
}

func (e *Engine) finishTask(t *moveTask, status, reason string) {
	e.tasks.mu.Lock()
	defer e.tasks.mu.Unlock()
	t.Status, t.FailureReason = status, reason
	if err := e.saveTaskLocked(t); err != nil {
		e.log.Error("saving move task", "handle", t.Handle, "err", err)
	}
}

// moveMessages takes up to n visible messages from src, in delivery order,
// and adopts each into its destination. It stops at a message that has
// nowhere to go, which fails the task with the returned reason, as does a
// destination that cannot take them: deleted meanwhile, or its store
// refusing the write; those messages stay in src.
func (e *Engine) moveMessages(src *Queue, destinationArn string, n int) (int, string) {
	if n <= 0 {
		return 0, ""
	}
	type batch struct {
		to   *Queue
		msgs []message // as they were
	}
	var batches []*batch
	reason := ""
	src.mu.Lock()
	now := e.clock.Now().UnixNano()
	src.advance(now)
	var cur groupCursor
	for taken := 0; taken < n; taken++ {
		m := src.nextReadyLocked(&cur, now)
		if m == nil {
			break
		}
		target := destinationArn
		if target == "" {
			rec, err := decodeMessageContent(m, src.ids)
			if err != nil || rec.DeadLetterSourceArn == "" {
				reason = "The message has no source queue to return to; give a DestinationArn."
				break
			}
			target = rec.DeadLetterSourceArn
		}
		to, err := e.QueueByArn(target)
		if err != nil {
			reason = "AWS.SimpleQueueService.NonExistentQueue"
			break
		}
		was := src.removeLocked(m)
		if len(batches) == 0 || batches[len(batches)-1].to != to {
			batches = append(batches, &batch{to: to})
		}
		b := batches[len(batches)-1]
		b.msgs = append(b.msgs, was)
	}
	src.mu.Unlock()
	moved := 0
	for _, b := range batches {
		n, err := b.to.adopt(src, b.msgs, redriven)
		moved += n
		if err != nil && reason == "" {
			reason = moveFailure(err)
		}
	}
	return moved, reason
}

// moveFailure is a task's FailureReason for a destination's error.
func moveFailure(err error) string {
	if CodeOf(err) == ErrQueueDoesNotExist {
		return "AWS.SimpleQueueService.NonExistentQueue"
	}
	return string(CodeOf(err))
}
