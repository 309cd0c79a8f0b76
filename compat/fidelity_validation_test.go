package compat

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	awsv1 "github.com/aws/aws-sdk-go/aws"
	sqsv1 "github.com/aws/aws-sdk-go/service/sqs"

	"github.com/minisqs/minisqs/server"
)

// fdSend sends one message through protocol p with optional group and
// deduplication ids (nil leaves the parameter out).
func (e *fdEnv) fdSend(p, qurl, body string, group, dedup *string) (string, error) {
	if p == "json" {
		out, err := e.js.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: jStr(qurl), MessageBody: jStr(body), MessageGroupId: group, MessageDeduplicationId: dedup})
		if err != nil {
			return "", err
		}
		return awsv2.ToString(out.SequenceNumber), nil
	}
	out, err := e.q.SendMessage(&sqsv1.SendMessageInput{QueueUrl: qStr(qurl), MessageBody: qStr(body), MessageGroupId: group, MessageDeduplicationId: dedup})
	if err != nil {
		return "", err
	}
	return awsv1.StringValue(out.SequenceNumber), nil
}

// Group and deduplication ids given as "", too long or with spaces, in
// AWS's words (localstack/localstack test_sqs.snapshot.json, recorded
// 30-07-2025: test_send_message_to_standard_queue_with_invalid_message_
// group_id[empty|too_long|spaces] and test_message_deduplication_id_
// invalid[empty|too_long|spaces]; test_message_deduplication_id_success
// takes 128 characters). A standard queue takes a valid group id and
// answers no sequence number (test_fair_queue_with_message_group_id,
// recorded 18-08-2025).
func TestFidelityFIFOIDValues(t *testing.T) {
	e := newFDEnv(t, server.Config{})
	std := e.create("standard", nil)
	fifo := e.create("ids.fifo", map[string]string{"FifoQueue": "true"})
	reason := func(param string) string {
		return fmt.Sprintf("Reason: %s can only include alphanumeric and punctuation characters. 1 to 128 in length.", param)
	}
	for _, p := range fdProtocols {
		for _, v := range []string{"", strings.Repeat("a", 129), "group 123"} {
			_, err := e.fdSend(p, std, "message", &v, nil)
			wantMessage(t, p+" standard MessageGroupId "+v[:min(len(v), 9)], err, 400, "InvalidParameterValue",
				fmt.Sprintf("Value %s for parameter MessageGroupId is invalid. %s", v, reason("MessageGroupId")))
			_, err = e.fdSend(p, fifo, "Hello World!", jStr("test"), &v)
			wantMessage(t, p+" FIFO MessageDeduplicationId "+v[:min(len(v), 9)], err, 400, "InvalidParameterValue",
				fmt.Sprintf("Value %s for parameter MessageDeduplicationId is invalid. %s", v, reason("MessageDeduplicationId")))
		}
		if seq, err := e.fdSend(p, std, "message", jStr("test"), nil); err != nil || seq != "" {
			t.Errorf("%s: standard send with a group id: sequence %q, %v", p, seq, err)
		}
		if seq, err := e.fdSend(p, fifo, "max", jStr("test"), jStr(strings.Repeat("a", 127)+p[:1])); err != nil || seq == "" {
			t.Errorf("%s: 128-character deduplication id: sequence %q, %v", p, seq, err)
		}
	}

	// Not recorded in a batch: an entry whose deduplication id is "" fails
	// alone, with the single send's text, rather than the whole batch.
	out, err := e.js.SendMessageBatch(e.ctx, &sqsv2.SendMessageBatchInput{QueueUrl: jStr(fifo), Entries: []types.SendMessageBatchRequestEntry{
		{Id: jStr("good"), MessageBody: jStr("x"), MessageGroupId: jStr("g"), MessageDeduplicationId: jStr("d")},
		{Id: jStr("empty"), MessageBody: jStr("x"), MessageGroupId: jStr("g"), MessageDeduplicationId: jStr("")},
	}})
	if err != nil || len(out.Successful) != 1 || len(out.Failed) != 1 || awsv2.ToString(out.Failed[0].Id) != "empty" ||
		awsv2.ToString(out.Failed[0].Message) != "Value  for parameter MessageDeduplicationId is invalid. "+reason("MessageDeduplicationId") {
		t.Errorf("batch with an empty deduplication id: %+v %v", out, err)
	}
}

