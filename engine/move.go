package engine

import (
	"time"

	"github.com/tidwall/buntdb"
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
// in one store transaction, with their bodies and attributes.
func (q *Queue) adopt(src *Queue, moved []*message, how arrival) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	a := q.Attributes()
	now := q.e.clock.Now().UnixNano()
	var adopted []*message
	err := q.e.store.db.Update(func(tx *buntdb.Tx) error {
		for _, old := range moved {
			raw, err := tx.Get(messageKey(src.keyspace, old.seq))
			if err != nil {
				continue // purged or deleted meanwhile
			}
			if err := q.e.store.deleteMessageTx(tx, src.keyspace, old.seq); err != nil {
				return err
			}
			if q.deleted {
				continue
			}
			rec, err := decodeMessage(raw)
			if err != nil {
				continue
			}
			m := &message{seq: q.seq.Add(1), sentAt: old.sentAt, state: stateReady}
			switch how {
			case deadLettered:
				rec.DeadLetterSourceArn = src.arn
				m.expireAt = old.sentAt + int64(a.MessageRetentionPeriod)*1e9
				m.receiveCount, m.firstReceiveAt = old.receiveCount, old.firstReceiveAt
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
			size, err := q.e.store.putMessageTx(tx, q.keyspace, m, &rec, &q.scratch)
			if err != nil {
				return err
			}
			m.size = size
			adopted = append(adopted, m)
		}
		return nil
	})
	if err != nil {
		q.e.log.Error("moving messages", "from", src.name, "to", q.name, "err", err)
		return 0
	}
	for _, m := range adopted {
		q.insertLocked(m)
		q.countEnqueuedLocked(m)
	}
	q.wakeLocked()
	return len(adopted)
}
