package engine

import (
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// indexOf is what the in-memory index keeps of each of q's messages, by
// sequence number, without the links that tie it to its lists.
func indexOf(q *Queue) map[uint64]message {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := map[uint64]message{}
	for _, m := range q.msgs.ordered() {
		c := *m
		c.prev, c.next, c.group = 0, 0, nil
		c.setRecord(messagePart(q, m)) // with no state, which the record holds in a file store
		out[m.seq] = c
	}
	return out
}

// messagePart is m's record, a message of q, as a store in memory holds
// it: the message, with an empty state section.
func messagePart(q *Queue, m *message) string {
	rec, err := decodeMessage(m, q.ids)
	if err != nil {
		return m.record()
	}
	return string(appendRecordState(appendMessage(nil, &rec), m, false))
}

func sameIndex(t *testing.T, got, want map[uint64]message) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d messages loaded, want %d", len(got), len(want))
	}
	for seq, w := range want {
		if g, ok := got[seq]; !ok || !sameEntry(g, w) {
			t.Errorf("message %d loaded as\n %+v, %+v\nwant %+v, %+v", seq, g, g.receipt(), w, w.receipt())
		}
	}
}

// sameEntry reports whether a and b are the same index entry, their
// records and receipts compared by value.
func sameEntry(a, b message) bool {
	if a.record() != b.record() || (a.recv == nil) != (b.recv == nil) || a.receipt() != b.receipt() {
		return false
	}
	a.recData, a.recv = b.recData, b.recv
	return a == b
}