// FIFO settings on a standard queue (localstack/localstack
// test_sqs.snapshot.json: test_create_standard_queue_with_fifo_attribute_
// raises_error[sqs] and [sqs_query], recorded 15-05-2024;
// test_set_unsupported_attribute_standard and _fifo, recorded 14-05-2024),
// and the names that go with a queue type (test_standard_queue_cannot_
// have_fifo_suffix and test_fifo_queue_requires_suffix record the code
// only).
func TestFidelityQueueTypeAttributes(t *testing.T) {
	e := newFDEnv(t, server.Config{})
	create := func(p, name string, attrs map[string]string) error {
		if p == "json" {
			_, err := e.js.CreateQueue(e.ctx, &sqsv2.CreateQueueInput{QueueName: jStr(name), Attributes: attrs})
			return err
		}
		_, err := e.q.CreateQueue(&sqsv1.CreateQueueInput{QueueName: qStr(name), Attributes: awsv1.StringMap(attrs)})
		return err
	}
	set := func(p, qurl string, attrs map[string]string) error {
		if p == "json" {
			_, err := e.js.SetQueueAttributes(e.ctx, &sqsv2.SetQueueAttributesInput{QueueUrl: jStr(qurl), Attributes: attrs})
			return err
		}
		_, err := e.q.SetQueueAttributes(&sqsv1.SetQueueAttributesInput{QueueUrl: qStr(qurl), Attributes: awsv1.StringMap(attrs)})
		return err
	}
	std := e.create("plain", nil)
	fifo := e.create("typed.fifo", map[string]string{"FifoQueue": "true"})
	for _, p := range fdProtocols {
		for _, c := range []struct{ name, value, message string }{
			{"FifoQueue", "false", "Unknown Attribute FifoQueue."},
			{"ContentBasedDeduplication", "false", "Unknown Attribute ContentBasedDeduplication."},
			{"DeduplicationScope", "queue", "You can specify the DeduplicationScope only when FifoQueue is set to true."},
			{"FifoThroughputLimit", "perQueue", "You can specify the FifoThroughputLimit only when FifoQueue is set to true."},
		} {
			wantMessage(t, p+" CreateQueue "+c.name, create(p, "standard-"+p, map[string]string{c.name: c.value}), 400, "InvalidAttributeName", c.message)
		}
		for _, v := range []string{"true", "false"} {
			wantMessage(t, p+" set FifoQueue on a standard queue", set(p, std, map[string]string{"FifoQueue": v}), 400, "InvalidAttributeName", "Unknown Attribute FifoQueue.")
		}
		wantMessage(t, p+" FifoQueue=false on a FIFO queue", set(p, fifo, map[string]string{"FifoQueue": "false"}), 400, "InvalidAttributeValue",
			"Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported.")
		if err := set(p, fifo, map[string]string{"FifoQueue": "true"}); err != nil {
			t.Errorf("%s: FifoQueue=true on a FIFO queue: %v", p, err)
		}
		if got := mustAPIError(t, create(p, "named-"+p+".fifo", nil)); got.Code != "InvalidParameterValue" || got.Status != 400 {
			t.Errorf("%s: standard queue named .fifo: %+v", p, got)
		}
		if got := mustAPIError(t, create(p, "unsuffixed-"+p, map[string]string{"FifoQueue": "true"})); got.Code != "InvalidParameterValue" || got.Status != 400 {
			t.Errorf("%s: FIFO queue without .fifo: %+v", p, got)
		}
	}
}

