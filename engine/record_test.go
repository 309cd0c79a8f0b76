package engine

import (
	"crypto/md5"
	"encoding/hex"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
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
	if got := len(appendMessage(nil, &rec)); got != 2+16+1+5+1+(2+1+1+3)+1+2+2+len(rec.DeadLetterSourceArn)+1 {
		t.Errorf("the record of %+v takes %d bytes; its id and sender are not raw, or it holds its MD5", rec, got)
	}
	for name, m := range map[string]message{
		"ready":     {sentAt: sent, expireAt: sent + int64(time.Hour)},
		"delayed":   {sentAt: sent, state: stateDelayed, visibleAt: sent + 30e9, expireAt: sent + int64(time.Hour)},
		"in flight": {sentAt: sent, state: stateInFlight, visibleAt: sent + 60e9, expireAt: sent + int64(time.Hour), recv: &receipt{receivedAt: sent + 30e9, firstReceiveAt: sent + 1, receiveCount: 3, token: [tokenLen]byte{1, 2, 3, tokenLen - 1: 0xff}}},
		"returned":  {sentAt: sent, expireAt: sent + int64(time.Hour), recv: &receipt{receivedAt: sent + 30e9, firstReceiveAt: sent + 30e9, receiveCount: 1}},
		"moved":     {sentAt: sent - int64(48*time.Hour), expireAt: sent + int64(time.Hour), recv: &receipt{receiveCount: 2, firstReceiveAt: sent - 1}},
	} {
		t.Run(name, func(t *testing.T) {
			m.setRecord(string(appendRecordState(appendMessage(nil, &rec), &m, true)))
			var got message
			if _, has, current, err := decodeIndex(m.record(), &got); err != nil || !has || !current {
				t.Fatalf("decodeIndex: has %v, current %v, %v", has, current, err)
			}
			got.setRecord(m.record())
			if !sameEntry(got, m) {
				t.Errorf("state read back as\n %+v, %+v\nwant %+v, %+v", got, got.receipt(), m, m.receipt())
			}
			want := rec
			want.SentAt = time.Unix(0, m.sentAt)
			if back, err := decodeMessage(&got, messageIDs{}); err != nil || !reflect.DeepEqual(back, want) {
				t.Errorf("message read back as\n %+v, %v\nwant %+v", back, err, want)
			}
			end, ok := messageEnd(m.record())
			if !ok || end != len(appendMessage(nil, &rec)) {
				t.Errorf("messageEnd = %d, %v", end, ok)
			}

			inMemory := string(appendRecordState(appendMessage(nil, &rec), &m, false))
			if _, has, _, err := decodeIndex(inMemory, &message{}); err != nil || has {
				t.Errorf("a record written in memory: has %v, %v; want no state", has, err)
			}
			// A state section cut short, or of a length it cannot have, is refused.
			r := m.record()
			for _, bad := range []string{r[:len(r)-2] + r[len(r)-1:], r[:len(r)-1] + "\x05"} {
				if _, _, _, err := decodeIndex(bad, &message{}); err == nil {
					t.Errorf("decodeIndex(%q) succeeded", bad)
				}
			}
		})
	}
}

