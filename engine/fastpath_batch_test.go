package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"
)

// A batch's ids, MD5s, attributes and receipt handles share allocations;
// each message must still get its own.
func TestBatchSharesNoValues(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q, err := e.CreateQueue("shared", AttributeUpdate{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	attr := func(name, value string) MessageAttribute {
		return MessageAttribute{Name: name, DataType: "String", StringValue: value}
	}
	msgs := []NewMessage{
		{Body: "zero"},
		{Body: "two", Attributes: []MessageAttribute{attr("a", "1"), attr("b", "2")}},
		{Body: ""}, // refused: its slot must not shift the others' ids
		{Body: "one", Attributes: []MessageAttribute{{Name: "c", DataType: "Binary", BinaryValue: []byte{7}}}},
		{Body: "three", Attributes: []MessageAttribute{attr("d", "4"), attr("e", "5"), attr("f", "6")}},
	}
	res := q.Send(msgs)
	ids := map[string]string{}
	for i, r := range res {
		if i == 2 {
			if r.Err == nil {
				t.Fatal("empty body accepted")
			}
			continue
		}
		if r.Err != nil {
			t.Fatalf("message %d: %v", i, r.Err)
		}
		u, err := uuid.Parse(r.MessageID)
		if err != nil || u.String() != r.MessageID || u.Version() != 4 {
			t.Errorf("message %d: id %q is not a version 4 UUID in its usual form", i, r.MessageID)
		}
		if want := hexMD5(msgs[i].Body); r.MD5OfBody != want {
			t.Errorf("message %d: MD5 %s, want %s", i, r.MD5OfBody, want)
		}
		ids[r.MessageID] = msgs[i].Body
	}
	if len(ids) != 4 {
		t.Fatalf("%d distinct ids for 4 messages", len(ids))
	}
	ds, err := q.Receive(context.Background(), ReceiveOptions{MaxMessages: 10, WaitSeconds: ptr(0)})
	if err != nil || len(ds) != 4 {
		t.Fatalf("Receive: %d messages, %v", len(ds), err)
	}
	handles := map[string]bool{}
	for _, d := range ds {
		var want []MessageAttribute
		for _, m := range msgs {
			if m.Body == d.Body {
				want = m.Attributes
			}
		}
		if ids[d.ID] != d.Body {
			t.Errorf("message %s has body %q, sent as %q", d.ID, d.Body, ids[d.ID])
		}
		if !slices.EqualFunc(d.Attributes, want, func(a, b MessageAttribute) bool {
			return a.Name == b.Name && a.DataType == b.DataType && a.StringValue == b.StringValue && string(a.BinaryValue) == string(b.BinaryValue)
		}) || len(d.Attributes) != cap(d.Attributes) {
			t.Errorf("message %q: attributes %v (cap %d), want %v", d.Body, d.Attributes, cap(d.Attributes), want)
		}
		handles[d.ReceiptHandle] = true
	}
	hs := make([]string, 0, len(ds))
	for h := range handles {
		hs = append(hs, h)
	}
	if len(hs) != 4 {
		t.Fatalf("%d distinct receipt handles for 4 deliveries", len(hs))
	}
	// Base64 decoding skips newlines, so a handle with one still names its
	// delivery, as it always has.
	acks := slices.Clone(hs)
	acks[0] += "\n"
	for i, err := range q.Acknowledge(acks) {
		if err != nil {
			t.Errorf("handle %d: %v", i, err)
		}
	}
	for _, bad := range []string{hs[0][:len(hs[0])-1], hs[0] + "A", "", "!" + hs[0][1:]} {
		if err := q.Acknowledge([]string{bad})[0]; CodeOf(err) != ErrReceiptHandleIsInvalid {
			t.Errorf("handle %q: %v, want ReceiptHandleIsInvalid", bad, err)
		}
	}
}