// An action the endpoint does not serve, and actions that name no queue
// sent to a queue's URL: 400 InvalidAction "The action <A> is not valid for
// this endpoint." (localstack/localstack TestSqsQueryApi
// test_invalid_action_raises_exception, test_get_create_queue_fails and
// test_get_list_queues_fails, markers.aws.validated). Query protocol only:
// the JSON protocol names its action in X-Amz-Target.
func TestFidelityInvalidAction(t *testing.T) {
	e := newFDEnv(t, server.Config{})
	qurl := e.create("endpoint", nil)
	for _, c := range []struct {
		action string
		params url.Values
	}{
		{"FooBar", url.Values{"Version": {"2012-11-05"}}},
		{"CreateQueue", url.Values{"QueueName": {"another"}}},
		{"ListQueues", nil},
	} {
		form := url.Values{"Action": {c.action}}
		for k, v := range c.params {
			form[k] = v
		}
		resp, body := postQuery(t, http.MethodGet, qurl, form)
		got := wantXMLError(t, resp, body, 400, "InvalidAction")
		if want := "The action " + c.action + " is not valid for this endpoint."; got.Error.Message != want {
			t.Errorf("%s at a queue URL: %q, want %q", c.action, got.Error.Message, want)
		}
	}
	if _, err := e.js.GetQueueUrl(e.ctx, &sqsv2.GetQueueUrlInput{QueueName: jStr("another")}); err == nil {
		t.Error("CreateQueue at a queue URL made the queue")
	}
	// At the endpoint's root they are served.
	if _, err := e.q.ListQueues(&sqsv1.ListQueuesInput{}); err != nil {
		t.Errorf("ListQueues: %v", err)
	}
}

// A receipt handle of another queue: 404 ReceiptHandleIsInvalid, "The
// receipt handle "<h>" is not valid for this queue." (spulec/PyQS#24, a
// query-protocol answer of AWS; aws/aws-sdk-java-v2#3101; the status is
// the SQS Smithy model's httpError for ReceiptHandleIsInvalid).
func TestFidelityReceiptHandleOfAnotherQueue(t *testing.T) {
	e := newFDEnv(t, server.Config{})
	a, b := e.create("first", nil), e.create("second", nil)
	if _, err := e.js.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: jStr(a), MessageBody: jStr("m")}); err != nil {
		t.Fatal(err)
	}
	out, err := e.js.ReceiveMessage(e.ctx, &sqsv2.ReceiveMessageInput{QueueUrl: jStr(a)})
	if err != nil || len(out.Messages) != 1 {
		t.Fatalf("receive: %v %v", out, err)
	}
	h := awsv2.ToString(out.Messages[0].ReceiptHandle)
	want := fmt.Sprintf("The receipt handle %q is not valid for this queue.", h)
	_, err = e.js.DeleteMessage(e.ctx, &sqsv2.DeleteMessageInput{QueueUrl: jStr(b), ReceiptHandle: jStr(h)})
	wantMessage(t, "json", err, 404, "ReceiptHandleIsInvalid", want)
	_, err = e.q.DeleteMessage(&sqsv1.DeleteMessageInput{QueueUrl: qStr(b), ReceiptHandle: qStr(h)})
	wantMessage(t, "query", err, 404, "ReceiptHandleIsInvalid", want)
}

