package compat

// Per-action cases of the message actions that end or change a delivery:
// DeleteMessage(Batch) and ChangeMessageVisibility(Batch). Every row runs
// under every protocol (adapter_test.go); where the protocols' answers
// legitimately differ, the row says so.

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/minisqs/minisqs/server"
)

// actionCase is one row of a per-action table.
type actionCase struct {
	name string
	cfg  server.Config
	// rest: the REST API has the row's operations (adapter_rest_test.go),
	// so the row runs under it too.
	rest bool
	run  func(e *env)
}

// runCases runs each row in a parallel subtest, under every protocol (and
// the REST API where the row says so), each on a server of its own.
func runCases(t *testing.T, cases []actionCase) {
	t.Helper()
	t.Parallel()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ps := protocols(t)
			if c.rest {
				ps = append(ps, restProtocol)
			}
			eachOf(t, ps, c.cfg, c.run)
		})
	}
}

// receiveN receives up to n (at most 10 a call) without waiting, until it
// has n, and wants exactly n.
func (e *env) receiveN(url string, n int) []message {
	e.t.Helper()
	var got []message
	for i := 0; len(got) < n && i < 10; i++ {
		got = append(got, e.receive(url, receiveIn{Max: ptr(min(n-len(got), 10)), Wait: ptr(0)})...)
	}
	if len(got) != n {
		e.t.Fatalf("received %d, want %d", len(got), n)
	}
	return got
}

// sameHandle is a batch of one handle under each id, for the checks of a
// batch as a whole.
func sameHandle(h string, visibility int, ids ...string) []handleEntry {
	es := []handleEntry{}
	for _, id := range ids {
		es = append(es, handleEntry{ID: id, Handle: h, Visibility: visibility})
	}
	return es
}

// elevenIDs are one entry id more than a batch may have.
func elevenIDs() []string {
	var ids []string
	for i := range 11 {
		ids = append(ids, fmt.Sprint("e", i))
	}
	return ids
}

// wantBatch wants the batch's successful ids to be ok and its failed ones
// the codes of failed, each a sender fault with a message.
func wantBatch(t *testing.T, gotOK []string, gotFailed []batchFailure, ok []string, failed map[string]string) {
	t.Helper()
	slices.Sort(gotOK)
	if want := slices.Sorted(slices.Values(ok)); !slices.Equal(gotOK, want) {
		t.Fatalf("Successful = %v, want %v", gotOK, want)
	}
	if len(gotFailed) != len(failed) {
		t.Fatalf("Failed = %+v, want %v", gotFailed, failed)
	}
	for _, f := range gotFailed {
		if code, ok := failed[f.ID]; !ok || f.Code != code || !f.SenderFault || f.Message == "" {
			t.Fatalf("Failed entry %+v, want code %s, a sender fault and a message", f, failed[f.ID])
		}
	}
}

// delOver deletes with a handle whose delivery is over: SQS answers
// success, the REST API receipt_handle_stale; neither changes anything.
func (e *env) delOver(url, handle string) {
	e.t.Helper()
	err := e.c.DeleteMessage(url, handle)
	if e.is("rest") {
		if ae := mustAPIError(e.t, err); ae.Code != "receipt_handle_stale" || ae.Status != 409 {
			e.t.Fatalf("DeleteMessage with a handle whose delivery is over: %v, want receipt_handle_stale (HTTP 409)", ae)
		}
		return
	}
	if err != nil {
		e.t.Fatalf("DeleteMessage with a handle whose delivery is over: %v", err)
	}
}

