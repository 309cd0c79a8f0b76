package sqs

import (
	"net/url"
	"strings"
	"sync/atomic"

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
	var account, name string
	var ok bool
	if queueURL != "" {
		account, name, ok = c.svc.queuePaths.of(queueURL)
	} else {
		if strings.Trim(c.path, "/") == "" {
			return nil, engine.ErrMissing("QueueUrl")
		}
		account, name, ok = splitQueuePath(c.path)
	}
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

// queuePaths keeps the queue URLs last read, by length: a client names the
// same few queues request after request.
type queuePaths [16]atomic.Pointer[queuePath]

// queuePath is a queue URL, the account and name of its path, and the
// name the dispatch chain knows its queue by.
type queuePath struct {
	url, account, name string
	ok                 bool
	chainName          string // nameInURL(url)
}

// of returns the account and name of the path of queueURL, as
// splitQueuePath(urlPath(queueURL)) reads them.
func (p *queuePaths) of(queueURL string) (account, name string, ok bool) {
	q := p.get(queueURL)
	return q.account, q.name, q.ok
}

// get returns what queueURL is read as, from its slot if it was the last
// URL of its length.
func (p *queuePaths) get(queueURL string) *queuePath {
	slot := &p[len(queueURL)%len(p)]
	if q := slot.Load(); q != nil && q.url == queueURL {
		return q
	}
	// A copy, so that the slot holds on to no request's body.
	q := &queuePath{url: strings.Clone(queueURL)}
	q.account, q.name, q.ok = splitQueuePath(urlPath(q.url))
	q.chainName = nameInURL(q.url)
	slot.Store(q)
	return q
}

// urlPath is the path of the URL s as url.Parse reads it, or s itself when
// it is no URL or has no path. Queue URLs as SQS hands them out, http or
// https to a plain host and port with a path of URL-safe characters, are
// read without url.Parse, which allocates: every message action names one.
func urlPath(s string) string {
	rest, ok := strings.CutPrefix(s, "http://")
	if !ok {
		rest, ok = strings.CutPrefix(s, "https://")
	}
	if ok {
		if host, _, found := strings.Cut(rest, "/"); found && plainHost(host) && plainPath(rest[len(host):]) {
			return rest[len(host):]
		}
	}
	if u, err := url.Parse(s); err == nil && u.Path != "" {
		return u.Path
	}
	return s
}

// plainHost reports whether h is a host name or IPv4 address of letters,
// digits, dots and hyphens, with an optional port of digits.
func plainHost(h string) bool {
	name, port, _ := strings.Cut(h, ":")
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return false
		}
	}
	return true
}

// plainPath reports whether p holds only characters that url.Parse takes
// in a path as they are: letters, digits, slashes and "-._~".
func plainPath(p string) bool {
	for i := 0; i < len(p); i++ {
		if c := p[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// splitQueuePath reads "/ACCOUNT/NAME", with or without slashes around it,
// without allocating: it runs on every request.
func splitQueuePath(path string) (account, name string, ok bool) {
	account, name, ok = strings.Cut(strings.Trim(path, "/"), "/")
	if !ok || account == "" || name == "" || strings.IndexByte(name, '/') >= 0 {
		return "", "", false
	}
	return account, name, true
}
