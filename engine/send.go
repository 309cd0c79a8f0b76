package engine

import "crypto/md5"

// Send stores messages, each checked on its own: a bad message gets its
// error in its result and does not fail the others. The results are in the
// order of msgs.
func (q *Queue) Send(msgs []NewMessage) []SendResult {
	results := make([]SendResult, len(msgs))
	a := q.Attributes()
	batch := make([]pending, 0, len(msgs))
	// The messages of a batch often carry equal attributes, which need
	// checking once.
	var checked []MessageAttribute
	for i := range msgs {
		batch = batch[:len(batch)+1]
		p := &batch[len(batch)-1]
		if err := q.prepare(&msgs[i], &a, &checked, p); err != nil {
			results[i].Err = err
			batch = batch[:len(batch)-1]
			continue
		}
		p.i = i
	}
	if len(batch) == 0 {
		return results
	}
	// The batch's ids come of one read of randomness; their text and the
	// MD5s', rendered from the raw ones the records hold, share one
	// string. Most senders are the account, whose number is read once.
	var idRoom [maxBatchEntriesAnyProfile * 16]byte
	var textRoom [maxBatchEntriesAnyProfile * idTextLen]byte
	raw, ids := idRoom[:], textRoom[:0]
	if len(batch) > maxBatchEntriesAnyProfile {
		raw, ids = make([]byte, len(batch)*16), make([]byte, 0, len(batch)*idTextLen)
	}
	raw = raw[:len(batch)*16]
	if err := q.e.putRawIDs(raw); err != nil {
		for k := range batch {
			results[batch[k].i].Err = ErrInternalFailure("message id: " + err.Error())
		}
		return results
	}
	account, numeric := parseDigits(q.ns.Account)
	for k := range batch {
		p := &batch[k]
		p.raw.id, p.raw.hasID = [16]byte(raw[16*k:]), true
		if p.rec.SenderID == q.ns.Account {
			p.raw.sender, p.raw.numericSender = account, numeric
		} else {
			p.raw.sender, p.raw.numericSender = parseDigits(p.rec.SenderID)
		}
		ids = appendHex16(appendUUID(ids, p.raw.id[:]), p.md5[:])
	}
	text := string(ids)
	for k := range batch {
		at := k * idTextLen
		batch[k].rec.ID = text[at : at+uuidLen]
		batch[k].rec.MD5OfBody = text[at+uuidLen : at+idTextLen]
	}

	q.mu.Lock()
	defer q.mu.Unlock()
	if q.deleted {
		for k := range batch {
			results[batch[k].i].Err = errNoQueue()
		}
		return results
	}
	now := q.e.clock.Now()
	q.advance(now.UnixNano())
	stored := batch[:0]
	// Deduplication ids of this batch's messages, which enter the window
	// only once the store holds them; a batch may repeat an id, and its
	// repeats, answered as the first's send, fail if that does.
	var fresh map[string]dedupEntry
	var repeats []int // in msgs
	for k := range batch {
		p := &batch[k]
		var key string
		if a.FifoQueue {
			key = dedupKey(a.DeduplicationScope, p.rec.GroupID, p.rec.DeduplicationID)
			first, ok := q.dedup.lookup(key, now.UnixNano())
			if !ok {
				if first, ok = fresh[key]; ok {
					repeats = append(repeats, p.i)
				}
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
		q.e.store.encodeMessage(&p.m, &p.rec, &p.raw, &q.scratch)
		if n := len(stored); n != k {
			batch[n] = *p // past a repeat
		}
		stored = batch[:len(stored)+1]
	}
	batch = stored
	err := q.e.store.update(func(tx recordTx) error {
		for k := range batch {
			if err := q.e.store.putMessageTx(tx, q.keyspace, &batch[k].m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		for k := range batch {
			results[batch[k].i].Err = err
		}
		for _, i := range repeats {
			results[i] = SendResult{Err: err}
		}
		return results
	}
	for key, first := range fresh {
		q.dedup.add(key, first)
		q.e.dueAt(first.expires)
	}
	for k := range batch {
		p := &batch[k]
		q.countEnqueuedLocked(q.insertLocked(&p.m))
		results[p.i] = SendResult{MessageID: p.rec.ID, MD5OfBody: p.rec.MD5OfBody, SequenceNumber: p.rec.SequenceNumber}
	}
	return results
}

// pending is a message of a send on its way to the store.
type pending struct {
	i   int // in the send's messages
	rec Message
	raw rawFields // rec's, whose id rec does not have yet
	md5 [16]byte  // of rec's body, which rec does not have yet as text
	m   message   // its index entry, which the index copies
}

// prepare validates one message against the queue's settings and, unless
// it fails, makes p its record, but for the text of its id and MD5, and
// its index entry, without touching the queue. checked holds the last
// attributes found valid, and is updated.
func (q *Queue) prepare(in *NewMessage, a *QueueAttributes, checked *[]MessageAttribute, p *pending) error {
	if in.Body == "" {
		return ErrMissing("MessageBody")
	}
	if !in.BodyChecked && !validText(in.Body) {
		return ErrInvalidBody()
	}
	if d := in.DelaySeconds; d != nil {
		// SQS accepts 0 on a FIFO queue and ignores it, and the queue's delay
		// applies: query-protocol SDKs such as aws-sdk-go v1 always send it.
		if a.FifoQueue && *d != 0 {
			return ErrInvalidParameter("DelaySeconds", *d, ReasonWrongQueueType)
		}
		if max := q.e.opts.Limits.MaxDelaySeconds; *d < 0 || *d > max {
			return ErrParameterRange("DelaySeconds", *d, 0, max, false)
		}
	}
	if !SameAttributes(in.Attributes, *checked) {
		if err := validateAttributes(in.Attributes); err != nil {
			return err
		}
		*checked = in.Attributes
	}
	if err := validateSystemAttributes(in.SystemAttributes); err != nil {
		return err
	}
	if size := MessageSize(in); size > a.MaximumMessageSize {
		return ErrTooLong(a.MaximumMessageSize, false)
	}
	// An id given as "" is a bad value, not a missing one, where SQS looks
	// at it (LocalStack's validated test_send_message_to_standard_queue_
	// with_invalid_message_group_id[empty] and
	// test_message_deduplication_id_invalid[empty]).
	switch {
	case in.GroupIDGiven && in.GroupID == "" && !a.FifoQueue:
		return checkFIFOID("MessageGroupId", "")
	case in.DeduplicationIDGiven && in.DeduplicationID == "" && a.FifoQueue:
		return checkFIFOID("MessageDeduplicationId", "")
	}
	dedupID := in.DeduplicationID
	switch {
	case !a.FifoQueue && dedupID != "":
		return ErrInvalidParameter("MessageDeduplicationId", dedupID, ReasonWrongQueueType)
	case a.FifoQueue && in.GroupID == "":
		return ErrMissing("MessageGroupId")
	case a.FifoQueue && dedupID == "" && !a.ContentBasedDeduplication:
		return ErrDeduplicationNeeded()
	case a.FifoQueue && dedupID == "":
		dedupID = contentDeduplicationID(in.Body)
	}
	if in.GroupID != "" {
		if err := checkFIFOID("MessageGroupId", in.GroupID); err != nil {
			return err
		}
	}
	if in.DeduplicationID != "" {
		if err := checkFIFOID("MessageDeduplicationId", in.DeduplicationID); err != nil {
			return err
		}
	}
	p.md5 = bodyMD5(in.Body)
	sender := in.SenderID
	if sender == "" {
		sender = q.ns.Account
	}
	p.rec = Message{
		Body:             in.Body,
		Attributes:       in.Attributes,
		SystemAttributes: in.SystemAttributes,
		SenderID:         sender,
		GroupID:          in.GroupID,
		DeduplicationID:  dedupID,
	}
	p.m = message{}
	return nil
}

// idTextLen is the length of a message's id and body MD5, as text.
const idTextLen = uuidLen + 2*md5.Size

// MessageSize is the size SQS counts against MaximumMessageSize: the body's
// UTF-8 bytes plus each attribute's name, type and value.
func MessageSize(m *NewMessage) int {
	n := len(m.Body)
	for i := range m.Attributes {
		a := &m.Attributes[i]
		n += len(a.Name) + len(a.DataType) + len(a.StringValue) + len(a.BinaryValue)
	}
	return n
}
