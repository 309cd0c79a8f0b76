package sqs

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/minisqs/minisqs/engine"
)

// jsonFastActions are the actions whose inputs decodeJSONFast decodes.
var jsonFastActions = []string{
	"SendMessage", "SendMessageBatch", "ReceiveMessage", "DeleteMessage", "DeleteMessageBatch",
	"ChangeMessageVisibility", "ChangeMessageVisibilityBatch",
}

// compareJSONDecoders decodes body into a fresh input of action with
// decodeJSONFast and with encoding/json, its attributes then settled as the
// server settles them: whenever the fast decoder takes a body,
// encoding/json must take it too, into an equal input. It reports whether
// the fast decoder took it.
func compareJSONDecoders(t *testing.T, action, body string) bool {
	t.Helper()
	a := actionTable()[action]
	fast := a.newInput()
	took := decodeJSONFast(body, fast)
	if took {
		checkPlainBodies(t, action, body, fast)
	}
	std := a.newInput()
	err := json.Unmarshal([]byte(body), std)
	settleAttributes(std)
	switch {
	case took && err != nil:
		t.Fatalf("%s: the fast decoder took %q, which encoding/json refuses: %v", action, body, err)
	case took && !reflect.DeepEqual(fast, std):
		t.Fatalf("%s: %q decoded as\n%#v\nwhere encoding/json has\n%#v", action, body, fast, std)
	}
	return took
}

// checkPlainBodies fails t if the fast decoder marked as plain a message
// body of in that is not printable ASCII, which the engine would then not
// check, and clears the marks, which encoding/json does not make.
func checkPlainBodies(t *testing.T, action, body string, in any) {
	t.Helper()
	var sents []*sentAttributes
	var bodies []*string
	switch in := in.(type) {
	case *SendMessageInput:
		sents, bodies = append(sents, &in.sent), append(bodies, in.MessageBody)
	case *SendMessageBatchInput:
		for i := range in.Entries {
			sents, bodies = append(sents, &in.Entries[i].sent), append(bodies, in.Entries[i].MessageBody)
		}
	}
	for i, sent := range sents {
		if !sent.plainBody {
			continue
		}
		if bodies[i] == nil || strings.IndexFunc(*bodies[i], func(r rune) bool { return r < 0x20 || r > 0x7f }) >= 0 {
			t.Fatalf("%s: %q: body %d marked plain, which it is not", action, body, i)
		}
		sent.plainBody = false
	}
}

