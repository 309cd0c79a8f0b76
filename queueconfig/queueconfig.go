// Package queueconfig declares queues for minisqs to create when it starts:
// from a YAML or JSON file, or from a comma-separated list of names such as
// the MINISQS_QUEUES environment variable holds. Parsing is pure; Apply
// creates the queues in an engine, dead-letter queues first.
//
// A file looks like this (JSON of the same shape works too):
//
//	queues:
//	  - name: orders
//	    attributes:              # SQS attribute names and values, as CreateQueue takes them
//	      VisibilityTimeout: 60
//	      MessageRetentionPeriod: 86400
//	    tags:
//	      team: payments
//	    deadLetterQueue:         # sets RedrivePolicy to the queue of this name
//	      name: orders-dlq
//	      maxReceiveCount: 5
//	  - name: orders-dlq
//	  - name: events.fifo        # a name ending in .fifo makes a FIFO queue
//	    attributes:
//	      ContentBasedDeduplication: true
//
// Top-level keys starting with "x-" are ignored, so they can hold YAML
// anchors shared between queues.
//
// Applying a configuration again, as a restart with a database file does,
// leaves queues that have the declared settings as they are, and sets the
// declared attributes and tags on those that differ.
package queueconfig

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/sqs"
)

// Config is a set of queues to create.
type Config struct {
	// Queues in the order they were declared; Apply creates each queue's
	// dead-letter queue before it.
	Queues []Queue
}

// Queue is one queue to create.
type Queue struct {
	Name string
	// Attributes are SQS queue attributes with their values as strings,
	// exactly as CreateQueue takes them. FifoQueue may be left out: a name
	// ending in ".fifo" implies it.
	Attributes map[string]string
	Tags       map[string]string
	// DeadLetter, when set, gives the queue a RedrivePolicy naming its
	// dead-letter queue by name rather than by ARN.
	DeadLetter *DeadLetter
	// Source says where the queue was declared.
	Source Source
}

// DeadLetter names a queue's dead-letter queue.
type DeadLetter struct {
	Queue           string
	MaxReceiveCount int
}

// Source is where a queue was declared, for error messages.
type Source struct {
	// File is the config file's name, or the environment variable or flag
	// a list came from.
	File string
	// Line is the line of the queue's entry; 0 for a list.
	Line int
	// Path is the entry's place in the file, such as "queues[2]".
	Path string
	// lines holds the line of each field of the entry, by its path below
	// Path ("name", "attributes.VisibilityTimeout").
	lines map[string]int
}

// FIFO reports whether the queue is a FIFO queue, which its name decides.
func (q *Queue) FIFO() bool { return strings.HasSuffix(q.Name, ".fifo") }

// bare reports whether the declaration names the queue and nothing else.
func (q *Queue) bare() bool {
	return len(q.Attributes) == 0 && len(q.Tags) == 0 && q.DeadLetter == nil
}

func (q *Queue) sameSettings(o *Queue) bool {
	return maps.Equal(q.Attributes, o.Attributes) && maps.Equal(q.Tags, o.Tags) &&
		(q.DeadLetter == nil) == (o.DeadLetter == nil) && (q.DeadLetter == nil || *q.DeadLetter == *o.DeadLetter)
}

