// Package queueurl builds queues' SQS URLs as clients see them. The SQS
// protocols hand them out and the REST API reports them, and both must
// agree.
package queueurl

import (
	"net/http"
	"strings"
)

// Base is the scheme and host that queue URLs start with: configured when
// it is set, otherwise the scheme and host the request came to, so that URLs
// work from the client's side of a mapped port or proxy.
func Base(r *http.Request, configured string) string {
	if configured != "" {
		return strings.TrimSuffix(configured, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if p := r.Header.Get("X-Forwarded-Proto"); p == "http" || p == "https" {
		scheme = p
	}
	return scheme + "://" + r.Host
}

// For is the URL of the queue called name in account: BASE/ACCOUNT/NAME.
func For(base, account, name string) string {
	return base + "/" + account + "/" + name
}