// Bodies as SDKs send them, and the corners of JSON the fast decoder must
// read as encoding/json reads them.
var jsonFastTaken = [][2]string{
	{"SendMessage", `{"QueueUrl":"` + fzStd + `","MessageBody":"hello","DelaySeconds":0,"MessageAttributes":{"color":{"DataType":"String","StringValue":"blue"},"bin":{"DataType":"Binary","BinaryValue":"AgME"}},"MessageSystemAttributes":{"AWSTraceHeader":{"DataType":"String","StringValue":"Root=1-5759e988"}}}`},
	{"SendMessage", `{"QueueUrl":"` + fzFIFO + `","MessageBody":"ordered","MessageGroupId":"g1","MessageDeduplicationId":"d1"}`},
	{"SendMessage", `{"queueurl":"q","MESSAGEBODY":"b","delaySECONDS":-0,"messageGroupID":"g"}`},
	{"SendMessage", `{"Queue\u0055rl":"q","MessageBody":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00 <&> é 😀"}`},
	{"SendMessage", " \t\r\n{ \"MessageBody\" : \"x\" , \"Unknown\" : { \"a\" : [ 1 , -2.5e-3 , 0.5E+7 , true , false , null , { \"b\" : \"\\\"\" } , [ ] , { } ] } } \n"},
	{"SendMessage", `{"MessageBody":null,"DelaySeconds":null,"MessageAttributes":null,"MessageSystemAttributes":null,"QueueUrl":null,"MessageGroupId":null}`},
	{"SendMessage", `{"MessageBody":"","MessageAttributes":{}}`},
	{"SendMessage", `{"MessageAttributes":{"a":null,"b":{},"c":{"BinaryValue":""},"d":{"BinaryValue":null,"StringValue":null,"DataType":null},"e":{"Other":[1]},"é\u00e9":{"DataType":"String"}}}`},
	{"SendMessage", `{"MessageAttributes":{"a":{"DataType":"String"},"a":{"StringValue":"second wins"}}}`},
	{"SendMessage", `{"Meſſagebody":"folded long s"}`},
	{"SendMessage", `{"DelaySeconds":` + strconv.Itoa(math.MinInt) + `}`}, // int's range, whatever its size
	{"SendMessage", `null`},
	{"SendMessage", ` null `},
	{"SendMessage", `{}`},
	{"SendMessageBatch", `{"Entries":[{"Id":"0","MessageAttributes":{"kind":{"DataType":"String","StringValue":"order"}},"MessageBody":"a message body"},{"Id":"1","MessageBody":"two","DelaySeconds":5}],"QueueUrl":"` + fzStd + `"}`},
	{"SendMessageBatch", `{"Entries":[{"Id":"0","MessageAttributes":{"k":{"DataType":"String","StringValue":"v"}},"MessageBody":"a"},{"Id":"1","MessageAttributes":{"k":{"DataType":"String","StringValue":"v"}},"MessageBody":"b"},{"Id":"2","MessageAttributes":{"k":{"DataType":"String","StringValue":"v"}} ,"MessageBody":"c"},{"Id":"3","MessageAttributes":{"k":{"DataType":"String","StringValue":"v"},"k":{"DataType":"Number","StringValue":"1"}},"MessageBody":"d"}],"QueueUrl":"q"}`},
	{"SendMessageBatch", `{"Entries":[],"QueueUrl":"q"}`},
	{"SendMessageBatch", `{"Entries":null}`},
	{"SendMessageBatch", `{"Entries":[null,{"id":"a","messagebody":"b"},{}]}`},
	{"SendMessageBatch", `{"Entries":[{"Id":"1"},{"Id":"2"},{"Id":"3"},{"Id":"4"},{"Id":"5"},{"Id":"6"},{"Id":"7"},{"Id":"8"},{"Id":"9"},{"Id":"10"},{"Id":"11","MessageBody":"b"}]}`},
	{"ReceiveMessage", `{"MaxNumberOfMessages":10,"MessageAttributeNames":["All"],"QueueUrl":"` + fzStd + `"}`},
	{"ReceiveMessage", `{"QueueUrl":"q","AttributeNames":["All",null],"MessageSystemAttributeNames":[],"MessageAttributeNames":null,"MaxNumberOfMessages":0,"VisibilityTimeout":43200,"WaitTimeSeconds":20,"ReceiveRequestAttemptId":"att"}`},
	{"DeleteMessage", `{"QueueUrl":"q","ReceiptHandle":"h"}`},
	{"DeleteMessageBatch", `{"Entries":[{"Id":"0","ReceiptHandle":"h0"},{"Id":"1","ReceiptHandle":"h1"}],"QueueUrl":"q"}`},
	// Plain strings before and after ones with escapes, non-ASCII and
	// white space between the tokens, which the decoder reads byte by byte.
	{"SendMessageBatch", `{"Entries":[{"Id":"0","MessageBody":"plain"},{"Id":"1","MessageBody":"{\"json\":\"in a body\"}","MessageAttributes":{"k":{"DataType":"String","StringValue":"v"}}},{"Id":"2","MessageBody":"é and \ud83d\ude00"},{"Id":"3","MessageBody":"plain again"}],"QueueUrl":"q"}`},
	{"SendMessageBatch", "{\n  \"Entries\": [\n    {\n      \"Id\": \"0\",\n      \"MessageBody\": \"indented\"\n    },\n\t{\"Id\":\"1\",\"MessageBody\":\"tabbed\"}\r\n  ],\n  \"QueueUrl\": \"q\"\n}\n"},
	{"SendMessageBatch", `{"Entries":[{"Id":"0","MessageBody":"` + strings.Repeat("long plain body ", 8192) + `"},{"Id":"1","MessageBody":"` + strings.Repeat("x", 100) + `\n` + strings.Repeat("y", 100) + `"}],"QueueUrl":"q"}`},
	{"SendMessageBatch", `{"Entries":[{"IdX":"1","Id":"0","MessageBodyX":"b","Messag":"c","MessageBody":"real","I\u0064x":"d","Message\u0042ody2":"e"}],"QueueUrlQueueUrl":"x","QueueUrl":"q","Q":"y"}`},
	{"DeleteMessageBatch", `{"Entries":[{"Id":"0","ReceiptHandle":"h\/0"},{"Id":"1","ReceiptHandle":"h1"},{"Id":"\u0032","ReceiptHandle":"h2"}],"QueueUrl":"q"}`},
	{"ChangeMessageVisibility", `{"QueueUrl":"q","ReceiptHandle":"h","VisibilityTimeout":30}`},
	{"ChangeMessageVisibilityBatch", `{"Entries":[{"Id":"a","ReceiptHandle":"h","VisibilityTimeout":10},{"Id":"b","VisibilityTimeout":null}],"QueueUrl":"q"}`},
}

