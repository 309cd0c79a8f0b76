package sqs

import (
	"flag"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

var (
	jsonGenBodies = flag.Int("jsongen", 3000, "bodies TestJSONFastDecoderOnGeneratedBodies builds for each action")
	jsonGenSeed   = flag.Uint64("jsongenseed", 1, "the seed of TestJSONFastDecoderOnGeneratedBodies")
)

// jsonGen builds bodies shaped like the inputs of the message actions, with
// the corners of JSON mixed in: names in other cases, escaped or folded,
// repeated members, values of other types, white space anywhere, escapes,
// non-ASCII and invalid bytes, and now and then a body cut short or with a
// byte changed.
type jsonGen struct {
	r      *rand.Rand
	b      strings.Builder
	action string
}

func (g *jsonGen) n(k int) int { return g.r.IntN(k) }

func (g *jsonGen) ws() {
	if g.n(4) != 0 {
		return
	}
	for range g.n(3) + 1 {
		g.b.WriteByte(" \t\n\r"[g.n(4)])
	}
}

var jsonGenPieces = []string{
	"a", "Z", " ", "~", "\x7f", `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0041`, `\u00e9`, `\u0000`,
	`\ud83d\ude00`, `\ud800`, `\udc00`, `\ud800\u0041`, `\ud800\udbff`, `\uFFFF`, `\uD83D\uDE00`, "é", "😀", "\ufffd",
	"\xff", "\xc3", "\xed\xa0\x80", "\t", "\x01", "<&>", `\x`, `\u12`, "\u2028", "0123456789abcdef",
}

func (g *jsonGen) strBody() {
	switch g.n(6) {
	case 0:
		g.b.WriteString(strings.Repeat("p", g.n(100)))
		return
	case 1:
		return
	}
	for range g.n(12) {
		if g.n(3) == 0 {
			g.b.WriteString(strings.Repeat("q", g.n(40)))
		} else {
			g.b.WriteString(jsonGenPieces[g.n(len(jsonGenPieces))])
		}
	}
}

func (g *jsonGen) str() {
	g.b.WriteByte('"')
	g.strBody()
	g.b.WriteByte('"')
}

// key writes name as a member's key, most often as it is.
func (g *jsonGen) key(name string) {
	g.ws()
	switch g.n(10) {
	case 0:
		name = strings.ToLower(name)
	case 1:
		name = strings.ToUpper(name)
	case 2:
		if name != "" {
			i := g.n(len(name))
			name = name[:i] + `\u00` + strconv.FormatUint(uint64(name[i]), 16) + name[i+1:]
		}
	case 3:
		name = strings.Replace(name, "s", "ſ", 1)
	case 4:
		name += "x"
	case 5:
		if name != "" {
			name = name[:len(name)-1]
		}
	}
	g.b.WriteString(`"` + name + `"`)
	g.ws()
	g.b.WriteByte(':')
	g.ws()
}

func (g *jsonGen) number() {
	switch g.n(8) {
	case 0:
		g.b.WriteString("-0")
	case 1:
		g.b.WriteString("9223372036854775807")
	case 2:
		g.b.WriteString("-9223372036854775809")
	case 3:
		g.b.WriteString([]string{"1.5", "1e3", "0.0", "-2E-2", "01", "1.", ".1", "-", "1e", "+1"}[g.n(10)])
	default:
		g.b.WriteString(strconv.Itoa(g.n(2000) - 100))
	}
}

// any writes a value of any type, to depth.
func (g *jsonGen) any(depth int) {
	g.ws()
	switch k := g.n(9); {
	case k == 0 && depth > 0:
		g.b.WriteByte('[')
		for i := range g.n(4) {
			if i > 0 {
				g.b.WriteByte(',')
			}
			g.any(depth - 1)
		}
		g.b.WriteByte(']')
	case k == 1 && depth > 0:
		g.b.WriteByte('{')
		for i := range g.n(4) {
			if i > 0 {
				g.b.WriteByte(',')
			}
			g.key([]string{"k", "StringValue", "Id", ""}[g.n(4)])
			g.any(depth - 1)
		}
		g.b.WriteByte('}')
	case k == 2:
		g.b.WriteString([]string{"true", "false", "null", "nul", "tru"}[g.n(5)])
	case k == 3:
		g.number()
	default:
		g.str()
	}
	g.ws()
}

// value writes a value for a field of kind: mostly of the kind, now and
// then null or anything.
func (g *jsonGen) value(kind string) {
	switch g.n(12) {
	case 0:
		g.ws()
		g.b.WriteString("null")
		g.ws()
		return
	case 1:
		g.any(2)
		return
	}
	g.ws()
	switch kind {
	case "s":
		g.str()
	case "i":
		g.number()
	case "l":
		g.b.WriteByte('[')
		for i := range g.n(4) {
			if i > 0 {
				g.b.WriteByte(',')
			}
			g.ws()
			if g.n(6) == 0 {
				g.b.WriteString("null")
			} else {
				g.str()
			}
			g.ws()
		}
		g.b.WriteByte(']')
	case "m": // message attributes
		g.b.WriteByte('{')
		for i := range g.n(4) {
			if i > 0 {
				g.b.WriteByte(',')
			}
			g.ws()
			g.b.WriteString([]string{`"a"`, `"b"`, `"é"`, `"a\u0062"`, `""`}[g.n(5)])
			g.ws()
			g.b.WriteByte(':')
			g.object(attributeValueNames, []string{"s", "b", "s"})
		}
		g.b.WriteByte('}')
	case "b":
		g.b.WriteString([]string{`"AgME"`, `""`, `"AA=="`, `"A\u0041=="`, `"!!"`, `"AA"`, `"A\nA=="`}[g.n(7)])
	}
	g.ws()
}

// object writes an object of the fields names, of kinds, in any order,
// with unknown members and repeats mixed in.
func (g *jsonGen) object(names, kinds []string) {
	g.ws()
	g.b.WriteByte('{')
	order := g.r.Perm(len(names))
	order = order[:g.n(len(order)+1)]
	if g.n(8) == 0 && len(order) > 0 {
		order = append(order, order[g.n(len(order))])
	}
	for i, f := range order {
		if i > 0 {
			g.b.WriteByte(',')
		}
		if g.n(10) == 0 {
			g.key("Unknown")
			g.any(3)
			g.b.WriteByte(',')
		}
		g.key(names[f])
		switch kinds[f] {
		case "e":
			g.entries()
		default:
			g.value(kinds[f])
		}
	}
	g.ws()
	g.b.WriteByte('}')
	g.ws()
}

var jsonGenShapes = map[string][2][]string{
	"SendMessage":             {sendMessageNames, {"s", "s", "i", "m", "m", "s", "s"}},
	"ReceiveMessage":          {receiveMessageNames, {"s", "l", "l", "l", "i", "i", "i", "s"}},
	"DeleteMessage":           {deleteMessageNames, {"s", "s"}},
	"ChangeMessageVisibility": {changeVisibilityNames, {"s", "s", "i"}},
}

var jsonGenEntries = map[string][2][]string{
	"SendMessageBatch":             {sendBatchEntryNames, {"s", "s", "i", "m", "m", "s", "s"}},
	"DeleteMessageBatch":           {deleteEntryNames, {"s", "s"}},
	"ChangeMessageVisibilityBatch": {changeEntryNames, {"s", "s", "i"}},
}

func (g *jsonGen) entries() {
	g.ws()
	if g.n(15) == 0 {
		g.b.WriteString("null")
		return
	}
	shape := jsonGenEntries[g.action]
	g.b.WriteByte('[')
	for i := range g.n(4) {
		if i > 0 {
			g.b.WriteByte(',')
		}
		if g.n(10) == 0 {
			g.b.WriteString("null")
			continue
		}
		g.object(shape[0], shape[1])
	}
	g.b.WriteByte(']')
}

func (g *jsonGen) body(action string) string {
	g.b.Reset()
	g.action = action
	if shape, ok := jsonGenShapes[action]; ok {
		g.object(shape[0], shape[1])
	} else {
		g.object(batchNames, []string{"s", "e"})
	}
	s := g.b.String()
	switch g.n(10) {
	case 0:
		s = s[:g.n(len(s)+1)]
	case 1:
		b := []byte(s)
		b[g.n(len(b))] = byte(g.n(256))
		s = string(b)
	}
	return s
}

// TestJSONFastDecoderOnGeneratedBodies holds the fast decoder to
// encoding/json on bodies built to reach its corners, and checks that it
// takes a good share of them.
func TestJSONFastDecoderOnGeneratedBodies(t *testing.T) {
	g := &jsonGen{r: rand.New(rand.NewPCG(*jsonGenSeed, 2))}
	for _, action := range jsonFastActions {
		taken := 0
		for range *jsonGenBodies {
			if compareJSONDecoders(t, action, g.body(action)) {
				taken++
			}
		}
		t.Logf("%s: %d of %d taken", action, taken, *jsonGenBodies)
		if taken == 0 {
			t.Errorf("%s: no generated body taken", action)
		}
	}
}

// Every prefix of the bodies the decoder takes, and each with one byte
// changed to one of the bytes JSON's grammar turns on, decodes as
// encoding/json decodes it, or goes to it.
func TestJSONFastDecoderOnCutAndChangedBodies(t *testing.T) {
	bytes := []byte("\x00\x1f \t\n\r\"\\/{}[],:-+.0159eEnultrfasbu\x7f\x80\xbf\xc3\xed\xf4\xff")
	for _, c := range jsonFastTaken {
		if len(c[1]) > 1000 {
			continue
		}
		for n := range len(c[1]) {
			compareJSONDecoders(t, c[0], c[1][:n])
			b := []byte(c[1])
			for _, x := range bytes {
				b[n] = x
				compareJSONDecoders(t, c[0], string(b))
			}
		}
	}
}

// Strings of every length up to past the decoder's word steps, with the
// run of plain bytes ended, in them or between them, by each kind of byte
// that ends it: the decoder finds each string's end, and reads the next
// string as it should.
func TestJSONFastDecoderStringEnds(t *testing.T) {
	stops := []string{"", " ", `\n`, `\"`, `\\`, "é", "😀", "\x7f", `\u0041`}
	for n := range 90 {
		for _, before := range stops {
			for _, after := range stops {
				for _, ws := range []string{"", " ", "\n", "\t", "\r\n"} {
					s := strings.Repeat("s", n/2) + before + strings.Repeat("t", n-n/2)
					body := `{"Entries":[{"Id":"` + s + `"` + ws + `,` + ws + `"MessageBody":"` + after + strings.Repeat("u", n) + `"},` +
						`{"Id":"x` + s + after + `","MessageBody":"` + strings.Repeat("v", 90-n) + `"` + ws + `}]` + ws + `,"QueueUrl":"` + s + `"}` + ws
					if !compareJSONDecoders(t, "SendMessageBatch", body) {
						t.Errorf("the fast decoder left %q to encoding/json", body)
					}
				}
			}
		}
	}
}
