package compat

// Queue actions over the JSON protocol with aws-sdk-go-v2: CreateQueue,
// GetQueueUrl, ListQueues, Get/SetQueueAttributes, DeleteQueue, PurgeQueue,
// tags, ListDeadLetterSourceQueues and Add/RemovePermission.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/server"
)

func TestJSONCreateQueue(t *testing.T) {
	t.Parallel()

	t.Run("defaults", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("plain", nil)
		got := e.attrs(url)
		want := map[string]string{
			"ApproximateNumberOfMessages":           "0",
			"ApproximateNumberOfMessagesNotVisible": "0",
			"ApproximateNumberOfMessagesDelayed":    "0",
			"DelaySeconds":                          "0",
			"MaximumMessageSize":                    "1048576",
			"MessageRetentionPeriod":                "345600",
			"ReceiveMessageWaitTimeSeconds":         "0",
			"VisibilityTimeout":                     "30",
			"QueueArn":                              jsArn("plain"),
			"SqsManagedSseEnabled":                  "true",
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %q, want %q", k, got[k], v)
			}
		}
		for _, k := range []string{"CreatedTimestamp", "LastModifiedTimestamp"} {
			if _, ok := got[k]; !ok {
				t.Errorf("All lacks %s", k)
			}
		}
		// A standard queue has no FIFO attributes and no unset policies.
		for _, k := range []string{"FifoQueue", "ContentBasedDeduplication", "DeduplicationScope", "FifoThroughputLimit", "RedrivePolicy", "RedriveAllowPolicy", "Policy", "KmsMasterKeyId"} {
			if v, ok := got[k]; ok {
				t.Errorf("standard queue has %s = %q", k, v)
			}
		}
	})

	t.Run("attributes", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		attrs := map[string]string{
			"DelaySeconds":                  "5",
			"MaximumMessageSize":            "2048",
			"MessageRetentionPeriod":        "120",
			"ReceiveMessageWaitTimeSeconds": "3",
			"VisibilityTimeout":             "45",
		}
		url := e.createQueue("configured", attrs)
		got := e.attrs(url)
		for k, v := range attrs {
			if got[k] != v {
				t.Errorf("%s = %q, want %q", k, got[k], v)
			}
		}
	})

	t.Run("tags", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		_, err := e.c.CreateQueue(e.ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("tagged"), Tags: map[string]string{"env": "test", "team": "core"}})
		if err != nil {
			t.Fatal(err)
		}
		tags, err := e.c.ListQueueTags(e.ctx, &sqsv2.ListQueueTagsInput{QueueUrl: awsv2.String(e.url("tagged"))})
		if err != nil {
			t.Fatal(err)
		}
		if len(tags.Tags) != 2 || tags.Tags["env"] != "test" || tags.Tags["team"] != "core" {
			t.Fatalf("tags = %v", tags.Tags)
		}
	})

	t.Run("idempotent with identical attributes", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		attrs := map[string]string{"VisibilityTimeout": "45", "DelaySeconds": "2"}
		url := e.createQueue("same", attrs)
		e.send(url, "kept")
		again := e.createQueue("same", map[string]string{"VisibilityTimeout": "45", "DelaySeconds": "2"})
		if again != url {
			t.Fatalf("second CreateQueue URL %q, first %q", again, url)
		}
		// Naming a default value the queue has is identical too.
		if again := e.createQueue("same", map[string]string{"MaximumMessageSize": "1048576", "VisibilityTimeout": "45"}); again != url {
			t.Fatalf("third CreateQueue URL %q, first %q", again, url)
		}
		// It is the same queue: the message is still there.
		if c := e.counts(url); c[0]+c[2] != 1 {
			t.Fatalf("counts after identical CreateQueue = %v", c)
		}
		list, err := e.c.ListQueues(e.ctx, &sqsv2.ListQueuesInput{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.QueueUrls) != 1 {
			t.Fatalf("ListQueues = %v", list.QueueUrls)
		}
	})

	t.Run("QueueNameExists with different attributes", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("taken", map[string]string{"VisibilityTimeout": "45"})
		_, err := e.c.CreateQueue(e.ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("taken"), Attributes: map[string]string{"VisibilityTimeout": "46"}})
		jsWantErr[*types.QueueNameExists](t, err, "QueueAlreadyExists")
		if s := jsStatus(t, err); s != 400 {
			t.Fatalf("status = %d, want 400", s)
		}
		if got := e.attrs(url, types.QueueAttributeNameVisibilityTimeout)["VisibilityTimeout"]; got != "45" {
			t.Fatalf("VisibilityTimeout changed to %q", got)
		}
	})

	t.Run("invalid names", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		for _, name := range []string{"has space", "bang!", "dot.ted", strings.Repeat("a", 81), "名前"} {
			_, err := e.c.CreateQueue(e.ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String(name)})
			jsWantCode(t, err, "InvalidParameterValue")
		}
		// 80 characters of the allowed set is fine.
		e.createQueue(strings.Repeat("a", 40)+strings.Repeat("-_", 20), nil)
		list, err := e.c.ListQueues(e.ctx, &sqsv2.ListQueuesInput{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.QueueUrls) != 1 {
			t.Fatalf("ListQueues after invalid names = %v", list.QueueUrls)
		}
	})

	t.Run("invalid attribute", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		_, err := e.c.CreateQueue(e.ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("q"), Attributes: map[string]string{"VisibilityTimeout": "43201"}})
		jsWantErr[*types.InvalidAttributeValue](t, err, "InvalidAttributeValue")
		_, err = e.c.CreateQueue(e.ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("q"), Attributes: map[string]string{"Bogus": "1"}})
		jsWantErr[*types.InvalidAttributeName](t, err, "InvalidAttributeName")
		_, err = e.c.GetQueueUrl(e.ctx, &sqsv2.GetQueueUrlInput{QueueName: awsv2.String("q")})
		jsWantErr[*types.QueueDoesNotExist](t, err, "AWS.SimpleQueueService.NonExistentQueue")
	})

	t.Run("FIFO", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("ordered.fifo", map[string]string{"FifoQueue": "true"})
		got := e.attrs(url)
		if got["FifoQueue"] != "true" || got["ContentBasedDeduplication"] != "false" {
			t.Fatalf("FIFO attributes = %v", got)
		}
		_, err := e.c.CreateQueue(e.ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("notfifo"), Attributes: map[string]string{"FifoQueue": "true"}})
		jsWantCode(t, err, "InvalidParameterValue")
	})
}

