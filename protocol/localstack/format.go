package localstack

// LocalStack's answer formats: content negotiation for the query
// protocol's answers, the JSON that LocalStack makes of their XML (its
// serializer runs the XML through xmltodict and drops xmlns), and JSON
// written as Python's json.dumps writes it, so that a readiness check
// grepping for `"sqs": "running"` finds it.

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf16"
)

// The query protocol's answer types, LocalStack's default first.
const (
	mimeTextXML = "text/xml"
	mimeAppXML  = "application/xml"
	mimeJSON    = "application/json"
)

var offered = []string{mimeTextXML, mimeAppXML, mimeJSON}

// negotiate picks the offered type that the Accept header rates highest,
// as werkzeug's best_match does for LocalStack: on equal quality the more
// specific match wins, then the earlier offered type. No match, or no
// header, gives the default.
func negotiate(accept string) string {
	best, bestQ, bestSpec := offered[0], 0.0, -1
	for _, o := range offered {
		for _, part := range strings.Split(accept, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			q := 1.0
			if v, ok := params["q"]; ok {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				}
			}
			spec := 2
			switch {
			case mt == "*/*":
				spec = 0
			case strings.HasSuffix(mt, "/*") && strings.HasPrefix(o, strings.TrimSuffix(mt, "*")):
				spec = 1
			case mt != o:
				continue
			}
			if q > 0 && (q > bestQ || q == bestQ && spec > bestSpec) {
				best, bestQ, bestSpec = o, q, spec
			}
		}
	}
	return best
}

// recorder keeps an answer so that it can be rewritten.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(status int)      { r.status = status }

// node is a value in xmltodict's form: a string, nil for an empty element,
// an ordered object, or a list of repeated elements.
type node any

// object keeps its keys in document order, as Python's dicts do.
type object struct {
	keys []string
	vals map[string]node
}

func (o *object) add(key string, v node) {
	if o.vals == nil {
		o.vals = map[string]node{}
	}
	old, ok := o.vals[key]
	if !ok {
		o.keys = append(o.keys, key)
		o.vals[key] = v
		return
	}
	if list, isList := old.([]node); isList {
		o.vals[key] = append(list, v)
		return
	}
	o.vals[key] = []node{old, v}
}

// xmlToJSON renders an XML document as LocalStack's serializer does: each
// element an object of its children (a repeated child a list), a
// childless element its text or null, attributes as "@name" keys with the
// xmlns attributes dropped.
func xmlToJSON(doc []byte) ([]byte, error) {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	root := &object{}
	type frame struct {
		name  string
		obj   *object
		text  strings.Builder
		attrs int
	}
	stack := []*frame{{obj: root}}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			f := &frame{name: t.Name.Local, obj: &object{}}
			for _, a := range t.Attr {
				if a.Name.Local == "xmlns" || a.Name.Space == "xmlns" {
					continue
				}
				f.obj.add("@"+a.Name.Local, a.Value)
				f.attrs++
			}
			stack = append(stack, f)
		case xml.CharData:
			stack[len(stack)-1].text.Write(t)
		case xml.EndElement:
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			text := strings.TrimSpace(f.text.String())
			var v node
			switch {
			case len(f.obj.keys) == 0 && text == "":
				v = nil
			case len(f.obj.keys) == 0:
				v = text
			default:
				if text != "" {
					f.obj.add("#text", text)
				}
				v = f.obj
			}
			stack[len(stack)-1].obj.add(f.name, v)
		}
	}
	var buf bytes.Buffer
	writePython(&buf, root)
	return buf.Bytes(), nil
}

// writePython writes v as Python's json.dumps does by default: ", " and
// ": " between items, and every character outside printable ASCII escaped.
func writePython(buf *bytes.Buffer, v node) {
	switch x := v.(type) {
	case nil:
		buf.WriteString("null")
	case string:
		writePythonString(buf, x)
	case bool:
		buf.WriteString(strconv.FormatBool(x))
	case *object:
		buf.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				buf.WriteString(", ")
			}
			writePythonString(buf, k)
			buf.WriteString(": ")
			writePython(buf, x.vals[k])
		}
		buf.WriteByte('}')
	case []node:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteString(", ")
			}
			writePython(buf, e)
		}
		buf.WriteByte(']')
	default:
		panic(fmt.Sprintf("localstack: cannot write %T", v))
	}
}

func writePythonString(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			buf.WriteString(`\"`)
		case r == '\\':
			buf.WriteString(`\\`)
		case r == '\n':
			buf.WriteString(`\n`)
		case r == '\r':
			buf.WriteString(`\r`)
		case r == '\t':
			buf.WriteString(`\t`)
		case r == '\b':
			buf.WriteString(`\b`)
		case r == '\f':
			buf.WriteString(`\f`)
		case r >= 0x20 && r <= 0x7e:
			buf.WriteRune(r)
		case r > 0xffff:
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(buf, `\u%04x\u%04x`, hi, lo)
		default:
			fmt.Fprintf(buf, `\u%04x`, r)
		}
	}
	buf.WriteByte('"')
}

// objectOf builds an object with its keys in the order given.
func objectOf(kv ...any) *object {
	o := &object{}
	for i := 0; i+1 < len(kv); i += 2 {
		o.add(kv[i].(string), kv[i+1])
	}
	return o
}
