package engine

// Resetting the engine between tests, and replacing everything in it with a
// saved state (Load, in state.go): both take every queue and move task down,
// then change the store in one transaction, so that a failed write leaves
// the engine as it was.

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// keptKeys survive a reset: the store's format marker, queue numbers,
// which are never given twice, the clock, which keeps its time, and the
// key of receipt handles.
var keptKeys = []string{formatKey, lastNumKey, clockOffsetKey, handleKeyKey}

// Reset deletes every queue with its messages, deduplication window, receive
// attempts and subscription, every move task and every cooldown, in memory
// and in the store. Receives waiting on a queue end with QueueDoesNotExist,
// as after DeleteQueue. The clock keeps its time.
func (e *Engine) Reset() error {
	before := e.AllQueues()
	if err := e.replace(nil); err != nil {
		return err
	}
	e.subscriptionsChanged(before...)
	return nil
}

// ResetQueues empties the named queues (names, ids or slugs): their messages,
// deduplication windows, receive attempts and purge cooldowns go; the
// queues and their settings stay. A name with no queue fails the call before
// anything changes.
func (e *Engine) ResetQueues(refs []string) error {
	qs := make([]*Queue, len(refs))
	for i, ref := range refs {
		q, err := e.LookupQueue(ref)
		if err != nil {
			return ErrQueueMissing(ref)
		}
		qs[i] = q
	}
	for _, q := range qs {
		if err := q.reset(); err != nil {
			return err
		}
	}
	return nil
}

func (q *Queue) reset() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.deleted {
		return errNoQueue()
	}
	if err := q.emptyLocked(time.Time{}); err != nil {
		return err
	}
	q.clearLocked()
	q.dedup = dedupWindow{}
	return nil
}

// world is what replace puts in place: queues not yet shared with anyone,
// their messages' records, and move tasks.
type world struct {
	queues  []*Queue
	records [][]*message // by queue
	tasks   []*moveTask
}

