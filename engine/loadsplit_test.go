package engine

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"
)

// withSplitSpan runs fn with loadSplitSpan set to span.
func withSplitSpan(span uint64, fn func()) {
	defer func(was uint64) { loadSplitSpan = was }(loadSplitSpan)
	loadSplitSpan = span
	fn()
}

// readyOrder is the order of q's visible messages, by their sequence
// numbers: the queue's, or each FIFO group's by its id.
func readyOrder(q *Queue) map[string][]uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	order := map[string][]uint64{}
	walk := func(name string, l *readyList) {
		for m := l.front(); m != nil; m = l.next(m) {
			order[name] = append(order[name], m.seq)
		}
	}
	walk("", &q.ready)
	for id, g := range q.groups {
		walk("group "+id, &g.ready)
		walk("held "+id, &g.held)
	}
	return order
}

// A deep queue's records are decoded by two goroutines at a restart (see
// splitLoad): the queues load as a single pass loads them, with their
// messages in the same states and lists, in the same order.
func TestLoadSplitAgrees(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	q := mustCreate(t, e, "deep", AttributeUpdate{MessageRetentionPeriod: ptr(3600), VisibilityTimeout: ptr(60)}, nil)
	fifo := ffQueue(t, e, "deep", AttributeUpdate{ContentBasedDeduplication: ptr(true), VisibilityTimeout: ptr(60)})
	batch := make([]NewMessage, 10)
	for i := range 200 {
		for j := range batch {
			batch[j] = NewMessage{Body: fmt.Sprintf("m%d", i*10+j)}
			if j == 3 {
				batch[j].DelaySeconds = ptr(100 + i%200)
			}
		}
		send(t, q, batch...)
		for j := range batch {
			batch[j] = NewMessage{Body: fmt.Sprintf("f%d", i*10+j), GroupID: fmt.Sprintf("g%d", j%4)}
		}
		send(t, fifo, batch...)
		clk.Advance(time.Second)
	}
	// Messages deleted, leaving gaps; received and returned, so that they
	// go to the front; and in flight, some of them past their lease at the
	// restart.
	for i := range 60 {
		for j, d := range recvNow(t, q, ReceiveOptions{MaxMessages: 10}) {
			switch j % 3 {
			case 0:
				wantCode(t, ack(q, d.ReceiptHandle), "")
			case 1:
				wantCode(t, changeVis(q, d.ReceiptHandle, 0), "")
			case 2:
				wantCode(t, changeVis(q, d.ReceiptHandle, 30+i), "")
			}
		}
	}
	for range 3 {
		for j, d := range recvNow(t, fifo, ReceiveOptions{MaxMessages: 10}) {
			if j%2 == 0 {
				wantCode(t, ack(fifo, d.ReceiptHandle), "")
			}
		}
	}
	clk.Advance(60 * time.Second)
	e.Close()

	type loaded struct {
		state *State
		index map[string]map[uint64]message
		order map[string]map[string][]uint64
	}
	load := func(span uint64) (l loaded) {
		withSplitSpan(span, func() {
			e := openAt(t, path, clk)
			defer e.Close()
			l.state = stateOf(t, e)
			l.index, l.order = map[string]map[uint64]message{}, map[string]map[string][]uint64{}
			for _, q := range e.AllQueues() {
				l.index[q.name], l.order[q.name] = indexOf(q), readyOrder(q)
				err := e.store.view(func(tx recordTx) error {
					first, last, err := seqRangeTx(tx, q.keyspace)
					if split := q.splitLoad(first, last); (split != 0) != (span == 1) {
						t.Errorf("queue %s, records %d to %d: split at %d with a span of %d", q.name, first, last, split, span)
					}
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
			}
		})
		return l
	}
	whole := load(math.MaxUint64)
	split := load(1)
	for name, want := range whole.index {
		sameIndex(t, split.index[name], want)
		if !reflect.DeepEqual(split.order[name], whole.order[name]) {
			t.Errorf("queue %s: visible messages in the order %v, want %v", name, split.order[name], whole.order[name])
		}
	}
	for i := range whole.state.Queues {
		whole.state.Queues[i].LastSequence = 0 // each open reserves more
		split.state.Queues[i].LastSequence = 0
	}
	if !reflect.DeepEqual(split.state, whole.state) {
		t.Errorf("split load: %s", stateDiff(whole.state, split.state))
	}
	if n := len(whole.index["deep"]); n != 2000-240 {
		t.Errorf("%d messages loaded, want %d", n, 2000-240)
	}
	// Its leases over, every group's messages are visible.
	if n := len(whole.order["deep.fifo"]); n != 4 {
		t.Errorf("FIFO queue loaded with %d lists of messages, want 4", n)
	}
}

// The tests of the load hold with every keyspace's records split between
// the two goroutines, from the first record on or from past it.
func TestLoadSplitEverywhere(t *testing.T) {
	tests := map[string]func(*testing.T){
		"OneRecordEach":     TestLoadOneRecordEach,
		"StateRecordEach":   TestLoadStateRecordEach,
		"SkipsBadRecords":   TestLoadSkipsBadRecords,
		"MigratesFormat2":   TestOpenMigratesFormat2,
		"PersistReopen":     TestPersistReopen,
		"LegacyEveryChange": TestFormat3LegacyEveryChange,
	}
	for _, span := range []uint64{0, 1} {
		withSplitSpan(span, func() {
			for _, name := range slices.Sorted(maps.Keys(tests)) {
				t.Run(fmt.Sprintf("span %d/%s", span, name), tests[name])
			}
		})
	}
}

// The records of either kind of store answer ascendFrom, last and count
// alike.
func TestRecordsRanges(t *testing.T) {
	file, err := openFileRecords(filepath.Join(t.TempDir(), "db"), FsyncNever, NewManualClock(time.Unix(0, 0)))
	if err != nil {
		t.Fatal(err)
	}
	defer file.close()
	keys := []string{"a", "m:1:11", "m:1:12", "m:1:2ff", "m:1;", "m:10:11", "m:2:11", "z\xff", "z\xff\xff", "\xff\xff"}
	for _, kv := range []records{newMemRecords(), file} {
		err := kv.update(func(tx recordTx) error {
			for _, k := range keys {
				if err := tx.set(k, "v"); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		err = kv.view(func(tx recordTx) error {
			for _, c := range []struct {
				prefix, last string
				ok           bool
			}{
				{"m:1:", "m:1:2ff", true},
				{"m:1", "m:1;", true},
				{"m:3:", "", false},
				{"z\xff", "z\xff\xff", true},
				{"\xff", "\xff\xff", true},
				{"b", "", false},
				{"", "\xff\xff", true},
			} {
				if k, ok, err := tx.last(c.prefix); k != c.last || ok != c.ok || err != nil {
					t.Errorf("%T: last(%q) = %q, %v, %v; want %q, %v", kv, c.prefix, k, ok, err, c.last, c.ok)
				}
			}
			var got []string
			err := tx.ascendFrom("m:1:", "m:1:12", func(k, _ string) bool {
				got = append(got, k)
				return true
			})
			if want := []string{"m:1:12", "m:1:2ff"}; err != nil || !slices.Equal(got, want) {
				t.Errorf("%T: ascendFrom(m:1:, m:1:12) = %q, %v; want %q", kv, got, err, want)
			}
			got = nil
			err = tx.ascendFrom("m:1:", "a", func(k, _ string) bool {
				got = append(got, k)
				return len(got) < 2
			})
			if want := []string{"m:1:11", "m:1:12"}; err != nil || !slices.Equal(got, want) {
				t.Errorf("%T: ascendFrom(m:1:, a), stopped at 2 = %q, %v; want %q", kv, got, err, want)
			}
			n, err := tx.count()
			// The file store has its format record too.
			if want := len(keys) + map[bool]int{true: 1}[kv == records(file)]; n != want || err != nil {
				t.Errorf("%T: count = %d, %v; want %d", kv, n, err, want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
