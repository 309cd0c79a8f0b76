package engine

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

var (
	nsA = Namespace{Account: "111111111111", Region: "us-east-1"}
	nsB = Namespace{Account: "222222222222", Region: "eu-west-1"}
)

// Queues of one name in two namespaces are two queues, each with its own
// ARN, messages and listing.
func TestNamespacesIsolate(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	qa, err := e.CreateQueueIn(nsA, "orders", AttributeUpdate{}, nil)
	wantCode(t, err, "")
	qb, err := e.CreateQueueIn(nsB, "orders", AttributeUpdate{}, nil)
	wantCode(t, err, "")
	if qa == qb || qa.Arn() != "arn:aws:sqs:us-east-1:111111111111:orders" || qb.Arn() != "arn:aws:sqs:eu-west-1:222222222222:orders" {
		t.Fatalf("ARNs %s and %s", qa.Arn(), qb.Arn())
	}
	sendBodies(t, qa, "for a")
	wantCounts(t, qb, Counts{})
	if got := queueNames(e.QueuesIn(nsB, "")); len(got) != 1 {
		t.Fatalf("QueuesIn(B) = %v", got)
	}
	if len(e.Queues("")) != 0 {
		t.Fatalf("the default namespace lists %v", queueNames(e.Queues("")))
	}
	if len(e.AllQueues()) != 2 {
		t.Fatalf("AllQueues = %v", queueNames(e.AllQueues()))
	}
	if q, err := e.QueueByArn(qb.Arn()); err != nil || q != qb {
		t.Fatalf("QueueByArn(%s) = %v, %v", qb.Arn(), q, err)
	}
	wantCode(t, e.DeleteQueue(qa), "")
	if _, err := e.QueueIn(nsB, "orders"); err != nil {
		t.Fatalf("deleting A's queue took B's: %v", err)
	}
	// The cooldown on reusing a deleted name is per namespace too.
	_, err = e.CreateQueueIn(nsA, "orders", AttributeUpdate{}, nil)
	wantCode(t, err, ErrQueueDeletedRecently)
	_, err = e.CreateQueueIn(Namespace{Account: nsA.Account, Region: "eu-west-1"}, "orders", AttributeUpdate{}, nil)
	wantCode(t, err, "")
}

// A dead-letter queue may be in another account or region, named by ARN,
// when its RedriveAllowPolicy lets the source use it.
func TestCrossAccountDeadLetterQueue(t *testing.T) {
	e, clk := newTestEngine(t, Options{})
	dlq, err := e.CreateQueueIn(nsB, "dlq", AttributeUpdate{}, nil)
	wantCode(t, err, "")
	src, err := e.CreateQueueIn(nsA, "src", AttributeUpdate{VisibilityTimeout: ptr(1), RedrivePolicy: &RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 1}}, nil)
	wantCode(t, err, "")
	sendBodies(t, src, "m")
	recvOne(t, src, ReceiveOptions{}, "m")
	clk.Advance(2 * time.Second)
	recvNone(t, src)
	wantCounts(t, dlq, Counts{Visible: 1})
	if got := e.DeadLetterSourceQueues(dlq); len(got) != 1 || got[0] != src {
		t.Fatalf("DeadLetterSourceQueues = %v", queueNames(got))
	}
	// A RedriveAllowPolicy that names other sources refuses this one.
	deny, err := e.CreateQueueIn(nsB, "deny", AttributeUpdate{RedriveAllowPolicy: &RedriveAllowPolicy{RedrivePermission: RedriveByQueue, SourceQueueArns: []string{nsB.Arn("x")}}}, nil)
	wantCode(t, err, "")
	_, err = e.CreateQueueIn(nsA, "src2", AttributeUpdate{RedrivePolicy: &RedrivePolicy{DeadLetterTargetArn: deny.Arn(), MaxReceiveCount: 1}}, nil)
	wantCode(t, err, ErrInvalidParameterValue)
}

// A store written before namespaces ("q:NAME" keys, records without an
// account) opens with its queues in the default namespace, their keys moved
// once.
func TestOldStoreMovesToDefaultNamespace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := NewManualClock(testStart)
	e := openAt(t, path, clk)
	q := mustCreate(t, e, "old", AttributeUpdate{}, nil)
	sendBodies(t, q, "kept")
	rec := q.record()
	rec.Account, rec.Region = "", ""
	err := e.store.update(func(tx recordTx) error {
		if _, _, err := tx.delete(queueKey(e.DefaultNamespace(), "old")); err != nil {
			return err
		}
		b, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		return tx.set(oldQueueKey("old"), string(b))
	})
	if err != nil {
		t.Fatal(err)
	}
	e = reopen(t, e, path, clk)
	q = mustQueue(t, e, "old")
	if q.Namespace() != e.DefaultNamespace() {
		t.Fatalf("namespace %+v", q.Namespace())
	}
	recvOne(t, q, ReceiveOptions{}, "kept")
	err = e.store.view(func(tx recordTx) error {
		if _, ok, err := tx.get(oldQueueKey("old")); ok || err != nil {
			t.Errorf("the old key is still there: %v", err)
		}
		if _, ok, err := tx.get(queueKey(e.DefaultNamespace(), "old")); !ok || err != nil {
			t.Errorf("the new key is missing: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