func TestDeleteMessage(t *testing.T) {
	runCases(t, []actionCase{
		{name: "valid handle", rest: true, run: func(e *env) {
			url := e.createQueue("del", nil)
			e.send(url, "bye")
			m := e.receiveOne(url)
			e.del(url, m.Handle)
			e.wantCounts(url, 0, 0, 0)
			e.advance(31 * time.Second)
			e.receiveNone(url)
			// Deleting again with the same handle changes nothing.
			e.delOver(url, m.Handle)
			e.wantCounts(url, 0, 0, 0)
		}},
		{name: "handle after the lease ended", rest: true, run: func(e *env) {
			url := e.createQueue("late", nil)
			e.send(url, "late")
			m := e.receiveOne(url)
			e.advance(40 * time.Second)
			e.wantCounts(url, 1, 0, 0)
			// Not received again: the handle still deletes.
			e.del(url, m.Handle)
			e.wantCounts(url, 0, 0, 0)
		}},
		{name: "old handle of a message received again", rest: true, run: func(e *env) {
			url := e.createQueue("stale", nil)
			sent := e.send(url, "survivor")
			first := e.receiveOne(url)
			e.advance(30 * time.Second)
			second := e.receiveOne(url)
			if second.MessageID != sent.MessageID || second.Attrs["ApproximateReceiveCount"] != "2" {
				e.t.Fatalf("second receive: %s count %q", second.MessageID, second.Attrs["ApproximateReceiveCount"])
			}
			// The message stays.
			e.delOver(url, first.Handle)
			e.wantCounts(url, 0, 1, 0)
			e.advance(30 * time.Second)
			third := e.receiveOne(url)
			if third.MessageID != sent.MessageID || third.Attrs["ApproximateReceiveCount"] != "3" {
				e.t.Fatalf("message after delete with an old handle: %s count %q", third.MessageID, third.Attrs["ApproximateReceiveCount"])
			}
			// The second's handle no longer deletes; the current one does.
			e.delOver(url, second.Handle)
			e.wantCounts(url, 0, 1, 0)
			e.del(url, third.Handle)
			e.wantCounts(url, 0, 0, 0)
		}},
		{name: "malformed handle", rest: true, run: func(e *env) {
			url := e.createQueue("bad", nil)
			e.send(url, "kept")
			for _, h := range []string{"not-a-handle", "AAAA", "!!!"} {
				// HTTP 404, as the SQS model has it.
				e.wantErr(e.c.DeleteMessage(url, h), "ReceiptHandleIsInvalid", 404)
			}
			e.wantErr(e.c.DeleteMessage(url, ""), "MissingParameter", 400)
			e.wantCounts(url, 1, 0, 0)
			if !e.is("rest") { // which finds the queue from the handle
				e.wantErr(e.c.DeleteMessage(e.url("nope"), "x"), "AWS.SimpleQueueService.NonExistentQueue", 400)
			}
		}},
	})
}

func TestDeleteMessageBatch(t *testing.T) {
	runCases(t, []actionCase{
		{name: "partial failure", rest: true, run: func(e *env) {
			url := e.createQueue("delbatch", nil)
			for i := range 3 {
				e.send(url, fmt.Sprint("m", i))
			}
			got := e.receiveN(url, 3)
			ok, failed, err := e.c.DeleteMessageBatch(url, []handleEntry{
				{ID: "a", Handle: got[0].Handle},
				{ID: "bogus", Handle: "not-a-handle"},
				{ID: "b", Handle: got[1].Handle},
			})
			if err != nil {
				e.t.Fatal(err)
			}
			wantBatch(e.t, ok, failed, []string{"a", "b"}, map[string]string{"bogus": e.code("ReceiptHandleIsInvalid")})
			e.wantCounts(url, 0, 1, 0)
			e.advance(30 * time.Second)
			if m := e.receiveOne(url); m.MessageID != got[2].MessageID {
				e.t.Fatalf("left over %s, want %s", m.MessageID, got[2].MessageID)
			}
		}},
		{name: "whole-batch errors", rest: true, run: func(e *env) {
			url := e.createQueue("delbatch", nil)
			e.send(url, "m")
			h := e.receiveOne(url).Handle
			del := func(ids ...string) error {
				_, _, err := e.c.DeleteMessageBatch(url, sameHandle(h, 0, ids...))
				return err
			}
			e.wantErr(del(), "AWS.SimpleQueueService.EmptyBatchRequest", 400)
			e.wantErr(del(elevenIDs()...), "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", 400)
			if !e.is("rest") { // which has no entry ids
				e.wantErr(del("x", "x"), "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", 400)
				for _, id := range []string{"a b", "a.b"} {
					e.wantErr(del(id), "AWS.SimpleQueueService.InvalidBatchEntryId", 400)
				}
			}
			// None of the refused batches deleted anything.
			e.wantCounts(url, 0, 1, 0)
			if err := del("last"); err != nil {
				e.t.Fatal(err)
			}
			e.wantCounts(url, 0, 0, 0)
		}},
	})
}

