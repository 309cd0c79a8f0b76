package sqs

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/minisqs/minisqs/engine"
)

// md5OfAttributes is the digest of attrs alone.
func md5OfAttributes(attrs []engine.MessageAttribute) string {
	return (*attributeDigests)(nil).of(attrs)
}

// md5TestReference computes MD5OfMessageAttributes straight from AWS's
// description ("Calculating the MD5 message digest for message attributes",
// SQS Developer Guide), written apart from md5.go: attributes sorted by name;
// for each, the name, the data type and the value, each preceded by its
// length as 4 big-endian bytes, with one transport byte (1 for String and
// Number, 2 for Binary) before the value.
func md5TestReference(attrs []engine.MessageAttribute) string {
	if len(attrs) == 0 {
		return ""
	}
	byName := map[string]engine.MessageAttribute{}
	names := []string{}
	for _, a := range attrs {
		byName[a.Name] = a
		names = append(names, a.Name)
	}
	slices.Sort(names)
	var buf bytes.Buffer
	field := func(b []byte) {
		n := len(b)
		buf.Write([]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
		buf.Write(b)
	}
	for _, name := range names {
		a := byName[name]
		field([]byte(name))
		field([]byte(a.DataType))
		base, _, _ := strings.Cut(a.DataType, ".")
		if base == "Binary" {
			buf.WriteByte(2)
			field(a.BinaryValue)
		} else {
			buf.WriteByte(1)
			field([]byte(a.StringValue))
		}
	}
	sum := md5.Sum(buf.Bytes())
	return hex.EncodeToString(sum[:])
}

func md5TestStr(name, typ, v string) engine.MessageAttribute {
	return engine.MessageAttribute{Name: name, DataType: typ, StringValue: v}
}

func md5TestBin(name, typ string, v []byte) engine.MessageAttribute {
	return engine.MessageAttribute{Name: name, DataType: typ, BinaryValue: v}
}

// md5TestVectors are digests fixed outside this code base.
//
//   - "timestamp" ... and "SOME_Valid..." are what moto's SQS tests
//     (tests/test_sqs/test_sqs.py) pin as the digests AWS returns; localstack
//     pins the first one too.
//   - "moto complex" is moto's test_message_with_complex_attributes, with a
//     non-ASCII name and value (lengths are UTF-8 byte counts).
//   - "ascii mixed" and "custom types" were computed with the npm package
//     aws-md5-of-message-attributes 1.0.0 (an independent JavaScript
//     implementation), which also reproduces the three moto digests above.
//     That package counts UTF-16 units, not bytes, so it is only trusted for
//     ASCII input. None of the AWS SDKs installed here (Go v1 and v2,
//     botocore, JS v3 middleware-sdk-sqs) checks attribute digests, only
//     body digests, so none could serve as the oracle.
var md5TestVectors = []struct {
	name  string
	attrs []engine.MessageAttribute
	want  string
}{
	{"timestamp 1493147359900", []engine.MessageAttribute{md5TestStr("timestamp", "Number", "1493147359900")}, "235c5c510d26fb653d073faed50ae77c"},
	{"timestamp 1493147359901", []engine.MessageAttribute{md5TestStr("timestamp", "Number", "1493147359901")}, "994258b45346a2cc3f9cbb611aa7af30"},
	{"SOME_Valid.attribute-Name", []engine.MessageAttribute{md5TestStr("SOME_Valid.attribute-Name", "Number", "1493147359900")}, "36655e7e9d7c0e8479fa3f3f42247ae7"},
	{"moto complex", []engine.MessageAttribute{
		md5TestStr("ccc", "String", "testjunk"),
		md5TestBin("aaa", "Binary", []byte{2, 3, 4}),
		md5TestStr("zzz", "Number", "0230.01"),
		md5TestStr("öther_encodings", "String", "Tüst"),
	}, "8ae21a7957029ef04146b42aeaa18a22"},
	{"ascii mixed", []engine.MessageAttribute{
		md5TestStr("ccc", "String", "testjunk"),
		md5TestBin("aaa", "Binary", []byte{2, 3, 4}),
		md5TestStr("zzz", "Number", "0230.01"),
	}, "9574cdd218ec0162f58a24bdbb81853a"},
	{"custom types", []engine.MessageAttribute{
		md5TestStr("trace.id", "String.uuid", "4d2c6a3e-0f6b-4f43-9a4b-4b1f2a9c0e11"),
		md5TestBin("img", "Binary.png", []byte("\x89PNG\r\n\x1a\n")),
		md5TestStr("Count", "Number.int", "-42"),
	}, "75840fe0ab0061da515892754c4691d3"},
}

func TestMD5OfAttributesKnownVectors(t *testing.T) {
	for _, v := range md5TestVectors {
		t.Run(v.name, func(t *testing.T) {
			if got := md5OfAttributes(v.attrs); got != v.want {
				t.Errorf("md5OfAttributes = %s, want %s", got, v.want)
			}
			// The reference is checked against the same literals, so a
			// mistake in it cannot hide one in md5.go.
			if got := md5TestReference(v.attrs); got != v.want {
				t.Errorf("reference = %s, want %s", got, v.want)
			}
		})
	}
}

func TestMD5OfAttributesEmpty(t *testing.T) {
	if got := md5OfAttributes(nil); got != "" {
		t.Errorf("nil attributes digest = %q, want empty (answers leave it out)", got)
	}
	if got := md5OfAttributes([]engine.MessageAttribute{}); got != "" {
		t.Errorf("empty attributes digest = %q, want empty", got)
	}
}

// TestMD5OfAttributesMatchesReference compares with the reference over
// random attribute sets: any order of input, custom type labels, binary and
// multi-byte values, and names that sort differently as bytes and as runes
// would not (Go and AWS both compare bytes).
func TestMD5OfAttributesMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	types := []string{"String", "Number", "Binary", "String.x", "Number.float", "Binary.gif", "String.Binary"}
	alphabet := []rune("aZ09._-éü€😀")
	word := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteRune(alphabet[rng.Intn(len(alphabet))])
		}
		return b.String()
	}
	for i := 0; i < 500; i++ {
		n := 1 + rng.Intn(10)
		seen := map[string]bool{}
		var attrs []engine.MessageAttribute
		for len(attrs) < n {
			name := word(1 + rng.Intn(12))
			if seen[name] {
				continue
			}
			seen[name] = true
			typ := types[rng.Intn(len(types))]
			if strings.HasPrefix(typ, "Binary") {
				v := make([]byte, rng.Intn(40))
				rng.Read(v)
				attrs = append(attrs, md5TestBin(name, typ, v))
			} else {
				attrs = append(attrs, md5TestStr(name, typ, word(rng.Intn(30))))
			}
		}
		orig := slices.Clone(attrs)
		want := md5TestReference(attrs)
		if got := md5OfAttributes(attrs); got != want {
			t.Fatalf("case %d: md5OfAttributes = %s, reference = %s\n%+v", i, got, want, attrs)
		}
		if !slices.EqualFunc(orig, attrs, func(a, b engine.MessageAttribute) bool {
			return a.Name == b.Name && a.DataType == b.DataType && a.StringValue == b.StringValue && bytes.Equal(a.BinaryValue, b.BinaryValue)
		}) {
			t.Fatalf("case %d: md5OfAttributes reordered its input", i)
		}
		rng.Shuffle(len(attrs), func(i, j int) { attrs[i], attrs[j] = attrs[j], attrs[i] })
		if got := md5OfAttributes(attrs); got != want {
			t.Fatalf("case %d: digest depends on input order: %s vs %s", i, got, want)
		}
	}
}

