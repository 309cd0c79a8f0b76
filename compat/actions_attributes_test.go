package compat

// Per-action cases of the queue settings: Get/SetQueueAttributes, redrive
// policies, ListDeadLetterSourceQueues and Add/RemovePermission. Every row
// runs under every protocol (adapter_test.go).

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// jsonAttr reads attribute name of url as a JSON object; nil when the
// queue has no such attribute.
func (e *env) jsonAttr(url, name string) map[string]any {
	e.t.Helper()
	raw, ok := e.attrs(url, name)[name]
	if !ok {
		return nil
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		e.t.Fatalf("%s %q: %v", name, raw, err)
	}
	return doc
}

// redrive is a RedrivePolicy naming dlq, with maxReceiveCount as given
// (a JSON number, or a string in quotes).
func redrive(dlq, maxReceiveCount string) map[string]string {
	return map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"` + arn(dlq) + `","maxReceiveCount":` + maxReceiveCount + `}`}
}

func TestGetQueueAttributes(t *testing.T) {
	runCases(t, []actionCase{
		{name: "names", run: func(e *env) {
			url := e.createQueue("some", map[string]string{"VisibilityTimeout": "77"})
			got := e.attrs(url, "VisibilityTimeout", "QueueArn")
			if len(got) != 2 || got["VisibilityTimeout"] != "77" || got["QueueArn"] != arn("some") {
				e.t.Fatalf("attributes = %v", got)
			}
			// All together with a name is still all.
			all := e.attrs(url, "All", "DelaySeconds")
			for _, k := range []string{"QueueArn", "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible",
				"ApproximateNumberOfMessagesDelayed", "CreatedTimestamp", "LastModifiedTimestamp", "VisibilityTimeout",
				"MaximumMessageSize", "MessageRetentionPeriod", "DelaySeconds", "ReceiveMessageWaitTimeSeconds"} {
				if _, ok := all[k]; !ok {
					e.t.Errorf("All lacks %s: %v", k, all)
				}
			}
			if all["VisibilityTimeout"] != "77" {
				e.t.Fatalf("All = %v", all)
			}
			// No names: no attributes.
			if none, err := e.c.GetQueueAttributes(url); err != nil || len(none) != 0 {
				e.t.Fatalf("no names gave %v, %v", none, err)
			}
		}},
		{name: "unknown and FIFO-only names", run: func(e *env) {
			url := e.createQueue("q", nil)
			for _, names := range [][]string{{"VisibilityTimeout", "NoSuchAttribute"}, {"Bogus"}, {"FifoQueue"}} {
				_, err := e.c.GetQueueAttributes(url, names...)
				e.wantErr(err, "InvalidAttributeName", 400)
			}
		}},
		{name: "missing queue", run: func(e *env) {
			_, err := e.c.GetQueueAttributes(e.url("gone"), "All")
			e.wantErr(err, nonExistentQueue, 400)
		}},
		{name: "message counts", rest: true, run: func(e *env) {
			url := e.createQueue("counted", nil)
			for i := range 3 {
				e.send(url, fmt.Sprint("visible ", i))
			}
			e.sendMsg(url, sendIn{Body: "later", Delay: ptr(60)})
			e.wantCounts(url, 3, 0, 1)
			got := e.receive(url, receiveIn{Max: ptr(2)})
			if len(got) != 2 {
				e.t.Fatalf("received %d", len(got))
			}
			e.wantCounts(url, 1, 2, 1)
			e.del(url, got[0].Handle)
			e.wantCounts(url, 1, 1, 1)
			e.advance(30 * time.Second) // the lease ends
			e.wantCounts(url, 2, 0, 1)
			e.advance(30 * time.Second) // the delay ends
			e.wantCounts(url, 3, 0, 0)
		}},
		{name: "timestamps", rest: true, run: func(e *env) {
			created := strconv.FormatInt(e.srv.Clock.Now().Unix(), 10)
			url := e.createQueue("stamped", nil)
			e.advance(100 * time.Second)
			if err := e.setAttrs(url, map[string]string{"VisibilityTimeout": "31"}); err != nil {
				e.t.Fatal(err)
			}
			modified := strconv.FormatInt(e.srv.Clock.Now().Unix(), 10)
			got := e.attrs(url, "CreatedTimestamp", "LastModifiedTimestamp")
			if got["CreatedTimestamp"] != created || got["LastModifiedTimestamp"] != modified {
				e.t.Fatalf("after SetQueueAttributes: %v, want created %s, modified %s", got, created, modified)
			}
		}},
	})
}

func TestSetQueueAttributes(t *testing.T) {
	runCases(t, []actionCase{
		{name: "values within the ranges", run: func(e *env) {
			url := e.createQueue("settable", nil)
			policy := `{"Version":"2012-10-17","Statement":[{"Sid":"s1","Effect":"Allow","Principal":"*","Action":"sqs:SendMessage","Resource":"` + arn("settable") + `"}]}`
			// The ends of each range are rows of TestAttributeTableSQS;
			// here, values within them.
			for _, c := range []struct{ name, value string }{
				{"DelaySeconds", "7"},
				{"MaximumMessageSize", "4096"},
				{"MessageRetentionPeriod", "600"},
				{"ReceiveMessageWaitTimeSeconds", "2"},
				{"VisibilityTimeout", "90"},
				// A policy is stored and answered as given.
				{"Policy", policy},
			} {
				if err := e.setAttrs(url, map[string]string{c.name: c.value}); err != nil {
					e.t.Fatalf("set %s=%s: %v", c.name, c.value, err)
				}
				if got := e.attrs(url, c.name)[c.name]; got != c.value {
					e.t.Fatalf("%s = %q after setting %q", c.name, got, c.value)
				}
			}
			// Several at once.
			if err := e.setAttrs(url, map[string]string{"DelaySeconds": "1", "VisibilityTimeout": "2"}); err != nil {
				e.t.Fatal(err)
			}
			got := e.attrs(url)
			if got["DelaySeconds"] != "1" || got["VisibilityTimeout"] != "2" || got["MaximumMessageSize"] != "4096" || got["Policy"] != policy {
				e.t.Fatalf("after setting two: %v", got)
			}
			// An empty Policy removes it.
			if err := e.setAttrs(url, map[string]string{"Policy": ""}); err != nil {
				e.t.Fatal(err)
			}
			if got, ok := e.attrs(url)["Policy"]; ok {
				e.t.Fatalf("Policy after clearing = %q", got)
			}
		}},
		{name: "settings take effect", rest: true, run: func(e *env) {
			url := e.createQueue("effective", nil)
			if err := e.setAttrs(url, map[string]string{"VisibilityTimeout": "5", "MessageRetentionPeriod": "60", "DelaySeconds": "2"}); err != nil {
				e.t.Fatal(err)
			}
			e.send(url, "short-lived")
			e.wantCounts(url, 0, 0, 1)
			e.advance(2 * time.Second) // the queue's delay
			e.receiveOne(url)
			e.advance(5 * time.Second) // the queue's visibility timeout
			e.receiveOne(url)
			e.advance(53 * time.Second) // 60 s after the send: retention ends, even in flight
			e.wantCounts(url, 0, 0, 0)
			e.advance(5 * time.Second)
			e.receiveNone(url)
		}},
		{name: "KMS attributes stored", run: func(e *env) {
			url := e.createQueue("kms", nil)
			if err := e.setAttrs(url, map[string]string{"KmsMasterKeyId": "alias/aws/sqs", "KmsDataKeyReusePeriodSeconds": "600"}); err != nil {
				e.t.Fatal(err)
			}
			// SSE-KMS replaces SSE-SQS.
			wantAttrs(e.t, e.attrs(url), map[string]string{"KmsMasterKeyId": "alias/aws/sqs", "KmsDataKeyReusePeriodSeconds": "600", "SqsManagedSseEnabled": "false"})
			if got := e.attrs(url, "KmsMasterKeyId"); len(got) != 1 || got["KmsMasterKeyId"] != "alias/aws/sqs" {
				e.t.Fatalf("KmsMasterKeyId alone = %v", got)
			}
			// As Terraform sends them at creation.
			url2 := e.createQueue("kms-created", map[string]string{"KmsMasterKeyId": "arn:aws:kms:us-east-1:000000000000:key/abc", "KmsDataKeyReusePeriodSeconds": "300", "SqsManagedSseEnabled": "false", "Policy": "", "RedriveAllowPolicy": ""})
			wantAttrs(e.t, e.attrs(url2), map[string]string{"KmsMasterKeyId": "arn:aws:kms:us-east-1:000000000000:key/abc", "KmsDataKeyReusePeriodSeconds": "300", "SqsManagedSseEnabled": "false"})
		}},
		{name: "a bad value fails the whole request", run: func(e *env) {
			// Each attribute's refused values are rows of
			// TestAttributeTableSQS.
			url := e.createQueue("ranged", nil)
			before := e.attrs(url)
			e.advance(time.Second)
			e.wantErr(e.setAttrs(url, map[string]string{"DelaySeconds": "3", "VisibilityTimeout": "99999"}), "InvalidAttributeValue", 400)
			after := e.attrs(url)
			for _, k := range []string{"DelaySeconds", "VisibilityTimeout", "LastModifiedTimestamp"} {
				if before[k] != after[k] {
					e.t.Fatalf("%s changed from %q to %q by a failed update", k, before[k], after[k])
				}
			}
		}},
		{name: "unknown names", run: func(e *env) {
			// Read-only and FIFO-only names are rows of TestAttributeTableSQS.
			url := e.createQueue("names", nil)
			for _, name := range []string{"Bogus", "Colour"} {
				e.wantErr(e.setAttrs(url, map[string]string{name: "x"}), "InvalidAttributeName", 400)
			}
		}},
		{name: "missing queue", run: func(e *env) {
			e.wantErr(e.setAttrs(e.url("nope"), map[string]string{"DelaySeconds": "1"}), nonExistentQueue, 400)
		}},
	})
}

func TestRedrivePolicies(t *testing.T) {
	runCases(t, []actionCase{
		{name: "RedrivePolicy", run: func(e *env) {
			e.createQueue("dlq", nil)
			url := e.createQueue("src", nil)
			// maxReceiveCount as a string, as the console and many tools
			// send it, or a number; answered as a number.
			for _, n := range []string{`"5"`, `7`} {
				if err := e.setAttrs(url, redrive("dlq", n)); err != nil {
					e.t.Fatalf("maxReceiveCount %s: %v", n, err)
				}
				p := e.jsonAttr(url, "RedrivePolicy")
				if want, _ := strconv.Atoi(strings.Trim(n, `"`)); p["deadLetterTargetArn"] != arn("dlq") || p["maxReceiveCount"] != float64(want) {
					e.t.Fatalf("RedrivePolicy = %v", p)
				}
			}
			// Invalid policies.
			for _, bad := range []string{
				`{"deadLetterTargetArn":"` + arn("no-such-dlq") + `","maxReceiveCount":3}`,
				`{"maxReceiveCount":3}`,
				`{"deadLetterTargetArn":"` + arn("dlq") + `"}`,
				`not json`,
			} {
				e.wantErr(e.setAttrs(url, map[string]string{"RedrivePolicy": bad}), "InvalidParameterValue", 400)
			}
			// maxReceiveCount out of 1..1000 is refused. AWS's message for
			// this is in the InvalidParameterValue form ("Value ... for
			// parameter RedrivePolicy is invalid. Reason: Invalid value for
			// maxReceiveCount"); minisqs answers InvalidAttributeValue, so
			// only the refusal is checked.
			for _, n := range []string{"0", "1001"} {
				ae := mustAPIError(e.t, e.setAttrs(url, redrive("dlq", n)))
				if ae.Status != 400 || (ae.Code != "InvalidParameterValue" && ae.Code != "InvalidAttributeValue") {
					e.t.Fatalf("maxReceiveCount %s: %v", n, ae)
				}
			}
			if p := e.jsonAttr(url, "RedrivePolicy"); p["maxReceiveCount"] != float64(7) {
				e.t.Fatalf("RedrivePolicy changed by failed updates: %v", p)
			}
			// An empty value removes the policy.
			if err := e.setAttrs(url, map[string]string{"RedrivePolicy": ""}); err != nil {
				e.t.Fatal(err)
			}
			if v, ok := e.attrs(url)["RedrivePolicy"]; ok {
				e.t.Fatalf("RedrivePolicy still %q after clearing", v)
			}
		}},
		{name: "RedriveAllowPolicy", run: func(e *env) {
			dlq := e.createQueue("guarded-dlq", nil)
			src := e.createQueue("src", nil)
			other := e.createQueue("other", nil)
			allow := func(policy string) {
				e.t.Helper()
				if err := e.setAttrs(dlq, map[string]string{"RedriveAllowPolicy": policy}); err != nil {
					e.t.Fatal(err)
				}
			}
			rp := redrive("guarded-dlq", `"3"`)

			allow(`{"redrivePermission":"denyAll"}`)
			if rap := e.jsonAttr(dlq, "RedriveAllowPolicy"); rap["redrivePermission"] != "denyAll" {
				e.t.Fatalf("RedriveAllowPolicy = %v", rap)
			}
			e.wantErr(e.setAttrs(src, rp), "InvalidParameterValue", 400)
			_, err := e.c.CreateQueue("new-src", rp, nil)
			e.wantErr(err, "InvalidParameterValue", 400)
			if _, ok := e.attrs(src)["RedrivePolicy"]; ok {
				e.t.Fatal("denied RedrivePolicy was stored")
			}

			// byQueue admits the named source only.
			allow(`{"redrivePermission":"byQueue","sourceQueueArns":["` + arn("src") + `"]}`)
			if rap := e.jsonAttr(dlq, "RedriveAllowPolicy"); rap["redrivePermission"] != "byQueue" || fmt.Sprint(rap["sourceQueueArns"]) != "["+arn("src")+"]" {
				e.t.Fatalf("RedriveAllowPolicy = %v", rap)
			}
			if err := e.setAttrs(src, rp); err != nil {
				e.t.Fatalf("byQueue source refused: %v", err)
			}
			e.wantErr(e.setAttrs(other, rp), "InvalidParameterValue", 400)

			// allowAll admits everyone.
			allow(`{"redrivePermission":"allowAll"}`)
			if err := e.setAttrs(other, rp); err != nil {
				e.t.Fatalf("allowAll source refused: %v", err)
			}

			// Invalid permission values.
			for _, bad := range []string{`{"redrivePermission":"sometimes"}`, `{"redrivePermission":"byQueue"}`, `{"redrivePermission":"denyAll","sourceQueueArns":["` + arn("src") + `"]}`, `nope`} {
				e.wantErr(e.setAttrs(dlq, map[string]string{"RedriveAllowPolicy": bad}), "InvalidAttributeValue", 400)
			}
		}},
	})
}

