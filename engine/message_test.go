package engine

import (
	"path/filepath"
	"testing"
	"time"
	"unsafe"
)

// A message's index entry is what a deep queue holds one of per message:
// at 80 bytes, 64 of them fill a page of the index in 5 KiB, 32 bytes a
// message less than at the 112 it took with its receives' fields in it,
// 30 MB a million messages.
func TestMessageSize(t *testing.T) {
	if size := unsafe.Sizeof(message{}); size > 80 {
		t.Errorf("message takes %d bytes, more than 80", size)
	}
}

// A message gets its receipt at its first receive, and a receive the store
// refuses leaves it as it was: without one, or with its earlier delivery,
// whose handle still holds.
func TestReceiptOnlyOnceReceived(t *testing.T) {
	clk := NewManualClock(testStart)
	disk := &diskFull{}
	e := openFaulty(t, filepath.Join(t.TempDir(), "db"), clk, disk)
	q := mustCreate(t, e, "q", AttributeUpdate{VisibilityTimeout: ptr(30)}, nil)
	sendBodies(t, q, "m")
	entry := func() message {
		t.Helper()
		q.mu.Lock()
		defer q.mu.Unlock()
		ms := q.msgs.ordered()
		if len(ms) != 1 {
			t.Fatalf("%d messages, want 1", len(ms))
		}
		return *ms[0]
	}
	if m := entry(); m.recv != nil {
		t.Fatalf("a message never received has a receipt: %+v", *m.recv)
	}
	failing(disk, func() {
		if _, err := q.Receive(t.Context(), ReceiveOptions{WaitSeconds: ptr(0)}); CodeOf(err) != ErrInternal {
			t.Fatalf("Receive: %v, want %s", err, ErrInternal)
		}
	})
	if m := entry(); m.recv != nil {
		t.Fatalf("a receive the store refused left a receipt: %+v", *m.recv)
	}

	d := recvOne(t, q, ReceiveOptions{}, "m")
	m := entry()
	first := m.receipt()
	if first.receiveCount != 1 || first.firstReceiveAt != testStart.UnixNano() || first.receivedAt != first.firstReceiveAt || first.token == [tokenLen]byte{} {
		t.Fatalf("after the first receive the receipt is %+v", first)
	}
	clk.Advance(31 * time.Second) // the lease ends
	failing(disk, func() {
		if _, err := q.Receive(t.Context(), ReceiveOptions{WaitSeconds: ptr(0)}); CodeOf(err) != ErrInternal {
			t.Fatalf("Receive: %v, want %s", err, ErrInternal)
		}
	})
	if m := entry(); m.receipt() != first {
		t.Fatalf("a receive the store refused left the receipt %+v, want %+v", m.receipt(), first)
	}
	// A handle whose lease ended, its message not received since, starts
	// a new lease.
	wantCode(t, changeVis(q, d.ReceiptHandle, 60), "")
	wantCounts(t, q, Counts{InFlight: 1})
	wantCode(t, ack(q, d.ReceiptHandle), "")
	wantCounts(t, q, Counts{})
}