// TestMD5OfAttributesDistinguishesFields: the length prefixes and the
// transport byte are what keep these pairs apart; a digest over plain
// concatenation would collide.
func TestMD5OfAttributesDistinguishesFields(t *testing.T) {
	pairs := [][2][]engine.MessageAttribute{
		{{md5TestStr("ab", "String", "c")}, {md5TestStr("a", "String", "bc")}},
		{{md5TestStr("a", "String", "1")}, {md5TestStr("a", "Number", "1")}},
		{{md5TestStr("a", "String.x", "1")}, {md5TestStr("a", "String", "1")}},
		{{md5TestBin("a", "Binary", []byte("v"))}, {md5TestStr("a", "Binary", "v")}},
	}
	for i, p := range pairs {
		if a, b := md5OfAttributes(p[0]), md5OfAttributes(p[1]); a == b {
			t.Errorf("pair %d collides: %s", i, a)
		}
	}
}

// TestMD5OfAttributesOnTheWire sends the "ascii mixed" attribute set through
// both served protocols (base64 binary decoding included) and checks the
// digest the client would verify. (moto's set has a non-ASCII attribute
// name, which the engine refuses.)
func TestMD5OfAttributesOnTheWire(t *testing.T) {
	e, err := engine.Open(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if _, err := e.CreateQueue("md5q", engine.AttributeUpdate{}, nil); err != nil {
		t.Fatal(err)
	}
	svc := New(e, Options{BaseURL: "http://127.0.0.1:9324"})
	const want = "9574cdd218ec0162f58a24bdbb81853a"
	qurl := "http://127.0.0.1:9324/000000000000/md5q"

	form := url.Values{
		"Action": {"SendMessage"}, "Version": {"2012-11-05"}, "QueueUrl": {qurl}, "MessageBody": {"derp"},
		"MessageAttribute.1.Name": {"ccc"}, "MessageAttribute.1.Value.StringValue": {"testjunk"}, "MessageAttribute.1.Value.DataType": {"String"},
		"MessageAttribute.2.Name": {"aaa"}, "MessageAttribute.2.Value.BinaryValue": {"AgME"}, "MessageAttribute.2.Value.DataType": {"Binary"},
		"MessageAttribute.3.Name": {"zzz"}, "MessageAttribute.3.Value.StringValue": {"0230.01"}, "MessageAttribute.3.Value.DataType": {"Number"},
	}
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	svc.ServeQuery(rec, req)
	var xr struct {
		Result struct {
			MD5OfMessageBody       string
			MD5OfMessageAttributes string
		} `xml:"SendMessageResult"`
	}
	if err := xml.Unmarshal(rec.Body.Bytes(), &xr); err != nil || rec.Code != 200 {
		t.Fatalf("query SendMessage: %d %v\n%s", rec.Code, err, rec.Body)
	}
	if xr.Result.MD5OfMessageAttributes != want {
		t.Errorf("query MD5OfMessageAttributes = %q, want %s", xr.Result.MD5OfMessageAttributes, want)
	}
	// moto pins the body digest of "derp" too.
	if xr.Result.MD5OfMessageBody != "58fd9edd83341c29f1aebba81c31e257" {
		t.Errorf("query MD5OfMessageBody = %q", xr.Result.MD5OfMessageBody)
	}

	body := `{"QueueUrl":"` + qurl + `","MessageBody":"derp","MessageAttributes":{
		"ccc":{"DataType":"String","StringValue":"testjunk"},
		"aaa":{"DataType":"Binary","BinaryValue":"AgME"},
		"zzz":{"DataType":"Number","StringValue":"0230.01"}}}`
	req = httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "AmazonSQS.SendMessage")
	rec = httptest.NewRecorder()
	svc.ServeJSON(rec, req)
	var jr SendMessageOutput
	if err := json.Unmarshal(rec.Body.Bytes(), &jr); err != nil || rec.Code != 200 {
		t.Fatalf("json SendMessage: %d %v\n%s", rec.Code, err, rec.Body)
	}
	if jr.MD5OfMessageAttributes != want {
		t.Errorf("json MD5OfMessageAttributes = %q, want %s", jr.MD5OfMessageAttributes, want)
	}

	// The received copies carry the same digest when every attribute is
	// asked for.
	req = httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"QueueUrl":"`+qurl+`","MaxNumberOfMessages":10,"MessageAttributeNames":["All"],"WaitTimeSeconds":0}`))
	req.Header.Set("X-Amz-Target", "AmazonSQS.ReceiveMessage")
	rec = httptest.NewRecorder()
	svc.ServeJSON(rec, req)
	var rr struct {
		Messages []struct{ MD5OfMessageAttributes string }
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &rr); err != nil || rec.Code != 200 {
		t.Fatalf("json ReceiveMessage: %d %v\n%s", rec.Code, err, rec.Body)
	}
	if len(rr.Messages) != 2 {
		t.Fatalf("received %d messages, want 2", len(rr.Messages))
	}
	for _, m := range rr.Messages {
		if m.MD5OfMessageAttributes != want {
			t.Errorf("received MD5OfMessageAttributes = %q, want %s", m.MD5OfMessageAttributes, want)
		}
	}
}

// A request's digests give each set of attributes its own digest, however
// the sets follow one another.
func TestAttributeDigestsKeepNoStaleDigest(t *testing.T) {
	a := []engine.MessageAttribute{{Name: "kind", DataType: "String", StringValue: "order"}}
	b := []engine.MessageAttribute{{Name: "kind", DataType: "String", StringValue: "orders"}}
	bin := []engine.MessageAttribute{{Name: "kind", DataType: "Binary", BinaryValue: []byte("order")}}
	unsorted := []engine.MessageAttribute{{Name: "z", DataType: "Number", StringValue: "1"}, a[0]}
	long := []engine.MessageAttribute{{Name: "big", DataType: "String", StringValue: strings.Repeat("x", 300)}}
	var d attributeDigests
	for i, attrs := range [][]engine.MessageAttribute{a, a, b, a, nil, b, bin, a, unsorted, unsorted, long, long, a} {
		if got, want := d.of(attrs), md5OfAttributes(attrs); got != want {
			t.Errorf("set %d: digest %q, want %q", i, got, want)
		}
	}
	if d.of(a) == d.of(b) || d.of(a) == d.of(bin) {
		t.Error("different attributes, one digest")
	}
}
