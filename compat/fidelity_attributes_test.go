package compat

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// MessageAttributeNames filters and MD5OfMessageAttributes over what they
// return, as AWS answered them in localstack/localstack
// tests/aws/services/sqs/test_sqs.snapshot.json,
// TestSqsProvider::test_receive_message_message_attribute_names_filters
// [sqs] and [sqs_query] (recorded 30-04-2024): "*" selects every
// attribute, and "Hel.*" is the prefix "Hel", so it selects "Hello" as well
// as "Help.Me".
func TestFidelityMessageAttributeNameFilters(t *testing.T) {
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
	runCases(t, []actionCase{{name: "as recorded", run: func(e *env) {
		url := e.createQueue("filters", map[string]string{"VisibilityTimeout": "0"})
		sent := e.sendMsg(url, sendIn{Body: "msg", Attrs: map[string]msgAttr{
			"Help.Me": strAttr("String", "Me"),
			"Hello":   strAttr("String", "There"),
			"General": strAttr("String", "Kenobi"),
		}})
		if sent.MD5Attrs != "4c360f3fdafd970e05fae2f149d997f5" {
			e.t.Fatalf("send MD5OfMessageAttributes %s, recorded 4c360f3fdafd970e05fae2f149d997f5", sent.MD5Attrs)
		}
		for _, tc := range cases {
			got := e.receive(url, receiveIn{MsgAttrNames: tc.filter})
			if len(got) != 1 {
				e.t.Fatalf("%q: received %d", tc.filter, len(got))
			}
			names := slices.Sorted(maps.Keys(got[0].MsgAttrs))
			if !slices.Equal(names, tc.names) || got[0].MD5Attrs != tc.md5 {
				e.t.Errorf("%q: attributes %q with MD5 %q, recorded %q with %q", tc.filter, names, got[0].MD5Attrs, tc.names, tc.md5)
			}
		}
	}}})
}

// Attribute names: letters beyond ASCII are taken ("attr.1øßä") and other
// characters, reserved prefixes, a final period, 257 characters and bad
// data types are refused, as localstack/localstack
// tests/aws/services/sqs/test_sqs.py
// TestSqsProvider::test_send_message_with_invalid_string_attributes
// (markers.aws.validated) records. The texts are not recorded; the code is
// InvalidParameterValue.
func TestFidelityMessageAttributeNameRules(t *testing.T) {
	long := strings.Repeat("L", 257)
	runCases(t, []actionCase{{name: "as recorded", run: func(e *env) {
		url := e.createQueue("names", nil)
		send := func(name, dataType string) error {
			_, err := e.c.SendMessage(url, sendIn{Body: "test", Attrs: map[string]msgAttr{name: strAttr(dataType, "Valid")}})
			return err
		}
		if err := send("attr.1øßä", "String"); err != nil {
			e.t.Errorf("attr.1øßä refused: %v", err)
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
			{long, "String"},
			{"Invalid.", "String"},
			{"Attribute_name", "Invalid"},
			{"Attribute_name", "Number." + long[:256]},
		} {
			if got := mustAPIError(e.t, send(bad.name, bad.dataType)); got.Code != "InvalidParameterValue" || got.Status != 400 {
				e.t.Errorf("name %.20q type %.20q: %d %s, want 400 InvalidParameterValue", bad.name, bad.dataType, got.Status, got.Code)
			}
		}
	}}})
}
