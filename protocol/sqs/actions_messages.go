package sqs

// Message actions, after the SQS API reference (API_SendMessage,
// API_ReceiveMessage, API_DeleteMessage, API_ChangeMessageVisibility and
// their batch forms).

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/minisqs/minisqs/engine"
)

// maxBatchBytes caps the summed size of a SendMessageBatch's messages
// (API_SendMessageBatch: "both 1 MiB"), under every limits profile: SMQ
// documents no such cap, and its 16 messages of 64 KB make 1 MiB.
const maxBatchBytes = engine.MaxMaximumMessageSize

// traceHeader is the HTTP header of the X-Ray trace a request carries
// ("Amazon SQS and AWS X-Ray", X-Ray Developer Guide).
const traceHeader = "X-Amzn-Trace-Id"

// newMessage builds into m, which is zero, the message a send entry
// names, and returns the MD5OfMessageSystemAttributes of the system
// attributes it gave; on an error it leaves m zero. The request's trace
// header becomes the message's AWSTraceHeader unless the entry sets that
// system attribute itself, which wins; SQS digests only the attributes the
// entry gave.
func (c *call) newMessage(m *engine.NewMessage, body *string, delay *int, a *sentAttributes, groupID, dedupID *string) (string, error) {
	if body == nil {
		return "", missing("MessageBody")
	}
	given := a.sys
	sysMD5 := c.digests.of(given)
	if c.trace != "" && !slices.ContainsFunc(given, func(a engine.MessageAttribute) bool { return a.Name == sysAWSTraceHeader }) {
		// The full slice expression keeps the entry's list as it is.
		given = append(given[:len(given):len(given)], engine.MessageAttribute{Name: sysAWSTraceHeader, DataType: "String", StringValue: c.trace})
	}
	m.Body, m.BodyChecked, m.DelaySeconds = *body, a.plainBody, delay
	m.Attributes, m.SystemAttributes = a.attrs, given
	if groupID != nil {
		m.GroupID, m.GroupIDGiven = *groupID, true
	}
	if dedupID != nil {
		m.DeduplicationID, m.DeduplicationIDGiven = *dedupID, true
	}
	return sysMD5, nil
}

// sendOutput fills o with the answer for the message m sent as r.
func (c *call) sendOutput(o *SendMessageOutput, m *engine.NewMessage, sysMD5 string, r *engine.SendResult) {
	o.MD5OfMessageBody = r.MD5OfBody
	o.MD5OfMessageAttributes = c.digests.of(m.Attributes)
	o.MD5OfMessageSystemAttributes = sysMD5
	o.MessageId = r.MessageID
	o.SequenceNumber = r.SequenceNumber
}

func sendMessage(c *call, in *SendMessageInput) (*SendMessageOutput, error) {
	q, err := c.queue(in.QueueUrl)
	if err != nil {
		return nil, err
	}
	msgs := []engine.NewMessage{{}}
	sysMD5, err := c.newMessage(&msgs[0], in.MessageBody, in.DelaySeconds, &in.sent, in.MessageGroupId, in.MessageDeduplicationId)
	if err != nil {
		return nil, err
	}
	r := q.Send(msgs)[0]
	if r.Err != nil {
		return nil, r.Err
	}
	out := new(SendMessageOutput)
	c.sendOutput(out, &msgs[0], sysMD5, &r)
	return out, nil
}