func TestJSONGetQueueUrl(t *testing.T) {
	e := newJSEnv(t, server.Config{})
	url := e.createQueue("found", nil)
	out, err := e.c.GetQueueUrl(e.ctx, &sqsv2.GetQueueUrlInput{QueueName: awsv2.String("found")})
	if err != nil {
		t.Fatal(err)
	}
	if *out.QueueUrl != url {
		t.Fatalf("QueueUrl = %q, want %q", *out.QueueUrl, url)
	}
	out, err = e.c.GetQueueUrl(e.ctx, &sqsv2.GetQueueUrlInput{QueueName: awsv2.String("found"), QueueOwnerAWSAccountId: awsv2.String(jsAccount)})
	if err != nil || *out.QueueUrl != url {
		t.Fatalf("with owner account: %v %v", out, err)
	}

	_, err = e.c.GetQueueUrl(e.ctx, &sqsv2.GetQueueUrlInput{QueueName: awsv2.String("missing")})
	qdne := jsWantErr[*types.QueueDoesNotExist](t, err, "AWS.SimpleQueueService.NonExistentQueue")
	if qdne.ErrorMessage() == "" {
		t.Fatal("QueueDoesNotExist without a message")
	}
	if s := jsStatus(t, err); s != 400 {
		t.Fatalf("status = %d, want 400", s)
	}
	_, err = e.c.GetQueueUrl(e.ctx, &sqsv2.GetQueueUrlInput{QueueName: awsv2.String("found"), QueueOwnerAWSAccountId: awsv2.String("123456789012")})
	jsWantErr[*types.QueueDoesNotExist](t, err, "AWS.SimpleQueueService.NonExistentQueue")
}