// Bodies the fast decoder leaves to encoding/json, which may take them
// (repeated members, Unicode folding, lone surrogates, invalid UTF-8,
// numbers it would have to round) or refuse them.
var jsonFastLeft = [][2]string{
	{"SendMessage", `{"QueueUrl":"a","QueueUrl":"b"}`},
	{"SendMessage", `{"MessageBody":"a","messagebody":"b"}`},
	{"SendMessage", `{"MessageBody":"\ud800"}`},
	{"SendMessage", `{"MessageBody":"\udc00\ud800"}`},
	{"SendMessage", "{\"MessageBody\":\"\xff\"}"},
	{"SendMessage", "{\"Unknown\":\"\xc3\"}"},
	{"SendMessage", `{"DelaySeconds":1.0}`},
	{"SendMessage", `{"DelaySeconds":1e2}`},
	{"SendMessage", `{"DelaySeconds":` + strconv.FormatUint(math.MaxInt+1, 10) + `}`},
	{"SendMessage", `{"DelaySeconds":"1"}`},
	{"SendMessage", `{"MessageBody":5}`},
	{"SendMessage", `{"MessageAttributes":{"b":{"DataType":"Binary","BinaryValue":"!!"}}}`},
	{"SendMessage", `{"MessageAttributes":[]}`},
	{"SendMessage", `{"Unknown":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`},
	{"SendMessage", `{"MessageBody":"x"} {}`},
	{"SendMessage", `{"MessageBody":"x",}`},
	{"SendMessage", `{"MessageBody" "x"}`},
	{"SendMessage", `{"Unknown":01}`},
	{"SendMessage", `{"Unknown":-}`},
	{"SendMessage", `{"Unknown":1.}`},
	{"SendMessage", `{"Unknown":.5}`},
	{"SendMessage", `{"Unknown":tru}`},
	{"SendMessage", "{\"MessageBody\":\"tab\there\"}"},
	{"SendMessage", `{"MessageBody":"\x"}`},
	{"SendMessage", `{"MessageBody":"\u12G4"}`},
	{"SendMessage", `[]`},
	{"SendMessage", `"x"`},
	{"SendMessage", ``},
	{"SendMessage", "\ufeff{}"},
	{"SendMessageBatch", `{"Entries":[{"Id":"a"}],"Entries":[{"MessageBody":"merged"}]}`},
	{"SendMessageBatch", `{"Entries":{}}`},
	// What the decoder must leave, after plain strings it took.
	{"SendMessageBatch", "{\"Entries\":[{\"Id\":\"0\",\"MessageBody\":\"plain\"},{\"Id\":\"1\",\"MessageBody\":\"raw\ttab\"}]}"},
	{"SendMessageBatch", "{\"Entries\":[{\"Id\":\"0\",\"MessageBody\":\"plain\"},{\"Id\":\"1\",\"MessageBody\":\"bad \xc3(\"}]}"},
	{"SendMessageBatch", `{"Entries":[{"Id":"0","MessageBody":"plain"},{"Id":"1","MessageBody":"\u00e9"},{"Id":"2","MessageBody":"lone \udc00"}]}`},
	{"SendMessageBatch", `{"Entries":[{"Id":"0","MessageBody":"plain"},{"Id":"1","MessageBody":"escaped quote \" then no end}]}`},
	{"SendMessageBatch", `{"Entries":[1]}`},
	{"ReceiveMessage", `{"AttributeNames":["All",1]}`},
	{"ReceiveMessage", `{"MaxNumberOfMessages":true}`},
}

func TestJSONFastDecoderAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range jsonFastTaken {
		if !compareJSONDecoders(t, c[0], c[1]) {
			t.Errorf("%s: the fast decoder left %q to encoding/json", c[0], c[1])
		}
	}
	for _, c := range jsonFastLeft {
		if compareJSONDecoders(t, c[0], c[1]) {
			t.Errorf("%s: the fast decoder took %q", c[0], c[1])
		}
	}
	// Every JSON seed of the fuzz targets, into every input it decodes.
	for _, s := range fzJSONSeeds {
		for _, action := range jsonFastActions {
			compareJSONDecoders(t, action, s[1])
		}
	}
}

