package compat

import (
	"maps"
	"slices"
	"testing"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	awsv1 "github.com/aws/aws-sdk-go/aws"
	sqsv1 "github.com/aws/aws-sdk-go/service/sqs"

	"github.com/minisqs/minisqs/server"
)

// MessageAttributeNames filters and MD5OfMessageAttributes over what they
// return, as AWS answered them in localstack/localstack
// tests/aws/services/sqs/test_sqs.snapshot.json,
// TestSqsProvider::test_receive_message_message_attribute_names_filters
// [sqs] and [sqs_query] (recorded 30-04-2024): "*" selects every
// attribute, and "Hel.*" is the prefix "Hel", so it selects "Hello" as well
// as "Help.Me".
func TestFidelityMessageAttributeNameFilters(t *testing.T) {
	e := newFDEnv(t, server.Config{})
	url := e.create("filters", map[string]string{"VisibilityTimeout": "0"})
	attrs := map[string]types.MessageAttributeValue{
		"Help.Me": {DataType: jStr("String"), StringValue: jStr("Me")},
		"Hello":   {DataType: jStr("String"), StringValue: jStr("There")},
		"General": {DataType: jStr("String"), StringValue: jStr("Kenobi")},
	}
	sent, err := e.js.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: jStr(url), MessageBody: jStr("msg"), MessageAttributes: attrs})
	if err != nil {
		t.Fatal(err)
	}
	if got := awsv2.ToString(sent.MD5OfMessageAttributes); got != "4c360f3fdafd970e05fae2f149d997f5" {
		t.Fatalf("send MD5OfMessageAttributes %s, recorded 4c360f3fdafd970e05fae2f149d997f5", got)
	}
	cases := []struct {
		filter []string
		names  []string
		md5    string // as recorded; "" when AWS sent none
	}{
		{nil, nil, ""},
		{[]string{"All"}, []string{"General", "Hello", "Help.Me"}, "4c360f3fdafd970e05fae2f149d997f5"},
		{[]string{"*"}, []string{"General", "Hello", "Help.Me"}, "4c360f3fdafd970e05fae2f149d997f5"},
		{[]string{".*"}, []string{"General", "Hello", "Help.Me"}, "4c360f3fdafd970e05fae2f149d997f5"},
		{[]string{"Foo", "Help"}, nil, ""},
		{[]string{"Hello", "General"}, []string{"General", "Hello"}, "fca026605781cb4126a1e9044df24232"},
		{[]string{"Foo", "Hello"}, []string{"Hello"}, "a311262e065454b75da111d535b8dacd"},
		{[]string{"Hel.*"}, []string{"Hello", "Help.Me"}, "83fee93c1bcd8b9a5a923ffacdc636c7"},
		{[]string{"AWS."}, nil, ""},
		{[]string{"..foo"}, nil, ""},
	}
	for _, tc := range cases {
		for _, p := range fdProtocols {
			var names []string
			var md5 string
			if p == "json" {
				out, err := e.js.ReceiveMessage(e.ctx, &sqsv2.ReceiveMessageInput{QueueUrl: jStr(url), MessageAttributeNames: tc.filter})
				if err != nil || len(out.Messages) != 1 {
					t.Fatalf("%s %q: receive %v %v", p, tc.filter, out, err)
				}
				m := out.Messages[0]
				names = slices.Sorted(maps.Keys(m.MessageAttributes))
				md5 = awsv2.ToString(m.MD5OfMessageAttributes)
			} else {
				in := &sqsv1.ReceiveMessageInput{QueueUrl: qStr(url)}
				if tc.filter != nil {
					in.MessageAttributeNames = awsv1.StringSlice(tc.filter)
				}
				out, err := e.q.ReceiveMessage(in)
				if err != nil || len(out.Messages) != 1 {
					t.Fatalf("%s %q: receive %v %v", p, tc.filter, out, err)
				}
				m := out.Messages[0]
				names = slices.Sorted(maps.Keys(m.MessageAttributes))
				md5 = awsv1.StringValue(m.MD5OfMessageAttributes)
			}
			if !slices.Equal(names, tc.names) || md5 != tc.md5 {
				t.Errorf("%s %q: attributes %q with MD5 %q, recorded %q with %q", p, tc.filter, names, md5, tc.names, tc.md5)
			}
		}
	}
}

// Attribute names: letters beyond ASCII are taken ("attr.1øßä") and other
// characters, reserved prefixes, a final period, 257 characters and bad
// data types are refused, as localstack/localstack
// tests/aws/services/sqs/test_sqs.py
// TestSqsProvider::test_send_message_with_invalid_string_attributes
// (markers.aws.validated) records. The texts are not recorded; the code is
// InvalidParameterValue.
func TestFidelityMessageAttributeNameRules(t *testing.T) {
	e := newFDEnv(t, server.Config{})
	url := e.create("names", nil)
	send := func(p, name, dataType string) error {
		if p == "json" {
			_, err := e.js.SendMessage(e.ctx, &sqsv2.SendMessageInput{QueueUrl: jStr(url), MessageBody: jStr("test"),
				MessageAttributes: map[string]types.MessageAttributeValue{name: {DataType: jStr(dataType), StringValue: jStr("Valid")}}})
			return err
		}
		_, err := e.q.SendMessage(&sqsv1.SendMessageInput{QueueUrl: qStr(url), MessageBody: qStr("test"),
			MessageAttributes: map[string]*sqsv1.MessageAttributeValue{name: {DataType: qStr(dataType), StringValue: qStr("Valid")}}})
		return err
	}
	long := make([]byte, 257)
	for i := range long {
		long[i] = 'L'
	}
	longType := append([]byte("Number."), long[:256]...)
	for _, p := range fdProtocols {
		if err := send(p, "attr.1øßä", "String"); err != nil {
			t.Errorf("%s: attr.1øßä refused: %v", p, err)
		}
		for _, bad := range []struct{ name, dataType string }{
			{"aWs.-Invalid-attr", "String"},
			{"AMAZON.-Invalid-attr", "String"},
			{".-Invalid-attr", "String"},
			{"Invalid-!-attr", "String"},
			{`Invalid-"-attr`, "String"},
			{"Invalid-§-attr", "String"},
			{"Invalid-(-attr", "String"},
			{"Invalid-?-attr", "String"},
			{string(long), "String"},
			{"Invalid.", "String"},
			{"Attribute_name", "Invalid"},
			{"Attribute_name", string(longType)},
		} {
			if got := mustAPIError(t, send(p, bad.name, bad.dataType)); got.Code != "InvalidParameterValue" || got.Status != 400 {
				t.Errorf("%s: name %.20q type %.20q: %d %s, want 400 InvalidParameterValue", p, bad.name, bad.dataType, got.Status, got.Code)
			}
		}
	}
}