func TestJSONListQueues(t *testing.T) {
	t.Parallel()

	t.Run("prefix", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		for _, n := range []string{"alpha-1", "alpha-2", "beta-1", "alphabet"} {
			e.createQueue(n, nil)
		}
		out, err := e.c.ListQueues(e.ctx, &sqsv2.ListQueuesInput{QueueNamePrefix: awsv2.String("alpha-")})
		if err != nil {
			t.Fatal(err)
		}
		got := slices.Sorted(slices.Values(out.QueueUrls))
		if want := []string{e.url("alpha-1"), e.url("alpha-2")}; !slices.Equal(got, want) {
			t.Fatalf("prefix alpha- = %v, want %v", got, want)
		}
		if out.NextToken != nil {
			t.Fatalf("NextToken without MaxResults: %q", *out.NextToken)
		}
		out, err = e.c.ListQueues(e.ctx, &sqsv2.ListQueuesInput{})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.QueueUrls) != 4 {
			t.Fatalf("all queues = %v", out.QueueUrls)
		}
	})

	t.Run("MaxResults and NextToken", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		var want []string
		for i := range 5 {
			want = append(want, e.createQueue(fmt.Sprintf("page-%d", i), nil))
		}
		e.createQueue("other", nil)
		var got []string
		var token *string
		for page := 0; ; page++ {
			if page > 5 {
				t.Fatal("paging does not end")
			}
			out, err := e.c.ListQueues(e.ctx, &sqsv2.ListQueuesInput{QueueNamePrefix: awsv2.String("page-"), MaxResults: awsv2.Int32(2), NextToken: token})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.QueueUrls) > 2 || len(out.QueueUrls) == 0 {
				t.Fatalf("page %d has %d URLs", page, len(out.QueueUrls))
			}
			got = append(got, out.QueueUrls...)
			if out.NextToken == nil {
				if page != 2 {
					t.Fatalf("paging ended after page %d, want 3 pages", page)
				}
				break
			}
			token = out.NextToken
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("paged URLs = %v, want %v", got, want)
		}

		// The SDK's paginator walks the same pages.
		p := sqsv2.NewListQueuesPaginator(e.c, &sqsv2.ListQueuesInput{MaxResults: awsv2.Int32(4)})
		var all []string
		for i := 0; p.HasMorePages(); i++ {
			if i > 5 {
				t.Fatal("paginator does not end")
			}
			out, err := p.NextPage(e.ctx)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, out.QueueUrls...)
		}
		if len(all) != 6 {
			t.Fatalf("paginator found %d queues, want 6: %v", len(all), all)
		}

		for _, bad := range []int32{0, 1001} {
			_, err := e.c.ListQueues(e.ctx, &sqsv2.ListQueuesInput{MaxResults: awsv2.Int32(bad)})
			jsWantCode(t, err, "InvalidParameterValue")
		}
	})

	t.Run("at most 1000 and no NextToken without MaxResults", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		for i := range 1001 {
			if _, err := e.srv.Engine().CreateQueue(fmt.Sprintf("many-%04d", i), engine.AttributeUpdate{}, nil); err != nil {
				t.Fatal(err)
			}
		}
		out, err := e.c.ListQueues(e.ctx, &sqsv2.ListQueuesInput{})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.QueueUrls) != 1000 {
			t.Fatalf("ListQueues returned %d URLs, want 1000", len(out.QueueUrls))
		}
		if out.NextToken != nil {
			t.Fatalf("NextToken without MaxResults: %q", *out.NextToken)
		}
		out, err = e.c.ListQueues(e.ctx, &sqsv2.ListQueuesInput{MaxResults: awsv2.Int32(1000)})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.QueueUrls) != 1000 || out.NextToken == nil {
			t.Fatalf("MaxResults 1000: %d URLs, NextToken %v", len(out.QueueUrls), out.NextToken)
		}
		rest, err := e.c.ListQueues(e.ctx, &sqsv2.ListQueuesInput{MaxResults: awsv2.Int32(1000), NextToken: out.NextToken})
		if err != nil {
			t.Fatal(err)
		}
		if len(rest.QueueUrls) != 1 || rest.NextToken != nil || slices.Contains(out.QueueUrls, rest.QueueUrls[0]) {
			t.Fatalf("second page: %v, NextToken %v", rest.QueueUrls, rest.NextToken)
		}
	})

	t.Run("empty", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		out, err := e.c.ListQueues(e.ctx, &sqsv2.ListQueuesInput{})
		if err != nil {
			t.Fatal(err)
		}
		if out.QueueUrls != nil || out.NextToken != nil {
			t.Fatalf("ListQueues on no queues = %#v, %v", out.QueueUrls, out.NextToken)
		}
		r := jsPost(t, e.srv.URL(), "AmazonSQS.ListQueues", `{}`)
		if _, ok := r.JSON["QueueUrls"]; ok || r.Status != 200 {
			t.Fatalf("empty ListQueues answered %d %s", r.Status, r.Body)
		}
	})
}

