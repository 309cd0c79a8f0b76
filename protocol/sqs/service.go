// Package sqs serves the Amazon SQS API over minisqs's engine in both of
// SQS's wire protocols: the query protocol (form-encoded requests, XML
// answers) and the JSON protocol (AWS JSON 1.0). Each action is written once,
// in the action table, over typed inputs and outputs; the two codecs only
// decode requests and encode results and errors.
package sqs

import (
	"context"
	"net/http"
	"slices"
	"sync"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/dispatch"
)

// Service answers SQS requests for one engine.
type Service struct {
	engine  *engine.Engine
	baseURL string
	actions map[string]action
	handler dispatch.Handler // the chain around run
	// queuePaths reads the queue URLs of requests.
	queuePaths queuePaths
}

// Options configure a Service.
type Options struct {
	// BaseURL, when set, prefixes every queue URL (for example
	// "http://sqs.local:9324"); otherwise each answer uses the scheme and
	// host of its request.
	BaseURL string
	// Chain holds the steps every request passes after decoding, on its
	// way to its action.
	Chain dispatch.Chain
}

// New returns a Service over e.
func New(e *engine.Engine, opts Options) *Service {
	s := &Service{engine: e, baseURL: opts.BaseURL, actions: actionTable()}
	s.handler = opts.Chain.Then(s.run)
	return s
}

// call is one request's context for an action.
type call struct {
	ctx  context.Context
	svc  *Service
	http *http.Request // nil when no HTTP request carries the call
	path string        // the request's path, which may name the queue
	// account and region are what the request's signature names; ""
	// leaves them to the queue URL and the server's defaults.
	account, region string
	// trace is the request's X-Amzn-Trace-Id header, which SQS gives every
	// message the request sends as its AWSTraceHeader.
	trace string
	// digests digests the message attributes of the request's messages.
	digests attributeDigests

	// req is the request on its way through the dispatch chain, and run
	// its action's handler, which the front end found, or nil.
	req dispatch.Request
	run func(c *call, in any) (any, error)
	// The answers of the batch actions and of receives.
	sendBatch   SendMessageBatchOutput
	receive     ReceiveMessageOutput
	deleteBatch DeleteMessageBatchOutput
	// Lists the answers are built in, whose memory the call keeps for the
	// next request it serves (see release), and the messages a batch sends.
	sendResults  []SendMessageBatchResultEntry
	sendEntries  []sentEntry
	newMessages  []engine.NewMessage
	messages     []Message
	batchResults []BatchResultEntry
	handles      []string // of a DeleteMessageBatch
}

// sentEntry is a message of a batch sent: its entry's id, and the digest of
// the system attributes the entry gave.
type sentEntry struct{ id, sysMD5 string }

// calls holds calls for the front ends to reuse, lists and all: a call
// serves one request, answered before the call is released.
var calls = sync.Pool{New: func() any { return new(call) }}

func newCall() *call { return calls.Get().(*call) }

// release forgets the request and gives c back to calls. Nothing of the
// request's answer may be used afterwards: its lists are c's.
func (c *call) release() {
	c.reset()
	calls.Put(c)
}

// reset forgets the request, keeping the lists' memory. Only what the
// request used is cleared: an action fills a list by appending to it from
// its start and keeps what it made as the list, so that nothing past a
// list's length has been written since the last reset.
func (c *call) reset() {
	clear(c.sendResults)
	clear(c.sendEntries)
	clear(c.newMessages)
	clear(c.messages)
	clear(c.batchResults)
	clear(c.handles)
	*c = call{
		sendResults: c.sendResults[:0], sendEntries: c.sendEntries[:0], newMessages: c.newMessages[:0],
		messages: c.messages[:0], batchResults: c.batchResults[:0], handles: c.handles[:0],
	}
}

// action is one entry of the action table.
type action struct {
	newInput func() any
	run      func(c *call, in any) (any, error)
}

// register adds an action whose handler takes *I and returns *O; a nil *O
// is an empty result.
func register[I, O any](table map[string]action, name string, fn func(*call, *I) (*O, error)) {
	table[name] = action{
		newInput: func() any { return new(I) },
		run: func(c *call, in any) (any, error) {
			out, err := fn(c, in.(*I))
			if err != nil || out == nil {
				return nil, err
			}
			return out, nil
		},
	}
}

// batchEntryID is SQS's rule for batch entry ids
// (API_SendMessageBatchRequestEntry), ^[A-Za-z0-9_-]{1,80}$, checked by
// hand: every entry of every batch passes it.
var batchEntryID entryIDRule

type entryIDRule struct{}

// MatchString reports whether s is 1 to 80 ASCII letters, digits, hyphens
// and underscores.
func (entryIDRule) MatchString(s string) bool {
	if len(s) == 0 || len(s) > 80 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// checkBatch applies the whole-batch rules to entries of the type entryType
// names, whose ids idOf reads: 1 to max entries (10 in SQS), valid and
// distinct ids. The
// texts are AWS's (moto's aws_verified test_send_message_batch_errors and
// test_delete_message_batch_with_zero_entries; LocalStack's validated
// test_too_many_entries_in_batch_request and test_invalid_batch_id).
func checkBatch[E any](entryType string, max int, entries []E, idOf func(*E) string) error {
	if len(entries) == 0 {
		return engine.ErrBatchEmpty(entryType)
	}
	if len(entries) > max {
		return engine.ErrBatchTooMany(len(entries), max)
	}
	// At most max ids, a handful: comparing each with those before it
	// finds a repeat without a map. Ids tend to differ in their last
	// character (0 to 9, or a counter after a prefix), so only the ids
	// before that end as an id does, which lasts records, are compared.
	var ids [16]string
	seen := ids[:0]
	var lasts [2]uint64 // a bit for each ASCII byte that ends an id
	for i := range entries {
		id := idOf(&entries[i])
		if !batchEntryID.MatchString(id) {
			return engine.ErrBatchEntryID(id)
		}
		last := id[len(id)-1] // ASCII, as MatchString has it
		if bit := uint64(1) << (last & 63); lasts[last>>6]&bit == 0 {
			lasts[last>>6] |= bit
		} else if slices.Contains(seen, id) {
			return engine.ErrBatchEntryRepeated(id)
		}
		seen = append(seen, id)
	}
	return nil
}

// failedEntry renders a batch entry's error.
func failedEntry(id string, err error) BatchResultErrorEntry {
	w, msg := toWire(err)
	return BatchResultErrorEntry{Id: id, SenderFault: w.sender, Code: w.queryCode, Message: msg}
}
