package engine

import (
	"crypto/md5"
	"encoding/hex"
)

// Send stores messages, each checked on its own: a bad message gets its
// error in its result and does not fail the others. The results are in the
// order of msgs.
func (q *Queue) Send(msgs []NewMessage) []SendResult {
	results := make([]SendResult, len(msgs))
	a := q.Attributes()
	type pending struct {
		i   int
		rec Message
		m   *message
		key string // m's record's
	}
	batch := make([]pending, 0, len(msgs))
	// The batch's bodies are copied, for their MD5, to one buffer in turn;
	// their ids and MD5s share one string.
	var body []byte
	var room [maxBatchEntriesAnyProfile * idTextLen]byte
	ids := room[:]
	if len(msgs) > maxBatchEntriesAnyProfile {
		ids = make([]byte, len(msgs)*idTextLen)
	}
	for i := range msgs {
		at := len(batch) * idTextLen
		rec, m, err := q.prepare(&msgs[i], a, &body, ids[at:at+idTextLen])
		if err != nil {
			results[i].Err = err
			continue
		}
		batch = append(batch, pending{i: i, rec: rec, m: m})
	}
	if len(batch) == 0 {
		return results
	}
	text := string(ids[:len(batch)*idTextLen])
	for k := range batch {
		at := k * idTextLen
		batch[k].rec.ID = text[at : at+uuidLen]
		batch[k].rec.MD5OfBody = text[at+uuidLen : at+idTextLen]
	}

	q.mu.Lock()
	defer q.mu.Unlock()
	if q.deleted {
		for _, p := range batch {
			results[p.i].Err = errNoQueue()
		}
		return results
	}
	now := q.e.clock.Now()
	q.advance(now.UnixNano())
	stored := batch[:0]
	// Deduplication ids of this batch's messages, which enter the window
	// only once the store holds them; a batch may repeat an id.
	var fresh map[string]dedupEntry
	for k := range batch {
		p := &batch[k]
		var key string
		if a.FifoQueue {
			key = dedupKey(a.DeduplicationScope, p.rec.GroupID, p.rec.DeduplicationID)
			first, ok := q.dedup.lookup(key, now.UnixNano())
			if !ok {
				first, ok = fresh[key]
			}
			if ok {
				// A repeat within the window is accepted and not stored.
				results[p.i] = SendResult{MessageID: first.messageID, MD5OfBody: p.rec.MD5OfBody, SequenceNumber: first.sequenceNumber}
				continue
			}
		}
		p.m.seq = q.seq.Add(1)
		if a.FifoQueue {
			p.rec.SequenceNumber = formatSequenceNumber(p.m.seq)
			if fresh == nil {
				fresh = map[string]dedupEntry{}
			}
			fresh[key] = dedupEntry{messageID: p.rec.ID, sequenceNumber: p.rec.SequenceNumber, expires: now.Add(DeduplicationWindow).UnixNano()}
		}
		if p.rec.GroupID != "" {
			p.m.group = q.groupLocked(p.rec.GroupID)
			p.m.group.lastSend = now.UnixNano()
		}
		p.m.sentAt = now.UnixNano()
		p.m.expireAt = now.UnixNano() + int64(a.MessageRetentionPeriod)*1e9
		delay := a.DelaySeconds
		if d := msgs[p.i].DelaySeconds; d != nil && !a.FifoQueue {
			delay = *d
		}
		if delay > 0 {
			p.m.state = stateDelayed
			p.m.visibleAt = now.UnixNano() + int64(delay)*1e9
		}
		p.rec.SentAt = now
		p.key = q.e.store.encodeMessage(q.keyspace, p.m, &p.rec, &q.scratch)
		stored = append(stored, *p)
	}
	batch = stored
	err := q.e.store.update(func(tx recordTx) error {
		for _, p := range batch {
			if err := q.e.store.putMessageTx(tx, p.key, p.m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		for _, p := range batch {
			results[p.i].Err = err
		}
		return results
	}
	for key, first := range fresh {
		q.dedup.add(key, first)
		q.e.dueAt(first.expires)
	}
	for _, p := range batch {
		q.insertLocked(p.m)
		q.countEnqueuedLocked(p.m)
		results[p.i] = SendResult{MessageID: p.rec.ID, MD5OfBody: p.rec.MD5OfBody, SequenceNumber: p.rec.SequenceNumber}
	}
	return results
}

// prepare validates one message against the queue's settings and builds its
// record, without touching the queue, but for its ID and MD5OfBody: it
// writes their text to ids, idTextLen bytes. body is scratch space.
func (q *Queue) prepare(in *NewMessage, a QueueAttributes, body *[]byte, ids []byte) (Message, *message, error) {
	if in.Body == "" {
		return Message{}, nil, ErrMissing("MessageBody")
	}
	if !validText(in.Body) {
		return Message{}, nil, ErrInvalidBody()
	}
	if d := in.DelaySeconds; d != nil {
		// SQS accepts 0 on a FIFO queue and ignores it, and the queue's delay
		// applies: query-protocol SDKs such as aws-sdk-go v1 always send it.
		if a.FifoQueue && *d != 0 {
			return Message{}, nil, ErrInvalidParameter("DelaySeconds", *d, ReasonWrongQueueType)
		}
		if max := q.e.opts.Limits.MaxDelaySeconds; *d < 0 || *d > max {
			return Message{}, nil, ErrParameterRange("DelaySeconds", *d, 0, max, false)
		}
	}
	if err := validateAttributes(in.Attributes); err != nil {
		return Message{}, nil, err
	}
	if err := validateSystemAttributes(in.SystemAttributes); err != nil {
		return Message{}, nil, err
	}
	if size := MessageSize(in); size > a.MaximumMessageSize {
		return Message{}, nil, ErrTooLong(a.MaximumMessageSize, false)
	}
	// An id given as "" is a bad value, not a missing one, where SQS looks
	// at it (LocalStack's validated test_send_message_to_standard_queue_
	// with_invalid_message_group_id[empty] and
	// test_message_deduplication_id_invalid[empty]).
	switch {
	case in.GroupIDGiven && in.GroupID == "" && !a.FifoQueue:
		return Message{}, nil, checkFIFOID("MessageGroupId", "")
	case in.DeduplicationIDGiven && in.DeduplicationID == "" && a.FifoQueue:
		return Message{}, nil, checkFIFOID("MessageDeduplicationId", "")
	}
	dedupID := in.DeduplicationID
	switch {
	case !a.FifoQueue && dedupID != "":
		return Message{}, nil, ErrInvalidParameter("MessageDeduplicationId", dedupID, ReasonWrongQueueType)
	case a.FifoQueue && in.GroupID == "":
		return Message{}, nil, ErrMissing("MessageGroupId")
	case a.FifoQueue && dedupID == "" && !a.ContentBasedDeduplication:
		return Message{}, nil, ErrDeduplicationNeeded()
	case a.FifoQueue && dedupID == "":
		dedupID = contentDeduplicationID(in.Body)
	}
	if in.GroupID != "" {
		if err := checkFIFOID("MessageGroupId", in.GroupID); err != nil {
			return Message{}, nil, err
		}
	}
	if in.DeduplicationID != "" {
		if err := checkFIFOID("MessageDeduplicationId", in.DeduplicationID); err != nil {
			return Message{}, nil, err
		}
	}
	if err := q.e.putID(ids[:uuidLen]); err != nil {
		return Message{}, nil, ErrInternalFailure("message id: " + err.Error())
	}
	*body = append((*body)[:0], in.Body...)
	sum := md5.Sum(*body)
	hex.Encode(ids[uuidLen:idTextLen], sum[:])
	sender := in.SenderID
	if sender == "" {
		sender = q.ns.Account
	}
	rec := Message{
		Body:             in.Body,
		Attributes:       in.Attributes,
		SystemAttributes: in.SystemAttributes,
		SenderID:         sender,
		GroupID:          in.GroupID,
		DeduplicationID:  dedupID,
	}
	return rec, &message{}, nil
}

// idTextLen is the length of a message's id and body MD5, as text.
const idTextLen = uuidLen + 2*md5.Size

// MessageSize is the size SQS counts against MaximumMessageSize: the body's
// UTF-8 bytes plus each attribute's name, type and value.
func MessageSize(m *NewMessage) int {
	n := len(m.Body)
	for _, a := range m.Attributes {
		n += len(a.Name) + len(a.DataType) + len(a.StringValue) + len(a.BinaryValue)
	}
	return n
}
