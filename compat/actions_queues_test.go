package compat

// Per-action cases of queue actions: DeleteQueue, PurgeQueue and the tag
// actions. Every row runs under every protocol (adapter_test.go); where
// the protocols' answers legitimately differ, the row says so.

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/minisqs/minisqs/server"
)

const nonExistentQueue = "AWS.SimpleQueueService.NonExistentQueue"

func TestDeleteQueue(t *testing.T) {
	runCases(t, []actionCase{
		{name: "then QueueDoesNotExist and QueueDeletedRecently", run: func(e *env) {
			url := e.createQueue("doomed", map[string]string{"VisibilityTimeout": "10"})
			e.send(url, "lost")
			if err := e.c.DeleteQueue(url); err != nil {
				e.t.Fatal(err)
			}
			_, err := e.c.GetQueueURL("doomed", "")
			wantErr(e.t, err, nonExistentQueue, 400)
			_, err = e.c.SendMessage(url, sendIn{Body: "x"})
			wantErr(e.t, err, nonExistentQueue, 400)
			_, err = e.c.ReceiveMessage(url, receiveIn{})
			wantErr(e.t, err, nonExistentQueue, 400)
			wantErr(e.t, e.c.DeleteQueue(url), nonExistentQueue, 400)

			// The name is blocked for 60 seconds.
			_, err = e.c.CreateQueue("doomed", nil, nil)
			wantErr(e.t, err, "AWS.SimpleQueueService.QueueDeletedRecently", 400)
			e.advance(59 * time.Second)
			_, err = e.c.CreateQueue("doomed", nil, nil)
			wantErr(e.t, err, "AWS.SimpleQueueService.QueueDeletedRecently", 400)
			// Other names are not affected.
			e.createQueue("bystander", nil)

			e.advance(2 * time.Second)
			if again := e.createQueue("doomed", nil); again != url {
				e.t.Fatalf("recreated URL %q, want %q", again, url)
			}
			// A new queue: default attributes and no old messages.
			if got := e.attrs(url)["VisibilityTimeout"]; got != "30" {
				e.t.Fatalf("recreated queue VisibilityTimeout = %q", got)
			}
			e.wantCounts(url, 0, 0, 0)
		}},
		{name: "SkipCooldowns", cfg: server.Config{SkipCooldowns: true}, run: func(e *env) {
			url := e.createQueue("again", nil)
			if err := e.c.DeleteQueue(url); err != nil {
				e.t.Fatal(err)
			}
			if again := e.createQueue("again", nil); again != url {
				e.t.Fatalf("recreated URL %q, want %q", again, url)
			}
		}},
	})
}

func TestPurgeQueue(t *testing.T) {
	runCases(t, []actionCase{
		{name: "once per 60 seconds", run: func(e *env) {
			url := e.createQueue("purged", nil)
			for i := range 3 {
				e.send(url, fmt.Sprint("m", i))
			}
			e.sendMsg(url, sendIn{Body: "delayed", Delay: ptr(10)})
			inFlight := e.receiveOne(url)
			e.wantCounts(url, 2, 1, 1)
			if err := e.c.PurgeQueue(url); err != nil {
				e.t.Fatal(err)
			}
			e.wantCounts(url, 0, 0, 0)
			e.advance(31 * time.Second)
			e.receiveNone(url)
			// The in-flight message went too; its handle deletes nothing.
			if err := e.c.DeleteMessage(url, inFlight.Handle); err != nil {
				e.t.Fatalf("DeleteMessage with a purged message's handle: %v", err)
			}

			// Messages sent after a purge stay; a second purge within 60
			// seconds is refused with 403.
			e.send(url, "after")
			wantErr(e.t, e.c.PurgeQueue(url), "AWS.SimpleQueueService.PurgeQueueInProgress", http.StatusForbidden)
			if got := e.receiveOne(url); got.Body != "after" {
				e.t.Fatalf("received %q", got.Body)
			}

			e.advance(30 * time.Second) // 61 s after the first purge
			e.send(url, "new")
			if err := e.c.PurgeQueue(url); err != nil {
				e.t.Fatalf("purge after 61 s: %v", err)
			}
			e.wantCounts(url, 0, 0, 0)
		}},
		{name: "after Advance(61s)", run: func(e *env) {
			url := e.createQueue("purged", nil)
			if err := e.c.PurgeQueue(url); err != nil {
				e.t.Fatal(err)
			}
			e.advance(61 * time.Second)
			e.send(url, "x")
			if err := e.c.PurgeQueue(url); err != nil {
				e.t.Fatalf("purge after 61 s: %v", err)
			}
			e.wantCounts(url, 0, 0, 0)
		}},
		{name: "SkipCooldowns", cfg: server.Config{SkipCooldowns: true}, run: func(e *env) {
			url := e.createQueue("purged", nil)
			for i := range 3 {
				e.send(url, "x")
				if err := e.c.PurgeQueue(url); err != nil {
					e.t.Fatalf("purge %d: %v", i, err)
				}
				e.wantCounts(url, 0, 0, 0)
			}
		}},
		{name: "missing queue", run: func(e *env) {
			wantErr(e.t, e.c.PurgeQueue(e.url("nope")), nonExistentQueue, 400)
		}},
	})
}

