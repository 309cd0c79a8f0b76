package engine

import (
	"cmp"
	"slices"
	"strings"
)

// Namespace is where queues live: an AWS account in a region. Queues of one
// name in two namespaces are two queues, as in SQS; a queue's URL and ARN
// carry its namespace, and ARNs name queues across namespaces.
type Namespace struct {
	Account string
	Region  string
}

// Arn is the ARN of the queue called name in n.
func (n Namespace) Arn(name string) string {
	return "arn:aws:sqs:" + n.Region + ":" + n.Account + ":" + name
}

// queueRef names a queue within the engine.
type queueRef struct {
	ns   Namespace
	name string
}

// DefaultNamespace is the engine's own account and region, where requests
// that name neither act.
func (e *Engine) DefaultNamespace() Namespace {
	return Namespace{Account: e.opts.AccountID, Region: e.opts.Region}
}

// Namespace returns the namespace of account and region, the engine's own
// for either left empty.
func (e *Engine) Namespace(account, region string) Namespace {
	return Namespace{Account: cmp.Or(account, e.opts.AccountID), Region: cmp.Or(region, e.opts.Region)}
}

// QueueIn returns the queue called name in ns.
func (e *Engine) QueueIn(ns Namespace, name string) (*Queue, error) {
	e.mu.RLock()
	q, ok := e.queues[queueRef{ns, name}]
	e.mu.RUnlock()
	if !ok {
		return nil, errNoQueue()
	}
	return q, nil
}

// QueuesIn lists the queues of ns whose names start with prefix, by name.
func (e *Engine) QueuesIn(ns Namespace, prefix string) []*Queue {
	e.mu.RLock()
	var out []*Queue
	for ref, q := range e.queues {
		if ref.ns == ns && strings.HasPrefix(ref.name, prefix) {
			out = append(out, q)
		}
	}
	e.mu.RUnlock()
	slices.SortFunc(out, func(a, b *Queue) int { return strings.Compare(a.name, b.name) })
	return out
}

// AllQueues lists every queue of every namespace, by account, region and
// name.
func (e *Engine) AllQueues() []*Queue {
	e.mu.RLock()
	out := make([]*Queue, 0, len(e.queues))
	for _, q := range e.queues {
		out = append(out, q)
	}
	e.mu.RUnlock()
	slices.SortFunc(out, func(a, b *Queue) int {
		return cmp.Or(strings.Compare(a.ns.Account, b.ns.Account), strings.Compare(a.ns.Region, b.ns.Region), strings.Compare(a.name, b.name))
	})
	return out
}

// Namespaces lists the namespaces that hold queues.
func (e *Engine) Namespaces() []Namespace {
	var out []Namespace
	for _, q := range e.AllQueues() {
		if len(out) == 0 || out[len(out)-1] != q.ns {
			out = append(out, q.ns)
		}
	}
	return out
}

// countQueuesLocked counts the queues of ns; e.mu is held.
func (e *Engine) countQueuesLocked(ns Namespace) int {
	n := 0
	for ref := range e.queues {
		if ref.ns == ns {
			n++
		}
	}
	return n
}