// Tags: an unknown queue is named before the tags are looked at
// (getmoto/moto test_tag_unknown_queue, test_untag_unknown_queue and
// test_list_queue_tags_errors, aws_verified), and an empty value is a tag
// like any other (localstack/localstack test_tag_untag_queue,
// markers.aws.validated). AWS's texts for bad tags are not recorded;
// minisqs keeps its own.
func TestFidelityTags(t *testing.T) {
	e := newFDEnv(t, server.Config{})
	qurl := e.create("tagged", nil)
	gone := e.srv.URL() + "/" + defaultAccount + "/unknown"
	for _, p := range fdProtocols {
		tags := map[string]string{"tag1": "value1", "tag2": "value2", "tag3": ""}
		var errs []error
		var got map[string]string
		if p == "json" {
			_, err := e.js.TagQueue(e.ctx, &sqsv2.TagQueueInput{QueueUrl: jStr(qurl), Tags: tags})
			if err != nil {
				t.Fatal(err)
			}
			out, err := e.js.ListQueueTags(e.ctx, &sqsv2.ListQueueTagsInput{QueueUrl: jStr(qurl)})
			if err != nil {
				t.Fatal(err)
			}
			got = out.Tags
			_, e1 := e.js.TagQueue(e.ctx, &sqsv2.TagQueueInput{QueueUrl: jStr(gone), Tags: map[string]string{"t": "v"}})
			_, e2 := e.js.UntagQueue(e.ctx, &sqsv2.UntagQueueInput{QueueUrl: jStr(gone), TagKeys: []string{"tag1"}})
			_, e3 := e.js.ListQueueTags(e.ctx, &sqsv2.ListQueueTagsInput{QueueUrl: jStr(gone)})
			errs = []error{e1, e2, e3}
		} else {
			_, err := e.q.TagQueue(&sqsv1.TagQueueInput{QueueUrl: qStr(qurl), Tags: awsv1.StringMap(tags)})
			if err != nil {
				t.Fatal(err)
			}
			out, err := e.q.ListQueueTags(&sqsv1.ListQueueTagsInput{QueueUrl: qStr(qurl)})
			if err != nil {
				t.Fatal(err)
			}
			got = awsv1.StringValueMap(out.Tags)
			_, e1 := e.q.TagQueue(&sqsv1.TagQueueInput{QueueUrl: qStr(gone), Tags: awsv1.StringMap(map[string]string{"t": "v"})})
			_, e2 := e.q.UntagQueue(&sqsv1.UntagQueueInput{QueueUrl: qStr(gone), TagKeys: awsv1.StringSlice([]string{"tag1"})})
			_, e3 := e.q.ListQueueTags(&sqsv1.ListQueueTagsInput{QueueUrl: qStr(gone)})
			errs = []error{e1, e2, e3}
		}
		if len(got) != 3 || got["tag3"] != "" || got["tag1"] != "value1" {
			t.Errorf("%s: tags %v", p, got)
		}
		for i, err := range errs {
			if got := mustAPIError(t, err); got.Code != "AWS.SimpleQueueService.NonExistentQueue" || got.Status != 400 {
				t.Errorf("%s: call %d on an unknown queue: %+v", p, i, got)
			}
		}
	}
}

