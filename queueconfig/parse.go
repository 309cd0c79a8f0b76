package queueconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

const (
	// maxAliasDepth bounds alias-to-alias chains, which YAML lets loop.
	maxAliasDepth = 32
	// maxExpansion bounds the nodes read with aliases expanded, so that a
	// few lines of nested aliases cannot take forever ("billion laughs").
	maxExpansion = 100_000
)

// Parse reads a config file's contents; file names it in errors. YAML and
// JSON are both read, JSON being YAML's flow style.
func Parse(file string, data []byte) (*Config, error) {
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		var ye yaml.Error
		if errors.As(err, &ye) && ye.GetToken() != nil {
			return nil, &Error{File: file, Line: ye.GetToken().Position.Line, Err: errors.New(ye.GetMessage())}
		}
		return nil, &Error{File: file, Err: err}
	}
	p := &fileParser{file: file, anchors: map[string]ast.Node{}, budget: maxExpansion}
	var body ast.Node
	for _, doc := range f.Docs {
		if doc.Body == nil {
			continue
		}
		if body != nil {
			return nil, p.errorAt(doc.Body, "", errors.New("want one YAML document, found more"))
		}
		body = doc.Body
		ast.Walk(p, body)
	}
	c := &Config{}
	if body == nil {
		return c, nil
	}
	top, err := p.mapping(body, "")
	if err != nil {
		return nil, err
	}
	for _, kv := range top {
		switch {
		case kv.key == "queues":
			if c.Queues, err = p.queues(kv.value); err != nil {
				return nil, err
			}
		case strings.HasPrefix(kv.key, "x-"):
			// Extension keys hold anchors for the rest of the file.
		default:
			return nil, p.errorAt(kv.keyNode, kv.key, errors.New(`unknown field: want "queues", or a key starting with "x-"`))
		}
	}
	if _, err := c.order(); err != nil {
		return nil, err
	}
	return c, nil
}

// fileParser walks a parsed YAML file. Errors carry the line of the node at
// fault and the path of its field.
type fileParser struct {
	file    string
	anchors map[string]ast.Node
	budget  int // nodes left to read; see maxExpansion
}

var errExpansion = fmt.Errorf("aliases expand to more than %d values", maxExpansion)

// spend takes one node from the budget.
func (p *fileParser) spend(n ast.Node, field string) error {
	if p.budget--; p.budget < 0 {
		return p.errorAt(n, field, errExpansion)
	}
	return nil
}

// Visit records anchors, so that aliases can be followed.
func (p *fileParser) Visit(n ast.Node) ast.Visitor {
	if a, ok := n.(*ast.AnchorNode); ok && a.Name != nil {
		p.anchors[a.Name.GetToken().Value] = a.Value
	}
	return p
}

func (p *fileParser) errorAt(n ast.Node, field string, err error) *Error {
	e := &Error{File: p.file, Field: field, Err: err}
	if n != nil && n.GetToken() != nil {
		e.Line = n.GetToken().Position.Line
	}
	return e
}

// resolve follows anchors, aliases and tags to the node holding a value.
func (p *fileParser) resolve(n ast.Node) ast.Node {
	for range maxAliasDepth {
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
		case *ast.TagNode:
			n = v.Value
		case *ast.AliasNode:
			target, ok := p.anchors[v.Value.GetToken().Value]
			if !ok {
				return n
			}
			n = target
		default:
			return n
		}
	}
	return n
}

// keyValue is one entry of a mapping.
type keyValue struct {
	key     string
	keyNode ast.Node
	value   ast.Node
}

// mapping returns the entries of a mapping node in order, with merge keys
// ("<<: *anchor") expanded; keys given in the mapping itself override merged
// ones. A null node is an empty mapping.
func (p *fileParser) mapping(n ast.Node, field string) ([]keyValue, error) {
	return p.mappingDepth(n, field, 0)
}

func (p *fileParser) mappingDepth(n ast.Node, field string, depth int) ([]keyValue, error) {
	if depth > maxAliasDepth {
		return nil, p.errorAt(n, field, errors.New("merge keys nest too deeply"))
	}
	if err := p.spend(n, field); err != nil {
		return nil, err
	}
	orig := n
	n = p.resolve(n)
	var pairs []*ast.MappingValueNode
	switch v := n.(type) {
	case *ast.NullNode:
		return nil, nil
	case *ast.MappingNode:
		pairs = v.Values
	case *ast.MappingValueNode:
		pairs = []*ast.MappingValueNode{v}
	default:
		return nil, p.errorAt(orig, field, fmt.Errorf("want a mapping, got %s", describe(n)))
	}
	var merged, own []keyValue
	for _, kv := range pairs {
		if _, ok := kv.Key.(*ast.MergeKeyNode); ok {
			src := p.resolve(kv.Value)
			srcs := []ast.Node{src}
			if seq, ok := src.(*ast.SequenceNode); ok {
				srcs = seq.Values
			}
			for _, s := range srcs {
				m, err := p.mappingDepth(s, field, depth+1)
				if err != nil {
					return nil, err
				}
				merged = append(merged, m...)
			}
			continue
		}
		key, ok := p.scalar(kv.Key)
		if !ok {
			return nil, p.errorAt(kv.Key, field, errors.New("want a plain key"))
		}
		own = append(own, keyValue{key: key, keyNode: kv.Key, value: kv.Value})
	}
	out := make([]keyValue, 0, len(merged)+len(own))
	seen := map[string]bool{}
	for _, kv := range own {
		seen[kv.key] = true
	}
	for _, kv := range merged {
		if !seen[kv.key] {
			seen[kv.key] = true
			out = append(out, kv)
		}
	}
	return append(out, own...), nil
}