// recordsOf counts q's message records and state records.
func recordsOf(t *testing.T, e *Engine, q *Queue) (msgs, states int) {
	t.Helper()
	err := e.store.view(func(tx recordTx) error {
		m, err := keysWithPrefix(tx, recordPrefix(messagePrefix, q.keyspace))
		if err != nil {
			return err
		}
		s, err := keysWithPrefix(tx, recordPrefix(statePrefix, q.keyspace))
		msgs, states = len(m), len(s)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return msgs, states
}

// A message has a single record in a store file, which holds its state:
// one received has its record rewritten, with no state record. Either
// loads as it was.
func TestLoadOneRecordEach(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	q := mustCreate(t, e, "sent", AttributeUpdate{MessageRetentionPeriod: ptr(600)}, nil)
	fifo := mustCreate(t, e, "sent.fifo", AttributeUpdate{FifoQueue: ptr(true), ContentBasedDeduplication: ptr(true)}, nil)
	send(t, q,
		NewMessage{Body: "received", Attributes: []MessageAttribute{{Name: "a", DataType: "Binary", BinaryValue: []byte{1, 2}}}},
		NewMessage{Body: "ready"},
		NewMessage{Body: "delayed", DelaySeconds: ptr(90)},
	)
	send(t, fifo, NewMessage{Body: "f1", GroupID: "g1"}, NewMessage{Body: "f2", GroupID: "g2"})
	if m, s := recordsOf(t, e, q); m != 3 || s != 0 {
		t.Fatalf("after the sends: %d message records, %d state records; want 3, 0", m, s)
	}
	recvNow(t, q, ReceiveOptions{MaxMessages: 1})
	if m, s := recordsOf(t, e, q); m != 3 || s != 0 {
		t.Fatalf("after a receive: %d message records, %d state records; want 3, 0", m, s)
	}
	clk.Advance(10 * time.Second)
	want, wantFifo := indexOf(q), indexOf(fifo)

	e = reopen(t, e, path, clk)
	q, fifo = mustQueue(t, e, "sent"), mustQueue(t, e, "sent.fifo")
	sameIndex(t, indexOf(q), want)
	sameIndex(t, indexOf(fifo), wantFifo)
	wantCounts(t, q, Counts{Visible: 1, InFlight: 1, Delayed: 1})
	if n := len(fifo.groups); n != 2 {
		t.Errorf("FIFO queue loaded with %d groups, want 2", n)
	}
	clk.Advance(80 * time.Second) // the delay and the lease end
	wantCounts(t, q, Counts{Visible: 3})
	clk.Advance(600 * time.Second)
	wantCounts(t, q, Counts{})
}

// A store written when every message had a state record, and no message
// record ended with its sent state (format 1), loads as it was.
func TestLoadStateRecordEach(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	q := mustCreate(t, e, "old", AttributeUpdate{}, nil)
	send(t, q, NewMessage{Body: "one"}, NewMessage{Body: "two", DelaySeconds: ptr(30)}, NewMessage{Body: "three"})
	recvNow(t, q, ReceiveOptions{MaxMessages: 1})
	want := indexOf(q)
	// Rewrite the records as they were: each message record of version 1,
	// and a state record beside it.
	err := e.store.update(func(tx recordTx) error {
		for seq, m := range want {
			rec, err := decodeMessage(q.msgs.get(seq), q.ids)
			if err != nil {
				return err
			}
			if err := tx.set(messageKey(q.keyspace, seq), string(appendMessageV1(nil, &rec))); err != nil {
				return err
			}
			if err := tx.set(stateKey(q.keyspace, seq), string(appendStateV1(nil, &m))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	e = reopen(t, e, path, clk)
	q = mustQueue(t, e, "old")
	sameIndex(t, indexOf(q), want)
	wantCounts(t, q, Counts{Visible: 1, InFlight: 1, Delayed: 1})
}

// Records that do not pair, or do not read, are skipped, and the rest
// load.
func TestLoadSkipsBadRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	q := mustCreate(t, e, "bad", AttributeUpdate{}, nil)
	send(t, q, NewMessage{Body: "one"}, NewMessage{Body: "two"}, NewMessage{Body: "three"}, NewMessage{Body: "four"})
	want := indexOf(q)
	seqs := slices.Sorted(maps.Keys(want))
	err := e.store.update(func(tx recordTx) error {
		first, _, err := tx.get(messageKey(q.keyspace, seqs[0]))
		if err != nil {
			return err
		}
		third, err := decodeMessage(q.msgs.get(seqs[2]), q.ids)
		if err != nil {
			return err
		}
		for k, v := range map[string]string{
			stateKey(q.keyspace, seqs[0]-1): "\x01", // before every message
			messageKey(q.keyspace, seqs[0]): first + "x",
			// Neither a state section nor a state record.
			messageKey(q.keyspace, seqs[1]): messagePart(q, q.msgs.get(seqs[1])),
			// A record of format 2, whose state record does not read.
			messageKey(q.keyspace, seqs[2]): string(appendMessageV1(nil, &third)),
			stateKey(q.keyspace, seqs[2]):   "\x01",
			// A state record left beside a record that holds its state.
			stateKey(q.keyspace, seqs[3]):   "\x01",
			stateKey(q.keyspace, seqs[3]+1): "\x01", // after every message
		} {
			if err := tx.set(k, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var logged strings.Builder
	e.Close()
	e, err = Open(Options{Path: path, Clock: clk, Fsync: FsyncNever, Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	q = mustQueue(t, e, "bad")
	sameIndex(t, indexOf(q), map[uint64]message{seqs[3]: want[seqs[3]]})
	for _, line := range []string{"state without message record", `msg="skipping unreadable message"`, "message record without state", "skipping unreadable message state"} {
		if !strings.Contains(logged.String(), line) {
			t.Errorf("log lacks %q:\n%s", line, logged.String())
		}
	}
}

// A store of format 2 opens marked 3, with every message as it was; a
// message's record takes format 3's form at its next change, and its
// state record, overridden, goes with the message.
func TestOpenMigratesFormat2(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	q := mustCreate(t, e, "old", AttributeUpdate{MessageRetentionPeriod: ptr(600)}, nil)
	send(t, q, NewMessage{Body: "acked"}, NewMessage{Body: "sent"}, NewMessage{Body: "delayed", DelaySeconds: ptr(30)}, NewMessage{Body: "ready"})
	acked := recvNow(t, q, ReceiveOptions{MaxMessages: 1})
	clk.Advance(time.Second)
	want := indexOf(q)
	seqs := slices.Sorted(maps.Keys(want))
	// Write the store as format 2 wrote it: "sent" ends its record with the
	// state it was sent in, the others have state records.
	err := e.store.update(func(tx recordTx) error {
		for _, seq := range seqs {
			m := q.msgs.get(seq)
			rec, err := decodeMessage(m, q.ids)
			if err != nil {
				return err
			}
			v1 := appendMessageV1(nil, &rec)
			if rec.Body == "sent" {
				v1 = appendSentStateV1(v1, m)
			} else if err := tx.set(stateKey(q.keyspace, seq), string(appendStateV1(nil, m))); err != nil {
				return err
			}
			if err := tx.set(messageKey(q.keyspace, seq), string(v1)); err != nil {
				return err
			}
		}
		return tx.set(formatKey, "2")
	})
	if err != nil {
		t.Fatal(err)
	}

	e = reopen(t, e, path, clk)
	q = mustQueue(t, e, "old")
	if v := storeFormat(t, e); v != "3" {
		t.Errorf("the format 2 store opened is marked %q, want 3", v)
	}
	sameIndex(t, indexOf(q), want)
	if m, s := recordsOf(t, e, q); m != 4 || s != 3 {
		t.Fatalf("loaded: %d message records, %d state records; want 4, 3", m, s)
	}
	if errs := q.Acknowledge([]string{acked[0].ReceiptHandle}); errs[0] != nil {
		t.Fatal(errs[0])
	}
	got := recvNow(t, q, ReceiveOptions{MaxMessages: 10, VisibilityTimeout: ptr(300)})
	if b := bodies(got); !slices.Equal(b, []string{"sent", "ready"}) {
		t.Fatalf("received %q, want sent and ready", b)
	}
	// The state record of "ready" stays until the message goes: a kill
	// could write its delete without its message's new record.
	if m, s := recordsOf(t, e, q); m != 3 || s != 2 {
		t.Fatalf("after a delete and a receive: %d message records, %d state records; want 3, 2 (the delayed and ready messages')", m, s)
	}
	for _, m := range q.msgs.ordered() {
		if rec, _ := decodeMessage(m, q.ids); (m.record()[0] == recordVersion) != (rec.Body != "delayed") {
			t.Errorf("%q has a record of version %d", rec.Body, m.record()[0])
		}
	}
	want = indexOf(q)

	e = reopen(t, e, path, clk)
	q = mustQueue(t, e, "old")
	sameIndex(t, indexOf(q), want)
	wantCounts(t, q, Counts{InFlight: 2, Delayed: 1})
	clk.Advance(600 * time.Second) // every message expires, the delayed one with its state record
	wantCounts(t, q, Counts{})
	if m, s := recordsOf(t, e, q); m != 0 || s != 0 {
		t.Errorf("after every message expired: %d message records, %d state records; want none", m, s)
	}
}