func TestListDeadLetterSourceQueues(t *testing.T) {
	runCases(t, []actionCase{
		{name: "sources, paging and removal", run: func(e *env) {
			dlq := e.createQueue("dlq", nil)
			src1 := e.createQueue("src-1", redrive("dlq", `"2"`))
			src2 := e.createQueue("src-2", nil)
			if err := e.setAttrs(src2, redrive("dlq", `"2"`)); err != nil {
				e.t.Fatal(err)
			}
			e.createQueue("unrelated", nil)
			list := func(url string, max *int, token string) ([]string, string) {
				e.t.Helper()
				urls, next, err := e.c.ListDeadLetterSourceQueues(url, max, token)
				if err != nil {
					e.t.Fatal(err)
				}
				return urls, next
			}

			urls, next := list(dlq, nil, "")
			if got, want := slices.Sorted(slices.Values(urls)), []string{src1, src2}; !slices.Equal(got, want) || next != "" {
				e.t.Fatalf("sources = %v (NextToken %q), want %v", got, next, want)
			}
			// Paging.
			page, next := list(dlq, ptr(1), "")
			if len(page) != 1 || next == "" {
				e.t.Fatalf("first page: %v %q", page, next)
			}
			rest, next := list(dlq, ptr(1), next)
			if len(rest) != 1 || next != "" || rest[0] == page[0] {
				e.t.Fatalf("second page: %v %q", rest, next)
			}

			// Removing a policy removes the source; a queue nobody
			// redrives to has none.
			if err := e.setAttrs(src1, map[string]string{"RedrivePolicy": ""}); err != nil {
				e.t.Fatal(err)
			}
			if urls, _ := list(dlq, nil, ""); !slices.Equal(urls, []string{src2}) {
				e.t.Fatalf("sources after clearing src-1 = %v", urls)
			}
			if urls, _ := list(src1, nil, ""); len(urls) != 0 {
				e.t.Fatalf("sources of src-1 = %v", urls)
			}
			if e.is("json") {
				// queueUrls is required in the answer, so it is sent even
				// when empty.
				r := postJSON(e.t, e.srv.URL(), "AmazonSQS.ListDeadLetterSourceQueues", mustJSON(e.t, map[string]any{"QueueUrl": src1}))
				if urls, ok := r.JSON["queueUrls"].([]any); !ok || len(urls) != 0 {
					e.t.Fatalf("empty ListDeadLetterSourceQueues body: %s", r.Body)
				}
			}
			_, _, err := e.c.ListDeadLetterSourceQueues(e.url("nope"), nil, "")
			e.wantErr(err, nonExistentQueue, 400)
		}},
	})
}

