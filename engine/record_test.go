package engine

import (
	"testing"
	"time"
)

// A version 2 record gives back its message and, in a file store, the
// state it was written with, in each state a message can be in; a store in
// memory writes no state.
func TestRecordState(t *testing.T) {
	sent := testStart.UnixNano()
	rec := Message{
		ID: "5f0c3a4e-8d0b-4c47-9a61-3b1f2d7e9c10", Body: "body", MD5OfBody: "841a2d689ad86bd1611447453c22c6fc",
		Attributes: []MessageAttribute{{Name: "a", DataType: "Binary", BinaryValue: []byte{0, 1}}},
		SenderID:   "000000000000", GroupID: "g", SequenceNumber: "7", DeadLetterSourceArn: "arn:aws:sqs:us-east-1:000000000000:src",
	}
	for name, m := range map[string]message{
		"ready":     {sentAt: sent, expireAt: sent + int64(time.Hour)},
		"delayed":   {sentAt: sent, state: stateDelayed, visibleAt: sent + 30e9, expireAt: sent + int64(time.Hour)},
		"in flight": {sentAt: sent, state: stateInFlight, visibleAt: sent + 60e9, expireAt: sent + int64(time.Hour), receivedAt: sent + 30e9, firstReceiveAt: sent + 1, receiveCount: 3, token: [tokenLen]byte{1, 2, 3, tokenLen - 1: 0xff}},
		"returned":  {sentAt: sent, expireAt: sent + int64(time.Hour), receivedAt: sent + 30e9, firstReceiveAt: sent + 30e9, receiveCount: 1},
		"moved":     {sentAt: sent - int64(48*time.Hour), expireAt: sent + int64(time.Hour), receiveCount: 2, firstReceiveAt: sent - 1},
	} {
		t.Run(name, func(t *testing.T) {
			m.rec = string(appendRecordState(appendMessage(nil, &rec), &m, true))
			var got message
			if _, has, current, err := decodeIndex(m.rec, &got); err != nil || !has || !current {
				t.Fatalf("decodeIndex: has %v, current %v, %v", has, current, err)
			}
			got.rec = m.rec
			if got != m {
				t.Errorf("state read back as\n %+v\nwant %+v", got, m)
			}
			back, err := decodeMessage(&got)
			if err != nil || back.ID != rec.ID || back.Body != rec.Body || back.SenderID != rec.SenderID ||
				back.DeadLetterSourceArn != rec.DeadLetterSourceArn || !back.SentAt.Equal(time.Unix(0, m.sentAt)) ||
				len(back.Attributes) != 1 || string(back.Attributes[0].BinaryValue) != "\x00\x01" {
				t.Errorf("message read back as %+v, %v", back, err)
			}
			end, ok := messageEnd(m.rec)
			if !ok || end != len(appendMessage(nil, &rec)) {
				t.Errorf("messageEnd = %d, %v", end, ok)
			}

			inMemory := string(appendRecordState(appendMessage(nil, &rec), &m, false))
			if _, has, _, err := decodeIndex(inMemory, &message{}); err != nil || has {
				t.Errorf("a record written in memory: has %v, %v; want no state", has, err)
			}
			// A state section cut short, or of a length it cannot have, is refused.
			for _, bad := range []string{m.rec[:len(m.rec)-2] + m.rec[len(m.rec)-1:], m.rec[:len(m.rec)-1] + "\x05"} {
				if _, _, _, err := decodeIndex(bad, &message{}); err == nil {
					t.Errorf("decodeIndex(%q) succeeded", bad)
				}
			}
		})
	}
}