func TestJSONGetQueueAttributes(t *testing.T) {
	t.Parallel()

	t.Run("individual names", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("some", map[string]string{"VisibilityTimeout": "77"})
		got := e.attrs(url, types.QueueAttributeNameVisibilityTimeout, types.QueueAttributeNameQueueArn)
		if len(got) != 2 || got["VisibilityTimeout"] != "77" || got["QueueArn"] != jsArn("some") {
			t.Fatalf("attributes = %v", got)
		}
		// All together with a name is still all.
		all := e.attrs(url, types.QueueAttributeNameAll, types.QueueAttributeNameDelaySeconds)
		if len(all) < 12 || all["VisibilityTimeout"] != "77" {
			t.Fatalf("All = %v", all)
		}
		// No names: no attributes.
		out, err := e.c.GetQueueAttributes(e.ctx, &sqsv2.GetQueueAttributesInput{QueueUrl: awsv2.String(url)})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Attributes) != 0 {
			t.Fatalf("no names gave %v", out.Attributes)
		}
	})

	t.Run("unknown name", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("q", nil)
		_, err := e.c.GetQueueAttributes(e.ctx, &sqsv2.GetQueueAttributesInput{QueueUrl: awsv2.String(url), AttributeNames: []types.QueueAttributeName{"VisibilityTimeout", "NoSuchAttribute"}})
		jsWantErr[*types.InvalidAttributeName](t, err, "InvalidAttributeName")
		if s := jsStatus(t, err); s != 400 {
			t.Fatalf("status = %d, want 400", s)
		}
	})

	t.Run("missing queue", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		_, err := e.c.GetQueueAttributes(e.ctx, &sqsv2.GetQueueAttributesInput{QueueUrl: awsv2.String(e.url("gone")), AttributeNames: []types.QueueAttributeName{"All"}})
		jsWantErr[*types.QueueDoesNotExist](t, err, "AWS.SimpleQueueService.NonExistentQueue")
	})

	t.Run("message counts", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("counted", nil)
		for i := range 3 {
			e.send(url, fmt.Sprint("visible ", i))
		}
		if _, err := e.c.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(url), MessageBody: awsv2.String("later"), DelaySeconds: 60}); err != nil {
			t.Fatal(err)
		}
		e.wantCounts(url, 3, 0, 1)
		got := e.receive(&sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(url), MaxNumberOfMessages: 2})
		if len(got) != 2 {
			t.Fatalf("received %d", len(got))
		}
		e.wantCounts(url, 1, 2, 1)
		if _, err := e.c.DeleteMessage(e.ctx, &sqsv2.DeleteMessageInput{QueueUrl: awsv2.String(url), ReceiptHandle: got[0].ReceiptHandle}); err != nil {
			t.Fatal(err)
		}
		e.wantCounts(url, 1, 1, 1)
		e.advance(30 * time.Second) // the lease ends
		e.wantCounts(url, 2, 0, 1)
		e.advance(30 * time.Second) // the delay ends
		e.wantCounts(url, 3, 0, 0)
	})

	t.Run("timestamps and ARN", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		created := e.srv.Clock.Now().Unix()
		url := e.createQueue("stamped", nil)
		got := e.attrs(url)
		if got["CreatedTimestamp"] != strconv.FormatInt(created, 10) {
			t.Fatalf("CreatedTimestamp = %q, want epoch seconds %d", got["CreatedTimestamp"], created)
		}
		if got["LastModifiedTimestamp"] != strconv.FormatInt(created, 10) {
			t.Fatalf("LastModifiedTimestamp = %q, want epoch seconds %d", got["LastModifiedTimestamp"], created)
		}
		if got["QueueArn"] != "arn:aws:sqs:us-east-1:000000000000:stamped" {
			t.Fatalf("QueueArn = %q", got["QueueArn"])
		}
		e.advance(100 * time.Second)
		if err := e.setAttrs(url, map[string]string{"VisibilityTimeout": "31"}); err != nil {
			t.Fatal(err)
		}
		got = e.attrs(url, types.QueueAttributeNameCreatedTimestamp, types.QueueAttributeNameLastModifiedTimestamp)
		if got["CreatedTimestamp"] != strconv.FormatInt(created, 10) || got["LastModifiedTimestamp"] != strconv.FormatInt(created+100, 10) {
			t.Fatalf("after SetQueueAttributes: %v, want created %d, modified %d", got, created, created+100)
		}
	})

	t.Run("ARN follows configured region and account", func(t *testing.T) {
		e := newJSEnv(t, server.Config{Region: "eu-west-2", AccountID: "123456789012"})
		// The request acts in its signature's region; a client of the key
		// "test" names no account, so the configured one holds.
		e.c = sqsv2.New(e.c.Options(), func(o *sqsv2.Options) { o.Region = "eu-west-2" })
		out, err := e.c.CreateQueue(e.ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("regional")})
		if err != nil {
			t.Fatal(err)
		}
		if want := e.srv.URL() + "/123456789012/regional"; *out.QueueUrl != want {
			t.Fatalf("QueueUrl = %q, want %q", *out.QueueUrl, want)
		}
		if got := e.attrs(*out.QueueUrl, types.QueueAttributeNameQueueArn)["QueueArn"]; got != "arn:aws:sqs:eu-west-2:123456789012:regional" {
			t.Fatalf("QueueArn = %q", got)
		}
	})
}

