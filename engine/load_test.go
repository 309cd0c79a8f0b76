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
		c.link, c.group = link[message]{}, nil
		c.rec = withoutSentState(m.rec) // which a record carries or not, as the store decides
		out[m.seq] = c
	}
	return out
}

// withoutSentState is a message record without the sent state at its end,
// as a store in memory, or one written before sent states, holds it.
func withoutSentState(raw string) string {
	rec, err := decodeMessage(raw)
	if err != nil {
		return raw
	}
	return string(appendMessage(nil, &rec))
}

func sameIndex(t *testing.T, got, want map[uint64]message) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d messages loaded, want %d", len(got), len(want))
	}
	for seq, w := range want {
		if g, ok := got[seq]; !ok || g != w {
			t.Errorf("message %d loaded as\n %+v\nwant %+v", seq, g, w)
		}
	}
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

// A message in the state it was sent in has a single record in a store
// file; one received gets a state record too. Either loads as it was.
func TestLoadSentState(t *testing.T) {
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
	if m, s := recordsOf(t, e, q); m != 3 || s != 1 {
		t.Fatalf("after a receive: %d message records, %d state records; want 3, 1", m, s)
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
// record ended with its sent state, loads as it was.
func TestLoadStateRecordEach(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	q := mustCreate(t, e, "old", AttributeUpdate{}, nil)
	send(t, q, NewMessage{Body: "one"}, NewMessage{Body: "two", DelaySeconds: ptr(30)}, NewMessage{Body: "three"})
	recvNow(t, q, ReceiveOptions{MaxMessages: 1})
	want := indexOf(q)
	// Rewrite the records as they were: each message record without its
	// sent state, and a state record beside it.
	err := e.store.update(func(tx recordTx) error {
		for seq, m := range want {
			raw, _, err := tx.get(messageKey(q.keyspace, seq))
			if err != nil {
				return err
			}
			if err := tx.set(messageKey(q.keyspace, seq), withoutSentState(raw)); err != nil {
				return err
			}
			if err := tx.set(stateKey(q.keyspace, seq), string(appendState(nil, &m))); err != nil {
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
		for k, v := range map[string]string{
			stateKey(q.keyspace, seqs[0]-1): "\x01", // before every message
			messageKey(q.keyspace, seqs[0]): first + "x",
			// Neither a sent state nor a state record.
			messageKey(q.keyspace, seqs[1]): withoutSentState(first),
			stateKey(q.keyspace, seqs[2]):   "\x01", // unreadable
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
