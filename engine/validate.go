package engine

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/minisqs/minisqs/internal/wordscan"
)

// validBodyRune reports whether r is allowed in a message body or string
// attribute: #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD |
// #x10000 to #x10FFFF (API_SendMessage, MessageBody).
func validBodyRune(r rune) bool {
	return r == 0x9 || r == 0xA || r == 0xD ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}

// validText reports whether s is valid UTF-8 of allowed characters only.
func validText(s string) bool {
	for i := 0; i < len(s); {
		if i = wordscan.PrintableRun(s, i); i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != 0x9 && c != 0xA && c != 0xD {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || !validBodyRune(r) {
			return false
		}
		i += n
	}
	return true
}

// validateAttributeName applies SQS's rules for message attribute names
// (API_MessageAttributeValue; "Amazon SQS message attributes" in the
// Developer Guide).
func validateAttributeName(name string) error {
	bad := func(reason Reason) error { return ErrMessageAttribute(name, reason, "") }
	// A name has no more runes than bytes.
	if name == "" || len(name) > MaxAttributeNameLen && utf8.RuneCountInString(name) > MaxAttributeNameLen {
		return bad(ReasonNameLength)
	}
	// SQS documents ASCII letters and digits but takes any letter or digit
	// (it accepts "attr.1øßä" and refuses "§"). The same pass looks for
	// two periods in a row, whose error comes after others.
	periods := name[0] == '.' || name[len(name)-1] == '.'
	var prev rune
	for _, c := range name {
		if c < utf8.RuneSelf {
			if !nameByte(byte(c)) {
				return bad(ReasonCharacters)
			}
			periods = periods || c == '.' && prev == '.'
		} else if !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return bad(ReasonCharacters)
		}
		prev = c
	}
	// The name in lower case would begin with a reserved prefix just when
	// its first bytes do in ASCII's lower case: of the runes beyond ASCII,
	// only U+0130 and U+212A lower to ASCII, to 'i' and 'k', which neither
	// prefix has.
	if hasPrefixFold(name, "aws.") || hasPrefixFold(name, "amazon.") {
		return bad(ReasonNameReserved)
	}
	if periods {
		return bad(ReasonNamePeriods)
	}
	return nil
}

// nameByte reports whether c, an ASCII byte, may be in an attribute name.
func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
}

// hasPrefixFold reports whether s begins with prefix, lowercase ASCII, in
// ASCII's lower case.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := range len(prefix) {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// validateAttributes checks message attributes.
func validateAttributes(attrs []MessageAttribute) error {
	if len(attrs) > MaxMessageAttributes {
		return ErrTooManyMessageAttributes(len(attrs), MaxMessageAttributes)
	}
	for i := range attrs {
		a := &attrs[i]
		if err := validateAttributeName(a.Name); err != nil {
			return err
		}
		// At most MaxMessageAttributes: comparing with those before costs
		// less than a map.
		for j := range i {
			if attrs[j].Name == a.Name {
				return ErrMessageAttribute(a.Name, ReasonDuplicate, "")
			}
		}
		if err := validateAttributeValue(a); err != nil {
			return err
		}
	}
	return nil
}

// validateSystemAttributes checks the system attributes a sender may set:
// only AWSTraceHeader, a non-empty String (API_SendMessage,
// MessageSystemAttributes).
func validateSystemAttributes(attrs []MessageAttribute) error {
	for _, sa := range attrs {
		if sa.Name != "AWSTraceHeader" {
			return ErrMessageAttribute(sa.Name, ReasonSystemName, "")
		}
		if sa.DataType != "String" || sa.StringValue == "" || !validText(sa.StringValue) {
			return ErrMessageAttribute(sa.Name, ReasonSystemValue, "")
		}
	}
	return nil
}

func validateAttributeValue(a *MessageAttribute) error {
	base := a.DataType
	switch base {
	case "String", "Number", "Binary":
		// Most types are these, which pass the checks below.
	default:
		b, label, _ := strings.Cut(a.DataType, ".")
		if a.DataType == "" {
			return ErrMessageAttribute(a.Name, ReasonTypeMissing, "")
		}
		if len(a.DataType) > MaxAttributeNameLen || strings.Contains(a.DataType, ".") && label == "" || !validText(a.DataType) {
			return ErrMessageAttribute(a.Name, ReasonTypeInvalid, a.DataType)
		}
		base = b
	}
	switch base {
	case "String":
		if a.StringValue == "" {
			return emptyAttributeValue(a.Name, base)
		}
		if !validText(a.StringValue) {
			return ErrMessageAttribute(a.Name, ReasonValueChars, "")
		}
	case "Number":
		if a.StringValue == "" {
			return emptyAttributeValue(a.Name, base)
		}
		if !validNumber(a.StringValue) {
			return ErrMessageAttribute(a.Name, ReasonNotNumber, "Number")
		}
	case "Binary":
		if len(a.BinaryValue) == 0 {
			return emptyAttributeValue(a.Name, base)
		}
	default:
		return ErrMessageAttribute(a.Name, ReasonTypePrefix, a.DataType)
	}
	return nil
}

// validNumber applies SQS's rule for Number attributes: a decimal number
// with at most 38 significant digits, between 10^-128 and 10^+126 in
// magnitude ("Message attribute data types", SQS Developer Guide). NaN,
// infinities and hexadecimal forms are refused.
func validNumber(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	var digits []byte
	pointAt, sawDigit := -1, false
	for ; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			digits = append(digits, c)
			sawDigit = true
		} else if c == '.' && pointAt < 0 {
			pointAt = len(digits)
		} else {
			break
		}
	}
	if !sawDigit {
		return false
	}
	if pointAt < 0 {
		pointAt = len(digits)
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > 1000 || e < -1000 {
			return false
		}
		exp, i = e, len(s)
	}
	if i != len(s) {
		return false
	}
	first := strings.IndexFunc(string(digits), func(r rune) bool { return r != '0' })
	if first < 0 {
		return true // zero
	}
	last := strings.LastIndexFunc(string(digits), func(r rune) bool { return r != '0' })
	if last-first+1 > 38 {
		return false
	}
	magnitude := pointAt - first - 1 + exp // power of ten of the leading digit
	return magnitude >= -128 && magnitude <= 126
}

// emptyAttributeValue refuses an attribute without a value, in SQS's words.
func emptyAttributeValue(name, base string) error {
	return ErrMessageAttribute(name, ReasonValueMissing, base)
}
