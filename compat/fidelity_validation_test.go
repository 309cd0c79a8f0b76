package compat

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/minisqs/minisqs/server"
)

// Group and deduplication ids given as "", too long or with spaces, in
// AWS's words (localstack/localstack test_sqs.snapshot.json, recorded
// 30-07-2025: test_send_message_to_standard_queue_with_invalid_message_
// group_id[empty|too_long|spaces] and test_message_deduplication_id_
// invalid[empty|too_long|spaces]; test_message_deduplication_id_success
// takes 128 characters). A standard queue takes a valid group id and
// answers no sequence number (test_fair_queue_with_message_group_id,
// recorded 18-08-2025).
func TestFidelityFIFOIDValues(t *testing.T) {
	reason := func(param string) string {
		return fmt.Sprintf("Reason: %s can only include alphanumeric and punctuation characters. 1 to 128 in length.", param)
	}
	runCases(t, []actionCase{{name: "group and deduplication ids", run: func(e *env) {
		std := e.createQueue("standard", nil)
		fifo := e.createFIFO("ids.fifo", nil)
		for _, v := range []string{"", strings.Repeat("a", 129), "group 123"} {
			_, err := e.c.SendMessage(std, sendIn{Body: "message", Group: ptr(v)})
			wantMessage(e.t, "standard MessageGroupId "+v[:min(len(v), 9)], err, 400, "InvalidParameterValue",
				fmt.Sprintf("Value %s for parameter MessageGroupId is invalid. %s", v, reason("MessageGroupId")))
			_, err = e.c.SendMessage(fifo, sendIn{Body: "Hello World!", Group: ptr("test"), Dedup: ptr(v)})
			wantMessage(e.t, "FIFO MessageDeduplicationId "+v[:min(len(v), 9)], err, 400, "InvalidParameterValue",
				fmt.Sprintf("Value %s for parameter MessageDeduplicationId is invalid. %s", v, reason("MessageDeduplicationId")))
		}
		if out, err := e.c.SendMessage(std, sendIn{Body: "message", Group: ptr("test")}); err != nil || out.SequenceNumber != "" {
			e.t.Errorf("standard send with a group id: sequence %q, %v", out.SequenceNumber, err)
		}
		if out, err := e.c.SendMessage(fifo, sendIn{Body: "max", Group: ptr("test"), Dedup: ptr(strings.Repeat("a", 128))}); err != nil || out.SequenceNumber == "" {
			e.t.Errorf("128-character deduplication id: sequence %q, %v", out.SequenceNumber, err)
		}

		// Not recorded in a batch: an entry whose deduplication id is ""
		// fails alone, with the single send's text, rather than the whole
		// batch.
		ok, failed, err := e.c.SendMessageBatch(fifo, []sendIn{
			{ID: "good", Body: "x", Group: ptr("g"), Dedup: ptr("d")},
			{ID: "empty", Body: "x", Group: ptr("g"), Dedup: ptr("")},
		})
		if err != nil || len(ok) != 1 || len(failed) != 1 || failed[0].ID != "empty" ||
			failed[0].Message != "Value  for parameter MessageDeduplicationId is invalid. "+reason("MessageDeduplicationId") {
			e.t.Errorf("batch with an empty deduplication id: %+v %+v %v", ok, failed, err)
		}
	}}})
}