// scalar returns a scalar node's value as text: numbers in decimal, booleans
// as true or false, block scalars as their text.
func (p *fileParser) scalar(n ast.Node) (string, bool) {
	switch v := p.resolve(n).(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		return v.Value.Value, true
	case *ast.IntegerNode:
		return fmt.Sprint(v.Value), true
	case *ast.FloatNode:
		if v.Value == math.Trunc(v.Value) && math.Abs(v.Value) < 1<<53 {
			return strconv.FormatInt(int64(v.Value), 10), true
		}
		return strconv.FormatFloat(v.Value, 'f', -1, 64), true
	case *ast.BoolNode:
		return strconv.FormatBool(v.Value), true
	}
	return "", false
}

// value converts a node to plain Go values, for attributes given as YAML
// structures rather than JSON text.
func (p *fileParser) value(n ast.Node, field string, depth int) (any, error) {
	if depth > maxAliasDepth {
		return nil, p.errorAt(n, field, errors.New("value nests too deeply"))
	}
	if err := p.spend(n, field); err != nil {
		return nil, err
	}
	switch v := p.resolve(n).(type) {
	case *ast.NullNode:
		return nil, nil
	case *ast.IntegerNode:
		return v.Value, nil
	case *ast.FloatNode:
		return v.Value, nil
	case *ast.BoolNode:
		return v.Value, nil
	case *ast.SequenceNode:
		out := make([]any, 0, len(v.Values))
		for i, item := range v.Values {
			x, err := p.value(item, fmt.Sprintf("%s[%d]", field, i), depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	case *ast.MappingNode, *ast.MappingValueNode:
		kvs, err := p.mappingDepth(v, field, depth+1)
		if err != nil {
			return nil, err
		}
		out := make(map[string]any, len(kvs))
		for _, kv := range kvs {
			if out[kv.key], err = p.value(kv.value, field+"."+kv.key, depth+1); err != nil {
				return nil, err
			}
		}
		return out, nil
	default:
		if s, ok := p.scalar(v); ok {
			return s, nil
		}
		return nil, p.errorAt(n, field, fmt.Errorf("unexpected %s", describe(v)))
	}
}

// describe names a node's kind for error messages.
func describe(n ast.Node) string {
	switch n.(type) {
	case *ast.NullNode:
		return "nothing"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.AliasNode:
		return "an alias to an unknown anchor"
	case *ast.StringNode, *ast.LiteralNode:
		return "text"
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "a number"
	case *ast.BoolNode:
		return "a boolean"
	}
	return n.Type().String()
}

func (p *fileParser) queues(n ast.Node) ([]Queue, error) {
	var items []ast.Node
	switch v := p.resolve(n).(type) {
	case *ast.NullNode:
		return nil, nil
	case *ast.SequenceNode:
		items = v.Values
	default:
		return nil, p.errorAt(n, "queues", fmt.Errorf("want a list of queues, got %s", describe(v)))
	}
	out := make([]Queue, 0, len(items))
	for i, item := range items {
		q, err := p.queue(item, fmt.Sprintf("queues[%d]", i))
		if err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, nil
}

// The fields of a queue entry.
const queueFields = `"name", "fifo", "attributes", "tags" or "deadLetterQueue"`

func (p *fileParser) queue(n ast.Node, path string) (Queue, error) {
	kvs, err := p.mapping(n, path)
	if err != nil {
		return Queue{}, err
	}
	q := Queue{Source: Source{File: p.file, Path: path, lines: map[string]int{}}}
	if len(kvs) > 0 {
		q.Source.Line = kvs[0].keyNode.GetToken().Position.Line
	} else if n.GetToken() != nil {
		q.Source.Line = n.GetToken().Position.Line
	}
	var fifo *bool
	for _, kv := range kvs {
		field := path + "." + kv.key
		q.Source.lines[kv.key] = kv.keyNode.GetToken().Position.Line
		switch kv.key {
		case "name":
			s, ok := p.scalar(kv.value)
			if !ok {
				return q, p.errorAt(kv.value, field, fmt.Errorf("want a queue name, got %s", describe(p.resolve(kv.value))))
			}
			q.Name = s
		case "fifo":
			b, ok := p.resolve(kv.value).(*ast.BoolNode)
			if !ok {
				return q, p.errorAt(kv.value, field, errors.New("want true or false"))
			}
			fifo = &b.Value
		case "attributes":
			if q.Attributes, err = p.attributes(kv.value, field, &q.Source); err != nil {
				return q, err
			}
		case "tags":
			if q.Tags, err = p.tags(kv.value, field, &q.Source); err != nil {
				return q, err
			}
		case "deadLetterQueue":
			if q.DeadLetter, err = p.deadLetter(kv.value, field, &q.Source); err != nil {
				return q, err
			}
		default:
			return q, p.errorAt(kv.keyNode, field, fmt.Errorf("unknown field: want %s", queueFields))
		}
	}
	if q.Name == "" {
		return q, p.errorAt(n, path+".name", errors.New("a queue needs a name"))
	}
	if fifo != nil && *fifo != q.FIFO() {
		err := fmt.Errorf("fifo: true needs a name ending in .fifo, not %s", q.Name)
		if !*fifo {
			err = fmt.Errorf("a name ending in .fifo makes a FIFO queue; fifo: false contradicts %s", q.Name)
		}
		return q, q.errorAt("fifo", err)
	}
	return q, nil
}

// attributes reads SQS attributes. Scalars become their text; a mapping or
// list becomes JSON text, so policies may be written as YAML.
func (p *fileParser) attributes(n ast.Node, field string, src *Source) (map[string]string, error) {
	kvs, err := p.mapping(n, field)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		f := field + "." + kv.key
		src.lines["attributes."+kv.key] = kv.keyNode.GetToken().Position.Line
		if s, ok := p.scalar(kv.value); ok {
			out[kv.key] = s
			continue
		}
		switch p.resolve(kv.value).(type) {
		case *ast.MappingNode, *ast.MappingValueNode, *ast.SequenceNode:
			v, err := p.value(kv.value, f, 0)
			if errors.Is(err, errExpansion) {
				// Name the attribute, not the depths of the expansion.
				return nil, p.errorAt(kv.keyNode, f, errExpansion)
			}
			if err != nil {
				return nil, err
			}
			b, err := json.Marshal(v)
			if err != nil {
				return nil, p.errorAt(kv.value, f, err)
			}
			out[kv.key] = string(b)
		default:
			return nil, p.errorAt(kv.value, f, fmt.Errorf("want a value, got %s", describe(p.resolve(kv.value))))
		}
	}
	return out, nil
}

func (p *fileParser) tags(n ast.Node, field string, src *Source) (map[string]string, error) {
	kvs, err := p.mapping(n, field)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		src.lines["tags."+kv.key] = kv.keyNode.GetToken().Position.Line
		s, ok := p.scalar(kv.value)
		if !ok {
			if _, null := p.resolve(kv.value).(*ast.NullNode); !null {
				return nil, p.errorAt(kv.value, field+"."+kv.key, fmt.Errorf("want text, got %s", describe(p.resolve(kv.value))))
			}
		}
		out[kv.key] = s
	}
	return out, nil
}

func (p *fileParser) deadLetter(n ast.Node, field string, src *Source) (*DeadLetter, error) {
	kvs, err := p.mapping(n, field)
	if err != nil {
		return nil, err
	}
	dl := &DeadLetter{}
	var haveCount bool
	for _, kv := range kvs {
		f := field + "." + kv.key
		src.lines["deadLetterQueue."+kv.key] = kv.keyNode.GetToken().Position.Line
		switch kv.key {
		case "name":
			s, ok := p.scalar(kv.value)
			if !ok {
				return nil, p.errorAt(kv.value, f, fmt.Errorf("want a queue name, got %s", describe(p.resolve(kv.value))))
			}
			dl.Queue = s
		case "maxReceiveCount":
			s, _ := p.scalar(kv.value)
			c, err := strconv.Atoi(s)
			if err != nil {
				return nil, p.errorAt(kv.value, f, errors.New("want a whole number"))
			}
			dl.MaxReceiveCount, haveCount = c, true
		default:
			return nil, p.errorAt(kv.keyNode, f, errors.New(`unknown field: want "name" or "maxReceiveCount"`))
		}
	}
	if dl.Queue == "" {
		return nil, p.errorAt(n, field+".name", errors.New("the dead-letter queue needs a name"))
	}
	if !haveCount {
		return nil, p.errorAt(n, field+".maxReceiveCount", errors.New("maxReceiveCount is required: how many receives before a message moves to the dead-letter queue"))
	}
	return dl, nil
}
