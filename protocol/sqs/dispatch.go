package sqs

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/minisqs/minisqs/internal/httpheader"
	"github.com/minisqs/minisqs/protocol/dispatch"
)

// serve passes a decoded request through the dispatch chain to its action
// a, called name, as the call c, which the caller releases once it has
// answered.
func (s *Service) serve(c *call, r *http.Request, body []byte, p dispatch.Protocol, name string, a action, in any) (any, error) {
	c.run = a.run
	c.req = dispatch.Request{
		Protocol: p,
		Action:   name,
		Queue:    queueOf(in, r.URL.Path, &s.queuePaths),
		Input:    in,
		HTTP:     r,
		Body:     body,
		Classify: classify,
		Call:     c,
	}
	return s.handler(r.Context(), &c.req)
}

// run is the end of the dispatch chain: the action, over its input.
func (s *Service) run(ctx context.Context, req *dispatch.Request) (any, error) {
	c, ok := req.Call.(*call)
	if !ok {
		c = new(call)
	}
	c.ctx, c.svc, c.http, c.account, c.region = ctx, s, req.HTTP, req.Account, req.Region
	if r := req.HTTP; r != nil {
		c.path = r.URL.Path
		c.trace = httpheader.Get(r.Header, traceHeader)
	}
	run := c.run
	if run == nil {
		run = s.actions[req.Action].run
	}
	return run(c, req.Input)
}

// classify gives the status and code both SQS protocols answer with. The
// code is the query protocol's, which the JSON protocol also sends in
// x-amzn-query-error and which the SDKs report as the error's code.
func classify(_ any, err error) (int, string) {
	if err == nil {
		return http.StatusOK, ""
	}
	w, _ := toWire(err)
	return w.status, w.queryCode
}

// Actions lists the names of the SQS actions, sorted.
func Actions() []string {
	return slices.Sorted(maps.Keys(actionTable()))
}

// Inputs that name their queue say so through these methods, so that the
// chain learns the queue without reflection.
type (
	// byURL is an input with a QueueUrl.
	byURL interface{ queueURL() string }
	// byName is an input with a QueueName.
	byName interface{ queueName() string }
	// byArn is an input with a source queue ARN.
	byArn interface{ sourceArn() string }
)

// queueOf is the name of the queue in names: from its QueueUrl (read
// through paths, where the action finds it read already), else from the
// request path (a query request to the queue's own path may leave QueueUrl
// out), from its QueueName or its source ARN; "" if none.
func queueOf(in any, path string, paths *queuePaths) string {
	switch v := in.(type) {
	case byURL:
		if u := v.queueURL(); u != "" {
			return paths.get(u).chainName
		}
		return lastOfQueuePath(path)
	case byName:
		return v.queueName()
	case byArn:
		a := v.sourceArn()
		return a[strings.LastIndexByte(a, ':')+1:]
	}
	return ""
}

// nameInURL is the queue name in the QueueUrl u: NAME of its path
// ACCOUNT/NAME, the path starting after the host when u has a scheme, or
// "" for any other path. Unlike the queue an action finds, it reads u as
// it is, unescaped.
func nameInURL(u string) string {
	if _, rest, ok := strings.Cut(u, "://"); ok {
		_, u, _ = strings.Cut(rest, "/")
	}
	return lastOfQueuePath(u)
}

// lastOfQueuePath is NAME of a path ACCOUNT/NAME, with or without slashes
// around it, or "" for any other path.
func lastOfQueuePath(p string) string {
	_, name, _ := splitQueuePath(p)
	return name
}

func (in *QueueInput) queueURL() string                        { return in.QueueUrl }
func (in *GetQueueAttributesInput) queueURL() string           { return in.QueueUrl }
func (in *SetQueueAttributesInput) queueURL() string           { return in.QueueUrl }
func (in *SendMessageInput) queueURL() string                  { return in.QueueUrl }
func (in *SendMessageBatchInput) queueURL() string             { return in.QueueUrl }
func (in *ReceiveMessageInput) queueURL() string               { return in.QueueUrl }
func (in *DeleteMessageInput) queueURL() string                { return in.QueueUrl }
func (in *DeleteMessageBatchInput) queueURL() string           { return in.QueueUrl }
func (in *ChangeMessageVisibilityInput) queueURL() string      { return in.QueueUrl }
func (in *ChangeMessageVisibilityBatchInput) queueURL() string { return in.QueueUrl }
func (in *TagQueueInput) queueURL() string                     { return in.QueueUrl }
func (in *UntagQueueInput) queueURL() string                   { return in.QueueUrl }
func (in *ListDeadLetterSourceQueuesInput) queueURL() string   { return in.QueueUrl }
func (in *AddPermissionInput) queueURL() string                { return in.QueueUrl }
func (in *RemovePermissionInput) queueURL() string             { return in.QueueUrl }

func (in *CreateQueueInput) queueName() string          { return in.QueueName }
func (in *GetQueueUrlInput) queueName() string          { return in.QueueName }
func (in *StartMessageMoveTaskInput) sourceArn() string { return in.SourceArn }
func (in *ListMessageMoveTasksInput) sourceArn() string { return in.SourceArn }