// FIFO settings on a standard queue (localstack/localstack
// test_sqs.snapshot.json: test_create_standard_queue_with_fifo_attribute_
// raises_error[sqs] and [sqs_query], recorded 15-05-2024;
// test_set_unsupported_attribute_standard and _fifo, recorded 14-05-2024),
// and the names that go with a queue type (test_standard_queue_cannot_
// have_fifo_suffix and test_fifo_queue_requires_suffix record the code
// only).
func TestFidelityQueueTypeAttributes(t *testing.T) {
	runCases(t, []actionCase{{name: "FIFO settings and names", run: func(e *env) {
		std := e.createQueue("plain", nil)
		fifo := e.createFIFO("typed.fifo", nil)
		for _, c := range []struct{ name, value, message string }{
			{"FifoQueue", "false", "Unknown Attribute FifoQueue."},
			{"ContentBasedDeduplication", "false", "Unknown Attribute ContentBasedDeduplication."},
			{"DeduplicationScope", "queue", "You can specify the DeduplicationScope only when FifoQueue is set to true."},
			{"FifoThroughputLimit", "perQueue", "You can specify the FifoThroughputLimit only when FifoQueue is set to true."},
		} {
			_, err := e.c.CreateQueue("standard", map[string]string{c.name: c.value}, nil)
			wantMessage(e.t, "CreateQueue "+c.name, err, 400, "InvalidAttributeName", c.message)
		}
		for _, v := range []string{"true", "false"} {
			wantMessage(e.t, "set FifoQueue on a standard queue", e.setAttrs(std, map[string]string{"FifoQueue": v}), 400, "InvalidAttributeName", "Unknown Attribute FifoQueue.")
		}
		wantMessage(e.t, "FifoQueue=false on a FIFO queue", e.setAttrs(fifo, map[string]string{"FifoQueue": "false"}), 400, "InvalidAttributeValue",
			"Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported.")
		if err := e.setAttrs(fifo, map[string]string{"FifoQueue": "true"}); err != nil {
			e.t.Errorf("FifoQueue=true on a FIFO queue: %v", err)
		}
		_, err := e.c.CreateQueue("named.fifo", nil, nil)
		if got := mustAPIError(e.t, err); got.Code != "InvalidParameterValue" || got.Status != 400 {
			e.t.Errorf("standard queue named .fifo: %+v", got)
		}
		_, err = e.c.CreateQueue("unsuffixed", map[string]string{"FifoQueue": "true"}, nil)
		if got := mustAPIError(e.t, err); got.Code != "InvalidParameterValue" || got.Status != 400 {
			e.t.Errorf("FIFO queue without .fifo: %+v", got)
		}
	}}})
}

// An action the endpoint does not serve, and actions that name no queue
// sent to a queue's URL: 400 InvalidAction "The action <A> is not valid for
// this endpoint." (localstack/localstack TestSqsQueryApi
// test_invalid_action_raises_exception, test_get_create_queue_fails and
// test_get_list_queues_fails, markers.aws.validated). Query protocol only:
// the JSON protocol names its action in X-Amz-Target.
func TestFidelityInvalidAction(t *testing.T) {
	t.Parallel()
	e := protocolEnv(t, "query", server.Config{})
	qurl := e.createQueue("endpoint", nil)
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
	if _, err := e.c.GetQueueURL("another", ""); err == nil {
		t.Error("CreateQueue at a queue URL made the queue")
	}
	// At the endpoint's root they are served.
	if _, _, err := e.c.ListQueues("", nil, ""); err != nil {
		t.Errorf("ListQueues: %v", err)
	}
}

// A receipt handle of another queue: 404 ReceiptHandleIsInvalid, "The
// receipt handle "<h>" is not valid for this queue." (spulec/PyQS#24, a
// query-protocol answer of AWS; aws/aws-sdk-java-v2#3101; the status is
// the SQS Smithy model's httpError for ReceiptHandleIsInvalid).
func TestFidelityReceiptHandleOfAnotherQueue(t *testing.T) {
	runCases(t, []actionCase{{name: "DeleteMessage", run: func(e *env) {
		a, b := e.createQueue("first", nil), e.createQueue("second", nil)
		e.send(a, "m")
		h := e.receiveOne(a).Handle
		wantMessage(e.t, "DeleteMessage", e.c.DeleteMessage(b, h), 404, "ReceiptHandleIsInvalid",
			fmt.Sprintf("The receipt handle %q is not valid for this queue.", h))
	}}})
}

// Tags: an unknown queue is named before the tags are looked at
// (getmoto/moto test_tag_unknown_queue, test_untag_unknown_queue and
// test_list_queue_tags_errors, aws_verified), and an empty value is a tag
// like any other (localstack/localstack test_tag_untag_queue,
// markers.aws.validated). AWS's texts for bad tags are not recorded;
// minisqs keeps its own.
func TestFidelityTags(t *testing.T) {
	runCases(t, []actionCase{{name: "unknown queue and empty value", run: func(e *env) {
		qurl := e.createQueue("tagged", nil)
		if err := e.c.TagQueue(qurl, map[string]string{"tag1": "value1", "tag2": "value2", "tag3": ""}); err != nil {
			e.t.Fatal(err)
		}
		got, err := e.c.ListQueueTags(qurl)
		if err != nil {
			e.t.Fatal(err)
		}
		if v, ok := got["tag3"]; len(got) != 3 || !ok || v != "" || got["tag1"] != "value1" {
			e.t.Errorf("tags %v", got)
		}
		gone := e.url("unknown")
		_, err = e.c.ListQueueTags(gone)
		for i, err := range []error{e.c.TagQueue(gone, map[string]string{"t": "v"}), e.c.UntagQueue(gone, "tag1"), err} {
			if got := mustAPIError(e.t, err); got.Code != nonExistentQueue || got.Status != 400 {
				e.t.Errorf("call %d on an unknown queue: %+v", i, got)
			}
		}
	}}})
}

