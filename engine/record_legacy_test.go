package engine

// The encoders of stores of formats 1 and 2, which tests write to check
// that such stores still load.

// appendMessageV1 renders a message as a version 1 record.
func appendMessageV1(dst []byte, m *Message) []byte {
	w := recordWriter{b: dst}
	w.uint(recordVersionSeparate)
	w.string(m.ID)
	w.string(m.Body)
	w.string(m.MD5OfBody)
	writeAttributesV1(&w, m.Attributes)
	writeAttributesV1(&w, m.SystemAttributes)
	w.string(m.SenderID)
	w.string(m.GroupID)
	w.string(m.DeduplicationID)
	w.string(m.SequenceNumber)
	w.int(m.SentAt.UnixNano())
	w.string(m.DeadLetterSourceArn)
	return w.b
}

// writeAttributesV1 writes attributes as a version 1 record holds them,
// each type as its text.
func writeAttributesV1(w *recordWriter, attrs []MessageAttribute) {
	w.uint(uint64(len(attrs)))
	for _, a := range attrs {
		w.string(a.Name)
		w.string(a.DataType)
		w.string(a.StringValue)
		w.bytes(a.BinaryValue)
	}
}

// appendSentStateV1 ends a version 1 record with the state m was sent in,
// as format 2 lets a message record end.
func appendSentStateV1(dst []byte, m *message) []byte {
	w := recordWriter{b: dst}
	var delay int64
	if m.state == stateDelayed {
		delay = m.visibleAt - m.sentAt
	}
	w.int(delay)
	w.int(m.expireAt - m.sentAt)
	return w.b
}

// appendStateV1 renders m's state record.
func appendStateV1(dst []byte, m *message) []byte {
	w := recordWriter{b: dst}
	w.uint(recordVersionSeparate)
	w.uint(uint64(m.state))
	w.int(m.sentAt)
	w.int(m.visibleAt)
	w.int(m.expireAt)
	r := m.receipt()
	w.int(r.receivedAt)
	w.int(r.firstReceiveAt)
	w.uint(uint64(r.receiveCount))
	w.bytes(r.token[:])
	return w.b
}
