package sqs

import (
	"net/url"
	"strings"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/queueurl"
)

// queueURL is the URL clients use for q.
func (c *call) queueURL(q *engine.Queue) string {
	return queueurl.For(c.baseURL, c.svc.engine.AccountID(), q.Name())
}

// queueFromURL finds the queue a QueueUrl names, by its account and name
// path whatever the host. A query request sent to the queue's own path may
// leave QueueUrl out.
func (c *call) queue(queueURL string) (*engine.Queue, error) {
	path := c.path
	if queueURL != "" {
		if u, err := url.Parse(queueURL); err == nil && u.Path != "" {
			path = u.Path
		} else {
			path = queueURL
		}
	}
	if queueURL == "" && strings.Trim(path, "/") == "" {
		return nil, engine.Errorf(engine.ErrMissingParameter, "The request must contain the parameter QueueUrl.")
	}
	account, name, ok := splitQueuePath(path)
	if !ok {
		return nil, engine.Errorf(engine.ErrInvalidAddress, "The address %s is not valid for this endpoint.", queueURL)
	}
	if account != c.svc.engine.AccountID() {
		return nil, engine.Errorf(engine.ErrQueueDoesNotExist, "The specified queue does not exist.")
	}
	return c.svc.engine.Queue(name)
}

// splitQueuePath reads "/ACCOUNT/NAME" (a trailing slash allowed).
func splitQueuePath(path string) (account, name string, ok bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return "", "", false
	}
	return parts[0], parts[1], true
}
