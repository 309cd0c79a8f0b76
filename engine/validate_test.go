package engine

import (
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// reasonOf is the reason of a validation error, or "" for none.
func reasonOf(t *testing.T, err error) Reason {
	t.Helper()
	if err == nil {
		return ""
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *Error", err)
	}
	return e.Reason
}

// nameRule states SQS's rules for attribute names in their plainest form,
// in the order their errors come, for validateAttributeName to agree with.
func nameRule(name string) Reason {
	if name == "" || utf8.RuneCountInString(name) > MaxAttributeNameLen {
		return ReasonNameLength
	}
	for _, c := range name {
		if !(unicode.IsLetter(c) || unicode.IsDigit(c) || c == '_' || c == '-' || c == '.') {
			return ReasonCharacters
		}
	}
	lower := strings.ToLower(name)
	if strings.HasPrefix(lower, "aws.") || strings.HasPrefix(lower, "amazon.") {
		return ReasonNameReserved
	}
	if name[0] == '.' || name[len(name)-1] == '.' || strings.Contains(name, "..") {
		return ReasonNamePeriods
	}
	return ""
}

func TestValidateAttributeName(t *testing.T) {
	names := []string{
		"", "a", "kind", "attr.1øßä", "§", "a b", "a\x00", "\xff", "a\xffb",
		"aws.x", "AWS.x", "Aws.", "aWs.Trace", "aws", "awsx.y", "amazon.x", "AMAZON.", "Amazon", "amazonx",
		"\u0130ws.x", "aw\u212a.x", "\u212aws.x", "ſws.x", // runes beyond ASCII that case-fold or lower to ASCII
		".a", "a.", "a..b", "a.b.c", "..", ".", "a...", "ä..ö", "ä.ö",
		"aws..x", ".aws.x", "§..", "a..§",
		strings.Repeat("a", MaxAttributeNameLen), strings.Repeat("a", MaxAttributeNameLen+1),
		strings.Repeat("ä", MaxAttributeNameLen), strings.Repeat("ä", MaxAttributeNameLen+1),
		strings.Repeat("§", MaxAttributeNameLen+1), strings.Repeat(".", MaxAttributeNameLen),
	}
	for _, name := range names {
		got := reasonOf(t, validateAttributeName(name))
		if want := nameRule(name); got != want {
			t.Errorf("validateAttributeName(%q): reason %q, want %q", name, got, want)
		}
	}
}

func TestValidateAttributeValueTypes(t *testing.T) {
	for _, c := range []struct {
		a    MessageAttribute
		want Reason
	}{
		{MessageAttribute{Name: "n", DataType: "String", StringValue: "v"}, ""},
		{MessageAttribute{Name: "n", DataType: "String"}, ReasonValueMissing},
		{MessageAttribute{Name: "n", DataType: "String", StringValue: "\x01"}, ReasonValueChars},
		{MessageAttribute{Name: "n", DataType: "Number", StringValue: "1.5e3"}, ""},
		{MessageAttribute{Name: "n", DataType: "Number", StringValue: "x"}, ReasonNotNumber},
		{MessageAttribute{Name: "n", DataType: "Binary", BinaryValue: []byte{0}}, ""},
		{MessageAttribute{Name: "n", DataType: "Binary"}, ReasonValueMissing},
		{MessageAttribute{Name: "n", DataType: "String.label", StringValue: "v"}, ""},
		{MessageAttribute{Name: "n", DataType: "Number.x", StringValue: "1"}, ""},
		{MessageAttribute{Name: "n", DataType: "String.", StringValue: "v"}, ReasonTypeInvalid},
		{MessageAttribute{Name: "n", DataType: "string", StringValue: "v"}, ReasonTypePrefix},
		{MessageAttribute{Name: "n", DataType: "Strings", StringValue: "v"}, ReasonTypePrefix},
		{MessageAttribute{Name: "n", DataType: "String.\x01", StringValue: "v"}, ReasonTypeInvalid},
		{MessageAttribute{Name: "n", DataType: "String." + strings.Repeat("x", MaxAttributeNameLen), StringValue: "v"}, ReasonTypeInvalid},
		{MessageAttribute{Name: "n", StringValue: "v"}, ReasonTypeMissing},
	} {
		if got := reasonOf(t, validateAttributeValue(&c.a)); got != c.want {
			t.Errorf("validateAttributeValue(%+v): reason %q, want %q", c.a, got, c.want)
		}
	}
}

// A batch checks the attributes of each message: those equal to the last
// valid ones pass without a second look, and any others are checked, be
// they after valid ones or equal to invalid ones.
func TestSendChecksEachMessagesAttributes(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	q, err := e.CreateQueue("attrs", AttributeUpdate{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	valid := []MessageAttribute{{Name: "kind", DataType: "String", StringValue: "order"}}
	badName := []MessageAttribute{{Name: "aws.kind", DataType: "String", StringValue: "order"}}
	badValue := []MessageAttribute{{Name: "kind", DataType: "String", StringValue: "\x01"}}
	batch := []NewMessage{
		{Body: "a", Attributes: valid},
		{Body: "b", Attributes: append([]MessageAttribute(nil), valid...)},
		{Body: "c", Attributes: badName},
		{Body: "d", Attributes: badName},
		{Body: "e", Attributes: valid},
		{Body: "f", Attributes: badValue},
		{Body: "g"},
	}
	want := []Reason{"", "", ReasonNameReserved, ReasonNameReserved, "", ReasonValueChars, ""}
	for i, r := range q.Send(batch) {
		if got := reasonOf(t, r.Err); got != want[i] {
			t.Errorf("message %q: reason %q, want %q", batch[i].Body, got, want[i])
		}
	}
}