// Error is a mistake in a configuration, located by file, line and field.
type Error struct {
	File  string
	Line  int    // 0 when there is no line to name
	Field string // such as "queues[2].attributes.VisibilityTimeout"; may be empty
	Err   error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	// An engine error's code is for programs; people read its message.
	var ee *engine.Error
	if errors.As(e.Err, &ee) {
		b.WriteString(strings.TrimSuffix(strings.Replace(e.Err.Error(), ee.Error(), sqs.ErrorMessage(ee), 1), "."))
	} else {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// errorAt locates err at field (a path below the queue's entry, or "").
func (q *Queue) errorAt(field string, err error) *Error {
	s := q.Source
	e := &Error{File: s.File, Line: s.Line, Field: s.Path, Err: err}
	// A list's items have no fields to name.
	if field != "" && s.Path != "" {
		if e.Field != "" {
			e.Field += "."
		}
		e.Field += field
		if line, ok := s.lines[field]; ok {
			e.Line = line
		}
	}
	return e
}

// Load reads and parses a config file.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// ParseList reads a comma-separated list of queue names, such as
// "orders,events.fifo"; source names where it came from. Blanks around names
// and empty items are ignored.
func ParseList(source, list string) (*Config, error) {
	c := &Config{}
	for item := range strings.SplitSeq(list, ",") {
		name := strings.TrimSpace(item)
		if name == "" {
			continue
		}
		c.Queues = append(c.Queues, Queue{Name: name, Source: Source{File: source}})
	}
	if _, err := c.order(); err != nil {
		return nil, err
	}
	return c, nil
}

// Merge combines configurations. A queue may be declared more than once if
// at most one declaration gives it settings, or all give the same; the
// first declaration with settings is kept.
func Merge(cs ...*Config) (*Config, error) {
	out := &Config{}
	at := map[string]int{}
	for _, c := range cs {
		if c == nil {
			continue
		}
		for _, q := range c.Queues {
			i, seen := at[q.Name]
			switch {
			case !seen:
				at[q.Name] = len(out.Queues)
				out.Queues = append(out.Queues, q)
			case out.Queues[i].bare() && !q.bare():
				out.Queues[i] = q
			case !q.bare() && !q.sameSettings(&out.Queues[i]):
				return nil, q.errorAt("", fmt.Errorf("queue %s is also declared, with other settings, at %s", q.Name, out.Queues[i].Source))
			}
		}
	}
	if _, err := out.order(); err != nil {
		return nil, err
	}
	return out, nil
}

// String is "FILE:LINE", or the name of a list's source.
func (s Source) String() string {
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d", s.File, s.Line)
	}
	return s.File
}

// update checks q's own settings and turns them into an engine update, with
// FifoQueue set for FIFO names. A DeadLetter is checked but left for the
// caller to resolve to an ARN.
func (q *Queue) update() (engine.AttributeUpdate, error) {
	if !engine.ValidQueueName(q.Name) {
		if q.Name == "" {
			return engine.AttributeUpdate{}, q.errorAt("name", errors.New("a queue needs a name"))
		}
		return engine.AttributeUpdate{}, q.errorAt("name", fmt.Errorf("invalid queue name %q: want 1 to 80 letters, digits, hyphens or underscores, with .fifo at the end of a FIFO queue's name", q.Name))
	}
	// Attribute by attribute first, so an error names the one at fault.
	for _, name := range slices.Sorted(maps.Keys(q.Attributes)) {
		// FifoQueue is checked against the name below.
		if s, ok := engine.LookupConfigAttribute(name); ok && s.FifoOnly && !s.TypeFixed && !q.FIFO() {
			return engine.AttributeUpdate{}, q.errorAt("attributes."+name, fmt.Errorf("%s is only for FIFO queues, whose names end in .fifo", name))
		}
		u, err := sqs.ParseAttributes(map[string]string{name: q.Attributes[name]})
		if err != nil {
			return engine.AttributeUpdate{}, q.errorAt("attributes."+name, err)
		}
		if u.FifoQueue != nil && *u.FifoQueue != q.FIFO() {
			return engine.AttributeUpdate{}, q.errorAt("attributes."+name, fmt.Errorf("FifoQueue %t does not match the name %s: FIFO queue names, and only they, end in .fifo", *u.FifoQueue, q.Name))
		}
		if name == "RedrivePolicy" && q.DeadLetter != nil {
			return engine.AttributeUpdate{}, q.errorAt("attributes."+name, errors.New("give either a RedrivePolicy attribute or deadLetterQueue, not both"))
		}
	}
	u, err := sqs.ParseAttributes(q.Attributes)
	if err != nil {
		return u, q.errorAt("attributes", err)
	}
	if q.FIFO() {
		fifo := true
		u.FifoQueue = &fifo
	}
	if dl := q.DeadLetter; dl != nil {
		if !engine.ValidQueueName(dl.Queue) {
			return u, q.errorAt("deadLetterQueue.name", fmt.Errorf("invalid queue name %q", dl.Queue))
		}
		if dl.MaxReceiveCount < engine.MinMaxReceiveCount || dl.MaxReceiveCount > engine.MaxMaxReceiveCount {
			return u, q.errorAt("deadLetterQueue.maxReceiveCount", fmt.Errorf("%d is out of range: want %d to %d", dl.MaxReceiveCount, engine.MinMaxReceiveCount, engine.MaxMaxReceiveCount))
		}
	}
	return u, nil
}

// deadLetterName is the name of the queue q's redrive policy sends to, if
// any: from DeadLetter, or from a RedrivePolicy attribute's ARN.
func deadLetterName(q *Queue, u engine.AttributeUpdate) string {
	if q.DeadLetter != nil {
		return q.DeadLetter.Queue
	}
	if u.RedrivePolicy != nil {
		arn := u.RedrivePolicy.DeadLetterTargetArn
		return arn[strings.LastIndexByte(arn, ':')+1:]
	}
	return ""
}

// planned is a queue ready to create.
type planned struct {
	q      *Queue
	update engine.AttributeUpdate
}

// order checks every queue and returns them in creation order: each
// dead-letter queue before the queues that send to it, and otherwise in the
// order declared. A dead-letter queue named by deadLetterQueue must be
// declared too, of the same type; cycles are refused.
func (c *Config) order() ([]planned, error) {
	byName := make(map[string]int, len(c.Queues))
	updates := make([]engine.AttributeUpdate, len(c.Queues))
	for i := range c.Queues {
		q := &c.Queues[i]
		u, err := q.update()
		if err != nil {
			return nil, err
		}
		if j, dup := byName[q.Name]; dup {
			return nil, q.errorAt("name", fmt.Errorf("queue %s is declared twice; first at %s", q.Name, c.Queues[j].Source))
		}
		byName[q.Name] = i
		updates[i] = u
	}
	for i := range c.Queues {
		q := &c.Queues[i]
		if q.DeadLetter == nil {
			continue
		}
		j, ok := byName[q.DeadLetter.Queue]
		if !ok {
			return nil, q.errorAt("deadLetterQueue.name", fmt.Errorf("dead-letter queue %s is not declared", q.DeadLetter.Queue))
		}
		if c.Queues[j].FIFO() != q.FIFO() {
			return nil, q.errorAt("deadLetterQueue.name", fmt.Errorf("dead-letter queue %s must be of the same type as %s: both FIFO or both standard", q.DeadLetter.Queue, q.Name))
		}
	}

	const (
		unvisited = iota
		visiting
		done
	)
	state := make([]int, len(c.Queues))
	out := make([]planned, 0, len(c.Queues))
	var visit func(i int, chain []string) error
	visit = func(i int, chain []string) error {
		q := &c.Queues[i]
		chain = append(chain, q.Name)
		switch state[i] {
		case done:
			return nil
		case visiting:
			field := "deadLetterQueue.name"
			if q.DeadLetter == nil {
				field = "attributes.RedrivePolicy"
			}
			return q.errorAt(field, fmt.Errorf("dead-letter queues form a cycle: %s", strings.Join(chain, " → ")))
		}
		state[i] = visiting
		if j, ok := byName[deadLetterName(q, updates[i])]; ok {
			if err := visit(j, chain); err != nil {
				return err
			}
		}
		state[i] = done
		out = append(out, planned{q: q, update: updates[i]})
		return nil
	}
	for i := range c.Queues {
		if err := visit(i, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Action says what Apply did to a queue.
type Action string

// What Apply may do to a queue.
const (
	Created   Action = "created"
	Unchanged Action = "unchanged" // it existed with the declared settings
	Updated   Action = "updated"   // it existed; the declared settings were applied to it
)

// Result is what Apply did to one queue.
type Result struct {
	Queue  *engine.Queue
	Action Action
	Source Source
}

// Apply creates the queues of c in e, dead-letter queues first. A queue that
// already exists, as after a restart with a database file, is left as it is
// when it has the declared settings; otherwise the declared attributes and
// tags are set on it, and those not declared are left alone. Apply stops at
// the first failure.
func Apply(e *engine.Engine, c *Config) ([]Result, error) {
	plan, err := c.order()
	if err != nil {
		return nil, err
	}
	created := map[string]*engine.Queue{}
	results := make([]Result, 0, len(plan))
	for _, p := range plan {
		q, u := p.q, p.update
		if dl := q.DeadLetter; dl != nil {
			u.RedrivePolicy = &engine.RedrivePolicy{DeadLetterTargetArn: created[dl.Queue].Arn(), MaxReceiveCount: dl.MaxReceiveCount}
		}
		r, err := apply(e, q, u)
		if err != nil {
			return results, q.errorAt("", fmt.Errorf("queue %s: %w", q.Name, err))
		}
		created[q.Name] = r.Queue
		results = append(results, r)
	}
	return results, nil
}

func apply(e *engine.Engine, q *Queue, u engine.AttributeUpdate) (Result, error) {
	r := Result{Action: Created, Source: q.Source}
	if _, err := e.Queue(q.Name); err == nil {
		r.Action = Unchanged
	}
	eq, err := e.CreateQueue(q.Name, u, q.Tags)
	if engine.CodeOf(err) == engine.ErrQueueNameExists {
		if eq, err = e.Queue(q.Name); err == nil {
			r.Action = Updated
			err = eq.SetAttributes(u)
		}
	}
	if err != nil {
		return r, err
	}
	r.Queue = eq
	if r.Action != Created {
		have := eq.Tags()
		for k, v := range q.Tags {
			if tv, ok := have[k]; !ok || tv != v {
				if err := eq.Tag(q.Tags); err != nil {
					return r, err
				}
				r.Action = Updated
				break
			}
		}
	}
	return r, nil
}