// Fields a version 2 record cannot hold raw, and those it holds only when
// set, read back as they were written, and the MD5 as the body's, which
// it is for every message a queue holds; an id is found in either form.
func TestRecordMessageForms(t *testing.T) {
	at := time.Unix(0, testStart.UnixNano())
	for name, rec := range map[string]Message{
		"raw":   {ID: "5f0c3a4e-8d0b-4c47-9a61-3b1f2d7e9c10", Body: "b", MD5OfBody: "841a2d689ad86bd1611447453c22c6fc", SenderID: "123456789012"},
		"text":  {ID: "5F0C3A4E-8D0B-4C47-9A61-3B1F2D7E9C10", Body: "b", MD5OfBody: "841a2d689ad86bd1611447453c22c6fg", SenderID: "AIDAEXAMPLE"},
		"short": {ID: "id-1", MD5OfBody: "841a", SenderID: "12345678901"},
		"every field": {
			ID: "0123abcd-0000-4000-8000-00000000ffff", Body: "body", MD5OfBody: "00000000000000000000000000000000",
			Attributes: []MessageAttribute{
				{Name: "s", DataType: "String", StringValue: "v"}, {Name: "n", DataType: "Number", StringValue: "1"},
				{Name: "b", DataType: "Binary", BinaryValue: []byte{9}}, {Name: "c", DataType: "Number.float", StringValue: "1.5"},
			},
			SystemAttributes: []MessageAttribute{{Name: "AWSTraceHeader", DataType: "String", StringValue: "Root=1"}},
			SenderID:         "000000000001", GroupID: "g", DeduplicationID: "d", SequenceNumber: "18", DeadLetterSourceArn: "arn",
		},
	} {
		t.Run(name, func(t *testing.T) {
			rec.SentAt = at
			m := &message{sentAt: at.UnixNano()}
			m.setRecord(string(appendRecordState(appendMessage(nil, &rec), m, false)))
			want := rec
			want.MD5OfBody = hexMD5(rec.Body)
			if back, err := decodeMessage(m, messageIDs{}); err != nil || !reflect.DeepEqual(back, want) {
				t.Errorf("read back as\n %+v, %v\nwant %+v", back, err, want)
			}
			if group, _, _, err := decodeIndex(m.record(), &message{}); err != nil || group != rec.GroupID {
				t.Errorf("decodeIndex: group %q, %v", group, err)
			}
			if !recordHasID(m, messageIDs{}, rec.ID) || recordHasID(m, messageIDs{}, rec.ID+"0") || recordHasID(m, messageIDs{}, "5f0c3a4e-8d0b-4c47-9a61-3b1f2d7e9c11") {
				t.Errorf("recordHasID does not tell %q from others", rec.ID)
			}
		})
	}
}

// heldMD5 is the record rec, of a message whose id is its queue's
// (messageIDs) or raw, as a record written before records left the MD5 out
// holds md5: raw, or as text.
func heldMD5(t *testing.T, rec string, md5 string, raw bool) string {
	t.Helper()
	at := 2 + 1 // past the version, the flags and the id's empty text: the MD5's empty text
	if len(rec) > 2 && rec[1]&rawID != 0 {
		at = 2 + 16 // past a raw id
	} else if len(rec) <= 2 || rec[2] != 0 {
		t.Fatalf("record %x holds its id as text", rec)
	}
	if len(rec) <= at || rec[1]&rawMD5 != 0 || rec[at] != 0 {
		t.Fatalf("record %x holds an MD5", rec)
	}
	b := []byte(rec)
	held := append([]byte{byte(len(md5))}, md5...)
	if raw {
		sum, err := hex.DecodeString(md5)
		if err != nil {
			t.Fatal(err)
		}
		held = sum
		b[1] |= rawMD5
	}
	return string(slices.Concat(b[:at], held, b[at+1:]))
}

// hexMD5 is the MD5 of body as SQS gives it.
func hexMD5(body string) string {
	sum := md5.Sum([]byte(body))
	return hex.EncodeToString(sum[:])
}

// A record written before records left the MD5 out holds it raw or as
// text, and reads back with the MD5 it holds, whatever the body's is; cut
// short anywhere, it is refused.
func TestRecordMD5WrittenBefore(t *testing.T) {
	rec := Message{ID: "5f0c3a4e-8d0b-4c47-9a61-3b1f2d7e9c10", Body: "body", SenderID: "000000000000", GroupID: "g"}
	now := string(appendMessage(nil, &rec))
	const held = "00112233445566778899aabbccddeeff"
	for name, c := range map[string]struct{ rec, md5 string }{
		"raw":  {heldMD5(t, now, held, true), held},
		"text": {heldMD5(t, now, strings.ToUpper(held), false), strings.ToUpper(held)},
		"none": {now, hexMD5(rec.Body)},
	} {
		m := &message{sentAt: testStart.UnixNano()}
		m.setRecord(string(appendRecordState([]byte(c.rec), m, false)))
		want := rec
		want.MD5OfBody, want.SentAt = c.md5, time.Unix(0, m.sentAt)
		if back, err := decodeMessage(m, messageIDs{}); err != nil || !reflect.DeepEqual(back, want) {
			t.Errorf("%s: read back as\n %+v, %v\nwant %+v", name, back, err, want)
		}
		if group, _, _, err := decodeIndex(m.record(), &message{}); err != nil || group != rec.GroupID {
			t.Errorf("%s: decodeIndex: group %q, %v", name, group, err)
		}
		for n := range len(m.record()) {
			cut := &message{}
			cut.setRecord(m.record()[:n])
			decodeMessage(cut, messageIDs{}) // must not panic
			if _, _, _, err := decodeIndex(cut.record(), &message{}); err == nil {
				t.Errorf("%s: decodeIndex of the record cut to %d bytes succeeded", name, n)
			}
		}
	}
}