func sendMessageBatch(c *call, in *SendMessageBatchInput) (*SendMessageBatchOutput, error) {
	q, err := c.queue(in.QueueUrl)
	if err != nil {
		return nil, err
	}
	if err := checkBatch("SendMessageBatchRequestEntry", c.svc.engine.Limits().MaxBatchEntries, in.Entries, func(e *SendMessageBatchEntry) string { return e.Id }); err != nil {
		return nil, err
	}
	a := q.Attributes()
	if err := checkFIFOBatch(a, in.Entries); err != nil {
		return nil, err
	}
	out := &c.sendBatch
	msgs := c.newMessages[:0]
	sent := c.sendEntries[:0] // for each of msgs
	total := 0
	for i := range in.Entries {
		e := &in.Entries[i]
		msgs = append(msgs, engine.NewMessage{})
		m := &msgs[len(msgs)-1]
		sysMD5, err := c.newMessage(m, e.MessageBody, e.DelaySeconds, &e.sent, e.MessageGroupId, e.MessageDeduplicationId)
		if err != nil {
			msgs = msgs[:len(msgs)-1] // m was left zero
			out.Failed = append(out.Failed, failedEntry(e.Id, err))
			continue
		}
		total += engine.MessageSize(m)
		sent = append(sent, sentEntry{e.Id, sysMD5})
	}
	c.newMessages, c.sendEntries = msgs, sent
	if total > maxBatchBytes {
		return nil, engine.ErrBatchTooLong(total, maxBatchBytes)
	}
	results := q.Send(msgs)
	if err := engine.SendFailure(results); err != nil {
		return nil, err
	}
	out.Successful = c.sendResults[:0]
	for i := range results {
		r := &results[i]
		if r.Err != nil {
			if engine.CodeOf(r.Err) == engine.ErrMessageTooLong {
				// SQS words a message too long in a batch otherwise.
				r.Err = engine.ErrTooLong(a.MaximumMessageSize, true)
			}
			out.Failed = append(out.Failed, failedEntry(sent[i].id, r.Err))
			continue
		}
		out.Successful = append(out.Successful, SendMessageBatchResultEntry{Id: sent[i].id})
		c.sendOutput(&out.Successful[len(out.Successful)-1].SendMessageOutput, &msgs[i], sent[i].sysMD5, r)
	}
	c.sendResults = out.Successful
	return out, nil
}

// checkFIFOBatch refuses a FIFO batch as a whole, as SQS does, when an entry
// lacks its group id, or the deduplication id the queue needs; other faults,
// a deduplication id given as "" among them, fail only their entry.
func checkFIFOBatch(a engine.QueueAttributes, entries []SendMessageBatchEntry) error {
	if !a.FifoQueue {
		return nil
	}
	for _, e := range entries {
		if e.MessageGroupId == nil || *e.MessageGroupId == "" {
			return engine.ErrBatchEntryMissing("MessageGroupId")
		}
		if e.MessageDeduplicationId == nil && !a.ContentBasedDeduplication {
			return engine.ErrDeduplicationNeeded()
		}
	}
	return nil
}

// System attribute names a receive may ask for (API_ReceiveMessage).
const (
	sysAll                      = "All"
	sysSenderID                 = "SenderId"
	sysSentTimestamp            = "SentTimestamp"
	sysReceiveCount             = "ApproximateReceiveCount"
	sysFirstReceiveTimestamp    = "ApproximateFirstReceiveTimestamp"
	sysSequenceNumber           = "SequenceNumber"
	sysDeduplicationID          = "MessageDeduplicationId"
	sysGroupID                  = "MessageGroupId"
	sysAWSTraceHeader           = "AWSTraceHeader"
	sysDeadLetterQueueSourceArn = "DeadLetterQueueSourceArn"
)

