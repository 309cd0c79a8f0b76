package queueconfig

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/minisqs/minisqs/engine"
)

func names(qs []Queue) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.Name
	}
	return out
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Queue // Source is compared by File and Line only
	}{
		{name: "empty file", in: "", want: nil},
		{name: "comment only", in: "# nothing yet\n", want: nil},
		{name: "no queues", in: "queues:\n", want: nil},
		{name: "names only", in: "queues:\n  - name: a\n  - name: b.fifo\n",
			want: []Queue{{Name: "a", Source: Source{Line: 2}}, {Name: "b.fifo", Source: Source{Line: 3}}}},
		{name: "everything", in: `
queues:
  - name: orders
    attributes:
      VisibilityTimeout: 60
      DelaySeconds: "5"
      SqsManagedSseEnabled: false
    tags:
      team: payments
      cost-centre: 42
    deadLetterQueue:
      name: orders-dlq
      maxReceiveCount: 5
  - name: orders-dlq
    attributes: {MessageRetentionPeriod: 1209600}
  - name: events.fifo
    fifo: true
    attributes:
      ContentBasedDeduplication: true
      FifoQueue: "true"
`, want: []Queue{
			{Name: "orders", Attributes: map[string]string{"VisibilityTimeout": "60", "DelaySeconds": "5", "SqsManagedSseEnabled": "false"},
				Tags: map[string]string{"team": "payments", "cost-centre": "42"}, DeadLetter: &DeadLetter{Queue: "orders-dlq", MaxReceiveCount: 5},
				Source: Source{Line: 3}},
			{Name: "orders-dlq", Attributes: map[string]string{"MessageRetentionPeriod": "1209600"}, Source: Source{Line: 14}},
			{Name: "events.fifo", Attributes: map[string]string{"ContentBasedDeduplication": "true", "FifoQueue": "true"}, Source: Source{Line: 16}},
		}},
		{name: "json", in: "{\n\t\"queues\": [\n\t\t{\"name\": \"a\", \"attributes\": {\"VisibilityTimeout\": 10}},\n\t\t{\"name\": \"b\", \"tags\": {\"k\": \"v\"}}\n\t]\n}\n",
			want: []Queue{
				{Name: "a", Attributes: map[string]string{"VisibilityTimeout": "10"}, Source: Source{Line: 3}},
				{Name: "b", Tags: map[string]string{"k": "v"}, Source: Source{Line: 4}},
			}},
		{name: "anchors and merge keys", in: `
x-defaults: &defaults
  VisibilityTimeout: 60
  DelaySeconds: 1
queues:
  - name: a
    attributes: *defaults
  - name: b
    attributes:
      <<: *defaults
      DelaySeconds: 2
`, want: []Queue{
			{Name: "a", Attributes: map[string]string{"VisibilityTimeout": "60", "DelaySeconds": "1"}, Source: Source{Line: 6}},
			{Name: "b", Attributes: map[string]string{"VisibilityTimeout": "60", "DelaySeconds": "2"}, Source: Source{Line: 8}},
		}},
		{name: "policy as yaml", in: `
queues:
  - name: dlq
    attributes:
      RedriveAllowPolicy:
        redrivePermission: byQueue
        sourceQueueArns: ["arn:aws:sqs:us-east-1:000000000000:src"]
      Policy: |
        {"Version": "2012-10-17"}
`, want: []Queue{{Name: "dlq", Attributes: map[string]string{
			"RedriveAllowPolicy": `{"redrivePermission":"byQueue","sourceQueueArns":["arn:aws:sqs:us-east-1:000000000000:src"]}`,
			"Policy":             "{\"Version\": \"2012-10-17\"}\n",
		}, Source: Source{Line: 3}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("q.yaml", []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Queues) != len(tt.want) {
				t.Fatalf("got queues %v, want %v", names(c.Queues), names(tt.want))
			}
			for i, q := range c.Queues {
				w := tt.want[i]
				if q.Source.File != "q.yaml" || q.Source.Line != w.Source.Line {
					t.Errorf("queue %s: source %s:%d, want q.yaml:%d", q.Name, q.Source.File, q.Source.Line, w.Source.Line)
				}
				q.Source, w.Source = Source{}, Source{}
				if len(q.Attributes) == 0 && len(w.Attributes) == 0 {
					q.Attributes, w.Attributes = nil, nil
				}
				if len(q.Tags) == 0 && len(w.Tags) == 0 {
					q.Tags, w.Tags = nil, nil
				}
				if !reflect.DeepEqual(q, w) {
					t.Errorf("queue %d:\ngot  %+v\nwant %+v", i, q, w)
				}
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		want     string // the error's text starts with this
	}{
		{"syntax", "queues:\n  - name: a\n   bad: x\n", "q.yaml:3: "},
		{"duplicate key", "queues:\n  - name: a\n    name: b\n", "q.yaml:3: "},
		{"two documents", "queues: []\n---\nqueues: []\n", "q.yaml:3: want one YAML document"},
		{"top level not a mapping", "- a\n", "q.yaml:1: want a mapping, got a list"},
		{"unknown top-level field", "queue:\n  - name: a\n", `q.yaml:1: queue: unknown field`},
		{"queues not a list", "queues:\n  name: a\n", "q.yaml:2: queues: want a list of queues, got a mapping"},
		{"queue not a mapping", "queues:\n  - a\n", "q.yaml:2: queues[0]: want a mapping, got text"},
		{"unknown queue field", "queues:\n  - name: a\n    visibility: 3\n", `q.yaml:3: queues[0].visibility: unknown field: want "name"`},
		{"missing name", "queues:\n  - tags: {a: b}\n", "q.yaml:2: queues[0].name: a queue needs a name"},
		{"name not text", "queues:\n  - name: [a]\n", "q.yaml:2: queues[0].name: want a queue name, got a list"},
		{"bad name", "queues:\n  - name: a\n  - name: 'b c'\n", `q.yaml:3: queues[1].name: invalid queue name "b c"`},
		{"name too long", "queues:\n  - name: " + strings.Repeat("x", 81) + "\n", "q.yaml:2: queues[0].name: invalid queue name"},
		{"duplicate queue", "queues:\n  - name: a\n  - name: b\n  - name: a\n", "q.yaml:4: queues[2].name: queue a is declared twice; first at q.yaml:2"},
		{"fifo without suffix", "queues:\n  - name: a\n    fifo: true\n", "q.yaml:3: queues[0].fifo: fifo: true needs a name ending in .fifo"},
		{"suffix with fifo false", "queues:\n  - name: a.fifo\n    fifo: false\n", "q.yaml:3: queues[0].fifo: a name ending in .fifo makes a FIFO queue"},
		{"fifo not boolean", "queues:\n  - name: a.fifo\n    fifo: yes please\n", "q.yaml:3: queues[0].fifo: want true or false"},
		{"FifoQueue attribute on standard name", "queues:\n  - name: a\n    attributes:\n      FifoQueue: true\n", "q.yaml:4: queues[0].attributes.FifoQueue: FifoQueue true does not match the name a"},
		{"unknown attribute", "queues:\n  - name: a\n    attributes:\n      DelaySeconds: 1\n      Visibility: 3\n", "q.yaml:5: queues[0].attributes.Visibility: Unknown Attribute Visibility"},
		{"bad attribute value", "queues:\n  - name: a\n    attributes:\n      VisibilityTimeout: soon\n", "q.yaml:4: queues[0].attributes.VisibilityTimeout: Invalid value for the parameter VisibilityTimeout"},
		{"attribute null", "queues:\n  - name: a\n    attributes:\n      VisibilityTimeout:\n", "q.yaml:4: queues[0].attributes.VisibilityTimeout: want a value, got nothing"},
		{"fifo attribute on standard queue", "queues:\n  - name: a\n    attributes:\n      ContentBasedDeduplication: true\n", "q.yaml:4: queues[0].attributes.ContentBasedDeduplication: ContentBasedDeduplication is only for FIFO queues"},
		{"attributes not a mapping", "queues:\n  - name: a\n    attributes: [1]\n", "q.yaml:3: queues[0].attributes: want a mapping, got a list"},
		{"tag not text", "queues:\n  - name: a\n    tags:\n      k: {x: 1}\n", "q.yaml:4: queues[0].tags.k: want text, got a mapping"},
		{"dlq without count", "queues:\n  - name: a\n    deadLetterQueue:\n      name: d\n  - name: d\n", "q.yaml:4: queues[0].deadLetterQueue.maxReceiveCount: maxReceiveCount is required"},
		{"dlq count not a number", "queues:\n  - name: a\n    deadLetterQueue: {name: d, maxReceiveCount: many}\n", "q.yaml:3: queues[0].deadLetterQueue.maxReceiveCount: want a whole number"},
		{"dlq count out of range", "queues:\n  - name: a\n    deadLetterQueue:\n      name: d\n      maxReceiveCount: 0\n  - name: d\n", "q.yaml:5: queues[0].deadLetterQueue.maxReceiveCount: 0 is out of range"},
		{"dlq unknown field", "queues:\n  - name: a\n    deadLetterQueue:\n      queue: d\n", `q.yaml:4: queues[0].deadLetterQueue.queue: unknown field: want "name" or "maxReceiveCount"`},
		{"dlq not declared", "queues:\n  - name: a\n    deadLetterQueue:\n      name: d\n      maxReceiveCount: 3\n", "q.yaml:4: queues[0].deadLetterQueue.name: dead-letter queue d is not declared"},
		{"dlq of other type", "queues:\n  - name: a.fifo\n    deadLetterQueue:\n      name: d\n      maxReceiveCount: 3\n  - name: d\n", "q.yaml:4: queues[0].deadLetterQueue.name: dead-letter queue d must be of the same type"},
		{"dlq and RedrivePolicy", "queues:\n  - name: a\n    deadLetterQueue: {name: d, maxReceiveCount: 1}\n    attributes:\n      RedrivePolicy: '{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:000000000000:d\",\"maxReceiveCount\":1}'\n  - name: d\n",
			"q.yaml:5: queues[0].attributes.RedrivePolicy: give either a RedrivePolicy attribute or deadLetterQueue, not both"},
		{"self cycle", "queues:\n  - name: a\n    deadLetterQueue: {name: a, maxReceiveCount: 1}\n", "q.yaml:3: queues[0].deadLetterQueue.name: dead-letter queues form a cycle: a → a"},
		{"cycle", "queues:\n  - name: a\n    deadLetterQueue: {name: b, maxReceiveCount: 1}\n  - name: b\n    deadLetterQueue: {name: c, maxReceiveCount: 1}\n  - name: c\n    deadLetterQueue: {name: a, maxReceiveCount: 1}\n",
			"q.yaml:3: queues[0].deadLetterQueue.name: dead-letter queues form a cycle: a → b → c → a"},
		{"cycle through RedrivePolicy attribute", "queues:\n  - name: a\n    deadLetterQueue: {name: b, maxReceiveCount: 1}\n  - name: b\n    attributes:\n      RedrivePolicy: {deadLetterTargetArn: 'arn:aws:sqs:us-east-1:000000000000:a', maxReceiveCount: 2}\n",
			"q.yaml:3: queues[0].deadLetterQueue.name: dead-letter queues form a cycle: a → b → a"},
		{"billion laughs", "x-a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\nx-b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nx-c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n" +
			"x-d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\nx-e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nx-f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n" +
			"queues:\n  - name: a\n    attributes:\n      Policy: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n", "q.yaml:10: queues[0].attributes.Policy: aliases expand to more than 100000 values"},
		{"unknown alias", "queues:\n  - name: a\n    attributes: *nowhere\n", "q.yaml:3: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("q.yaml", []byte(tt.in))
			if err == nil {
				t.Fatalf("want an error, got %+v", c)
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T %q is not an *Error", err, err)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("got  %s\nwant %s...", err, tt.want)
			}
		})
	}
}

func TestParseList(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr string
	}{
		{in: "", want: nil},
		{in: "orders", want: []string{"orders"}},
		{in: " orders , events.fifo,,", want: []string{"orders", "events.fifo"}},
		{in: "a,b,a", wantErr: "MINISQS_QUEUES: queue a is declared twice; first at MINISQS_QUEUES"},
		{in: "a,b c", wantErr: `MINISQS_QUEUES: invalid queue name "b c"`},
		{in: ".fifo", wantErr: `MINISQS_QUEUES: invalid queue name ".fifo"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			c, err := ParseList("MINISQS_QUEUES", tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want %s...", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := names(c.Queues); !reflect.DeepEqual(got, tt.want) && len(got)+len(tt.want) > 0 {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	file, err := Parse("q.yaml", []byte("queues:\n  - name: a\n    attributes: {DelaySeconds: 1}\n  - name: b\n"))
	if err != nil {
		t.Fatal(err)
	}
	list, err := ParseList("MINISQS_QUEUES", "a,c,b")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Merge(list, file)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(c.Queues), []string{"a", "c", "b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("merged queues %v, want %v", got, want)
	}
	if c.Queues[0].Attributes["DelaySeconds"] != "1" || c.Queues[0].Source.File != "q.yaml" {
		t.Errorf("the declaration with settings should win, got %+v", c.Queues[0])
	}
	// The same settings twice are fine; different ones are not.
	if _, err := Merge(file, file); err != nil {
		t.Errorf("merging a config with itself: %v", err)
	}
	other, _ := Parse("other.yaml", []byte("queues:\n  - name: x\n  - name: a\n    attributes: {DelaySeconds: 2}\n"))
	_, err = Merge(file, other)
	if want := "other.yaml:3: queues[1]: queue a is also declared, with other settings, at q.yaml:2"; err == nil || err.Error() != want {
		t.Errorf("got error %v\nwant %s", err, want)
	}
}

// TestOrder checks that each dead-letter queue comes before the queues that
// send to it, and that otherwise the file's order is kept.
func TestOrder(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"declared order", "queues: [{name: c}, {name: a}, {name: b}]", []string{"c", "a", "b"}},
		{"dlq after its source", "queues:\n- {name: a, deadLetterQueue: {name: d, maxReceiveCount: 1}}\n- {name: b}\n- {name: d}\n", []string{"d", "a", "b"}},
		{"chain", "queues:\n- {name: a, deadLetterQueue: {name: b, maxReceiveCount: 1}}\n- {name: b, deadLetterQueue: {name: c, maxReceiveCount: 1}}\n- {name: c}\n", []string{"c", "b", "a"}},
		{"shared dlq", "queues:\n- {name: a, deadLetterQueue: {name: d, maxReceiveCount: 1}}\n- {name: b, deadLetterQueue: {name: d, maxReceiveCount: 2}}\n- {name: d}\n", []string{"d", "a", "b"}},
		{"by RedrivePolicy attribute", "queues:\n- name: a\n  attributes: {RedrivePolicy: '{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:000000000000:d\",\"maxReceiveCount\":3}'}\n- {name: d}\n", []string{"d", "a"}},
		{"fifo", "queues:\n- {name: a.fifo, deadLetterQueue: {name: d.fifo, maxReceiveCount: 1}}\n- {name: d.fifo}\n", []string{"d.fifo", "a.fifo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("q.yaml", []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			plan, err := c.order()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range plan {
				got = append(got, p.q.Name)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("order %v, want %v", got, tt.want)
			}
		})
	}
}

const sample = `
queues:
  - name: orders
    attributes:
      VisibilityTimeout: 60
    tags:
      team: payments
    deadLetterQueue:
      name: orders-dlq
      maxReceiveCount: 5
  - name: orders-dlq
    attributes:
      MessageRetentionPeriod: 1209600
  - name: events.fifo
    attributes:
      ContentBasedDeduplication: true
    deadLetterQueue:
      name: events-dlq.fifo
      maxReceiveCount: 2
  - name: events-dlq.fifo
`

func open(t *testing.T, path string) *engine.Engine {
	t.Helper()
	e, err := engine.Open(engine.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func actions(rs []Result) map[string]Action {
	out := map[string]Action{}
	for _, r := range rs {
		out[r.Queue.Name()] = r.Action
	}
	return out
}

func TestApply(t *testing.T) {
	c, err := Parse("q.yaml", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "minisqs.db")
	e := open(t, db)
	rs, err := Apply(e, c)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, r := range rs {
		order = append(order, r.Queue.Name())
	}
	if want := []string{"orders-dlq", "orders", "events-dlq.fifo", "events.fifo"}; !reflect.DeepEqual(order, want) {
		t.Errorf("created %v, want %v", order, want)
	}
	for name, a := range actions(rs) {
		if a != Created {
			t.Errorf("%s: %s, want %s", name, a, Created)
		}
	}

	orders, _ := e.Queue("orders")
	dlq, _ := e.Queue("orders-dlq")
	a := orders.Attributes()
	if a.VisibilityTimeout != 60 || a.RedrivePolicy == nil || *a.RedrivePolicy != (engine.RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: 5}) {
		t.Errorf("orders attributes %+v", a)
	}
	if got := orders.Tags(); got["team"] != "payments" {
		t.Errorf("orders tags %v", got)
	}
	if dlq.Attributes().MessageRetentionPeriod != 1209600 {
		t.Errorf("orders-dlq retention %d", dlq.Attributes().MessageRetentionPeriod)
	}
	events, _ := e.Queue("events.fifo")
	if ea := events.Attributes(); !ea.FifoQueue || !ea.ContentBasedDeduplication || ea.RedrivePolicy == nil {
		t.Errorf("events.fifo attributes %+v", ea)
	}

	// Again on the same engine, and after a restart on the same file: no-ops.
	if rs, err = Apply(e, c); err != nil {
		t.Fatal(err)
	}
	for name, a := range actions(rs) {
		if a != Unchanged {
			t.Errorf("second apply: %s %s, want %s", name, a, Unchanged)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = open(t, db)
	defer e.Close()
	if rs, err = Apply(e, c); err != nil {
		t.Fatal(err)
	}
	for name, a := range actions(rs) {
		if a != Unchanged {
			t.Errorf("after restart: %s %s, want %s", name, a, Unchanged)
		}
	}

	// A changed file updates what it names and leaves the rest.
	changed, err := Parse("q.yaml", []byte(strings.Replace(strings.Replace(sample, "VisibilityTimeout: 60", "VisibilityTimeout: 90", 1), "team: payments", "team: billing", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if rs, err = Apply(e, changed); err != nil {
		t.Fatal(err)
	}
	if got := actions(rs); got["orders"] != Updated || got["orders-dlq"] != Unchanged {
		t.Errorf("after a change: %v", got)
	}
	orders, _ = e.Queue("orders")
	if a := orders.Attributes(); a.VisibilityTimeout != 90 || a.RedrivePolicy == nil {
		t.Errorf("updated orders attributes %+v", a)
	}
	if got := orders.Tags()["team"]; got != "billing" {
		t.Errorf("updated tag team=%s", got)
	}
}

func TestApplyErrors(t *testing.T) {
	// Ranges are the engine's to check; the error still names the file, the
	// line of the queue and the queue.
	c, err := Parse("q.yaml", []byte("queues:\n  - name: ok\n  - name: slow\n    attributes:\n      VisibilityTimeout: 999999\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := open(t, "")
	defer e.Close()
	rs, err := Apply(e, c)
	want := "q.yaml:3: queues[1]: queue slow: Invalid value for the parameter VisibilityTimeout"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	if engine.CodeOf(err) != engine.ErrInvalidAttributeValue {
		t.Errorf("code %s, want %s", engine.CodeOf(err), engine.ErrInvalidAttributeValue)
	}
	if len(rs) != 1 || rs[0].Queue.Name() != "ok" {
		t.Errorf("results before the failure: %+v", rs)
	}

	// A queue of the same name that cannot take the settings.
	if _, err := e.CreateQueue("taken", engine.AttributeUpdate{}, nil); err != nil {
		t.Fatal(err)
	}
	list, _ := ParseList("MINISQS_QUEUES", "taken,new")
	if _, err := Apply(e, list); err != nil {
		t.Errorf("an existing queue named in a list: %v", err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "queues.yaml")
	if err := os.WriteFile(path, []byte("queues:\n  - name: a\n  - name: 'a b'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if want := path + `:3: queues[1].name: invalid queue name "a b"`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %s...", err, want)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