// statements are the statements of a policy document by Sid.
func statements(t *testing.T, doc map[string]any) map[string]map[string]any {
	t.Helper()
	list, ok := doc["Statement"].([]any)
	if !ok {
		t.Fatalf("Policy without a Statement list: %v", doc)
	}
	out := map[string]map[string]any{}
	for _, s := range list {
		st := s.(map[string]any)
		out[fmt.Sprint(st["Sid"])] = st
	}
	return out
}

func TestPermissions(t *testing.T) {
	runCases(t, []actionCase{
		{name: "add and remove", run: func(e *env) {
			url := e.createQueue("shared", nil)
			if e.jsonAttr(url, "Policy") != nil {
				e.t.Fatal("new queue has a Policy")
			}
			if err := e.c.AddPermission(url, "send-only", []string{"111122223333"}, []string{"SendMessage"}); err != nil {
				e.t.Fatal(err)
			}
			if err := e.c.AddPermission(url, "consumers", []string{"111122223333", "444455556666"}, []string{"ReceiveMessage", "DeleteMessage"}); err != nil {
				e.t.Fatal(err)
			}
			doc := e.jsonAttr(url, "Policy")
			if doc["Version"] != "2008-10-17" {
				e.t.Fatalf("Policy = %v", doc)
			}
			sts := statements(e.t, doc)
			if len(sts) != 2 {
				e.t.Fatalf("statements = %v", sts)
			}
			// One account and action are strings, several are lists.
			if s := sts["send-only"]; s["Effect"] != "Allow" || s["Resource"] != arn("shared") || s["Action"] != "SQS:SendMessage" ||
				fmt.Sprint(s["Principal"]) != "map[AWS:arn:aws:iam::111122223333:root]" {
				e.t.Fatalf("send-only statement = %v", s)
			}
			if s := sts["consumers"]; fmt.Sprint(s["Action"]) != "[SQS:ReceiveMessage SQS:DeleteMessage]" ||
				fmt.Sprint(s["Principal"]) != "map[AWS:[arn:aws:iam::111122223333:root arn:aws:iam::444455556666:root]]" {
				e.t.Fatalf("consumers statement = %v", s)
			}

			for _, c := range []struct {
				label  string
				action string
			}{
				{"send-only", "GetQueueUrl"}, // the label is taken
				{"bad", "FlyAway"},
				{"bad label!", "SendMessage"},
			} {
				e.wantErr(e.c.AddPermission(url, c.label, []string{"111122223333"}, []string{c.action}), "InvalidParameterValue", 400)
			}
			if got := len(statements(e.t, e.jsonAttr(url, "Policy"))); got != 2 {
				e.t.Fatalf("failed AddPermission changed the policy: %d statements", got)
			}

			if err := e.c.RemovePermission(url, "send-only"); err != nil {
				e.t.Fatal(err)
			}
			if sts := statements(e.t, e.jsonAttr(url, "Policy")); len(sts) != 1 || sts["consumers"] == nil {
				e.t.Fatalf("after removing send-only: %v", sts)
			}
			e.wantErr(e.c.RemovePermission(url, "send-only"), "InvalidParameterValue", 400)
			if err := e.c.RemovePermission(url, "consumers"); err != nil {
				e.t.Fatal(err)
			}
			if doc := e.jsonAttr(url, "Policy"); doc != nil {
				e.t.Fatalf("Policy after removing the last statement: %v", doc)
			}
			e.wantErr(e.c.AddPermission(e.url("nope"), "x", []string{"111122223333"}, []string{"SendMessage"}), nonExistentQueue, 400)
			e.wantErr(e.c.RemovePermission(e.url("nope"), "x"), nonExistentQueue, 400)
		}},
		{name: "a set Policy is extended, not replaced", run: func(e *env) {
			url := e.createQueue("shared", nil)
			policy := `{"Version":"2012-10-17","Id":"mine","Statement":[{"Sid":"own","Effect":"Allow","Principal":"*","Action":"sqs:SendMessage","Resource":"` + arn("shared") + `","Condition":{"ArnEquals":{"aws:SourceArn":"arn:aws:sns:us-east-1:000000000000:topic"}}}]}`
			if err := e.setAttrs(url, map[string]string{"Policy": policy}); err != nil {
				e.t.Fatal(err)
			}
			if err := e.c.AddPermission(url, "added", []string{"111122223333"}, []string{"*"}); err != nil {
				e.t.Fatal(err)
			}
			sts := statements(e.t, e.jsonAttr(url, "Policy"))
			if len(sts) != 2 || sts["own"] == nil || sts["added"] == nil {
				e.t.Fatalf("statements after extending a set Policy: %v", sts)
			}
			// The statement set by hand is kept whole.
			if own := sts["own"]; own["Principal"] != "*" || !strings.Contains(fmt.Sprint(own["Condition"]), "arn:aws:sns:us-east-1:000000000000:topic") {
				e.t.Fatalf("own statement changed: %v", own)
			}
			if err := e.c.RemovePermission(url, "added"); err != nil {
				e.t.Fatal(err)
			}
			if sts := statements(e.t, e.jsonAttr(url, "Policy")); len(sts) != 1 || sts["own"]["Principal"] != "*" || sts["own"]["Condition"] == nil {
				e.t.Fatalf("statements after removing the added one: %v", sts)
			}
		}},
	})
}