// replace takes down every queue and task, replaces the store's contents
// with next's (nothing for a reset) in one transaction and then puts next in
// place; the old queues' subscriptions end with them. If the store refuses,
// the old queues and tasks come back as they were.
func (e *Engine) replace(next *world) error {
	if next == nil {
		next = &world{}
	}
	// Halting every task first stops them writing their records; one
	// started after this is caught below.
	e.tasks.mu.Lock()
	oldTasks := make(map[*moveTask]bool, len(e.tasks.byHandle))
	for _, t := range e.tasks.byHandle {
		t.halted = true
		oldTasks[t] = true
	}
	e.tasks.mu.Unlock()

	// Every queue is marked deleted, under its own lock, so no operation
	// writes its records again; then e.mu is taken, and kept through the
	// store's transaction so that no queue is created meanwhile. A queue
	// created while the others were being marked is marked on another pass.
	var old []*Queue
	marked := map[*Queue]bool{}
	for {
		e.mu.RLock()
		var fresh []*Queue
		for _, q := range e.queues {
			if !marked[q] {
				fresh = append(fresh, q)
			}
		}
		e.mu.RUnlock()
		for _, q := range fresh {
			q.mu.Lock()
			q.deleted = true
			q.mu.Unlock()
			marked[q] = true
			old = append(old, q)
		}
		e.mu.Lock()
		if len(e.queues) <= len(marked) && allMarked(e.queues, marked) {
			break
		}
		e.mu.Unlock()
	}

	lastNum := e.lastNum
	for _, q := range next.queues {
		lastNum++
		q.num, q.keyspace = lastNum, keyspaceOf(lastNum)
	}
	if lastNum > e.lastNum {
		// The numbers next's queues take are stored first, with their
		// sequence counters, in a transaction of their own: a kill can
		// keep any of the next one's commands, and their messages' records
		// kept without the number would be a queue's created later, a
		// queue's record kept without its counter would number messages
		// from 0. Once stored, the numbers are never given again, whether
		// or not the next write is done.
		err := e.store.update(func(tx recordTx) error {
			if e.store.durable {
				for _, q := range next.queues {
					if err := q.putSeqTx(tx, q.seq.Load()); err != nil {
						return err
					}
				}
			}
			return tx.set(lastNumKey, strconv.FormatUint(lastNum, 10))
		})
		if err != nil {
			e.mu.Unlock()
			e.bringBack(old, oldTasks)
			return err
		}
		e.lastNum = lastNum
	}
	// Each record but those kept is deleted on its own, not all flushed
	// and the kept ones written again: a kill can cut a transaction's write
	// short, keeping any of its commands, and a flush kept without those
	// writes would lose the kept records. A kill may then keep a queue
	// with some of its messages, so, as for any delete of messages, each
	// queue's sequence counter is stored first (saveSeq), and deleted only
	// once the queue's record is.
	for _, q := range old {
		if err := q.saveSeq(q.seq.Load()); err != nil {
			e.mu.Unlock()
			e.bringBack(old, oldTasks)
			return err
		}
	}
	var counters []string
	err := e.store.update(func(tx recordTx) error {
		keys, err := keysWithPrefix(tx, "")
		if err != nil {
			return err
		}
		counters = counters[:0]
		for _, k := range keys {
			switch {
			case slices.Contains(keptKeys, k):
				continue
			case strings.HasPrefix(k, seqKeyPrefix):
				if !slices.ContainsFunc(next.queues, func(q *Queue) bool { return k == seqKey(q.keyspace) }) {
					counters = append(counters, k) // an old queue's
				}
				continue
			}
			if _, _, err := tx.delete(k); err != nil {
				return err
			}
		}
		return e.writeWorldTx(tx, next, lastNum)
	})
	if err != nil {
		e.mu.Unlock()
		e.bringBack(old, oldTasks)
		return err
	}
	if len(counters) > 0 {
		err := e.store.update(func(tx recordTx) error {
			for _, k := range counters {
				if _, _, err := tx.delete(k); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			e.log.Error("deleting the sequence counters of reset queues", "err", err)
		}
	}
	e.queues = make(map[queueRef]*Queue, len(next.queues))
	e.byID = make(map[string]*Queue, len(next.queues))
	for _, q := range next.queues {
		e.queues[q.ref()] = q
		e.byID[q.id] = q
	}
	e.deletedAt = map[queueRef]time.Time{}
	e.lastNum = lastNum
	e.mu.Unlock()
	// The sweeper learns the new queues' deadlines from a sweep of them.
	e.dueAt(e.clock.Now().UnixNano())
	e.changes.announce()

	e.tasks.mu.Lock()
	var late []string
	for _, t := range e.tasks.byHandle {
		if !oldTasks[t] {
			// Started while queues were being taken down: it goes too.
			t.halted = true
			oldTasks[t] = true
			late = append(late, t.Handle)
		}
	}
	for t := range oldTasks {
		if t.halt != nil {
			close(t.halt)
		}
	}
	e.tasks.byHandle = map[string]*moveTask{}
	for _, t := range next.tasks {
		if t.Status == TaskRunning {
			e.runTaskLocked(t)
		} else {
			e.tasks.byHandle[t.Handle] = t
		}
	}
	e.tasks.mu.Unlock()
	if len(late) > 0 {
		err := e.store.update(func(tx recordTx) error {
			for _, h := range late {
				if _, _, err := tx.delete(moveTaskPrefix + h); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			e.log.Error("deleting move tasks started during a reset", "err", err)
		}
	}

	for _, q := range old {
		q.mu.Lock()
		q.clearLocked()
		q.dedup = dedupWindow{}
		q.sub = nil
		q.wakeAllLocked()
		q.mu.Unlock()
	}
	return nil
}

func allMarked(queues map[queueRef]*Queue, marked map[*Queue]bool) bool {
	for _, q := range queues {
		if !marked[q] {
			return false
		}
	}
	return true
}

// bringBack undoes replace's taking down after the store refused it.
func (e *Engine) bringBack(old []*Queue, tasks map[*moveTask]bool) {
	e.mu.RLock()
	live := make(map[*Queue]bool, len(e.queues))
	for _, q := range e.queues {
		live[q] = true
	}
	e.mu.RUnlock()
	for _, q := range old {
		if live[q] {
			q.mu.Lock()
			q.deleted = false
			q.mu.Unlock()
		}
	}
	e.tasks.mu.Lock()
	for t := range tasks {
		t.halted = false
	}
	e.tasks.mu.Unlock()
}
