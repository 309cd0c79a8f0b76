package engine

import (
	"path/filepath"
	"testing"
)

// A FIFO batch that repeats a deduplication id answers the repeat as the
// first's send; when the store refuses the first, the repeat fails with it
// rather than report a message id that no message has. A retry of the
// whole batch then stores the message once, and both entries name it.
func TestFailedSendFailsItsRepeats(t *testing.T) {
	for _, path := range []string{"", filepath.Join(t.TempDir(), "db")} {
		disk := &diskFull{}
		e, _ := newTestEngine(t, Options{Path: path, Fsync: FsyncNever, FailWrites: disk.check})
		q := ffQueue(t, e, "f", AttributeUpdate{})
		batch := []NewMessage{
			{Body: "first", GroupID: "g", DeduplicationID: "d"},
			{Body: "repeat", GroupID: "g", DeduplicationID: "d"},
		}
		var res []SendResult
		failing(disk, func() { res = q.Send(batch) })
		for i, r := range res {
			if r.Err == nil || CodeOf(r.Err) != ErrInternal {
				t.Errorf("store %q: entry %d of a refused send: %+v, want %s", path, i, r, ErrInternal)
			}
		}
		wantCounts(t, q, Counts{})

		res = q.Send(batch)
		for i, r := range res {
			if r.Err != nil || r.MessageID != res[0].MessageID {
				t.Errorf("store %q: entry %d of the retry: %+v", path, i, r)
			}
		}
		wantCounts(t, q, Counts{Visible: 1})
	}
}
