package engine

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
	// The MD5s' text, rendered from the raw ones, shares one string. Most
	// senders are the account, whose number is read once.
	var textRoom [maxBatchEntriesAnyProfile * md5TextLen]byte
	md5s := textRoom[:0]
	account, numeric := parseDigits(q.ns.Account)
	for k := range batch {
		p := &batch[k]
		if p.rec.SenderID == q.ns.Account {
			p.raw.sender, p.raw.numericSender = account, numeric
		} else {
			p.raw.sender, p.raw.numericSender = parseDigits(p.rec.SenderID)
		}
		md5s = appendHex16(md5s, p.md5[:])
	}
	text := string(md5s)
	for k := range batch {
		batch[k].rec.MD5OfBody = text[k*md5TextLen : (k+1)*md5TextLen]
	}

	q.mu.Lock()
	defer q.mu.Unlock()
	if q.deleted {
		for k := range batch {
			results[batch[k].i].Err = errNoQueue()
		}
		return results
	}
	now := q.e.clock.Now().UnixNano()
	q.advance(now)
	stored := batch[:0]
	// Deduplication ids of this batch's messages, by the message in stored
	// they name, which enter the window only once the store holds them; a
	// batch may repeat an id, and its repeats, answered as the first's
	// send, fail if that does.
	var fresh map[string]int
	var repeats []repeat
	for k := range batch {
		p := &batch[k]
		var key string
		if a.FifoQueue {
			key = dedupKey(a.DeduplicationScope, p.rec.GroupID, p.rec.DeduplicationID)
			if first, ok := q.dedup.lookup(key, now); ok {
				// A repeat within the window is accepted and not stored.
				results[p.i] = SendResult{MessageID: first.messageID, MD5OfBody: p.rec.MD5OfBody, SequenceNumber: first.sequenceNumber}
				continue
			}
			if first, ok := fresh[key]; ok {
				repeats = append(repeats, repeat{i: p.i, first: first, md5: p.rec.MD5OfBody})
				continue
			}
		}
		seq, err := q.nextSeqLocked()
		if err != nil {
			results[p.i].Err = err
			continue
		}
		p.m.seq, p.m.sentAt = seq, now
		p.raw.id, p.raw.seqID = q.ids.of(seq, now), true
		if a.FifoQueue {
			p.rec.SequenceNumber = formatSequenceNumber(p.m.seq)
			if fresh == nil {
				fresh = map[string]int{}
			}
			fresh[key] = len(stored)
		}
		if p.rec.GroupID != "" {
			p.m.group = q.groupLocked(p.rec.GroupID)
			p.m.group.lastSend = now
		}
		p.m.expireAt = now + int64(a.MessageRetentionPeriod)*1e9
		delay := a.DelaySeconds
		if d := msgs[p.i].DelaySeconds; d != nil && !a.FifoQueue {
			delay = *d
		}
		if delay > 0 {
			p.m.state = stateDelayed
			p.m.visibleAt = now + int64(delay)*1e9
		}
		q.e.store.encodeMessage(&p.m, &p.rec, &p.raw, &q.scratch)
		if n := len(stored); n != k {
			batch[n] = *p // past a repeat
		}
		stored = batch[:len(stored)+1]
	}
	batch = stored
	if len(batch) == 0 {
		return results
	}
	// The ids' text shares one string too.
	var idRoom [maxBatchEntriesAnyProfile * uuidLen]byte
	ids := idRoom[:0]
	for k := range batch {
		ids = appendUUID(ids, batch[k].raw.id[:])
	}
	idText := string(ids)
	for k := range batch {
		batch[k].rec.ID = idText[k*uuidLen : (k+1)*uuidLen]
	}
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
		for _, r := range repeats {
			results[r.i] = SendResult{Err: err}
		}
		return results
	}
	expires := now + DeduplicationWindow.Nanoseconds()
	for key, k := range fresh {
		q.dedup.add(key, dedupEntry{messageID: batch[k].rec.ID, sequenceNumber: batch[k].rec.SequenceNumber, expires: expires})
	}
	if len(fresh) > 0 {
		q.e.dueAt(expires)
	}
	for _, r := range repeats {
		first := &batch[r.first].rec
		results[r.i] = SendResult{MessageID: first.ID, MD5OfBody: r.md5, SequenceNumber: first.SequenceNumber}
	}
	for k := range batch {
		p := &batch[k]
		q.countEnqueuedLocked(q.insertLocked(&p.m))
		results[p.i] = SendResult{MessageID: p.rec.ID, MD5OfBody: p.rec.MD5OfBody, SequenceNumber: p.rec.SequenceNumber}
	}
	return results
}

// repeat is a message of a FIFO send that repeats the deduplication id of
// an earlier one of its batch, first in the messages stored.
type repeat struct {
	i, first int    // in the send's messages; in those stored
	md5      string // of its body, as text
}

// pending is a message of a send on its way to the store.
type pending struct {
	i   int // in the send's messages
	rec Message
	raw rawFields // rec's, whose id rec does not have yet
	md5 [16]byte  // of rec's body, until rec has it as text
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