func TestChangeMessageVisibility(t *testing.T) {
	runCases(t, []actionCase{
		{name: "extend", rest: true, run: func(e *env) {
			url := e.createQueue("extend", nil)
			e.send(url, "slow work")
			got := e.receive(url, receiveIn{Visibility: ptr(10)})
			if len(got) != 1 {
				e.t.Fatalf("received %d", len(got))
			}
			e.advance(5 * time.Second)
			// The new timeout counts from now: still hidden after the
			// receive's 10 s and the queue's 30 s.
			if err := e.c.ChangeMessageVisibility(url, got[0].Handle, 100); err != nil {
				e.t.Fatal(err)
			}
			e.advance(60 * time.Second)
			e.wantCounts(url, 0, 1, 0)
			e.advance(39 * time.Second)
			e.receiveNone(url)
			e.wantCounts(url, 0, 1, 0)
			e.advance(time.Second)
			e.wantCounts(url, 1, 0, 0)
			e.receiveOne(url)
		}},
		{name: "shorten", rest: true, run: func(e *env) {
			url := e.createQueue("shorten", nil)
			e.send(url, "x")
			m := e.receiveOne(url)
			if err := e.c.ChangeMessageVisibility(url, m.Handle, 3); err != nil {
				e.t.Fatal(err)
			}
			e.advance(3 * time.Second)
			e.receiveOne(url)
		}},
		{name: "zero makes it visible at once", rest: true, run: func(e *env) {
			url := e.createQueue("zero", nil)
			sent := e.send(url, "give back")
			m := e.receiveOne(url)
			if err := e.c.ChangeMessageVisibility(url, m.Handle, 0); err != nil {
				e.t.Fatal(err)
			}
			e.wantCounts(url, 1, 0, 0)
			again := e.receiveOne(url)
			if again.MessageID != sent.MessageID || again.Attrs["ApproximateReceiveCount"] != "2" {
				e.t.Fatalf("after visibility 0: %s count %q", again.MessageID, again.Attrs["ApproximateReceiveCount"])
			}
		}},
		{name: "at most 12 hours from the receive", rest: true, run: func(e *env) {
			url := e.createQueue("capped", nil)
			e.send(url, "long job")
			m := e.receiveOne(url)
			change := func(secs int) error { return e.c.ChangeMessageVisibility(url, m.Handle, secs) }
			if err := change(43200); err != nil {
				e.t.Fatalf("12 hours right after the receive: %v", err)
			}
			e.advance(time.Hour)
			e.wantErr(change(43200), "InvalidParameterValue", 400)
			if err := change(39600); err != nil {
				e.t.Fatalf("up to exactly 12 hours: %v", err)
			}
			e.wantErr(change(39601), "InvalidParameterValue", 400)
			e.wantErr(change(43201), "InvalidParameterValue", 400)
			e.wantErr(change(-1), "InvalidParameterValue", 400)
			// The failed changes left the lease as it was: visible after 12 h.
			e.advance(11*time.Hour - time.Second)
			e.receiveNone(url)
			e.advance(time.Second)
			e.receiveOne(url)
		}},
		{name: "bad handles", rest: true, run: func(e *env) {
			url := e.createQueue("badhandle", nil)
			e.send(url, "v")
			m := e.receiveOne(url)
			e.wantErr(e.c.ChangeMessageVisibility(url, "garbage", 10), "ReceiptHandleIsInvalid", 404)
			e.wantErr(e.c.ChangeMessageVisibility(url, "", 10), "MissingParameter", 400)
			// A deleted message's handle is well formed but names nothing
			// to change.
			e.del(url, m.Handle)
			err := e.c.ChangeMessageVisibility(url, m.Handle, 10)
			if e.is("rest") {
				// The REST API words it as a delivery that is over, and
				// finds the queue from the handle, not from a URL.
				if ae := mustAPIError(e.t, err); ae.Code != "receipt_handle_stale" || ae.Status != 409 {
					e.t.Fatalf("ChangeVisibility of a deleted message: %v, want receipt_handle_stale (HTTP 409)", ae)
				}
				e.wantCounts(url, 0, 0, 0)
				return
			}
			e.wantErr(err, "InvalidParameterValue", 400)
			e.wantCounts(url, 0, 0, 0)
			e.wantErr(e.c.ChangeMessageVisibility(e.url("nope"), "garbage", 10), "AWS.SimpleQueueService.NonExistentQueue", 400)
			e.wantErr(e.c.ChangeMessageVisibility(e.url("nope"), m.Handle, 1), "AWS.SimpleQueueService.NonExistentQueue", 400)
		}},
	})
}