func TestTags(t *testing.T) {
	runCases(t, []actionCase{
		{name: "tag, retag and untag", run: func(e *env) {
			url := e.createQueue("tagged", nil)
			list := func() map[string]string {
				e.t.Helper()
				tags, err := e.c.ListQueueTags(url)
				if err != nil {
					e.t.Fatal(err)
				}
				return tags
			}
			if got := list(); len(got) != 0 {
				e.t.Fatalf("new queue has tags %v", got)
			}
			if err := e.c.TagQueue(url, map[string]string{"a": "1", "b": "2", "c": "3"}); err != nil {
				e.t.Fatal(err)
			}
			if err := e.c.TagQueue(url, map[string]string{"a": "one", "d": "", "special": `<&"'>`}); err != nil {
				e.t.Fatal(err)
			}
			if got := list(); len(got) != 5 || got["a"] != "one" || got["b"] != "2" || got["c"] != "3" || got["d"] != "" || got["special"] != `<&"'>` {
				e.t.Fatalf("tags = %v", got)
			}
			if err := e.c.UntagQueue(url, "b", "special", "not-there"); err != nil {
				e.t.Fatal(err)
			}
			if got := list(); len(got) != 3 || got["a"] != "one" || got["c"] != "3" {
				e.t.Fatalf("tags after untag = %v", got)
			}
			if err := e.c.UntagQueue(url, "a", "c", "d"); err != nil {
				e.t.Fatal(err)
			}
			if got := list(); len(got) != 0 {
				e.t.Fatalf("tags after untagging all = %v", got)
			}
			if e.is("json") {
				// An empty tag list is still an answer of 200 on the wire.
				r := jsPost(e.t, e.srv.URL(), "AmazonSQS.ListQueueTags", jsMustJSON(e.t, map[string]any{"QueueUrl": url}))
				if r.Status != 200 {
					e.t.Fatalf("ListQueueTags: %d %s", r.Status, r.Body)
				}
			}
		}},
		{name: "refused tags", run: func(e *env) {
			url := e.createQueue("tagged", nil)
			if err := e.c.TagQueue(url, map[string]string{"kept": "1"}); err != nil {
				e.t.Fatal(err)
			}
			tooMany := map[string]string{}
			for i := range 51 {
				tooMany[fmt.Sprint("k", i)] = "v"
			}
			for _, tags := range []map[string]string{
				tooMany,
				{strings.Repeat("k", 129): "v"},
				// Tags the XML answer could not carry intact are refused.
				{"ctl": "a\x01b"},
				{"k\x00": "v"},
			} {
				wantErr(e.t, e.c.TagQueue(url, tags), "InvalidParameterValue", 400)
			}
			if tags, err := e.c.ListQueueTags(url); err != nil || len(tags) != 1 {
				e.t.Fatalf("refused tags were stored: %q %v", tags, err)
			}
		}},
		{name: "missing queue", run: func(e *env) {
			wantErr(e.t, e.c.TagQueue(e.url("nope"), map[string]string{"a": "1"}), nonExistentQueue, 400)
			_, err := e.c.ListQueueTags(e.url("nope"))
			wantErr(e.t, err, nonExistentQueue, 400)
			wantErr(e.t, e.c.UntagQueue(e.url("nope"), "a"), nonExistentQueue, 400)
		}},
	})
}
