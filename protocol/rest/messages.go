package rest

// Messages: SendMessages, ReceiveMessages, PeekMessages, AcknowledgeMessages
// and ChangeVisibility, as docs/rest-api.md ("Messages", "The
// life of a message", "Visibility timeouts", "Receipt handles", "Long
// polling") describes them.

import (
	"encoding/base64"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/worker/push"
)

// Message limits. The number of messages a send or receive, and of handles
// an acknowledge, may carry is the engine's Limits.MaxBatchEntries, 10
// with AWS's limits (docs/rest-api.md, "Messages").
const (
	// maxMessageBytes is the body plus attribute names and values, in UTF-8
	// bytes (docs/rest-api.md, "SendMessages": "at most 256 KiB together"). It is the REST
	// API's own limit, lowered to the profile's largest message where that
	// is smaller; SQS clients have the queue's MaximumMessageSize.
	maxMessageBytes = 256 << 10
	maxAttributes   = engine.MaxMessageAttributes
	// Peek reads up to this many messages; the figures are minisqs's own.
	defaultPeekLimit = 10
	maxPeekLimit     = 100
)

type sendInput struct {
	Messages []sendMessageInput `json:"messages"`
}

type sendMessageInput struct {
	Body         *string           `json:"body"`
	Attributes   map[string]string `json:"attributes"`
	DelaySeconds *int              `json:"delaySeconds"`
	GroupID      string            `json:"groupId"`
	DedupID      string            `json:"dedupId"`
}

type sendResultJSON struct {
	MessageID      string    `json:"messageId,omitempty"`
	SequenceNumber string    `json:"sequenceNumber,omitempty"`
	Error          *apiError `json:"error,omitempty"`
}

type sendOutput struct {
	Results []sendResultJSON `json:"results"`
}

// messageSize counts a message against maxMessageBytes.
func messageSize(m *sendMessageInput) int {
	n := 0
	if m.Body != nil {
		n = len(*m.Body)
	}
	for k, v := range m.Attributes {
		n += len(k) + len(v)
	}
	return n
}

// check applies the API's own rules to one message under the limits l (it
// refuses any delaySeconds on a FIFO queue, where SQS takes 0); the engine
// checks the rest (group and deduplication ids, delays, characters,
// attribute names), and errorText words its errors in the API's fields.
func (m *sendMessageInput) check(fifo bool, l engine.Limits) error {
	maxBytes := min(maxMessageBytes, l.MaxMaximumMessageSize)
	switch {
	case m.Body == nil || *m.Body == "":
		return apiErrorf(codeInvalidRequest, "body is required and may not be empty.")
	case !utf8.ValidString(*m.Body):
		return apiErrorf(codeInvalidRequest, "body must be UTF-8.")
	case len(m.Attributes) > maxAttributes:
		return apiErrorf(codeInvalidRequest, "A message has at most %d attributes.", maxAttributes)
	case messageSize(m) > maxBytes:
		return apiErrorf(codeMessageTooLarge, "body and attributes are over %d bytes together.", maxBytes)
	case fifo && m.DelaySeconds != nil:
		return engine.ErrInvalidParameter("DelaySeconds", *m.DelaySeconds, engine.ReasonWrongQueueType)
	}
	return nil
}

