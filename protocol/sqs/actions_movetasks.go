package sqs

// Message move tasks, after API_StartMessageMoveTask,
// API_CancelMessageMoveTask and API_ListMessageMoveTasks.

import "github.com/minisqs/minisqs/engine"

func startMessageMoveTask(c *call, in *StartMessageMoveTaskInput) (*StartMessageMoveTaskOutput, error) {
	if in.SourceArn == "" {
		return nil, missing("SourceArn")
	}
	h, err := c.svc.engine.StartMoveTask(in.SourceArn, in.DestinationArn, in.MaxNumberOfMessagesPerSecond)
	if err != nil {
		return nil, err
	}
	return &StartMessageMoveTaskOutput{TaskHandle: h}, nil
}

func cancelMessageMoveTask(c *call, in *CancelMessageMoveTaskInput) (*CancelMessageMoveTaskOutput, error) {
	if in.TaskHandle == "" {
		return nil, missing("TaskHandle")
	}
	moved, err := c.svc.engine.CancelMoveTask(in.TaskHandle)
	if err != nil {
		return nil, err
	}
	return &CancelMessageMoveTaskOutput{ApproximateNumberOfMessagesMoved: moved}, nil
}

func listMessageMoveTasks(c *call, in *ListMessageMoveTasksInput) (*ListMessageMoveTasksOutput, error) {
	if in.SourceArn == "" {
		return nil, missing("SourceArn")
	}
	max := 1 // API_ListMessageMoveTasks: MaxResults defaults to 1
	if in.MaxResults != nil {
		max = *in.MaxResults
	}
	tasks, err := c.svc.engine.MoveTasks(in.SourceArn, max)
	if err != nil {
		return nil, err
	}
	out := &ListMessageMoveTasksOutput{}
	for _, t := range tasks {
		e := ListMessageMoveTasksResultEntry{
			Status:                            t.Status,
			SourceArn:                         t.SourceArn,
			DestinationArn:                    t.DestinationArn,
			ApproximateNumberOfMessagesMoved:  t.Moved,
			ApproximateNumberOfMessagesToMove: t.ToMove,
			FailureReason:                     t.FailureReason,
			StartedTimestamp:                  t.Started,
		}
		// Only a running task has a handle to cancel it by.
		if t.Status == engine.TaskRunning {
			e.TaskHandle = t.Handle
		}
		if t.MaxPerSecond > 0 {
			e.MaxNumberOfMessagesPerSecond = &t.MaxPerSecond
		}
		out.Results = append(out.Results, e)
	}
	return out, nil
}