// systemAttributes renders the system attributes of d that names ask for.
func systemAttributes(d *engine.Delivery, names []string) map[string]string {
	if len(names) == 0 {
		return nil
	}
	all := slices.Contains(names, sysAll)
	out := map[string]string{}
	set := func(name, v string) {
		if v != "" && (all || slices.Contains(names, name)) {
			out[name] = v
		}
	}
	millis := func(t int64) string { return strconv.FormatInt(t, 10) }
	set(sysSenderID, d.SenderID)
	set(sysSentTimestamp, millis(d.SentAt.UnixMilli()))
	set(sysReceiveCount, strconv.Itoa(d.ReceiveCount))
	set(sysFirstReceiveTimestamp, millis(d.FirstReceivedAt.UnixMilli()))
	set(sysSequenceNumber, d.SequenceNumber)
	set(sysDeduplicationID, d.DeduplicationID)
	set(sysGroupID, d.GroupID)
	set(sysDeadLetterQueueSourceArn, d.DeadLetterSourceArn)
	for _, a := range d.SystemAttributes {
		if a.Name == sysAWSTraceHeader {
			set(sysAWSTraceHeader, a.StringValue)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// selectAttributes keeps the message attributes that names ask for: "All",
// "*" or ".*" for every one, "prefix.*" for those whose names start with
// prefix (SQS reads "Hel.*" as the prefix "Hel", which takes both "Hello"
// and "Help.Me"), or exact names. Names that match nothing, even ones SQS
// would refuse in a send, select nothing without an error.
func selectAttributes(attrs []engine.MessageAttribute, names []string) []engine.MessageAttribute {
	if len(names) == 0 || len(attrs) == 0 {
		return nil
	}
	if slices.ContainsFunc(names, selectsAll) {
		return attrs
	}
	var out []engine.MessageAttribute
	for _, a := range attrs {
		for _, n := range names {
			if attributeSelected(a.Name, n) {
				out = append(out, a)
				break
			}
		}
	}
	return out
}

// selectsAll reports whether the filter n of MessageAttributeNames selects
// every attribute.
func selectsAll(n string) bool { return n == "All" || n == "*" || n == ".*" }

// attributeSelected reports whether the filter n of MessageAttributeNames
// selects the attribute called name.
func attributeSelected(name, n string) bool {
	if selectsAll(n) {
		return true
	}
	if prefix, ok := strings.CutSuffix(n, ".*"); ok {
		return strings.HasPrefix(name, prefix)
	}
	return n == name
}

func receiveMessage(c *call, in *ReceiveMessageInput) (*ReceiveMessageOutput, error) {
	q, err := c.queue(in.QueueUrl)
	if err != nil {
		return nil, err
	}
	opts := engine.ReceiveOptions{VisibilityTimeout: in.VisibilityTimeout, WaitSeconds: in.WaitTimeSeconds, AttemptID: in.ReceiveRequestAttemptId}
	if in.MaxNumberOfMessages != nil {
		if *in.MaxNumberOfMessages == 0 {
			// 0 is out of range, not "the default".
			return nil, engine.ErrParameterRange("MaxNumberOfMessages", 0, 1, c.svc.engine.Limits().MaxBatchEntries, true)
		}
		opts.MaxMessages = *in.MaxNumberOfMessages
	}
	got, err := q.Receive(c.ctx, opts)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &ReceiveMessageOutput{}, nil
	}
	if err != nil {
		return nil, err
	}
	sysNames := append(slices.Clone(in.AttributeNames), in.MessageSystemAttributeNames...)
	msgs := c.messages[:0]
	for i := range got {
		msgs = append(msgs, deliveredMessage(&got[i], sysNames, in.MessageAttributeNames, &c.digests))
	}
	c.messages = msgs
	c.receive.Messages = msgs
	return &c.receive, nil
}

// deliveredMessage renders a delivery with the system and message
// attributes that the names ask for, digesting its attributes with
// digests, which may be nil.
func deliveredMessage(d *engine.Delivery, sysNames, attrNames []string, digests *attributeDigests) Message {
	attrs := selectAttributes(d.Attributes, attrNames)
	// The answer lists attributes by name, as the engine keeps them.
	if byName := func(a, b engine.MessageAttribute) int { return strings.Compare(a.Name, b.Name) }; !slices.IsSortedFunc(attrs, byName) {
		attrs = slices.SortedFunc(slices.Values(attrs), byName)
	}
	return Message{
		MessageId:              d.ID,
		ReceiptHandle:          d.ReceiptHandle,
		MD5OfBody:              d.MD5OfBody,
		Body:                   d.Body,
		Attributes:             systemAttributes(d, sysNames),
		MD5OfMessageAttributes: digests.of(attrs),
		MessageAttributes:      attrs,
	}
}

// acknowledge deletes by handle. On a standard queue, as in SQS, a handle of
// an earlier delivery succeeds without deleting ("If you use an old
// ReceiptHandle, the request will succeed, but the message might not be
// deleted", API_DeleteMessage). A FIFO queue refuses any handle whose
// visibility timeout has ended: "The receipt handle has expired."
func acknowledge(q *engine.Queue, handles []string) []error {
	if q.IsFIFO() {
		return q.AcknowledgeInFlight(handles)
	}
	errs := q.Acknowledge(handles)
	for i, err := range errs {
		if err != nil && engine.CodeOf(err) == engine.ErrReceiptHandleStale {
			errs[i] = nil
		}
	}
	return errs
}

func deleteMessage(c *call, in *DeleteMessageInput) (*struct{}, error) {
	q, err := c.queue(in.QueueUrl)
	if err != nil {
		return nil, err
	}
	if in.ReceiptHandle == "" {
		return nil, missing("ReceiptHandle")
	}
	return nil, acknowledge(q, []string{in.ReceiptHandle})[0]
}

func deleteMessageBatch(c *call, in *DeleteMessageBatchInput) (*DeleteMessageBatchOutput, error) {
	q, err := c.queue(in.QueueUrl)
	if err != nil {
		return nil, err
	}
	if err := checkBatch("DeleteMessageBatchRequestEntry", c.svc.engine.Limits().MaxBatchEntries, in.Entries, func(e *DeleteMessageBatchEntry) string { return e.Id }); err != nil {
		return nil, err
	}
	handles := c.handles[:0]
	for _, e := range in.Entries {
		handles = append(handles, e.ReceiptHandle)
	}
	c.handles = handles
	out := &c.deleteBatch
	out.Successful = c.batchResults[:0]
	errs := acknowledge(q, handles)
	if err := engine.BatchFailure(errs); err != nil {
		return nil, err
	}
	for i, err := range errs {
		id := in.Entries[i].Id
		if err == nil && handles[i] == "" {
			err = missing("ReceiptHandle")
		}
		if err != nil {
			out.Failed = append(out.Failed, failedEntry(id, err))
		} else {
			out.Successful = append(out.Successful, BatchResultEntry{Id: id})
		}
	}
	c.batchResults = out.Successful
	return out, nil
}

func changeMessageVisibility(c *call, in *ChangeMessageVisibilityInput) (*struct{}, error) {
	q, err := c.queue(in.QueueUrl)
	if err != nil {
		return nil, err
	}
	if in.ReceiptHandle == "" {
		return nil, missing("ReceiptHandle")
	}
	if in.VisibilityTimeout == nil {
		return nil, missing("VisibilityTimeout")
	}
	return nil, q.ChangeVisibility([]engine.VisibilityChange{{ReceiptHandle: in.ReceiptHandle, Timeout: *in.VisibilityTimeout}})[0]
}

func changeMessageVisibilityBatch(c *call, in *ChangeMessageVisibilityBatchInput) (*ChangeMessageVisibilityBatchOutput, error) {
	q, err := c.queue(in.QueueUrl)
	if err != nil {
		return nil, err
	}
	if err := checkBatch("ChangeMessageVisibilityBatchRequestEntry", c.svc.engine.Limits().MaxBatchEntries, in.Entries, func(e *ChangeMessageVisibilityBatchEntry) string { return e.Id }); err != nil {
		return nil, err
	}
	out := &ChangeMessageVisibilityBatchOutput{Successful: c.batchResults[:0]}
	var changes []engine.VisibilityChange
	var changeIDs []string
	for _, e := range in.Entries {
		switch {
		case e.ReceiptHandle == "":
			out.Failed = append(out.Failed, failedEntry(e.Id, missing("ReceiptHandle")))
		case e.VisibilityTimeout == nil:
			out.Failed = append(out.Failed, failedEntry(e.Id, missing("VisibilityTimeout")))
		default:
			changes = append(changes, engine.VisibilityChange{ReceiptHandle: e.ReceiptHandle, Timeout: *e.VisibilityTimeout})
			changeIDs = append(changeIDs, e.Id)
		}
	}
	errs := q.ChangeVisibility(changes)
	if err := engine.BatchFailure(errs); err != nil {
		return nil, err
	}
	for i, err := range errs {
		if err != nil && engine.CodeOf(err) == engine.ErrReceiptHandleStale {
			// The batch names a handle of a message deleted or received
			// again otherwise than the single call does.
			err = engine.ErrHandleInvalid(changes[i].ReceiptHandle, engine.ReasonBatchGone)
		}
		if err != nil {
			out.Failed = append(out.Failed, failedEntry(changeIDs[i], err))
		} else {
			out.Successful = append(out.Successful, BatchResultEntry{Id: changeIDs[i]})
		}
	}
	c.batchResults = out.Successful
	return out, nil
}
