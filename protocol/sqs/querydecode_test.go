package sqs

import (
	"errors"
	"net/url"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/minisqs/minisqs/engine"
)

// qdProbe exercises kinds no SQS input has today (bool) and one the decoder
// cannot fill (a float), through the same tags.
type qdProbe struct {
	Flag    bool     `query:"Flag"`
	FlagPtr *bool    `query:"FlagPtr"`
	Count   int      `query:"Count"`
	Ratio   float64  `query:"Ratio"`
	Names   []string `query:"Name,list"`
	Untaged string
}

func qdInt(n int) *int       { return &n }
func qdStr(s string) *string { return &s }
func qdBool(b bool) *bool    { return &b }

func TestDecodeQuery(t *testing.T) {
	cases := []struct {
		name  string
		query string
		into  func() any
		want  any
	}{
		// Scalars.
		{"string scalar", "QueueName=orders&Action=CreateQueue",
			func() any { return new(CreateQueueInput) },
			&CreateQueueInput{QueueName: "orders"}},
		{"unicode and control characters kept byte for byte", "QueueUrl=q&MessageBody=" + url.QueryEscape("héllo 😀\t\r\n\x01\x00<&>\""),
			func() any { return new(SendMessageInput) },
			&SendMessageInput{QueueUrl: "q", MessageBody: qdStr("héllo 😀\t\r\n\x01\x00<&>\"")}},
		{"empty body is present, not absent", "QueueUrl=q&MessageBody=",
			func() any { return new(SendMessageInput) },
			&SendMessageInput{QueueUrl: "q", MessageBody: qdStr("")}},
		{"absent pointers stay nil", "QueueUrl=q",
			func() any { return new(SendMessageInput) },
			&SendMessageInput{QueueUrl: "q"}},
		{"repeated scalar takes the first", "QueueName=a&QueueName=b",
			func() any { return new(GetQueueUrlInput) },
			&GetQueueUrlInput{QueueName: "a"}},
		{"names are case-sensitive", "queuename=a&QUEUENAME=b",
			func() any { return new(GetQueueUrlInput) },
			&GetQueueUrlInput{}},

		// *int.
		{"*int", "MaxResults=5", func() any { return new(ListQueuesInput) }, &ListQueuesInput{MaxResults: qdInt(5)}},
		{"*int zero is not absent", "MaxResults=0", func() any { return new(ListQueuesInput) }, &ListQueuesInput{MaxResults: qdInt(0)}},
		{"*int negative", "QueueUrl=q&DelaySeconds=-3", func() any { return new(SendMessageInput) }, &SendMessageInput{QueueUrl: "q", DelaySeconds: qdInt(-3)}},
		{"*int surrounding space", "MaxResults=%207%20", func() any { return new(ListQueuesInput) }, &ListQueuesInput{MaxResults: qdInt(7)}},
		{"*int int32 max", "MaxResults=2147483647", func() any { return new(ListQueuesInput) }, &ListQueuesInput{MaxResults: qdInt(2147483647)}},
		{"receive knobs", "QueueUrl=q&MaxNumberOfMessages=10&VisibilityTimeout=0&WaitTimeSeconds=20&ReceiveRequestAttemptId=x",
			func() any { return new(ReceiveMessageInput) },
			&ReceiveMessageInput{QueueUrl: "q", MaxNumberOfMessages: qdInt(10), VisibilityTimeout: qdInt(0), WaitTimeSeconds: qdInt(20), ReceiveRequestAttemptId: "x"}},

		// bool, int (not pointer), untagged fields.
		{"bool", "Flag=true&FlagPtr=false&Count=3&Untaged=x",
			func() any { return new(qdProbe) },
			&qdProbe{Flag: true, FlagPtr: qdBool(false), Count: 3}},
		{"bool forms", "Flag=1&FlagPtr=TRUE",
			func() any { return new(qdProbe) },
			&qdProbe{Flag: true, FlagPtr: qdBool(true)}},

		// Lists.
		{"list in order", "QueueUrl=q&AttributeName.1=All&AttributeName.2=QueueArn",
			func() any { return new(GetQueueAttributesInput) },
			&GetQueueAttributesInput{QueueUrl: "q", AttributeNames: []string{"All", "QueueArn"}}},
		{"list out of order sorts by index", "AttributeName.3=C&AttributeName.1=A&AttributeName.2=B",
			func() any { return new(GetQueueAttributesInput) },
			&GetQueueAttributesInput{AttributeNames: []string{"A", "B", "C"}}},
		{"list with gaps", "AttributeName.7=G&AttributeName.2=B",
			func() any { return new(GetQueueAttributesInput) },
			&GetQueueAttributesInput{AttributeNames: []string{"B", "G"}}},
		{"list ignores index 0, negatives, words and the bare name", "AttributeName=x&AttributeName.0=z&AttributeName.-1=n&AttributeName.one=w&AttributeName.1=A",
			func() any { return new(GetQueueAttributesInput) },
			&GetQueueAttributesInput{AttributeNames: []string{"A"}}},
		{"list with a huge index", "AttributeName.99999999999=Q&AttributeName.1=A",
			func() any { return new(GetQueueAttributesInput) },
			&GetQueueAttributesInput{AttributeNames: []string{"A", "Q"}}},
		{"list index past int64 is ignored", "AttributeName.99999999999999999999999=Q&AttributeName.2=B",
			func() any { return new(GetQueueAttributesInput) },
			&GetQueueAttributesInput{AttributeNames: []string{"B"}}},
		{"list does not take a longer name's items", "AttributeName.1=A&AttributeNameX.1=B&MessageAttributeName.1=M",
			func() any { return new(ReceiveMessageInput) },
			&ReceiveMessageInput{AttributeNames: []string{"A"}, MessageSystemAttributeNames: []string{"A"}, MessageAttributeNames: []string{"M"}}},
		{"other lists", "QueueUrl=q&Label=l&AWSAccountId.1=111122223333&ActionName.1=SendMessage&ActionName.2=*",
			func() any { return new(AddPermissionInput) },
			&AddPermissionInput{QueueUrl: "q", Label: "l", AWSAccountIds: []string{"111122223333"}, Actions: []string{"SendMessage", "*"}}},
		{"tag keys", "QueueUrl=q&TagKey.2=b&TagKey.1=a",
			func() any { return new(UntagQueueInput) },
			&UntagQueueInput{QueueUrl: "q", TagKeys: []string{"a", "b"}}},
		{"probe list", "Name.2=two&Name.1=one",
			func() any { return new(qdProbe) },
			&qdProbe{Names: []string{"one", "two"}}},

		// Maps.
		{"attribute map", "QueueName=q&Attribute.1.Name=VisibilityTimeout&Attribute.1.Value=60&Attribute.2.Name=DelaySeconds&Attribute.2.Value=5",
			func() any { return new(CreateQueueInput) },
			&CreateQueueInput{QueueName: "q", Attributes: map[string]string{"VisibilityTimeout": "60", "DelaySeconds": "5"}}},
		{"tag map beside attribute map", "QueueName=q&Attribute.1.Name=FifoQueue&Attribute.1.Value=true&Tag.1.Key=team&Tag.1.Value=core&Tag.3.Key=env&Tag.3.Value=",
			func() any { return new(CreateQueueInput) },
			&CreateQueueInput{QueueName: "q", Attributes: map[string]string{"FifoQueue": "true"}, Tags: map[string]string{"team": "core", "env": ""}}},
		{"attribute value with JSON", "QueueUrl=q&Attribute.1.Name=RedrivePolicy&Attribute.1.Value=" + url.QueryEscape(`{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq","maxReceiveCount":"3"}`),
			func() any { return new(SetQueueAttributesInput) },
			&SetQueueAttributesInput{QueueUrl: "q", Attributes: map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq","maxReceiveCount":"3"}`}}},
		{"tag queue", "QueueUrl=q&Tag.1.Key=a&Tag.1.Value=1",
			func() any { return new(TagQueueInput) },
			&TagQueueInput{QueueUrl: "q", Tags: map[string]string{"a": "1"}}},

		// Maps of structs.
		{"message attributes", "QueueUrl=q&MessageBody=b" +
			"&MessageAttribute.1.Name=color&MessageAttribute.1.Value.StringValue=blue&MessageAttribute.1.Value.DataType=String" +
			"&MessageAttribute.2.Name=blob&MessageAttribute.2.Value.BinaryValue=AgME&MessageAttribute.2.Value.DataType=Binary" +
			"&MessageAttribute.3.Name=n&MessageAttribute.3.Value.StringValue=-1.5e3&MessageAttribute.3.Value.DataType=Number.float" +
			"&MessageSystemAttribute.1.Name=AWSTraceHeader&MessageSystemAttribute.1.Value.StringValue=Root%3D1-5759e988-bd862e3fe1be46a994272793&MessageSystemAttribute.1.Value.DataType=String",
			func() any { return new(SendMessageInput) },
			&SendMessageInput{QueueUrl: "q", MessageBody: qdStr("b"),
				MessageAttributes: map[string]MessageAttributeValue{
					"color": {StringValue: "blue", DataType: "String"},
					"blob":  {BinaryValue: blob{2, 3, 4}, DataType: "Binary"},
					"n":     {StringValue: "-1.5e3", DataType: "Number.float"},
				},
				MessageSystemAttributes: map[string]MessageAttributeValue{
					"AWSTraceHeader": {StringValue: "Root=1-5759e988-bd862e3fe1be46a994272793", DataType: "String"},
				}}},
		{"binary with padding and plus", "QueueUrl=q&MessageAttribute.1.Name=b&MessageAttribute.1.Value.BinaryValue=" + url.QueryEscape("+/8=") + "&MessageAttribute.1.Value.DataType=Binary",
			func() any { return new(SendMessageInput) },
			&SendMessageInput{QueueUrl: "q", MessageAttributes: map[string]MessageAttributeValue{"b": {BinaryValue: blob{0xfb, 0xff}, DataType: "Binary"}}}},

		// Batch entries with nested maps.
		{"send batch", "QueueUrl=q" +
			"&SendMessageBatchRequestEntry.2.Id=second&SendMessageBatchRequestEntry.2.MessageBody=two&SendMessageBatchRequestEntry.2.DelaySeconds=5" +
			"&SendMessageBatchRequestEntry.1.Id=first&SendMessageBatchRequestEntry.1.MessageBody=one" +
			"&SendMessageBatchRequestEntry.1.MessageGroupId=g&SendMessageBatchRequestEntry.1.MessageDeduplicationId=d" +
			"&SendMessageBatchRequestEntry.1.MessageAttribute.2.Name=k2&SendMessageBatchRequestEntry.1.MessageAttribute.2.Value.BinaryValue=aGk%3D&SendMessageBatchRequestEntry.1.MessageAttribute.2.Value.DataType=Binary" +
			"&SendMessageBatchRequestEntry.1.MessageAttribute.1.Name=k1&SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.StringValue=v1&SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.DataType=String" +
			"&SendMessageBatchRequestEntry.2.MessageAttribute.1.Name=only&SendMessageBatchRequestEntry.2.MessageAttribute.1.Value.StringValue=1&SendMessageBatchRequestEntry.2.MessageAttribute.1.Value.DataType=Number",
			func() any { return new(SendMessageBatchInput) },
			&SendMessageBatchInput{QueueUrl: "q", Entries: []SendMessageBatchEntry{
				{Id: "first", MessageBody: qdStr("one"), MessageGroupId: qdStr("g"), MessageDeduplicationId: qdStr("d"),
					MessageAttributes: map[string]MessageAttributeValue{
						"k1": {StringValue: "v1", DataType: "String"},
						"k2": {BinaryValue: blob("hi"), DataType: "Binary"},
					}},
				{Id: "second", MessageBody: qdStr("two"), DelaySeconds: qdInt(5),
					MessageAttributes: map[string]MessageAttributeValue{"only": {StringValue: "1", DataType: "Number"}}},
			}}},
		{"delete batch", "QueueUrl=q&DeleteMessageBatchRequestEntry.1.Id=a&DeleteMessageBatchRequestEntry.1.ReceiptHandle=h1&DeleteMessageBatchRequestEntry.10.Id=j&DeleteMessageBatchRequestEntry.10.ReceiptHandle=h10&DeleteMessageBatchRequestEntry.2.Id=b&DeleteMessageBatchRequestEntry.2.ReceiptHandle=h2",
			func() any { return new(DeleteMessageBatchInput) },
			&DeleteMessageBatchInput{QueueUrl: "q", Entries: []DeleteMessageBatchEntry{{"a", "h1"}, {"b", "h2"}, {"j", "h10"}}}},
		{"visibility batch", "QueueUrl=q&ChangeMessageVisibilityBatchRequestEntry.1.Id=a&ChangeMessageVisibilityBatchRequestEntry.1.ReceiptHandle=h&ChangeMessageVisibilityBatchRequestEntry.1.VisibilityTimeout=0&ChangeMessageVisibilityBatchRequestEntry.2.Id=b&ChangeMessageVisibilityBatchRequestEntry.2.ReceiptHandle=h2",
			func() any { return new(ChangeMessageVisibilityBatchInput) },
			&ChangeMessageVisibilityBatchInput{QueueUrl: "q", Entries: []ChangeMessageVisibilityBatchEntry{
				{Id: "a", ReceiptHandle: "h", VisibilityTimeout: qdInt(0)},
				{Id: "b", ReceiptHandle: "h2"},
			}}},
		{"move task", "SourceArn=arn%3Aaws%3Asqs%3Aus-east-1%3A000000000000%3Adlq&MaxNumberOfMessagesPerSecond=50",
			func() any { return new(StartMessageMoveTaskInput) },
			&StartMessageMoveTaskInput{SourceArn: "arn:aws:sqs:us-east-1:000000000000:dlq", MaxNumberOfMessagesPerSecond: qdInt(50)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			params, err := url.ParseQuery(c.query)
			if err != nil {
				t.Fatalf("bad test query: %v", err)
			}
			got := c.into()
			if err := decodeQuery(params, got); err != nil {
				t.Fatalf("decodeQuery: %v", err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("decoded\n  %#v\nwant\n  %#v", got, c.want)
			}
		})
	}
}

func TestDecodeQueryErrors(t *testing.T) {
	cases := []struct {
		name    string
		query   string
		into    func() any
		code    engine.Code
		mention string // the parameter the message must name
	}{
		{"word for an integer", "MaxResults=ten", func() any { return new(ListQueuesInput) }, engine.ErrInvalidParameterValue, "MaxResults"},
		{"decimal for an integer", "QueueUrl=q&DelaySeconds=1.5", func() any { return new(SendMessageInput) }, engine.ErrInvalidParameterValue, "DelaySeconds"},
		{"exponent for an integer", "QueueUrl=q&VisibilityTimeout=1e3", func() any { return new(ReceiveMessageInput) }, engine.ErrInvalidParameterValue, "VisibilityTimeout"},
		{"empty integer", "QueueUrl=q&WaitTimeSeconds=", func() any { return new(ReceiveMessageInput) }, engine.ErrInvalidParameterValue, "WaitTimeSeconds"},
		{"integer past int32", "MaxResults=2147483648", func() any { return new(ListQueuesInput) }, engine.ErrInvalidParameterValue, "MaxResults"},
		{"integer past int64", "MaxResults=99999999999999999999999", func() any { return new(ListQueuesInput) }, engine.ErrInvalidParameterValue, "MaxResults"},
		{"bad bool", "Flag=yes", func() any { return new(qdProbe) }, engine.ErrInvalidParameterValue, "Flag"},
		{"bad integer inside a batch entry", "QueueUrl=q&SendMessageBatchRequestEntry.1.Id=a&SendMessageBatchRequestEntry.2.Id=b&SendMessageBatchRequestEntry.2.DelaySeconds=x",
			func() any { return new(SendMessageBatchInput) }, engine.ErrInvalidParameterValue, "SendMessageBatchRequestEntry.2.DelaySeconds"},
		{"bad integer in visibility batch", "QueueUrl=q&ChangeMessageVisibilityBatchRequestEntry.1.Id=a&ChangeMessageVisibilityBatchRequestEntry.1.VisibilityTimeout=-",
			func() any { return new(ChangeMessageVisibilityBatchInput) }, engine.ErrInvalidParameterValue, "ChangeMessageVisibilityBatchRequestEntry.1.VisibilityTimeout"},
		{"attribute value without name", "QueueName=q&Attribute.1.Value=60", func() any { return new(CreateQueueInput) }, engine.ErrMissingParameter, "Attribute.1.Name"},
		{"attribute with empty name", "QueueName=q&Attribute.2.Name=&Attribute.2.Value=60", func() any { return new(CreateQueueInput) }, engine.ErrMissingParameter, "Attribute.2.Name"},
		{"tag value without key", "QueueName=q&Tag.1.Key=a&Tag.1.Value=1&Tag.2.Value=2", func() any { return new(CreateQueueInput) }, engine.ErrMissingParameter, "Tag.2.Key"},
		{"message attribute without name", "QueueUrl=q&MessageAttribute.1.Value.StringValue=v&MessageAttribute.1.Value.DataType=String",
			func() any { return new(SendMessageInput) }, engine.ErrMissingParameter, "MessageAttribute.1.Name"},
		{"nested attribute without name in a batch", "QueueUrl=q&SendMessageBatchRequestEntry.1.Id=a&SendMessageBatchRequestEntry.1.MessageAttribute.3.Value.DataType=String",
			func() any { return new(SendMessageBatchInput) }, engine.ErrMissingParameter, "SendMessageBatchRequestEntry.1.MessageAttribute.3.Name"},
		{"bad base64", "QueueUrl=q&MessageAttribute.1.Name=b&MessageAttribute.1.Value.BinaryValue=%21%21%21&MessageAttribute.1.Value.DataType=Binary",
			func() any { return new(SendMessageInput) }, engine.ErrInvalidParameterValue, "MessageAttribute.1.Value.BinaryValue"},
		{"truncated base64", "QueueUrl=q&MessageAttribute.1.Name=b&MessageAttribute.1.Value.BinaryValue=AgM&MessageAttribute.1.Value.DataType=Binary",
			func() any { return new(SendMessageInput) }, engine.ErrInvalidParameterValue, "MessageAttribute.1.Value.BinaryValue"},
		{"bad base64 in a batch", "QueueUrl=q&SendMessageBatchRequestEntry.1.Id=a&SendMessageBatchRequestEntry.1.MessageAttribute.1.Name=b&SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.BinaryValue=%E2%82%AC&SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.DataType=Binary",
			func() any { return new(SendMessageBatchInput) }, engine.ErrInvalidParameterValue, "SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.BinaryValue"},
		// A kind the decoder has no rule for is a programming error, not
		// the client's.
		{"unsupported kind", "Ratio=0.5", func() any { return new(qdProbe) }, engine.ErrInternal, "Ratio"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			params, err := url.ParseQuery(c.query)
			if err != nil {
				t.Fatalf("bad test query: %v", err)
			}
			err = decodeQuery(params, c.into())
			var ee *engine.Error
			if !errors.As(err, &ee) {
				t.Fatalf("decodeQuery error = %v, want an *engine.Error %s", err, c.code)
			}
			if ee.Code != c.code {
				t.Errorf("code = %s, want %s (%s)", ee.Code, c.code, errorText(ee))
			}
			// An internal failure's cause is for logs, not the wire.
			if msg := errorText(ee) + ee.Detail; !strings.Contains(msg, c.mention) {
				t.Errorf("message %q does not name %s", msg, c.mention)
			}
		})
	}
}

// TestDecodeQueryHugeIndexAllocatesLittle: list and map indexes are
// positions, not sizes; a client naming AttributeName.99999999999 must not
// make the decoder allocate anywhere near that many elements.
func TestDecodeQueryHugeIndexAllocatesLittle(t *testing.T) {
	params, err := url.ParseQuery("QueueUrl=q" +
		"&AttributeName.99999999999=A&AttributeName.2147483647=B&AttributeName.9223372036854775807=C" +
		"&MessageAttributeName.4294967296=M" +
		"&Attribute.99999999999.Name=a&Attribute.99999999999.Value=1")
	if err != nil {
		t.Fatal(err)
	}
	decodeAll := func() {
		var r ReceiveMessageInput
		if err := decodeQuery(params, &r); err != nil {
			t.Fatal(err)
		}
		if want := []string{"B", "A", "C"}; !reflect.DeepEqual(r.AttributeNames, want) {
			t.Fatalf("AttributeNames = %q, want %q", r.AttributeNames, want)
		}
		if want := []string{"M"}; !reflect.DeepEqual(r.MessageAttributeNames, want) {
			t.Fatalf("MessageAttributeNames = %q, want %q", r.MessageAttributeNames, want)
		}
		var s SetQueueAttributesInput
		if err := decodeQuery(params, &s); err != nil {
			t.Fatal(err)
		}
		if want := map[string]string{"a": "1"}; !reflect.DeepEqual(s.Attributes, want) {
			t.Fatalf("Attributes = %v, want %v", s.Attributes, want)
		}
	}
	decodeAll() // warm up
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < 10; i++ {
		decodeAll()
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("ten decodes with huge indexes allocated %d bytes", grew)
	}
}

// TestDecodeQueryManyIndexes: a request with many list items decodes all of
// them, in index order, whatever order the form had.
func TestDecodeQueryManyIndexes(t *testing.T) {
	params := url.Values{}
	want := make([]string, 0, 500)
	for i := 500; i >= 1; i-- {
		params.Set("AttributeName."+strconv.Itoa(i*3), "v"+strconv.Itoa(i*3))
	}
	for i := 1; i <= 500; i++ {
		want = append(want, "v"+strconv.Itoa(i*3))
	}
	var in GetQueueAttributesInput
	if err := decodeQuery(params, &in); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in.AttributeNames, want) {
		t.Errorf("decoded %d names, first %q; want %d in index order", len(in.AttributeNames), in.AttributeNames[:3], len(want))
	}
}
