package sqs

import (
	"net/url"
	"strings"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/queueurl"
)

// queueURL is the URL clients use for q, in q's own account. Its base is
// found only here, since most actions answer with no queue URL.
func (c *call) queueURL(q *engine.Queue) string {
	base := c.svc.baseURL
	if c.http != nil {
		base = queueurl.Base(c.http, c.svc.baseURL)
	}
	return queueurl.For(base, q.Namespace().Account, q.Name())
}

// namespace is where the request acts when it names no queue URL: the
// account and region its signature names, else the server's own.
func (c *call) namespace() engine.Namespace {
	return c.svc.engine.Namespace(c.account, c.region)
}

// queue finds the queue a QueueUrl names: by the account and name of its
// path, whatever the host, or by a bare queue name, which SQS accepts too
// (LocalStack's AWS-validated test_posting_to_queue_via_queue_name). A
// query request sent to the queue's own path may leave QueueUrl out. The
// signature's account, when it names one, wins over the path's; the region
// is the signature's or the server's. Anything else is a queue that does
// not exist, as SQS answers even a QueueUrl that is no URL at all (moto's
// AWS-verified test_get_queue_url_error_not_exists).
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
		return nil, engine.ErrMissing("QueueUrl")
	}
	account, name, ok := splitQueuePath(path)
	if !ok {
		if queueURL == "" || strings.Contains(queueURL, "/") {
			return nil, engine.ErrQueueMissing("")
		}
		account, name = "", queueURL // a bare name
	}
	if c.account != "" {
		account = c.account
	}
	return c.svc.engine.QueueIn(c.svc.engine.Namespace(account, c.region), name)
}

// splitQueuePath reads "/ACCOUNT/NAME" (a trailing slash allowed).
func splitQueuePath(path string) (account, name string, ok bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return "", "", false
	}
	return parts[0], parts[1], true
}