// One receive of messages whose records hold their MD5 in each form, the
// held one another than the body's in some, renders each its own, in
// memory and in a file store, before and after a restart and a rewrite of
// the records by a receive, and so does a state dump.
func TestReceiveRendersMD5OfEachForm(t *testing.T) {
	for _, path := range []string{"", filepath.Join(t.TempDir(), "db")} {
		clk := NewManualClock(testStart)
		e := openAt(t, path, clk)
		q := mustCreate(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(30)}, nil)
		held := map[string]string{
			"raw, another": "00112233445566778899aabbccddeeff", "raw, the body's": hexMD5("raw, the body's"),
			"text, another": "00112233445566778899AABBCCDDEEFF", "text, the body's": hexMD5("text, the body's"),
		}
		bodies := []string{"new", "raw, another", "text, another", "new again", "raw, the body's", "text, the body's", strings.Repeat("x", 300)}
		want := map[string]string{}
		var msgs []NewMessage
		for _, b := range bodies {
			msgs = append(msgs, NewMessage{Body: b})
			want[b] = hexMD5(b)
			if h, ok := held[b]; ok {
				want[b] = h
			}
		}
		for i, r := range send(t, q, msgs...) {
			if r.MD5OfBody != hexMD5(bodies[i]) {
				t.Fatalf("%q: sent %q with MD5 %s", path, bodies[i], r.MD5OfBody)
			}
		}
		q.mu.Lock()
		for _, m := range q.msgs.ordered() {
			rec, err := decodeMessage(m, q.ids)
			h, ok := held[rec.Body]
			if err != nil || !ok {
				continue
			}
			old := heldMD5(t, m.record(), h, strings.HasPrefix(rec.Body, "raw"))
			if path != "" {
				if err := e.store.update(func(tx recordTx) error { return tx.set(messageKey(q.keyspace, m.seq), old) }); err != nil {
					t.Fatal(err)
				}
			}
			q.setRecordLocked(m, old)
		}
		q.mu.Unlock()
		for round := range 3 {
			if path != "" && round != 2 {
				e = reopen(t, e, path, clk)
				q = mustQueue(t, e, "q")
			}
			got := recvNow(t, q, ReceiveOptions{MaxMessages: 10})
			if len(got) != len(bodies) {
				t.Fatalf("%q, round %d: received %d of %d", path, round, len(got), len(bodies))
			}
			for _, d := range got {
				if d.MD5OfBody != want[d.Body] {
					t.Errorf("%q, round %d: %q delivered with MD5 %s, want %s", path, round, d.Body, d.MD5OfBody, want[d.Body])
				}
			}
			clk.Advance(31 * time.Second)
		}
		for _, qs := range stateOf(t, e).Queues {
			for _, ms := range qs.Messages {
				if ms.MD5OfBody != want[ms.Body] {
					t.Errorf("%q: state dump of %q with MD5 %s, want %s", path, ms.Body, ms.MD5OfBody, want[ms.Body])
				}
			}
		}
	}
}