// The Policy AddPermission writes and the errors of labels, as
// localstack/localstack test_sqs.snapshot.json
// TestSqsProvider::test_sqs_permission_lifecycle[sqs] and [sqs_query]
// (recorded 30-04-2024) show them: Version 2008-10-17, Id
// "<arn>/SQSDefaultPolicy", one statement per label with a string
// principal for one account and a list for several, "SQS:<Action>", the
// statement gone with its label and the Policy with its last statement.
func TestFidelityPermissionPolicy(t *testing.T) {
	runCases(t, []actionCase{{name: "lifecycle", run: func(e *env) {
		qurl := e.createQueue("shared", nil)
		add := func(label string, accounts ...string) error {
			return e.c.AddPermission(qurl, label, accounts, []string{"ReceiveMessage"})
		}
		remove := func(label string) error { return e.c.RemovePermission(qurl, label) }
		policy := func() (string, bool) {
			v, ok := e.attrs(qurl, "Policy")["Policy"]
			return v, ok
		}
		statement := func(sid, principal string) string {
			return `{"Sid":"` + sid + `","Effect":"Allow","Principal":{"AWS":` + principal + `},"Action":"SQS:ReceiveMessage","Resource":"` + arn("shared") + `"}`
		}
		doc := func(statements ...string) string {
			return `{"Version":"2008-10-17","Id":"` + arn("shared") + `/SQSDefaultPolicy","Statement":[` + strings.Join(statements, ",") + `]}`
		}
		if err := add("crossaccountpermission", "668614515564", defaultAccount); err != nil {
			e.t.Fatal(err)
		}
		got, _ := policy()
		var parsed struct {
			Statement []struct{ Principal struct{ AWS []string } }
		}
		if err := json.Unmarshal([]byte(got), &parsed); err != nil || len(parsed.Statement) != 1 || len(parsed.Statement[0].Principal.AWS) != 2 {
			e.t.Errorf("two accounts: %s (%v)", got, err)
		}
		if want := doc(statement("crossaccountpermission", `["arn:aws:iam::668614515564:root","arn:aws:iam::`+defaultAccount+`:root"]`)); got != want {
			e.t.Errorf("policy\n %s\nwant\n %s", got, want)
		}
		if err := remove("crossaccountpermission"); err != nil {
			e.t.Fatal(err)
		}
		if got, ok := policy(); ok {
			e.t.Errorf("Policy %q after its last statement went", got)
		}
		one := `"arn:aws:iam::` + defaultAccount + `:root"`
		if err := add("crossaccountpermission", defaultAccount); err != nil {
			e.t.Fatal(err)
		}
		wantMessage(e.t, "repeated label", add("crossaccountpermission", "668614515564"), 400, "InvalidParameterValue",
			"Value crossaccountpermission for parameter Label is invalid. Reason: Already exists.")
		if err := add("crossaccountpermission2", defaultAccount); err != nil {
			e.t.Fatal(err)
		}
		if got, _ := policy(); got != doc(statement("crossaccountpermission", one), statement("crossaccountpermission2", one)) {
			e.t.Errorf("two labels: %s", got)
		}
		if err := remove("crossaccountpermission"); err != nil {
			e.t.Fatal(err)
		}
		if got, _ := policy(); got != doc(statement("crossaccountpermission2", one)) {
			e.t.Errorf("after removing the first: %s", got)
		}
		if err := remove("crossaccountpermission2"); err != nil {
			e.t.Fatal(err)
		}
		wantMessage(e.t, "unknown label", remove("crossaccountpermission2"), 400, "InvalidParameterValue",
			"Value crossaccountpermission2 for parameter Label is invalid. Reason: can't find label.")
	}}})
}