func (m *sendMessageInput) engineMessage() engine.NewMessage {
	nm := engine.NewMessage{Body: *m.Body, DelaySeconds: m.DelaySeconds, GroupID: m.GroupID, DeduplicationID: m.DedupID}
	for k, v := range m.Attributes {
		nm.Attributes = append(nm.Attributes, engine.MessageAttribute{Name: k, DataType: "String", StringValue: v})
	}
	slices.SortFunc(nm.Attributes, func(a, b engine.MessageAttribute) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return nm
}

// sendMessages stores 1 to 10 messages. A well-formed request answers 200
// with one result per message, in order, even when every message failed: a
// bad message does not fail its neighbours, and its result carries the
// error (message_too_large, invalid_request, ...). Only a request that is
// wrong as a whole (malformed, 0 or over 10 messages, no such queue, body
// over MaxRequestBytes) answers an error status.
func (a *API) sendMessages(c *call) (int, any, error) {
	q, err := a.queue(c)
	if err != nil {
		return 0, nil, err
	}
	var in sendInput
	if err := c.decode(&in, false); err != nil {
		return 0, nil, err
	}
	if n, max := len(in.Messages), a.e.Limits().MaxBatchEntries; n < 1 || n > max {
		return 0, nil, apiErrorf(codeInvalidRequest, "messages must hold 1 to %d messages.", max)
	}
	out := sendOutput{Results: make([]sendResultJSON, len(in.Messages))}
	var batch []engine.NewMessage
	var at []int
	for i := range in.Messages {
		m := &in.Messages[i]
		if err := m.check(q.IsFIFO(), a.e.Limits()); err != nil {
			out.Results[i].Error = toAPIError(err)
			continue
		}
		batch = append(batch, m.engineMessage())
		at = append(at, i)
	}
	if len(batch) > 0 {
		results := q.Send(batch)
		if err := engine.SendFailure(results); err != nil {
			return 0, nil, err
		}
		for k, r := range results {
			res := &out.Results[at[k]]
			if r.Err != nil {
				res.Error = toAPIError(r.Err)
				continue
			}
			res.MessageID, res.SequenceNumber = r.MessageID, r.SequenceNumber
		}
	}
	return http.StatusOK, out, nil
}

type receiveInput struct {
	MaxMessages              *int `json:"maxMessages"`
	WaitSeconds              *int `json:"waitSeconds"`
	VisibilityTimeoutSeconds *int `json:"visibilityTimeoutSeconds"`
}

// peekedMessageJSON is a message read without a lease, with where it is
// in its life.
type peekedMessageJSON struct {
	MessageID       string            `json:"messageId"`
	Body            string            `json:"body"`
	Attributes      map[string]string `json:"attributes"`
	SentAt          string            `json:"sentAt"`
	GroupID         string            `json:"groupId,omitempty"`
	SequenceNumber  string            `json:"sequenceNumber,omitempty"`
	DedupID         string            `json:"dedupId,omitempty"`
	State           string            `json:"state"`
	ReceiveCount    int               `json:"receiveCount"`
	FirstReceivedAt string            `json:"firstReceivedAt,omitempty"`
	VisibleAt       string            `json:"visibleAt,omitempty"`
	ExpiresAt       string            `json:"expiresAt"`
}

type receiveOutput struct {
	Messages []push.Message `json:"messages"`
}

type peekOutput struct {
	Messages []peekedMessageJSON `json:"messages"`
}

// attributesJSON gives a message's attributes as strings. Messages sent
// through SQS may carry Number attributes (given as their text) and Binary
// ones (given in standard base64).
func attributesJSON(attrs []engine.MessageAttribute) map[string]string {
	out := make(map[string]string, len(attrs))
	for _, at := range attrs {
		if at.IsBinary() {
			out[at.Name] = base64.StdEncoding.EncodeToString(at.BinaryValue)
			continue
		}
		out[at.Name] = at.StringValue
	}
	return out
}

// receiveMessages leases up to maxMessages (default 1) messages. With a wait
// (its own, or the queue's receiveWaitSeconds) it is a long poll that ends
// at the first message or with an empty list; a queue deleted meanwhile
// answers queue_not_found.
func (a *API) receiveMessages(c *call) (int, any, error) {
	q, err := a.queue(c)
	if err != nil {
		return 0, nil, err
	}
	var in receiveInput
	if err := c.decode(&in, true); err != nil {
		return 0, nil, err
	}
	opts := engine.ReceiveOptions{MaxMessages: 1, WaitSeconds: in.WaitSeconds, VisibilityTimeout: in.VisibilityTimeoutSeconds}
	if in.MaxMessages != nil {
		if *in.MaxMessages == 0 {
			// The engine takes 0 as "the default"; the API refuses it.
			return 0, nil, engine.ErrParameterRange("MaxNumberOfMessages", 0, 1, a.e.Limits().MaxBatchEntries, true)
		}
		opts.MaxMessages = *in.MaxMessages
	}
	got, err := q.Receive(c.r.Context(), opts)
	if err != nil {
		if errors.Is(err, c.r.Context().Err()) {
			// The client went away; nothing it could read is answered.
			return http.StatusOK, receiveOutput{Messages: []push.Message{}}, nil
		}
		return 0, nil, err
	}
	out := receiveOutput{Messages: make([]push.Message, 0, len(got))}
	for _, d := range got {
		out.Messages = append(out.Messages, push.NewMessage(d))
	}
	return http.StatusOK, out, nil
}

// peekMessages reads up to limit messages without leasing them: visible
// ones in delivery order, and with state= also those in flight or delayed,
// by the instant they become visible.
func (a *API) peekMessages(c *call) (int, any, error) {
	q, err := a.queue(c)
	if err != nil {
		return 0, nil, err
	}
	opts := engine.InspectOptions{Limit: defaultPeekLimit}
	qv := c.r.URL.Query()
	if s := qv.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxPeekLimit {
			return 0, nil, apiErrorf(codeInvalidRequest, "limit must be from 1 to %d.", maxPeekLimit)
		}
		opts.Limit = n
	}
	if qv.Has("state") {
		for _, st := range strings.Split(qv.Get("state"), ",") {
			switch engine.MessageStatus(st) {
			case engine.MessageVisible:
				opts.Visible = true
			case engine.MessageInFlight:
				opts.InFlight = true
			case engine.MessageDelayed:
				opts.Delayed = true
			default:
				return 0, nil, apiErrorf(codeInvalidRequest, "state is a comma-separated list of visible, inFlight and delayed.")
			}
		}
	}
	msgs, err := q.Inspect(opts)
	if err != nil {
		return 0, nil, err
	}
	out := peekOutput{Messages: make([]peekedMessageJSON, 0, len(msgs))}
	for _, m := range msgs {
		p := peekedMessageJSON{
			MessageID:      m.ID,
			Body:           m.Body,
			Attributes:     attributesJSON(m.Attributes),
			SentAt:         formatTime(m.SentAt),
			GroupID:        m.GroupID,
			SequenceNumber: m.SequenceNumber,
			DedupID:        m.DeduplicationID,
			State:          string(m.Status),
			ReceiveCount:   m.ReceiveCount,
			ExpiresAt:      formatTime(m.ExpiresAt),
		}
		if !m.FirstReceivedAt.IsZero() {
			p.FirstReceivedAt = formatTime(m.FirstReceivedAt)
		}
		if !m.VisibleAt.IsZero() {
			p.VisibleAt = formatTime(m.VisibleAt)
		}
		out.Messages = append(out.Messages, p)
	}
	return http.StatusOK, out, nil
}