func TestChangeMessageVisibilityBatch(t *testing.T) {
	runCases(t, []actionCase{
		{name: "partial failure", run: func(e *env) {
			url := e.createQueue("cmvb", nil)
			for i := range 3 {
				e.send(url, fmt.Sprint("m", i))
			}
			got := e.receiveN(url, 3)
			ok, failed, err := e.c.ChangeMessageVisibilityBatch(url, []handleEntry{
				{ID: "now", Handle: got[0].Handle, Visibility: 0},
				{ID: "later", Handle: got[1].Handle, Visibility: 100},
				{ID: "garbage", Handle: "garbage", Visibility: 5},
				{ID: "toolong", Handle: got[2].Handle, Visibility: 43201},
			})
			if err != nil {
				e.t.Fatal(err)
			}
			wantBatch(e.t, ok, failed, []string{"now", "later"}, map[string]string{"garbage": "ReceiptHandleIsInvalid", "toolong": "InvalidParameterValue"})
			// "now" is visible at once; "toolong" keeps its 30 s; "later"
			// has 100 s.
			e.wantCounts(url, 1, 2, 0)
			m := e.receiveOne(url)
			if m.MessageID != got[0].MessageID {
				e.t.Fatalf("received %s, want %s", m.MessageID, got[0].MessageID)
			}
			e.del(url, m.Handle)
			e.receiveNone(url)
			e.advance(30 * time.Second)
			if m := e.receiveOne(url); m.MessageID != got[2].MessageID {
				e.t.Fatalf("received %s, want %s", m.MessageID, got[2].MessageID)
			}
			e.advance(69 * time.Second)
			e.wantCounts(url, 1, 1, 0)
			e.advance(time.Second)
			if m := e.receiveOne(url); m.MessageID != got[1].MessageID {
				e.t.Fatalf("received %s, want %s", m.MessageID, got[1].MessageID)
			}
		}},
		{name: "whole-batch errors", run: func(e *env) {
			url := e.createQueue("cmvb", nil)
			e.send(url, "m")
			h := e.receiveOne(url).Handle
			change := func(ids ...string) error {
				_, _, err := e.c.ChangeMessageVisibilityBatch(url, sameHandle(h, 1, ids...))
				return err
			}
			e.wantErr(change(), "AWS.SimpleQueueService.EmptyBatchRequest", 400)
			e.wantErr(change("d", "d"), "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", 400)
			e.wantErr(change("sp ace"), "AWS.SimpleQueueService.InvalidBatchEntryId", 400)
			e.wantErr(change(elevenIDs()...), "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", 400)
			// None of the refused batches changed the lease.
			e.advance(29 * time.Second)
			e.wantCounts(url, 0, 1, 0)
		}},
	})
}