func TestJSONSetQueueAttributes(t *testing.T) {
	t.Parallel()

	t.Run("each settable attribute", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("settable", nil)
		policy := `{"Version":"2012-10-17","Statement":[{"Sid":"s1","Effect":"Allow","Principal":"*","Action":"sqs:SendMessage","Resource":"` + jsArn("settable") + `"}]}`
		for _, c := range []struct{ name, value string }{
			{"DelaySeconds", "7"},
			{"DelaySeconds", "900"},
			{"MaximumMessageSize", "1024"},
			{"MaximumMessageSize", "1048576"},
			{"MaximumMessageSize", "4096"},
			{"MessageRetentionPeriod", "60"},
			{"MessageRetentionPeriod", "1209600"},
			{"MessageRetentionPeriod", "600"},
			{"ReceiveMessageWaitTimeSeconds", "20"},
			{"ReceiveMessageWaitTimeSeconds", "2"},
			{"VisibilityTimeout", "0"},
			{"VisibilityTimeout", "43200"},
			{"VisibilityTimeout", "90"},
			{"Policy", policy},
			{"SqsManagedSseEnabled", "false"},
			{"SqsManagedSseEnabled", "true"},
		} {
			if err := e.setAttrs(url, map[string]string{c.name: c.value}); err != nil {
				t.Fatalf("set %s=%s: %v", c.name, c.value, err)
			}
			if got := e.attrs(url, types.QueueAttributeName(c.name))[c.name]; got != c.value {
				t.Fatalf("%s = %q after setting %q", c.name, got, c.value)
			}
		}
		// Several at once.
		if err := e.setAttrs(url, map[string]string{"DelaySeconds": "1", "VisibilityTimeout": "2"}); err != nil {
			t.Fatal(err)
		}
		got := e.attrs(url)
		if got["DelaySeconds"] != "1" || got["VisibilityTimeout"] != "2" || got["MaximumMessageSize"] != "4096" || got["Policy"] != policy {
			t.Fatalf("after setting two: %v", got)
		}
	})

	t.Run("settings take effect", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("effective", nil)
		if err := e.setAttrs(url, map[string]string{"VisibilityTimeout": "5", "MessageRetentionPeriod": "60", "DelaySeconds": "2"}); err != nil {
			t.Fatal(err)
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
	})

	t.Run("KMS attributes stored", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("kms", nil)
		if err := e.setAttrs(url, map[string]string{"KmsMasterKeyId": "alias/aws/sqs", "KmsDataKeyReusePeriodSeconds": "600"}); err != nil {
			t.Fatal(err)
		}
		got := e.attrs(url)
		if got["KmsMasterKeyId"] != "alias/aws/sqs" || got["KmsDataKeyReusePeriodSeconds"] != "600" {
			t.Fatalf("KMS attributes = %v", got)
		}
		// SSE-KMS replaces SSE-SQS.
		if got["SqsManagedSseEnabled"] != "false" {
			t.Fatalf("SqsManagedSseEnabled = %q with a KMS key", got["SqsManagedSseEnabled"])
		}
		got = e.attrs(url, types.QueueAttributeNameKmsMasterKeyId)
		if len(got) != 1 || got["KmsMasterKeyId"] != "alias/aws/sqs" {
			t.Fatalf("KmsMasterKeyId alone = %v", got)
		}
		// As Terraform sends them at creation.
		url2 := e.createQueue("kms-created", map[string]string{"KmsMasterKeyId": "arn:aws:kms:us-east-1:000000000000:key/abc", "KmsDataKeyReusePeriodSeconds": "300", "SqsManagedSseEnabled": "false", "Policy": "", "RedriveAllowPolicy": ""})
		got = e.attrs(url2)
		if got["KmsMasterKeyId"] != "arn:aws:kms:us-east-1:000000000000:key/abc" || got["KmsDataKeyReusePeriodSeconds"] != "300" || got["SqsManagedSseEnabled"] != "false" {
			t.Fatalf("created with KMS attributes: %v", got)
		}
	})

	t.Run("out of range", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("ranged", nil)
		before := e.attrs(url)
		for _, c := range []struct{ name, value string }{
			{"DelaySeconds", "-1"},
			{"DelaySeconds", "901"},
			{"MaximumMessageSize", "1023"},
			{"MaximumMessageSize", "1048577"},
			{"MessageRetentionPeriod", "59"},
			{"MessageRetentionPeriod", "1209601"},
			{"ReceiveMessageWaitTimeSeconds", "21"},
			{"VisibilityTimeout", "43201"},
			{"VisibilityTimeout", "-1"},
			{"VisibilityTimeout", "ten"},
			{"KmsDataKeyReusePeriodSeconds", "59"},
			{"KmsDataKeyReusePeriodSeconds", "86401"},
			{"SqsManagedSseEnabled", "maybe"},
			{"Policy", "{not json"},
		} {
			err := e.setAttrs(url, map[string]string{c.name: c.value})
			jsWantErr[*types.InvalidAttributeValue](t, err, "InvalidAttributeValue")
		}
		// A bad value fails the whole request.
		err := e.setAttrs(url, map[string]string{"DelaySeconds": "3", "VisibilityTimeout": "99999"})
		jsWantErr[*types.InvalidAttributeValue](t, err, "InvalidAttributeValue")
		after := e.attrs(url)
		for _, k := range []string{"DelaySeconds", "MaximumMessageSize", "MessageRetentionPeriod", "ReceiveMessageWaitTimeSeconds", "VisibilityTimeout", "LastModifiedTimestamp"} {
			if before[k] != after[k] {
				t.Fatalf("%s changed from %q to %q by failed updates", k, before[k], after[k])
			}
		}
	})

	t.Run("unknown and FIFO-only names", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		url := e.createQueue("names", nil)
		for _, name := range []string{"Bogus", "QueueArn", "ApproximateNumberOfMessages", "DeduplicationScope", "FifoThroughputLimit"} {
			err := e.setAttrs(url, map[string]string{name: "x"})
			jsWantErr[*types.InvalidAttributeName](t, err, "InvalidAttributeName")
		}
	})

	t.Run("missing queue", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		err := e.setAttrs(e.url("nope"), map[string]string{"DelaySeconds": "1"})
		jsWantErr[*types.QueueDoesNotExist](t, err, "AWS.SimpleQueueService.NonExistentQueue")
	})

	t.Run("RedrivePolicy", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		e.createQueue("dlq", nil)
		url := e.createQueue("src", nil)
		readPolicy := func() map[string]any {
			t.Helper()
			raw := e.attrs(url, types.QueueAttributeNameRedrivePolicy)["RedrivePolicy"]
			var p map[string]any
			if err := json.Unmarshal([]byte(raw), &p); err != nil {
				t.Fatalf("RedrivePolicy %q: %v", raw, err)
			}
			return p
		}
		// maxReceiveCount as a string, as the console and many tools send it.
		if err := e.setAttrs(url, map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"` + jsArn("dlq") + `","maxReceiveCount":"5"}`}); err != nil {
			t.Fatalf("string maxReceiveCount: %v", err)
		}
		p := readPolicy()
		if p["deadLetterTargetArn"] != jsArn("dlq") || fmt.Sprint(p["maxReceiveCount"]) != "5" {
			t.Fatalf("RedrivePolicy = %v", p)
		}
		// maxReceiveCount as a number.
		if err := e.setAttrs(url, map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"` + jsArn("dlq") + `","maxReceiveCount":7}`}); err != nil {
			t.Fatalf("numeric maxReceiveCount: %v", err)
		}
		if p := readPolicy(); fmt.Sprint(p["maxReceiveCount"]) != "7" {
			t.Fatalf("RedrivePolicy = %v", p)
		}
		// Invalid policies.
		for _, bad := range []string{
			`{"deadLetterTargetArn":"` + jsArn("no-such-dlq") + `","maxReceiveCount":3}`,
			`{"maxReceiveCount":3}`,
			`{"deadLetterTargetArn":"` + jsArn("dlq") + `"}`,
			`not json`,
		} {
			err := e.setAttrs(url, map[string]string{"RedrivePolicy": bad})
			jsWantCode(t, err, "InvalidParameterValue")
		}
		for _, bad := range []string{
			`{"deadLetterTargetArn":"` + jsArn("dlq") + `","maxReceiveCount":0}`,
			`{"deadLetterTargetArn":"` + jsArn("dlq") + `","maxReceiveCount":1001}`,
		} {
			err := e.setAttrs(url, map[string]string{"RedrivePolicy": bad})
			if err == nil {
				t.Fatalf("RedrivePolicy %s accepted", bad)
			}
		}
		if p := readPolicy(); fmt.Sprint(p["maxReceiveCount"]) != "7" {
			t.Fatalf("RedrivePolicy changed by failed updates: %v", p)
		}
		// An empty value removes the policy.
		if err := e.setAttrs(url, map[string]string{"RedrivePolicy": ""}); err != nil {
			t.Fatal(err)
		}
		if v, ok := e.attrs(url)["RedrivePolicy"]; ok {
			t.Fatalf("RedrivePolicy still %q after clearing", v)
		}
	})

	t.Run("RedriveAllowPolicy", func(t *testing.T) {
		e := newJSEnv(t, server.Config{})
		dlq := e.createQueue("guarded-dlq", nil)
		src := e.createQueue("src", nil)
		other := e.createQueue("other", nil)
		redrive := map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"` + jsArn("guarded-dlq") + `","maxReceiveCount":"3"}`}

		if err := e.setAttrs(dlq, map[string]string{"RedriveAllowPolicy": `{"redrivePermission":"denyAll"}`}); err != nil {
			t.Fatal(err)
		}
		var rap map[string]any
		if err := json.Unmarshal([]byte(e.attrs(dlq)["RedriveAllowPolicy"]), &rap); err != nil || rap["redrivePermission"] != "denyAll" {
			t.Fatalf("RedriveAllowPolicy = %v (%v)", rap, err)
		}
		jsWantCode(t, e.setAttrs(src, redrive), "InvalidParameterValue")
		_, err := e.c.CreateQueue(e.ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("new-src"), Attributes: redrive})
		jsWantCode(t, err, "InvalidParameterValue")
		if _, ok := e.attrs(src)["RedrivePolicy"]; ok {
			t.Fatal("denied RedrivePolicy was stored")
		}

		// byQueue admits the named source only.
		if err := e.setAttrs(dlq, map[string]string{"RedriveAllowPolicy": `{"redrivePermission":"byQueue","sourceQueueArns":["` + jsArn("src") + `"]}`}); err != nil {
			t.Fatal(err)
		}
		if err := e.setAttrs(src, redrive); err != nil {
			t.Fatalf("byQueue source refused: %v", err)
		}
		jsWantCode(t, e.setAttrs(other, redrive), "InvalidParameterValue")

		// allowAll admits everyone.
		if err := e.setAttrs(dlq, map[string]string{"RedriveAllowPolicy": `{"redrivePermission":"allowAll"}`}); err != nil {
			t.Fatal(err)
		}
		if err := e.setAttrs(other, redrive); err != nil {
			t.Fatalf("allowAll source refused: %v", err)
		}

		// Invalid permission values.
		for _, bad := range []string{`{"redrivePermission":"sometimes"}`, `{"redrivePermission":"byQueue"}`, `{"redrivePermission":"denyAll","sourceQueueArns":["` + jsArn("src") + `"]}`, `nope`} {
			jsWantErr[*types.InvalidAttributeValue](t, e.setAttrs(dlq, map[string]string{"RedriveAllowPolicy": bad}), "InvalidAttributeValue")
		}
	})
}

func TestJSONListDeadLetterSourceQueues(t *testing.T) {
	e := newJSEnv(t, server.Config{})
	dlq := e.createQueue("dlq", nil)
	redrive := map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"` + jsArn("dlq") + `","maxReceiveCount":"2"}`}
	src1 := e.createQueue("src-1", redrive)
	src2 := e.createQueue("src-2", nil)
	if err := e.setAttrs(src2, redrive); err != nil {
		t.Fatal(err)
	}
	e.createQueue("unrelated", nil)

	out, err := e.c.ListDeadLetterSourceQueues(e.ctx, &sqsv2.ListDeadLetterSourceQueuesInput{QueueUrl: awsv2.String(dlq)})
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(slices.Values(out.QueueUrls))
	if want := []string{src1, src2}; !slices.Equal(got, want) {
		t.Fatalf("sources = %v, want %v", got, want)
	}
	if out.NextToken != nil {
		t.Fatalf("NextToken without MaxResults: %q", *out.NextToken)
	}

	// Paging.
	page, err := e.c.ListDeadLetterSourceQueues(e.ctx, &sqsv2.ListDeadLetterSourceQueuesInput{QueueUrl: awsv2.String(dlq), MaxResults: awsv2.Int32(1)})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.QueueUrls) != 1 || page.NextToken == nil {
		t.Fatalf("first page: %v %v", page.QueueUrls, page.NextToken)
	}
	next, err := e.c.ListDeadLetterSourceQueues(e.ctx, &sqsv2.ListDeadLetterSourceQueuesInput{QueueUrl: awsv2.String(dlq), MaxResults: awsv2.Int32(1), NextToken: page.NextToken})
	if err != nil {
		t.Fatal(err)
	}
	if len(next.QueueUrls) != 1 || next.NextToken != nil || next.QueueUrls[0] == page.QueueUrls[0] {
		t.Fatalf("second page: %v %v", next.QueueUrls, next.NextToken)
	}

	// A queue nobody redrives to has no sources; removing a policy removes
	// the source.
	if err := e.setAttrs(src1, map[string]string{"RedrivePolicy": ""}); err != nil {
		t.Fatal(err)
	}
	out, err = e.c.ListDeadLetterSourceQueues(e.ctx, &sqsv2.ListDeadLetterSourceQueuesInput{QueueUrl: awsv2.String(dlq)})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.QueueUrls, []string{src2}) {
		t.Fatalf("sources after clearing src-1 = %v", out.QueueUrls)
	}
	out, err = e.c.ListDeadLetterSourceQueues(e.ctx, &sqsv2.ListDeadLetterSourceQueuesInput{QueueUrl: awsv2.String(src1)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.QueueUrls) != 0 {
		t.Fatalf("sources of src-1 = %v", out.QueueUrls)
	}
	// queueUrls is required in the answer, so it is sent even when empty.
	r := jsPost(t, e.srv.URL(), "AmazonSQS.ListDeadLetterSourceQueues", jsMustJSON(t, map[string]any{"QueueUrl": src1}))
	if urls, ok := r.JSON["queueUrls"].([]any); !ok || len(urls) != 0 {
		t.Fatalf("empty ListDeadLetterSourceQueues body: %s", r.Body)
	}

	_, err = e.c.ListDeadLetterSourceQueues(e.ctx, &sqsv2.ListDeadLetterSourceQueuesInput{QueueUrl: awsv2.String(e.url("nope"))})
	jsWantErr[*types.QueueDoesNotExist](t, err, "AWS.SimpleQueueService.NonExistentQueue")
}

