package engine

import (
	"math"
	"strconv"
)

// Sequence numbers only ever increase per queue, across restarts too: a
// restart takes up the count from the highest of the stored messages'
// numbers and the stored counter. The counter is written only before a
// transaction that deletes a message numbered above what the store already
// covers, since only such a delete could hide a number a client has seen;
// it is then written seqReserve above the count, so that the deletes of the
// next seqReserve messages sent write nothing more, and a restart skips the
// numbers reserved and not used. It is written in a transaction of its own,
// committed before the delete's: a kill can cut a transaction's write
// short, leaving any of its commands, and one that kept a delete but not
// the counter would let a restart number a message as the deleted one
// was. Messages leave a queue under its own lock, and, when dead-lettered
// or moved, under their new queue's: so the counter's record is atomic,
// and a transaction never lowers the stored counter.

// seqReserve is how far past the count the stored counter goes: a steady
// stream of sends and deletes writes it about once per seqReserve
// messages, rather than once per batch, each write costing as much as
// storing a message.
const seqReserve = 1 << 12

// nextSeqLocked hands out the queue's next sequence number, or reports
// that it handed out the last, math.MaxUint64: a number past it would wrap
// to 0, which would sort first and which no message may have (readyList).
// A state can set the count that high. q.mu must be held.
func (q *Queue) nextSeqLocked() (uint64, error) {
	if q.seq.Load() == math.MaxUint64 {
		return 0, ErrInternalFailure("the queue has handed out its last sequence number")
	}
	return q.seq.Add(1), nil
}

// saveSeq stores the counter that a transaction deleting messages numbered
// up to top needs, if the store does not cover them yet, in a transaction
// of its own. The caller runs it before the delete's transaction, and
// fails the delete, changing nothing else, when it fails.
func (q *Queue) saveSeq(top uint64) error {
	if !q.e.store.durable || top <= q.seqSaved.Load() {
		return nil
	}
	// Near the last number the reserve stops at it: a sum that wrapped
	// would store a counter below the numbers handed out.
	n := q.seq.Load()
	n += min(seqReserve, math.MaxUint64-n)
	if err := q.e.store.update(func(tx recordTx) error { return q.putSeqTx(tx, n) }); err != nil {
		return err
	}
	q.savedSeq(n)
	return nil
}

// putSeqTx raises the stored counter to n, unless n is 0.
func (q *Queue) putSeqTx(tx recordTx, n uint64) error {
	if n == 0 {
		return nil
	}
	if v, ok, _ := tx.get(seqKey(q.keyspace)); ok {
		if stored, err := strconv.ParseUint(v, 10, 64); err == nil && stored >= n {
			return nil
		}
	}
	return tx.set(seqKey(q.keyspace), strconv.FormatUint(n, 10))
}

// savedSeq records that the store holds at least counter n, once the
// transaction that wrote it has committed.
func (q *Queue) savedSeq(n uint64) {
	for {
		old := q.seqSaved.Load()
		if n <= old || q.seqSaved.CompareAndSwap(old, n) {
			return
		}
	}
}

// deleteStored removes msgs' records from the store: the counter first,
// when their delete needs it (saveSeq), then the records, each in a
// transaction of its own.
func (q *Queue) deleteStored(msgs []*message) error {
	if err := q.saveSeq(topSeq(msgs)); err != nil {
		return err
	}
	return q.e.store.update(func(tx recordTx) error { return q.e.store.deleteBatchTx(tx, q.keyspace, msgs) })
}

// topSeq is the highest sequence number of msgs.
func topSeq(msgs []*message) uint64 {
	var top uint64
	for _, m := range msgs {
		top = max(top, m.seq)
	}
	return top
}

// loadSeqTx reads the stored counter into the queue.
func (q *Queue) loadSeqTx(tx recordTx) error {
	v, ok, err := tx.get(seqKey(q.keyspace))
	if !ok || err != nil {
		return err
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		q.e.log.Error("unreadable sequence counter", "queue", q.name, "value", v)
		return nil
	}
	q.seqSaved.Store(n)
	if n > q.seq.Load() {
		q.seq.Store(n)
	}
	return nil
}