type acknowledgeInput struct {
	ReceiptHandles []string `json:"receiptHandles"`
}

type handleResultJSON struct {
	ReceiptHandle string    `json:"receiptHandle"`
	Error         *apiError `json:"error,omitempty"`
}

type acknowledgeOutput struct {
	Results []handleResultJSON `json:"results"`
}

// handleError maps a failure of a receipt-handle operation: a handle whose
// queue went away meanwhile is stale like any other.
func handleError(err error) *apiError {
	if engine.CodeOf(err) == engine.ErrQueueDoesNotExist {
		err = engine.ErrHandleStale("", engine.ReasonQueueGone)
	}
	return toAPIError(err)
}

// acknowledgeMessages deletes the messages whose current deliveries 1 to 10
// handles name, finding each handle's queue from the handle itself. Like
// SendMessages it answers 200 with one result per handle, in order.
func (a *API) acknowledgeMessages(c *call) (int, any, error) {
	var in acknowledgeInput
	if err := c.decode(&in, false); err != nil {
		return 0, nil, err
	}
	if n, max := len(in.ReceiptHandles), a.e.Limits().MaxBatchEntries; n < 1 || n > max {
		return 0, nil, apiErrorf(codeInvalidRequest, "receiptHandles must hold 1 to %d handles.", max)
	}
	out := acknowledgeOutput{Results: make([]handleResultJSON, len(in.ReceiptHandles))}
	type group struct {
		q       *engine.Queue
		handles []string
		at      []int
	}
	var groups []*group
	for i, h := range in.ReceiptHandles {
		out.Results[i].ReceiptHandle = h
		q, err := a.e.QueueOfReceiptHandle(h)
		if err != nil {
			out.Results[i].Error = handleError(err)
			continue
		}
		k := slices.IndexFunc(groups, func(g *group) bool { return g.q == q })
		if k < 0 {
			groups = append(groups, &group{q: q})
			k = len(groups) - 1
		}
		groups[k].handles = append(groups[k].handles, h)
		groups[k].at = append(groups[k].at, i)
	}
	for _, g := range groups {
		errs := g.q.Acknowledge(g.handles)
		if err := engine.BatchFailure(errs); err != nil {
			return 0, nil, err
		}
		for j, err := range errs {
			if err != nil {
				out.Results[g.at[j]].Error = handleError(err)
			}
		}
	}
	return http.StatusOK, out, nil
}

type visibilityInput struct {
	ReceiptHandle            string `json:"receiptHandle"`
	VisibilityTimeoutSeconds *int   `json:"visibilityTimeoutSeconds"`
}

// changeVisibility sets a leased message's remaining visibility timeout; 0
// releases it at once. It answers 204, or receipt_handle_stale when the
// handle's delivery is over.
func (a *API) changeVisibility(c *call) (int, any, error) {
	var in visibilityInput
	if err := c.decode(&in, false); err != nil {
		return 0, nil, err
	}
	if in.ReceiptHandle == "" {
		return 0, nil, apiErrorf(codeInvalidRequest, "receiptHandle is required.")
	}
	if in.VisibilityTimeoutSeconds == nil {
		return 0, nil, apiErrorf(codeInvalidRequest, "visibilityTimeoutSeconds is required.")
	}
	q, err := a.e.QueueOfReceiptHandle(in.ReceiptHandle)
	if err != nil {
		return 0, nil, handleError(err)
	}
	errs := q.ChangeVisibility([]engine.VisibilityChange{{ReceiptHandle: in.ReceiptHandle, Timeout: *in.VisibilityTimeoutSeconds}})
	if errs[0] != nil {
		return 0, nil, handleError(errs[0])
	}
	return http.StatusNoContent, nil, nil
}