// A receive renders every delivery's raw id, MD5 and sender to one text:
// each delivery gets its own, whether or not the one before shares it.
func TestReceiveRendersRawFields(t *testing.T) {
	for _, path := range []string{"", filepath.Join(t.TempDir(), "db")} {
		e, _ := newTestEngine(t, Options{Path: path, Fsync: FsyncNever})
		q := mustCreate(t, e, "q", AttributeUpdate{}, nil)
		senders := []string{"111111111111", "111111111111", "AIDAEXAMPLE", "222222222222", "111111111111", ""}
		var msgs []NewMessage
		for i, s := range senders {
			msgs = append(msgs, NewMessage{Body: strings.Repeat("b", i+1), SenderID: s})
		}
		sent := send(t, q, msgs...)
		got := recvNow(t, q, ReceiveOptions{MaxMessages: 10})
		if len(got) != len(senders) {
			t.Fatalf("received %d of %d", len(got), len(senders))
		}
		for i, d := range got {
			want := senders[i]
			if want == "" {
				want = q.ns.Account
			}
			if d.ID != sent[i].MessageID || d.MD5OfBody != sent[i].MD5OfBody || d.SenderID != want {
				t.Errorf("%q, delivery %d: id %s, MD5 %s, sender %q; want %s, %s, %q", path, i, d.ID, d.MD5OfBody, d.SenderID, sent[i].MessageID, sent[i].MD5OfBody, want)
			}
		}
	}
}

// The hex of random ids and MD5s, from either form of raw bytes, agrees
// with encoding/hex and google/uuid, after whatever the buffer held, with
// room for it or without.
func TestRecordHexRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var b [16]byte
	for i := range 10000 {
		for k := range b {
			b[k] = byte(r.Uint32())
		}
		prefix := []byte("prefix")[:i%7]
		if i%2 == 0 {
			prefix = slices.Grow(prefix, 2*uuidLen)
		}
		want := string(prefix) + hex.EncodeToString(b[:])
		if got := string(appendHex16(slices.Clip(prefix), b[:])); got != want {
			t.Fatalf("appendHex16(%q, %x) = %q, want %q", prefix, b, got, want)
		}
		if got := string(appendHex16(prefix, string(b[:]))); got != want {
			t.Fatalf("appendHex16(%q, %x as a string) = %q, want %q", prefix, b, got, want)
		}
		want = string(prefix) + uuid.UUID(b).String()
		if got := string(appendUUID(slices.Clip(prefix), b[:])); got != want {
			t.Fatalf("appendUUID(%q, %x) = %q, want %q", prefix, b, got, want)
		}
		if got := string(appendUUID(prefix, string(b[:]))); got != want {
			t.Fatalf("appendUUID(%q, %x as a string) = %q, want %q", prefix, b, got, want)
		}
	}
}

// The word-at-a-time hex of ids and MD5s agrees with encoding/hex, and an
// id's parse takes lowercase hex digits alone: every byte value in every
// place.
func TestRecordHex(t *testing.T) {
	raw := make([]byte, 16)
	for i := range raw {
		raw[i] = byte(i*37 + 11)
	}
	for v := range 256 {
		for at := range 16 {
			b := slices.Clone(raw)
			b[at] = byte(v)
			want := hex.EncodeToString(b)
			if got := string(appendHex16(nil, string(b))); got != want {
				t.Fatalf("appendHex16(%x) = %s", b, got)
			}
			id := want[0:8] + "-" + want[8:12] + "-" + want[12:16] + "-" + want[16:20] + "-" + want[20:32]
			if got := string(appendUUID(nil, string(b))); got != id {
				t.Fatalf("appendUUID(%x) = %s, want %s", b, got, id)
			}
			var back [16]byte
			if !parseUUID(&back, id) || string(back[:]) != string(b) {
				t.Fatalf("parseUUID(%s) = %x", id, back)
			}
		}
	}
	valid := func(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }
	id := string(appendUUID(nil, string(raw)))
	var dst [16]byte
	for c := range 256 {
		for at := range len(id) {
			s := id[:at] + string([]byte{byte(c)}) + id[at+1:]
			want := valid(byte(c))
			if at == 8 || at == 13 || at == 18 || at == 23 {
				want = c == '-'
			}
			if got := parseUUID(&dst, s); got != want {
				t.Fatalf("parseUUID(%q) = %v", s, got)
			}
		}
	}
}