// The fast decoder leaves the inputs of other actions to encoding/json.
func TestJSONFastDecoderOnlyTakesMessageActions(t *testing.T) {
	for _, action := range Actions() {
		taken := false
		for _, a := range jsonFastActions {
			taken = taken || a == action
		}
		if got := decodeJSONFast(`{}`, actionTable()[action].newInput()); got != taken {
			t.Errorf("%s: decodeJSONFast took {}: %v, want %v", action, got, taken)
		}
	}
}

// The strings that outlive a request have memory of their own; the others
// share the body's.
func TestJSONFastDecoderCopiesLastingStrings(t *testing.T) {
	within := func(s, body string) bool {
		p, start := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(body)))
		return p >= start && p < start+uintptr(len(body))
	}
	body := `{"QueueUrl":"u","Entries":[{"Id":"a","MessageBody":"b","MessageGroupId":"g","MessageDeduplicationId":"d"}]}`
	var in SendMessageBatchInput
	if !decodeJSONFast(body, &in) {
		t.Fatal("not taken")
	}
	e := in.Entries[0]
	if !within(e.Id, body) || !within(*e.MessageBody, body) {
		t.Error("a passing string was copied")
	}
	for _, s := range []string{in.QueueUrl, *e.MessageGroupId, *e.MessageDeduplicationId} {
		if within(s, body) {
			t.Errorf("%q shares the body's memory", s)
		}
	}
	body = `{"QueueUrl":"u","ReceiveRequestAttemptId":"a"}`
	var r ReceiveMessageInput
	if !decodeJSONFast(body, &r) || within(r.QueueUrl, body) || within(r.ReceiveRequestAttemptId, body) {
		t.Errorf("receive: %+v", r)
	}
}

// FuzzJSONFastDecoder holds the fast decoder to encoding/json on any body:
// what it takes, encoding/json takes into an equal input.
func FuzzJSONFastDecoder(f *testing.F) {
	for _, c := range jsonFastTaken {
		f.Add(c[1])
	}
	for _, c := range jsonFastLeft {
		f.Add(c[1])
	}
	for _, s := range fzJSONSeeds {
		f.Add(s[1])
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, action := range jsonFastActions {
			compareJSONDecoders(t, action, body)
		}
	})
}

// jsonResults builds a result of each shape the fast encoder writes from
// the given strings and bytes, with lists nil, empty or full as n says.
// What only the server makes, digests and receipt handles, is made of them
// in the server's alphabets: hex and URL-safe base64.
func jsonResults(a, b string, bin []byte, n uint8) []any {
	list := func(k uint8) int { return int(n>>k&3) - 1 } // -1 for nil
	hexA, hexB := hex.EncodeToString([]byte(a)), hex.EncodeToString([]byte(b))
	handle := base64.RawURLEncoding.EncodeToString([]byte(b))
	send := SendMessageOutput{MD5OfMessageBody: hexA, MessageId: b}
	if n&1 != 0 {
		send.MD5OfMessageAttributes, send.MD5OfMessageSystemAttributes, send.SequenceNumber = hexB, hexA, a+b
	}
	var batch SendMessageBatchOutput
	var del DeleteMessageBatchOutput
	var vis ChangeMessageVisibilityBatchOutput
	var recv ReceiveMessageOutput
	if k := list(1); k >= 0 {
		batch.Successful = make([]SendMessageBatchResultEntry, k)
		del.Successful = make([]BatchResultEntry, k)
		recv.Messages = make([]Message, k)
		for i := range k {
			batch.Successful[i] = SendMessageBatchResultEntry{Id: a, SendMessageOutput: send}
			del.Successful[i] = BatchResultEntry{Id: b}
			m := Message{MessageId: a, ReceiptHandle: handle, MD5OfBody: hexA, Body: b + a}
			if i > 0 || n&1 != 0 {
				m.Attributes = attributeMap{a: b, b: a, "SentTimestamp": "1"}
				m.MD5OfMessageAttributes = hexB
				m.MessageAttributes = attributeList(map[string]MessageAttributeValue{
					a: {StringValue: b, DataType: "String"}, b: {BinaryValue: bin, DataType: a},
					"e": {}, "s": {StringValue: a, BinaryValue: bin, DataType: "Binary"},
				})
			}
			recv.Messages[i] = m
		}
	}
	if k := list(3); k >= 0 {
		batch.Failed = make([]BatchResultErrorEntry, k)
		for i := range k {
			batch.Failed[i] = BatchResultErrorEntry{Id: a, SenderFault: i%2 == 0, Code: b, Message: strings.Repeat(a, i)}
		}
		del.Failed = batch.Failed
	}
	vis.Successful, vis.Failed = del.Successful, del.Failed
	return []any{&send, &batch, &recv, &del, &vis}
}

