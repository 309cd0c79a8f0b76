package engine

import (
	"time"
)

// How a message arrives in a queue from another.
type arrival int

const (
	// deadLettered: moved by a redrive policy. It keeps its id, receive
	// count and send time (retention counts from the original send, as SQS
	// does for standard queues) and records where it came from. In a FIFO
	// dead-letter queue its deduplication id becomes its message id, as SQS
	// does.
	deadLettered arrival = iota
	// redriven: moved out of a dead-letter queue by a move task. It is a
	// new message ("All redriven messages are considered new messages with
	// a new messageID and enqueueTime", SQS Developer Guide, "Configure a
	// dead-letter queue redrive"): a new id, sent now, no receives, no
	// dead-letter source.
	redriven
)

// adopt moves messages that src has already taken out of its index into q,
// with their bodies and attributes: one store transaction writes them to q,
// and a later one deletes them from src (after src's sequence counter, if
// it needs storing: see saveSeq). A kill can cut a transaction's write
// short, keeping any of its commands, so a move in one transaction could
// keep the deletes alone and lose the messages; in two, a kill leaves a
// message in both queues at worst, as does a failure of the second write.
// When the store cannot record the first, or q has been deleted, src gets
// them back as they were, and the error says why. A purge or deletion of
// src meanwhile leaves them be: they had left it already.
func (q *Queue) adopt(src *Queue, moved []message, how arrival) (int, error) {
	n, err := q.adoptOnce(src, moved, how)
	if err != nil {
		src.giveBack(moved)
	}
	return n, err
}

func (q *Queue) adoptOnce(src *Queue, moved []message, how arrival) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	a := q.Attributes()
	now := q.e.clock.Now().UnixNano()
	q.samplePartitionsLocked(now)
	if q.deleted {
		return 0, errNoQueue() // src keeps them: it has them still in the store
	}
	var adopted []*message
	err := q.e.store.update(func(tx recordTx) error {
		for i := range moved {
			old := &moved[i]
			rec, err := decodeMessageContent(old, src.ids) // its record, made again, leaves the MD5 out
			if err != nil {
				continue
			}
			seq, err := q.nextSeqLocked()
			if err != nil {
				return err
			}
			m := &message{seq: seq, sentAt: old.sentAt, state: stateReady}
			switch how {
			case deadLettered:
				rec.DeadLetterSourceArn = src.arn
				m.expireAt = old.sentAt + int64(a.MessageRetentionPeriod)*1e9
				if r := old.recv; r != nil {
					m.recv = &receipt{receiveCount: r.receiveCount, firstReceiveAt: r.firstReceiveAt}
				}
				if q.fifo {
					rec.DeduplicationID = rec.ID
				}
			case redriven:
				id, err := q.e.newID()
				if err != nil {
					return err
				}
				rec.ID, rec.DeadLetterSourceArn, rec.SentAt = id, "", time.Unix(0, now)
				m.sentAt = now
				m.expireAt = now + int64(a.MessageRetentionPeriod)*1e9
			}
			if q.fifo {
				rec.SequenceNumber = formatSequenceNumber(m.seq)
			}
			if rec.GroupID != "" {
				m.group = q.groupLocked(rec.GroupID)
			}
			q.e.store.encodeMessage(m, &rec, nil, &q.scratch)
			if err := q.e.store.putMessageTx(tx, q.keyspace, m); err != nil {
				return err
			}
			adopted = append(adopted, m)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, m := range adopted {
		q.countEnqueuedLocked(q.insertLocked(m))
	}
	left := make([]*message, len(moved))
	for i := range moved {
		left[i] = &moved[i]
	}
	src.deleteStored(left)
	return len(adopted), nil
}

// giveBack returns to q, as they were, messages that it took out of its
// index for a move that the store did not record.
func (q *Queue) giveBack(msgs []message) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.deleted {
		return
	}
	for _, m := range msgs {
		if q.msgs.get(m.seq) != nil {
			continue
		}
		m.gone = false
		if m.group != nil {
			m.group = q.groupLocked(m.group.id) // the group may have been forgotten
		}
		q.stats.removed--
		q.insertLocked(&m)
	}
}