// The Policy AddPermission writes and the errors of labels, as
// localstack/localstack test_sqs.snapshot.json
// TestSqsProvider::test_sqs_permission_lifecycle[sqs] and [sqs_query]
// (recorded 30-04-2024) show them: Version 2008-10-17, Id
// "<arn>/SQSDefaultPolicy", one statement per label with a string
// principal for one account and a list for several, "SQS:<Action>", the
// statement gone with its label and the Policy with its last statement.
func TestFidelityPermissionPolicy(t *testing.T) {
	e := newFDEnv(t, server.Config{})
	for _, p := range fdProtocols {
		qurl := e.create("shared-"+p, nil)
		arn := "arn:aws:sqs:us-east-1:" + defaultAccount + ":shared-" + p
		add := func(label string, accounts ...string) error {
			if p == "json" {
				_, err := e.js.AddPermission(e.ctx, &sqsv2.AddPermissionInput{QueueUrl: jStr(qurl), Label: jStr(label), AWSAccountIds: accounts, Actions: []string{"ReceiveMessage"}})
				return err
			}
			_, err := e.q.AddPermission(&sqsv1.AddPermissionInput{QueueUrl: qStr(qurl), Label: qStr(label), AWSAccountIds: awsv1.StringSlice(accounts), Actions: awsv1.StringSlice([]string{"ReceiveMessage"})})
			return err
		}
		remove := func(label string) error {
			if p == "json" {
				_, err := e.js.RemovePermission(e.ctx, &sqsv2.RemovePermissionInput{QueueUrl: jStr(qurl), Label: jStr(label)})
				return err
			}
			_, err := e.q.RemovePermission(&sqsv1.RemovePermissionInput{QueueUrl: qStr(qurl), Label: qStr(label)})
			return err
		}
		policy := func() (string, bool) {
			if p == "json" {
				out, err := e.js.GetQueueAttributes(e.ctx, &sqsv2.GetQueueAttributesInput{QueueUrl: jStr(qurl), AttributeNames: []types.QueueAttributeName{"Policy"}})
				if err != nil {
					t.Fatal(err)
				}
				v, ok := out.Attributes["Policy"]
				return v, ok
			}
			out, err := e.q.GetQueueAttributes(&sqsv1.GetQueueAttributesInput{QueueUrl: qStr(qurl), AttributeNames: awsv1.StringSlice([]string{"Policy"})})
			if err != nil {
				t.Fatal(err)
			}
			v, ok := out.Attributes["Policy"]
			return awsv1.StringValue(v), ok
		}
		statement := func(sid, principal string) string {
			return `{"Sid":"` + sid + `","Effect":"Allow","Principal":{"AWS":` + principal + `},"Action":"SQS:ReceiveMessage","Resource":"` + arn + `"}`
		}
		doc := func(statements ...string) string {
			return `{"Version":"2008-10-17","Id":"` + arn + `/SQSDefaultPolicy","Statement":[` + strings.Join(statements, ",") + `]}`
		}
		if err := add("crossaccountpermission", "668614515564", defaultAccount); err != nil {
			t.Fatal(err)
		}
		got, _ := policy()
		var parsed struct {
			Statement []struct{ Principal struct{ AWS []string } }
		}
		if err := json.Unmarshal([]byte(got), &parsed); err != nil || len(parsed.Statement) != 1 || len(parsed.Statement[0].Principal.AWS) != 2 {
			t.Errorf("%s: two accounts: %s (%v)", p, got, err)
		}
		want := doc(statement("crossaccountpermission", `["arn:aws:iam::668614515564:root","arn:aws:iam::`+defaultAccount+`:root"]`))
		if got != want {
			t.Errorf("%s: policy\n %s\nwant\n %s", p, got, want)
		}
		if err := remove("crossaccountpermission"); err != nil {
			t.Fatal(err)
		}
		if got, ok := policy(); ok {
			t.Errorf("%s: Policy %q after its last statement went", p, got)
		}
		one := `"arn:aws:iam::` + defaultAccount + `:root"`
		if err := add("crossaccountpermission", defaultAccount); err != nil {
			t.Fatal(err)
		}
		wantMessage(t, p+" repeated label", add("crossaccountpermission", "668614515564"), 400, "InvalidParameterValue",
			"Value crossaccountpermission for parameter Label is invalid. Reason: Already exists.")
		if err := add("crossaccountpermission2", defaultAccount); err != nil {
			t.Fatal(err)
		}
		if got, _ := policy(); got != doc(statement("crossaccountpermission", one), statement("crossaccountpermission2", one)) {
			t.Errorf("%s: two labels: %s", p, got)
		}
		if err := remove("crossaccountpermission"); err != nil {
			t.Fatal(err)
		}
		if got, _ := policy(); got != doc(statement("crossaccountpermission2", one)) {
			t.Errorf("%s: after removing the first: %s", p, got)
		}
		if err := remove("crossaccountpermission2"); err != nil {
			t.Fatal(err)
		}
		wantMessage(t, p+" unknown label", remove("crossaccountpermission2"), 400, "InvalidParameterValue",
			"Value crossaccountpermission2 for parameter Label is invalid. Reason: can't find label.")
	}
}