// jsPolicy reads a queue's Policy attribute; nil when there is none.
func (e *jsEnv) policy(url string) map[string]any {
	e.t.Helper()
	raw, ok := e.attrs(url)["Policy"]
	if !ok {
		return nil
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		e.t.Fatalf("Policy %q: %v", raw, err)
	}
	return doc
}

func jsStatements(t *testing.T, doc map[string]any) map[string]map[string]any {
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

func TestJSONPermissions(t *testing.T) {
	e := newJSEnv(t, server.Config{})
	url := e.createQueue("shared", nil)
	if e.policy(url) != nil {
		t.Fatal("new queue has a Policy")
	}
	if _, err := e.c.AddPermission(e.ctx, &sqsv2.AddPermissionInput{QueueUrl: awsv2.String(url), Label: awsv2.String("send-only"), AWSAccountIds: []string{"111122223333"}, Actions: []string{"SendMessage"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.AddPermission(e.ctx, &sqsv2.AddPermissionInput{QueueUrl: awsv2.String(url), Label: awsv2.String("consumers"), AWSAccountIds: []string{"111122223333", "444455556666"}, Actions: []string{"ReceiveMessage", "DeleteMessage"}}); err != nil {
		t.Fatal(err)
	}
	doc := e.policy(url)
	sts := jsStatements(t, doc)
	if len(sts) != 2 {
		t.Fatalf("statements = %v", sts)
	}
	send := sts["send-only"]
	if send == nil || send["Effect"] != "Allow" || send["Resource"] != jsArn("shared") {
		t.Fatalf("send-only statement = %v", send)
	}
	if !strings.Contains(fmt.Sprint(send["Action"]), "SendMessage") || !strings.Contains(fmt.Sprint(send["Principal"]), "111122223333") {
		t.Fatalf("send-only statement = %v", send)
	}
	cons := sts["consumers"]
	if cons == nil || !strings.Contains(fmt.Sprint(cons["Action"]), "ReceiveMessage") || !strings.Contains(fmt.Sprint(cons["Action"]), "DeleteMessage") || !strings.Contains(fmt.Sprint(cons["Principal"]), "444455556666") {
		t.Fatalf("consumers statement = %v", cons)
	}

	// Duplicate label.
	_, err := e.c.AddPermission(e.ctx, &sqsv2.AddPermissionInput{QueueUrl: awsv2.String(url), Label: awsv2.String("send-only"), AWSAccountIds: []string{"111122223333"}, Actions: []string{"GetQueueUrl"}})
	jsWantCode(t, err, "InvalidParameterValue")
	// Unknown action.
	_, err = e.c.AddPermission(e.ctx, &sqsv2.AddPermissionInput{QueueUrl: awsv2.String(url), Label: awsv2.String("bad"), AWSAccountIds: []string{"111122223333"}, Actions: []string{"FlyAway"}})
	jsWantCode(t, err, "InvalidParameterValue")
	if got := len(jsStatements(t, e.policy(url))); got != 2 {
		t.Fatalf("failed AddPermission changed the policy: %d statements", got)
	}

	if _, err := e.c.RemovePermission(e.ctx, &sqsv2.RemovePermissionInput{QueueUrl: awsv2.String(url), Label: awsv2.String("send-only")}); err != nil {
		t.Fatal(err)
	}
	sts = jsStatements(t, e.policy(url))
	if len(sts) != 1 || sts["consumers"] == nil {
		t.Fatalf("after removing send-only: %v", sts)
	}
	_, err = e.c.RemovePermission(e.ctx, &sqsv2.RemovePermissionInput{QueueUrl: awsv2.String(url), Label: awsv2.String("send-only")})
	jsWantCode(t, err, "InvalidParameterValue")

	if _, err := e.c.RemovePermission(e.ctx, &sqsv2.RemovePermissionInput{QueueUrl: awsv2.String(url), Label: awsv2.String("consumers")}); err != nil {
		t.Fatal(err)
	}
	if doc := e.policy(url); doc != nil {
		t.Fatalf("Policy after removing the last statement: %v", doc)
	}

	// A Policy set by SetQueueAttributes is extended, not replaced.
	policy := `{"Version":"2012-10-17","Id":"mine","Statement":[{"Sid":"own","Effect":"Allow","Principal":"*","Action":"sqs:SendMessage","Resource":"` + jsArn("shared") + `","Condition":{"ArnEquals":{"aws:SourceArn":"arn:aws:sns:us-east-1:000000000000:topic"}}}]}`
	if err := e.setAttrs(url, map[string]string{"Policy": policy}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.AddPermission(e.ctx, &sqsv2.AddPermissionInput{QueueUrl: awsv2.String(url), Label: awsv2.String("added"), AWSAccountIds: []string{"111122223333"}, Actions: []string{"*"}}); err != nil {
		t.Fatal(err)
	}
	sts = jsStatements(t, e.policy(url))
	if len(sts) != 2 || sts["own"] == nil || sts["added"] == nil {
		t.Fatalf("statements after extending a set Policy: %v", sts)
	}
	// The statement set by hand is kept whole.
	if own := sts["own"]; own["Principal"] != "*" || !strings.Contains(fmt.Sprint(own["Condition"]), "arn:aws:sns:us-east-1:000000000000:topic") {
		t.Fatalf("own statement changed: %v", own)
	}
	if _, err := e.c.RemovePermission(e.ctx, &sqsv2.RemovePermissionInput{QueueUrl: awsv2.String(url), Label: awsv2.String("added")}); err != nil {
		t.Fatal(err)
	}
	sts = jsStatements(t, e.policy(url))
	if len(sts) != 1 || sts["own"]["Principal"] != "*" || sts["own"]["Condition"] == nil {
		t.Fatalf("statements after removing the added one: %v", sts)
	}

	_, err = e.c.AddPermission(e.ctx, &sqsv2.AddPermissionInput{QueueUrl: awsv2.String(e.url("nope")), Label: awsv2.String("x"), AWSAccountIds: []string{"111122223333"}, Actions: []string{"SendMessage"}})
	jsWantErr[*types.QueueDoesNotExist](t, err, "AWS.SimpleQueueService.NonExistentQueue")
}
