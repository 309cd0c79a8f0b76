package compat

// Per-action cases of queue actions: CreateQueue, GetQueueUrl, ListQueues,
// DeleteQueue, PurgeQueue and the tag actions. Every row runs under every protocol (adapter_test.go); where
// the protocols' answers legitimately differ, the row says so.

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/server"
)

const nonExistentQueue = "AWS.SimpleQueueService.NonExistentQueue"

func TestDeleteQueue(t *testing.T) {
	runCases(t, []actionCase{
		{name: "then QueueDoesNotExist and QueueDeletedRecently", rest: true, run: func(e *env) {
			url := e.createQueue("doomed", map[string]string{"VisibilityTimeout": "10"})
			e.send(url, "lost")
			if err := e.c.DeleteQueue(url); err != nil {
				e.t.Fatal(err)
			}
			_, err := e.c.GetQueueURL("doomed", "")
			e.wantErr(err, nonExistentQueue, 400)
			_, err = e.c.SendMessage(url, sendIn{Body: "x"})
			e.wantErr(err, nonExistentQueue, 400)
			_, err = e.c.ReceiveMessage(url, receiveIn{})
			e.wantErr(err, nonExistentQueue, 400)
			e.wantErr(e.c.DeleteQueue(url), nonExistentQueue, 400)

			// The name is blocked for 60 seconds.
			_, err = e.c.CreateQueue("doomed", nil, nil)
			e.wantErr(err, "AWS.SimpleQueueService.QueueDeletedRecently", 400)
			e.advance(59 * time.Second)
			_, err = e.c.CreateQueue("doomed", nil, nil)
			e.wantErr(err, "AWS.SimpleQueueService.QueueDeletedRecently", 400)
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
		{name: "SkipCooldowns", rest: true, cfg: server.Config{SkipCooldowns: true}, run: func(e *env) {
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
		{name: "once per 60 seconds", rest: true, run: func(e *env) {
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
			e.delOver(url, inFlight.Handle)

			// Messages sent after a purge stay; a second purge within 60
			// seconds is refused with 403.
			e.send(url, "after")
			e.wantErr(e.c.PurgeQueue(url), "AWS.SimpleQueueService.PurgeQueueInProgress", http.StatusForbidden)
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
		{name: "after Advance(61s)", rest: true, run: func(e *env) {
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
		{name: "SkipCooldowns", rest: true, cfg: server.Config{SkipCooldowns: true}, run: func(e *env) {
			url := e.createQueue("purged", nil)
			for i := range 3 {
				e.send(url, "x")
				if err := e.c.PurgeQueue(url); err != nil {
					e.t.Fatalf("purge %d: %v", i, err)
				}
				e.wantCounts(url, 0, 0, 0)
			}
		}},
		{name: "missing queue", rest: true, run: func(e *env) {
			e.wantErr(e.c.PurgeQueue(e.url("nope")), nonExistentQueue, 400)
		}},
	})
}

func TestTags(t *testing.T) {
	runCases(t, []actionCase{
		{name: "tag, retag and untag", rest: true, run: func(e *env) {
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
				r := postJSON(e.t, e.srv.URL(), "AmazonSQS.ListQueueTags", mustJSON(e.t, map[string]any{"QueueUrl": url}))
				if r.Status != 200 {
					e.t.Fatalf("ListQueueTags: %d %s", r.Status, r.Body)
				}
			}
		}},
		{name: "refused tags", rest: true, run: func(e *env) {
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
				e.wantErr(e.c.TagQueue(url, tags), "InvalidParameterValue", 400)
			}
			if tags, err := e.c.ListQueueTags(url); err != nil || len(tags) != 1 {
				e.t.Fatalf("refused tags were stored: %q %v", tags, err)
			}
		}},
		{name: "missing queue", rest: true, run: func(e *env) {
			e.wantErr(e.c.TagQueue(e.url("nope"), map[string]string{"a": "1"}), nonExistentQueue, 400)
			_, err := e.c.ListQueueTags(e.url("nope"))
			e.wantErr(err, nonExistentQueue, 400)
			e.wantErr(e.c.UntagQueue(e.url("nope"), "a"), nonExistentQueue, 400)
		}},
	})
}

// wantAttrs wants each of want in got.
func wantAttrs(t *testing.T, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

// listAll lists the queues of the prefix in one call and wants no
// NextToken.
func (e *env) listAll(prefix string) []string {
	e.t.Helper()
	urls, next, err := e.c.ListQueues(prefix, nil, "")
	if err != nil {
		e.t.Fatalf("ListQueues %q: %v", prefix, err)
	}
	if next != "" {
		e.t.Fatalf("ListQueues %q: NextToken %q without MaxResults", prefix, next)
	}
	return urls
}

func TestCreateQueue(t *testing.T) {
	runCases(t, []actionCase{
		{name: "defaults", run: func(e *env) {
			// The settings' defaults are rows of TestAttributeTableSQS;
			// here, what a new queue answers of itself.
			url := e.createQueue("plain", nil)
			created := strconv.FormatInt(e.srv.Clock.Now().Unix(), 10)
			got := e.attrs(url)
			wantAttrs(e.t, got, map[string]string{
				"ApproximateNumberOfMessages":           "0",
				"ApproximateNumberOfMessagesNotVisible": "0",
				"ApproximateNumberOfMessagesDelayed":    "0",
				"QueueArn":                              arn("plain"),
				// Epoch seconds.
				"CreatedTimestamp":      created,
				"LastModifiedTimestamp": created,
			})
			// All on a standard queue leaves out the FIFO attributes and
			// the policies it has not.
			for _, k := range []string{"FifoQueue", "ContentBasedDeduplication", "DeduplicationScope", "FifoThroughputLimit", "RedrivePolicy", "RedriveAllowPolicy", "Policy", "KmsMasterKeyId"} {
				if v, ok := got[k]; ok {
					e.t.Errorf("standard queue has %s = %q", k, v)
				}
			}
		}},
		{name: "attributes", run: func(e *env) {
			for i, attrs := range []map[string]string{
				{"DelaySeconds": "5", "MaximumMessageSize": "2048", "MessageRetentionPeriod": "120", "ReceiveMessageWaitTimeSeconds": "3", "VisibilityTimeout": "45"},
				{"DelaySeconds": "5", "MaximumMessageSize": "2048", "MessageRetentionPeriod": "3600", "ReceiveMessageWaitTimeSeconds": "2", "VisibilityTimeout": "45"},
			} {
				wantAttrs(e.t, e.attrs(e.createQueue(fmt.Sprint("configured-", i), attrs)), attrs)
			}
		}},
		{name: "tags", rest: true, run: func(e *env) {
			url, err := e.c.CreateQueue("tagged", nil, map[string]string{"env": "test", "team": "core"})
			if err != nil {
				e.t.Fatal(err)
			}
			tags, err := e.c.ListQueueTags(url)
			if err != nil {
				e.t.Fatal(err)
			}
			if len(tags) != 2 || tags["env"] != "test" || tags["team"] != "core" {
				e.t.Fatalf("tags = %v", tags)
			}
		}},
		{name: "idempotent with identical attributes", run: func(e *env) {
			url := e.createQueue("same", map[string]string{"VisibilityTimeout": "45", "DelaySeconds": "2"})
			e.send(url, "kept")
			for _, attrs := range []map[string]string{
				{"VisibilityTimeout": "45", "DelaySeconds": "2"},
				// Naming a default value the queue has is identical too.
				{"MaximumMessageSize": "1048576", "VisibilityTimeout": "45"},
				// So are a subset of its attributes, or none.
				{"VisibilityTimeout": "45"},
				nil,
			} {
				if again := e.createQueue("same", attrs); again != url {
					e.t.Fatalf("CreateQueue(%v) = %q, first %q", attrs, again, url)
				}
			}
			// It is the same queue: the message is still there.
			if c := e.counts(url); c[0]+c[2] != 1 {
				e.t.Fatalf("counts after identical CreateQueue = %v", c)
			}
			if urls := e.listAll(""); len(urls) != 1 {
				e.t.Fatalf("ListQueues = %v", urls)
			}
		}},
		{name: "QueueAlreadyExists with different attributes", rest: true, run: func(e *env) {
			url := e.createQueue("taken", map[string]string{"VisibilityTimeout": "45"})
			_, err := e.c.CreateQueue("taken", map[string]string{"VisibilityTimeout": "46"}, nil)
			e.wantErr(err, "QueueAlreadyExists", 400)
			if got := e.attrs(url, "VisibilityTimeout")["VisibilityTimeout"]; got != "45" {
				e.t.Fatalf("VisibilityTimeout changed to %q", got)
			}
		}},
		{name: "invalid names", rest: true, run: func(e *env) {
			for _, name := range []string{"has space", "bang!", "bad name!", "dot.ted", strings.Repeat("a", 81), "名前"} {
				_, err := e.c.CreateQueue(name, nil, nil)
				e.wantErr(err, "InvalidParameterValue", 400)
			}
			// 80 characters of the allowed set is fine.
			e.createQueue(strings.Repeat("a", 40)+strings.Repeat("-_", 20), nil)
			if urls := e.listAll(""); len(urls) != 1 {
				e.t.Fatalf("ListQueues after invalid names = %v", urls)
			}
		}},
		{name: "invalid attributes", run: func(e *env) {
			for i, c := range []struct {
				attrs map[string]string
				code  string
			}{
				{map[string]string{"VisibilityTimeout": "43201"}, "InvalidAttributeValue"},
				{map[string]string{"DelaySeconds": "soon"}, "InvalidAttributeValue"},
				{map[string]string{"MessageRetentionPeriod": "59"}, "InvalidAttributeValue"},
				{map[string]string{"Bogus": "1"}, "InvalidAttributeName"},
				{map[string]string{"DeduplicationScope": "queue"}, "InvalidAttributeName"},
			} {
				_, err := e.c.CreateQueue(fmt.Sprint("x", i), c.attrs, nil)
				e.wantErr(err, c.code, 400)
			}
			// None of the failed creates made a queue.
			_, err := e.c.GetQueueURL("x0", "")
			e.wantErr(err, nonExistentQueue, 400)
			if urls := e.listAll("x"); len(urls) != 0 {
				e.t.Fatalf("failed creates left queues: %v", urls)
			}
		}},
		{name: "FIFO", run: func(e *env) {
			got := e.attrs(e.createFIFO("ordered.fifo", nil))
			if got["FifoQueue"] != "true" || got["ContentBasedDeduplication"] != "false" {
				e.t.Fatalf("FIFO attributes = %v", got)
			}
			got = e.attrs(e.createFIFO("jobs.fifo", map[string]string{"ContentBasedDeduplication": "true"}))
			if got["FifoQueue"] != "true" || got["ContentBasedDeduplication"] != "true" || got["DeduplicationScope"] != "queue" || got["FifoThroughputLimit"] != "perQueue" {
				e.t.Fatalf("FIFO attributes = %v", got)
			}
			_, err := e.c.CreateQueue("notfifo", map[string]string{"FifoQueue": "true"}, nil)
			e.wantErr(err, "InvalidParameterValue", 400)
		}},
		{name: "ARN follows configured region and account", cfg: server.Config{Region: "eu-west-2", AccountID: "123456789012"}, run: func(e *env) {
			// The request acts in its signature's region; a client of the
			// key "test" names no account, so the configured one holds.
			c := e.clientWith(clientOpts{region: "eu-west-2"})
			url, err := c.CreateQueue("regional", nil, nil)
			if err != nil {
				e.t.Fatal(err)
			}
			if want := e.srv.URL() + "/123456789012/regional"; url != want {
				e.t.Fatalf("QueueUrl = %q, want %q", url, want)
			}
			a, err := c.GetQueueAttributes(url, "QueueArn")
			if err != nil || a["QueueArn"] != "arn:aws:sqs:eu-west-2:123456789012:regional" {
				e.t.Fatalf("QueueArn = %v, %v", a, err)
			}
		}},
	})
}

func TestGetQueueURL(t *testing.T) {
	runCases(t, []actionCase{
		{name: "found and not", rest: true, run: func(e *env) {
			url := e.createQueue("found", nil)
			for _, owner := range []string{"", defaultAccount} {
				if got, err := e.c.GetQueueURL("found", owner); err != nil || got != url {
					e.t.Fatalf("GetQueueUrl with owner %q = %q, %v; want %q", owner, got, err, url)
				}
			}
			_, err := e.c.GetQueueURL("missing", "")
			ae := e.wantErr(err, nonExistentQueue, 400)
			if e.is("query") && ae.Message != "The specified queue does not exist for this wsdl version." {
				e.t.Fatalf("query-protocol message = %q", ae.Message)
			}
			_, err = e.c.GetQueueURL("found", "123456789012")
			e.wantErr(err, nonExistentQueue, 400)
		}},
		{name: "a QueueUrl is resolved by its path", run: func(e *env) {
			e.createQueue("hosted", nil)
			other := "http://elsewhere.example:1234/" + defaultAccount + "/hosted"
			sent, err := e.c.SendMessage(other, sendIn{Body: "via another host"})
			if err != nil {
				e.t.Fatalf("SendMessage with another host: %v", err)
			}
			for _, u := range []string{
				other,
				"https://sqs.us-east-1.amazonaws.com/" + defaultAccount + "/hosted",
				"http://localhost:4566/" + defaultAccount + "/hosted",
				// A legacy-style AWS URL.
				"https://queue.amazonaws.com/" + defaultAccount + "/hosted",
			} {
				if a, err := e.c.GetQueueAttributes(u, "QueueArn"); err != nil || a["QueueArn"] != arn("hosted") {
					e.t.Fatalf("GetQueueAttributes via %s = %v, %v", u, a, err)
				}
			}
			got := e.receive(other, receiveIn{})
			if len(got) != 1 || got[0].MessageID != sent.MessageID || got[0].Body != "via another host" {
				e.t.Fatalf("receive with another host: %+v", got)
			}
			e.del(e.url("hosted"), got[0].Handle)
			e.wantCounts(e.url("hosted"), 0, 0, 0)
			// Another account's queue of that name does not exist.
			for _, u := range []string{"http://elsewhere.example:1234/123456789012/hosted", e.srv.URL() + "/111111111111/hosted"} {
				_, err = e.c.GetQueueAttributes(u, "All")
				e.wantErr(err, nonExistentQueue, 400)
			}
		}},
	})
}

func TestListQueues(t *testing.T) {
	runCases(t, []actionCase{
		{name: "prefix", rest: true, run: func(e *env) {
			for _, n := range []string{"alpha-1", "alpha-2", "beta-1", "alphabet"} {
				e.createQueue(n, nil)
			}
			got := slices.Sorted(slices.Values(e.listAll("alpha-")))
			if want := []string{e.url("alpha-1"), e.url("alpha-2")}; !slices.Equal(got, want) {
				e.t.Fatalf("prefix alpha- = %v, want %v", got, want)
			}
			if got := e.listAll("beta"); !slices.Equal(got, []string{e.url("beta-1")}) {
				e.t.Fatalf("prefix beta = %v", got)
			}
			if got := e.listAll(""); len(got) != 4 {
				e.t.Fatalf("all queues = %v", got)
			}
		}},
		{name: "MaxResults and NextToken", rest: true, run: func(e *env) {
			var want []string
			for i := range 5 {
				want = append(want, e.createQueue(fmt.Sprintf("page-%d", i), nil))
			}
			e.createQueue("other", nil)
			var got []string
			token := ""
			for page := 0; ; page++ {
				if page > 5 {
					e.t.Fatal("paging does not end")
				}
				urls, next, err := e.c.ListQueues("page-", ptr(2), token)
				if err != nil {
					e.t.Fatal(err)
				}
				if len(urls) > 2 || len(urls) == 0 {
					e.t.Fatalf("page %d has %d URLs", page, len(urls))
				}
				got = append(got, urls...)
				if next == "" {
					if page != 2 {
						e.t.Fatalf("paging ended after page %d, want 3 pages", page)
					}
					break
				}
				token = next
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				e.t.Fatalf("paged URLs = %v, want %v", got, want)
			}
			if v2, ok := e.c.(v2Client); ok {
				// The SDK's paginator walks the same pages.
				p := sqsv2.NewListQueuesPaginator(v2.c, &sqsv2.ListQueuesInput{MaxResults: awsv2.Int32(4)})
				var all []string
				for i := 0; p.HasMorePages(); i++ {
					if i > 5 {
						e.t.Fatal("paginator does not end")
					}
					out, err := p.NextPage(v2.ctx)
					if err != nil {
						e.t.Fatal(err)
					}
					all = append(all, out.QueueUrls...)
				}
				if len(all) != 6 {
					e.t.Fatalf("paginator found %d queues, want 6: %v", len(all), all)
				}
			}
			for _, bad := range []int{0, 1001} {
				_, _, err := e.c.ListQueues("", ptr(bad), "")
				e.wantErr(err, "InvalidParameterValue", 400)
			}
		}},
		{name: "at most 1000 and no NextToken without MaxResults", run: func(e *env) {
			for i := range 1001 {
				if _, err := e.srv.Engine().CreateQueue(fmt.Sprintf("many-%04d", i), engine.AttributeUpdate{}, nil); err != nil {
					e.t.Fatal(err)
				}
			}
			if urls := e.listAll(""); len(urls) != 1000 {
				e.t.Fatalf("ListQueues returned %d URLs, want 1000", len(urls))
			}
			first, next, err := e.c.ListQueues("", ptr(1000), "")
			if err != nil || len(first) != 1000 || next == "" {
				e.t.Fatalf("MaxResults 1000: %d URLs, NextToken %q, %v", len(first), next, err)
			}
			rest, next, err := e.c.ListQueues("", ptr(1000), next)
			if err != nil || len(rest) != 1 || next != "" || slices.Contains(first, rest[0]) {
				e.t.Fatalf("second page: %v, NextToken %q, %v", rest, next, err)
			}
		}},
		{name: "empty", rest: true, run: func(e *env) {
			if urls := e.listAll(""); len(urls) != 0 {
				e.t.Fatalf("ListQueues on no queues = %#v", urls)
			}
			// Empty members are left out of the answer, not sent empty.
			wantNoURLs := func(body string) {
				e.t.Helper()
				if !e.is("json") {
					return
				}
				r := postJSON(e.t, e.srv.URL(), "AmazonSQS.ListQueues", body)
				_, urls := r.JSON["QueueUrls"]
				_, next := r.JSON["NextToken"]
				if r.Status != 200 || urls || next {
					e.t.Fatalf("ListQueues %s answered %d %s", body, r.Status, r.Body)
				}
			}
			wantNoURLs(`{}`)
			e.createQueue("present", nil)
			if urls := e.listAll("absent"); len(urls) != 0 {
				e.t.Fatalf("ListQueues without matches = %v", urls)
			}
			wantNoURLs(`{"QueueNamePrefix":"absent"}`)
		}},
	})
}