// compareJSONEncoders holds appendJSONResult to json.Marshal.
func compareJSONEncoders(t *testing.T, out any) {
	t.Helper()
	got, ok := appendJSONResult(nil, out)
	if !ok {
		t.Fatalf("%T not encoded", out)
	}
	want, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("%T encoded as\n%s\nwhere encoding/json writes\n%s", out, got, want)
	}
}

var jsonTrickyStrings = []string{
	"", "plain", `"quoted" \back\slash/`, "<html> & friends", "\x00\x01\b\f\n\r\t\x1f\x7f",
	"héllo 😀 \u4e16\u754c", "\u2028\u2029", "\xff\xfe bad \xc3", "\ufffd", "a\u0300",
}

func TestJSONEncoderAgreesWithEncodingJSON(t *testing.T) {
	for _, a := range jsonTrickyStrings {
		for _, b := range jsonTrickyStrings {
			for n := range uint8(16) {
				for _, out := range jsonResults(a, b, []byte(a), n) {
					compareJSONEncoders(t, out)
				}
			}
		}
	}
	if _, ok := appendJSONResult(nil, &QueueURLOutput{}); ok {
		t.Error("the fast encoder took a result it does not know")
	}
}

// Every character that needs care, at every place in a word of eight.
func TestJSONCodecsAtEveryOffset(t *testing.T) {
	for _, c := range []string{`"`, `\\`, "<", ">", "&", "\x00", "\x1f", " ", "\x7f", "é", "\u2028", "\xff"} {
		for at := range 20 {
			s := strings.Repeat("a", at) + c + strings.Repeat("b", 19-at)
			compareJSONEncoders(t, &SendMessageOutput{MessageId: s})
			compareJSONDecoders(t, "DeleteMessage", `{"ReceiptHandle":"`+s+`"}`)
			if body := `{"ReceiptHandle":` + string(must(json.Marshal(s))) + `}`; !compareJSONDecoders(t, "DeleteMessage", body) {
				t.Errorf("the fast decoder left %s to encoding/json", body)
			}
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func FuzzJSONEncoder(f *testing.F) {
	for i, s := range jsonTrickyStrings {
		f.Add(s, jsonTrickyStrings[len(jsonTrickyStrings)-1-i], []byte(s), uint8(i))
	}
	f.Fuzz(func(t *testing.T, a, b string, bin []byte, n uint8) {
		for _, out := range jsonResults(a, b, bin, n) {
			compareJSONEncoders(t, out)
		}
	})
}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestRequestIDs(t *testing.T) {
	src := newIDSource(strings.NewReader(strings.Repeat("\xff", 16)))
	seen := map[string]bool{}
	for range 1000 {
		id := src.next()[0]
		if !uuidV4.MatchString(id) || seen[id] {
			t.Fatalf("id %q: not a fresh version-4 UUID", id)
		}
		seen[id] = true
	}
	// The counter wraps within its twelve digits, prefix untouched.
	if id := src.next()[0]; !strings.HasPrefix(id, "ffffffff-ffff-4fff-bfff-000000000") {
		t.Errorf("after wrapping: %q", id)
	}
	if a, b := requestIDs.next()[0], requestIDs.next()[0]; a == b || !uuidV4.MatchString(a) {
		t.Errorf("request ids %q, %q", a, b)
	}
}

// The lists of attributes a body's messages take share an array, and
// leave no room to grow into the next: the action appends the trace header
// to a message's system attributes.
func TestJSONFastDecoderAttributeLists(t *testing.T) {
	var in SendMessageBatchInput
	body := `{"Entries":[{"MessageSystemAttributes":{"b":{},"a":{},"b":{"DataType":"last"}}},{"MessageAttributes":{},"MessageSystemAttributes":{"c":{}}}]}`
	if !decodeJSONFast(body, &in) {
		t.Fatalf("%q not taken", body)
	}
	first, second := in.Entries[0].sent.sys, in.Entries[1].sent.sys
	if len(first) != 2 || first[0].Name != "a" || first[1].Name != "b" || first[1].DataType != "last" || cap(first) != len(first) {
		t.Errorf("first entry's list %+v, cap %d", first, cap(first))
	}
	if in.Entries[1].sent.attrs != nil || len(second) != 1 || unsafe.Pointer(&second[0]) != unsafe.Add(unsafe.Pointer(&first[0]), 2*unsafe.Sizeof(first[0])) {
		t.Errorf("second entry's lists %+v, %+v do not follow the first's", in.Entries[1].sent.attrs, second)
	}
	_ = append(first, engine.MessageAttribute{Name: "AWSTraceHeader"})
	if second[0].Name != "c" {
		t.Errorf("appending to the first list overwrote the second: %+v", second)
	}
	// More than maxFastAttributes names out of order go to encoding/json.
	for _, n := range []int{maxFastAttributes, maxFastAttributes + 1} {
		var b strings.Builder
		for i := n - 1; i >= 0; i-- {
			fmt.Fprintf(&b, `,"a%03d":{"DataType":"String","StringValue":"%d"}`, i, i)
		}
		body := `{"MessageAttributes":{` + b.String()[1:] + `}}`
		if took := compareJSONDecoders(t, "SendMessage", body); took != (n == maxFastAttributes) {
			t.Errorf("%d attributes out of order: taken %v", n, took)
		}
	}
}

// plainRunByByte is plainRun one byte at a time.
func plainRunByByte(s string, i int, html bool) int {
	for ; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\\' || c < ' ' || c >= 0x80 || html && (c == '<' || c == '>' || c == '&') {
			break
		}
	}
	return i
}

// plainRun stops at the first byte it must, whatever the byte and wherever
// it falls in a word.
func TestPlainRunStopsAtEveryByte(t *testing.T) {
	for _, html := range []bool{false, true} {
		for c := range 256 {
			for at := range 19 {
				b := []byte(strings.Repeat("abcdefgh", 3))
				b[at] = byte(c)
				b[at+3] = '"'
				s := string(b)
				for from := range 3 {
					if got, want := plainRun(s, from, html), plainRunByByte(s, from, html); got != want {
						t.Fatalf("plainRun(%q, %d, %v) = %d, want %d", s, from, html, got, want)
					}
				}
			}
		}
	}
}

// A string that needs care, at every place in a word and around the
// decoder's four-word steps, in the middle one of three entries: the
// decoder reads the plain strings on either side as encoding/json does,
// and takes every body that encoding/json writes.
func TestJSONFastDecoderAroundEscapes(t *testing.T) {
	for _, c := range []string{`\"`, `\\`, `\/`, `\n`, `\u00e9`, `\ud83d\ude00`, "é", "😀", "\x7f", "\t", "\xff", `\ud800`, `"`} {
		for at := range 48 {
			s := strings.Repeat("a", at) + c + strings.Repeat("b", 47-at)
			body := `{"Entries":[{"Id":"0","MessageBody":"first"},{"Id":"1","MessageBody":"` + s + `"},{"Id":"2","MessageBody":"` + strings.Repeat("c", at) + `"}],"QueueUrl":"q"}`
			compareJSONDecoders(t, "SendMessageBatch", body)
			var v string
			if json.Unmarshal([]byte(`"`+s+`"`), &v) != nil {
				continue
			}
			body = `{"Entries":[{"Id":"0","MessageBody":"first"},{"Id":"1","MessageBody":` + string(must(json.Marshal(v))) + `}],"QueueUrl":"q"}`
			if !compareJSONDecoders(t, "SendMessageBatch", body) {
				t.Errorf("the fast decoder left %s to encoding/json", body)
			}
		}
	}
}

// Each lookup finds its names, spelled as they are or in another case,
// and tells an unknown key from one that Unicode folding might match.
func TestJSONFastLookups(t *testing.T) {
	for _, c := range []struct {
		names  []string
		lookup func(string) int
	}{
		{sendMessageNames, sendMessageField}, {sendBatchEntryNames, sendEntryField},
		{batchNames, batchField}, {receiveMessageNames, receiveMessageField},
		{deleteMessageNames, deleteMessageField}, {deleteEntryNames, deleteEntryField},
		{changeVisibilityNames, changeVisibilityField}, {changeEntryNames, changeEntryField},
		{attributeValueNames, attributeValueField},
	} {
		for i, name := range c.names {
			for _, key := range []string{name, strings.ToLower(name), strings.ToUpper(name)} {
				if got := c.lookup(key); got != i {
					t.Errorf("%v: %q is %d, want %d", c.names, key, got, i)
				}
			}
		}
		for _, key := range []string{"", "Unknown", "QueueUrlx", "VisibilityTimeout"} {
			if slices.Contains(c.names, key) {
				continue
			}
			if got := c.lookup(key); got != unknownField {
				t.Errorf("%v: %q is %d, want unknownField", c.names, key, got)
			}
		}
		if got := c.lookup("Queueſ"); got != badField {
			t.Errorf("%v: a non-ASCII key is %d, want badField", c.names, got)
		}
	}
}

// The decoder marks as plain the bodies of printable ASCII it read without
// escapes, before and after those it had to look into, so that the engine
// checks only the others.
func TestJSONFastDecoderMarksPlainBodies(t *testing.T) {
	body := `{"Entries":[{"Id":"0","MessageBody":"plain ~\u007f"},{"Id":"1","MessageBody":"plain ~` + "\x7f" + `"},` +
		`{"Id":"2","MessageBody":"é"},{"Id":"3","MessageBody":"` + strings.Repeat("plain ", 20) + `"},{"Id":"4","MessageBody":null},` +
		`{"Id":"5","MessageBody":"esc\"aped"},{"Id":"6","MessageBody":"last"}],"QueueUrl":"q"}`
	var in SendMessageBatchInput
	if !decodeJSONFast(body, &in) {
		t.Fatalf("the fast decoder left %s", body)
	}
	want := []bool{false, true, false, true, false, false, true}
	for i, e := range in.Entries {
		if e.sent.plainBody != want[i] {
			t.Errorf("entry %s: plain %v, want %v", e.Id, e.sent.plainBody, want[i])
		}
	}
	var one SendMessageInput
	if !decodeJSONFast(`{"QueueUrl":"q","MessageBody":"plain"}`, &one) || !one.sent.plainBody {
		t.Errorf("SendMessage: plain %v", one.sent.plainBody)
	}
}

// Entries whose attributes equal the last entry's share its list, which the
// engine and the digests then find the same at a glance; others get their
// own.
func TestJSONFastDecoderSharesEqualAttributes(t *testing.T) {
	a := `{"kind":{"DataType":"String","StringValue":"order"},"n":{"DataType":"Number","StringValue":"1"}}`
	aReordered := `{"n":{"DataType":"Number","StringValue":"1"},"kind":{"StringValue":"order","DataType":"String"}}`
	b := `{"kind":{"DataType":"String","StringValue":"other"}}`
	sys := `{"AWSTraceHeader":{"DataType":"String","StringValue":"Root=1"}}`
	body := `{"Entries":[{"Id":"0","MessageBody":"x","MessageAttributes":` + a + `,"MessageSystemAttributes":` + sys + `},` +
		`{"Id":"1","MessageBody":"x","MessageAttributes":` + aReordered + `,"MessageSystemAttributes":` + sys + `},` +
		`{"Id":"2","MessageBody":"x","MessageAttributes":` + b + `},` +
		`{"Id":"3","MessageBody":"x","MessageAttributes":` + a + `},` +
		`{"Id":"4","MessageBody":"x","MessageAttributes":{}},` +
		`{"Id":"5","MessageBody":"x","MessageAttributes":` + a + `,"MessageSystemAttributes":` + sys + `},` +
		`{"Id":"6","MessageBody":"x","MessageAttributes":` + a + `,"MessageSystemAttributes":` + sys + `},` +
		`{"Id":"7","MessageBody":"x","MessageAttributes":` + a[:len(a)-1] + `,"extra":{"DataType":"String","StringValue":"e"}}}],"QueueUrl":"q"}`
	if !compareJSONDecoders(t, "SendMessageBatch", body) {
		t.Fatalf("the fast decoder left %s", body)
	}
	var in SendMessageBatchInput
	if !decodeJSONFast(body, &in) {
		t.Fatalf("the fast decoder left %s", body)
	}
	e := in.Entries
	same := func(x, y []engine.MessageAttribute) bool { return len(x) > 0 && len(x) == len(y) && &x[0] == &y[0] }
	if !same(e[0].sent.attrs, e[1].sent.attrs) || !same(e[0].sent.sys, e[1].sent.sys) {
		t.Errorf("entries 0 and 1 have lists of their own: %p %p, %p %p", e[0].sent.attrs, e[1].sent.attrs, e[0].sent.sys, e[1].sent.sys)
	}
	if same(e[1].sent.attrs, e[2].sent.attrs) || same(e[2].sent.attrs, e[3].sent.attrs) || same(e[0].sent.attrs, e[3].sent.attrs) {
		t.Errorf("unequal or not consecutive lists shared: %p %p %p %p", e[0].sent.attrs, e[1].sent.attrs, e[2].sent.attrs, e[3].sent.attrs)
	}
	if e[4].sent.attrs != nil {
		t.Errorf("entry 4: %v, want nil", e[4].sent.attrs)
	}
	// Spelled as the last, byte for byte.
	if !same(e[5].sent.attrs, e[6].sent.attrs) || !same(e[5].sent.sys, e[6].sent.sys) || !same(e[0].sent.sys, e[5].sent.sys) {
		t.Errorf("entries 5 and 6 have lists of their own: %p %p, %p %p", e[5].sent.attrs, e[6].sent.attrs, e[5].sent.sys, e[6].sent.sys)
	}
	// Spelled as the last but for its end.
	if len(e[7].sent.attrs) != 3 || same(e[6].sent.attrs, e[7].sent.attrs) {
		t.Errorf("entry 7: %v", e[7].sent.attrs)
	}
	// An empty BinaryValue and none are the same to the engine, but not
	// to encoding/json, which the decoder reads as: neither entry takes
	// the other's list.
	for _, bins := range [][2]string{{`,"BinaryValue":""`, ``}, {``, `,"BinaryValue":""`}} {
		body := `{"Entries":[{"Id":"0","MessageBody":"x","MessageAttributes":{"a":{"DataType":"String","StringValue":"v"` + bins[0] + `}}},` +
			`{"Id":"1","MessageBody":"x","MessageAttributes":{"a":{"DataType":"String","StringValue":"v"` + bins[1] + `}}}],"QueueUrl":"q"}`
		if !compareJSONDecoders(t, "SendMessageBatch", body) {
			t.Errorf("the fast decoder left %s", body)
		}
	}
}

// Batches whose entries often repeat the last entry's attributes, spelled
// the same or read anew, among bodies and values that need escapes, are
// read as encoding/json reads them, and only printable ASCII bodies are
// marked plain: the sharing and the marks are where the fuzzer's mutations
// seldom lead.
func TestJSONFastDecoderRepeatedAttributes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	values := []string{`"x"`, `"é"`, `"a\"b"`, `"\u0041"`, `"\u0001"`, `""`, `null`, `"` + strings.Repeat("p", 40) + `"`, "\"\x7f\"", `"\ud83d\ude00"`, `"AAAA"`}
	attrs := func() string {
		if r.IntN(6) == 0 {
			return "null"
		}
		var b strings.Builder
		b.WriteString("{")
		for i := range r.IntN(3) {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"%c":{"DataType":"String","StringValue":%s`, 'a'+r.IntN(3), values[r.IntN(len(values))])
			if r.IntN(3) == 0 {
				b.WriteString(`,"BinaryValue":` + []string{`""`, `null`, `"AAAA"`}[r.IntN(3)])
			}
			b.WriteString("}")
		}
		b.WriteString("}")
		return b.String()
	}
	for range 5000 {
		var entries []string
		a, sys := attrs(), attrs()
		for i := range 1 + r.IntN(4) {
			if r.IntN(2) == 0 {
				a = attrs()
			}
			if r.IntN(2) == 0 {
				sys = attrs()
			}
			members := []string{fmt.Sprintf(`"Id":"%d"`, i), `"MessageBody":` + values[r.IntN(len(values))], `"MessageAttributes":` + a, `"MessageSystemAttributes":` + sys}
			r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
			entries = append(entries, "{"+strings.Join(members, ",")+"}")
		}
		compareJSONDecoders(t, "SendMessageBatch", `{"QueueUrl":"q","Entries":[`+strings.Join(entries, ",")+`]}`)
		compareJSONDecoders(t, "SendMessage", `{"QueueUrl":"q","MessageBody":`+values[r.IntN(len(values))]+`,"MessageAttributes":`+attrs()+`}`)
	}
}
