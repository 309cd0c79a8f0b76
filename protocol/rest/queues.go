package rest

// Queues: CreateQueue, ListQueues, GetQueue, UpdateQueue, DeleteQueue and
// PurgeQueue, as docs/rest-api.md ("Queues", "Queue settings",
// "Purging and deleting") describes them.

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/queueurl"
)

// Limits of listings. Queue names, settings and messages follow the
// engine's Limits.
const (
	// ListQueues pages: the sizes are minisqs's own.
	defaultListLimit = 100
	maxListLimit     = 1000
	// counts are exact up to this figure each (docs/rest-api.md, "The life of a
	// message").
	maxCount = 100_000
)

// Queue types.
const (
	typeStandard = "standard"
	typeFIFO     = "fifo"
)

// queueJSON is the queue object (docs/rest-api.md, "The queue object").
type queueJSON struct {
	ID                       string       `json:"id"`
	Slug                     string       `json:"slug"`
	Name                     string       `json:"name"`
	Type                     string       `json:"type"`
	VisibilityTimeoutSeconds int          `json:"visibilityTimeoutSeconds"`
	RetentionSeconds         int          `json:"retentionSeconds"`
	DelaySeconds             int          `json:"delaySeconds"`
	ReceiveWaitSeconds       int          `json:"receiveWaitSeconds"`
	Redrive                  *redriveJSON `json:"redrive"`
	ContentBasedDedup        bool         `json:"contentBasedDedup"`
	Partitions               int          `json:"partitions"`
	Counts                   countsJSON   `json:"counts"`
	SQSURL                   string       `json:"sqsUrl"`
	Arn                      string       `json:"arn"`
	CreatedAt                string       `json:"createdAt"`
	UpdatedAt                string       `json:"updatedAt"`
}

type redriveJSON struct {
	DeadLetterQueue string `json:"deadLetterQueue"`
	MaxReceiveCount int    `json:"maxReceiveCount"`
}

type countsJSON struct {
	Visible   int  `json:"visible"`
	InFlight  int  `json:"inFlight"`
	Delayed   int  `json:"delayed"`
	Truncated bool `json:"truncated"`
}

func (a *API) queueJSON(r *http.Request, q *engine.Queue) queueJSON {
	attrs := q.Attributes()
	typ := typeStandard
	if attrs.FifoQueue {
		typ = typeFIFO
	}
	var rd *redriveJSON
	if p := attrs.RedrivePolicy; p != nil {
		// The DLQ is answered as its id; a DLQ deleted through SQS is
		// answered as the ARN the policy still names.
		dlq := p.DeadLetterTargetArn
		if d, err := a.e.QueueByArn(p.DeadLetterTargetArn); err == nil {
			dlq = d.ID()
		}
		rd = &redriveJSON{DeadLetterQueue: dlq, MaxReceiveCount: p.MaxReceiveCount}
	}
	out := queueJSON{
		ID:         q.ID(),
		Slug:       q.Slug(),
		Name:       q.Name(),
		Type:       typ,
		Redrive:    rd,
		Partitions: q.Partitions(),
		Counts:     countsOf(q.Counts()),
		SQSURL:     queueurl.For(queueurl.Base(r, a.opts.BaseURL), q.Namespace().Account, q.Name()),
		Arn:        q.Arn(),
		CreatedAt:  formatTime(q.Created()),
		UpdatedAt:  formatTime(q.Modified()),
	}
	v := reflect.ValueOf(&out).Elem()
	for _, s := range restSettings {
		f := v.Field(queueFields[s.REST])
		switch s.Kind {
		case engine.AttrInt:
			f.SetInt(int64(s.Int(attrs)))
		case engine.AttrBool:
			f.SetBool(s.Bool(attrs))
		}
	}
	return out
}

// countsOf caps each figure at maxCount and says whether any was capped.
func countsOf(c engine.Counts) countsJSON {
	capped := func(n int) int { return min(n, maxCount) }
	return countsJSON{
		Visible: capped(c.Visible), InFlight: capped(c.InFlight), Delayed: capped(c.Delayed),
		Truncated: c.Visible > maxCount || c.InFlight > maxCount || c.Delayed > maxCount,
	}
}

// queue finds the path's {queue}: an id, a slug or a name.
func (a *API) queue(c *call) (*engine.Queue, error) {
	ref := c.params.ByName("queue")
	q, err := a.e.LookupQueueIn(c.ns, ref)
	if err != nil {
		return nil, apiErrorf(codeQueueNotFound, "No queue %q.", ref)
	}
	return q, nil
}

// checkName refuses what is not a REST queue name under l: a queue name of
// the profile without a ".fifo" suffix, so 1 to 80 letters, digits, '-'
// and '_' with AWS's limits (docs/rest-api.md, "Queue names"). A FIFO queue
// made through SQS keeps its ".fifo" name and is addressed by it.
func checkName(l engine.Limits, name string) error {
	if !strings.Contains(name, ".") && l.ValidQueueName(name) {
		return nil
	}
	if l.QueueNameStartsAlphanumeric {
		return apiErrorf(codeInvalidRequest, "name must be 1 to %d letters, digits and '-', starting with a letter or digit.", l.MaxQueueNameLen)
	}
	return apiErrorf(codeInvalidRequest, "name must be 1 to %d letters, digits, '-' and '_'.", l.MaxQueueNameLen)
}

// settingsJSON are the settings CreateQueue and UpdateQueue take; nil is
// left out.
type settingsJSON struct {
	VisibilityTimeoutSeconds *int  `json:"visibilityTimeoutSeconds"`
	RetentionSeconds         *int  `json:"retentionSeconds"`
	DelaySeconds             *int  `json:"delaySeconds"`
	ReceiveWaitSeconds       *int  `json:"receiveWaitSeconds"`
	ContentBasedDedup        *bool `json:"contentBasedDedup"`
}

// update turns settings into the engine's update; the engine checks them
// against its Limits (docs/rest-api.md, "Queue settings").
func (s *settingsJSON) update(fifo bool) engine.AttributeUpdate {
	var u engine.AttributeUpdate
	v := reflect.ValueOf(s).Elem()
	for _, spec := range restSettings {
		f := v.Field(settingsFields[spec.REST])
		if f.IsNil() {
			continue
		}
		switch spec.Kind {
		case engine.AttrInt:
			spec.SetInt(&u, int(f.Elem().Int()))
		case engine.AttrBool:
			// false for a FIFO queue's setting on a standard queue is what
			// it has already; true the engine refuses.
			if b := f.Elem().Bool(); fifo || b || !spec.FifoOnly {
				spec.SetBool(&u, b)
			}
		}
	}
	return u
}

// restSettings are the queue settings the REST API reads and writes as
// numbers and booleans, from the engine's attribute table; the redrive
// policy, which the API names its own way, is handled apart.
var restSettings = func() []engine.AttributeSpec {
	var out []engine.AttributeSpec
	for _, s := range engine.QueueAttributeTable() {
		if s.REST != "" && (s.Kind == engine.AttrInt || s.Kind == engine.AttrBool) {
			out = append(out, s)
		}
	}
	return out
}()

// settingsFields and queueFields index the fields of settingsJSON and
// queueJSON by JSON name. The structs give the API's shape, as openapi.json
// has it; the table says which settings fill them.
var (
	settingsFields = jsonFields(reflect.TypeFor[settingsJSON]())
	queueFields    = jsonFields(reflect.TypeFor[queueJSON]())
)

// jsonFields indexes the fields of struct type t by JSON name, and panics
// when t lacks a field of restSettings, since the API would then drop it.
func jsonFields(t reflect.Type) map[string]int {
	idx := map[string]int{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		idx[name] = i
	}
	for _, s := range restSettings {
		if _, ok := idx[s.REST]; !ok {
			panic("rest: " + t.Name() + " has no field " + s.REST)
		}
	}
	return idx
}

// redriveInput is a redrive policy as requests give it: the DLQ by id, slug
// or name.
type redriveInput struct {
	DeadLetterQueue string `json:"deadLetterQueue"`
	MaxReceiveCount int    `json:"maxReceiveCount"`
}

func (a *API) redrivePolicy(ns engine.Namespace, in *redriveInput) (*engine.RedrivePolicy, error) {
	if in.DeadLetterQueue == "" {
		return nil, apiErrorf(codeInvalidRequest, "redrive.deadLetterQueue is required.")
	}
	dlq, err := a.e.LookupQueueIn(ns, in.DeadLetterQueue)
	if err != nil {
		return nil, apiErrorf(codeInvalidRequest, "redrive.deadLetterQueue: no queue %q.", in.DeadLetterQueue)
	}
	return &engine.RedrivePolicy{DeadLetterTargetArn: dlq.Arn(), MaxReceiveCount: in.MaxReceiveCount}, nil
}

type createQueueInput struct {
	Name    string        `json:"name"`
	Type    string        `json:"type"`
	Redrive *redriveInput `json:"redrive"`
	settingsJSON
}

// createQueue answers 201 with a new queue, or 200 with the existing queue
// of that name when the request's type and every setting it names match
// that queue's (SQS's CreateQueue rule); other values are queue_exists 409.
func (a *API) createQueue(c *call) (int, any, error) {
	var in createQueueInput
	if err := c.decode(&in, false); err != nil {
		return 0, nil, err
	}
	if err := checkName(a.e.Limits(), in.Name); err != nil {
		return 0, nil, err
	}
	if in.Type == "" {
		in.Type = typeStandard
	}
	if in.Type != typeStandard && in.Type != typeFIFO {
		return 0, nil, apiErrorf(codeInvalidRequest, "type must be standard or fifo.")
	}
	fifo := in.Type == typeFIFO
	u := in.update(fifo)
	var err error
	if fifo {
		u.FifoQueue = &fifo
	}
	if in.Redrive != nil {
		if u.RedrivePolicy, err = a.redrivePolicy(c.ns, in.Redrive); err != nil {
			return 0, nil, err
		}
	}
	prior, _ := a.e.QueueIn(c.ns, in.Name)
	q, err := a.e.CreateQueueIn(c.ns, in.Name, u, nil)
	if err != nil {
		return 0, nil, err
	}
	if q == prior {
		// The engine compares the named settings; the type is the REST
		// API's own, so it is compared here.
		if q.IsFIFO() != fifo {
			return 0, nil, apiErrorf(codeQueueExists, "Queue %s exists and is not of type %s.", in.Name, in.Type)
		}
		return http.StatusOK, a.queueJSON(c.r, q), nil
	}
	return http.StatusCreated, a.queueJSON(c.r, q), nil
}

type listQueuesOutput struct {
	Queues     []queueJSON `json:"queues"`
	NextCursor string      `json:"nextCursor,omitempty"`
}

// listQueues pages through queues in name order. The cursor is opaque to
// clients: the last name of the page, base64url-encoded.
func (a *API) listQueues(c *call) (int, any, error) {
	qv := c.r.URL.Query()
	limit := defaultListLimit
	if s := qv.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxListLimit {
			return 0, nil, apiErrorf(codeInvalidRequest, "limit must be from 1 to %d.", maxListLimit)
		}
		limit = n
	}
	after := ""
	if s := qv.Get("cursor"); s != "" {
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil || len(b) == 0 {
			return 0, nil, apiErrorf(codeInvalidRequest, "cursor is not one this API gave.")
		}
		after = string(b)
	}
	out := listQueuesOutput{Queues: []queueJSON{}}
	for _, q := range a.e.QueuesIn(c.ns, qv.Get("prefix")) {
		if after != "" && q.Name() <= after {
			continue
		}
		if len(out.Queues) == limit {
			out.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(out.Queues[limit-1].Name))
			break
		}
		out.Queues = append(out.Queues, a.queueJSON(c.r, q))
	}
	return http.StatusOK, out, nil
}

func (a *API) getQueue(c *call) (int, any, error) {
	q, err := a.queue(c)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, a.queueJSON(c.r, q), nil
}

// updateQueue changes the settings the body names: a field left out keeps
// its value and "redrive": null removes the policy. name and type may be
// given only with the queue's own values, since they are fixed.
func (a *API) updateQueue(c *call) (int, any, error) {
	q, err := a.queue(c)
	if err != nil {
		return 0, nil, err
	}
	var fields map[string]json.RawMessage
	if err := c.decode(&fields, false); err != nil {
		return 0, nil, err
	}
	var s settingsJSON
	var u engine.AttributeUpdate
	var redrive *redriveInput
	clearRedrive := false
	typ := typeStandard
	if q.IsFIFO() {
		typ = typeFIFO
	}
	for k, raw := range fields {
		isNull := strings.TrimSpace(string(raw)) == "null"
		switch k {
		case "name", "type":
			var v string
			if err := strictUnmarshal(raw, &v); err != nil {
				return 0, nil, fieldError(k, err)
			}
			if want := map[string]string{"name": q.Name(), "type": typ}[k]; v != want {
				return 0, nil, apiErrorf(codeInvalidRequest, "A queue's %s is fixed at creation.", k)
			}
		case "redrive":
			if isNull {
				clearRedrive = true
				continue
			}
			redrive = &redriveInput{}
			if err := strictUnmarshal(raw, redrive); err != nil {
				return 0, nil, fieldError(k, err)
			}
		default:
			i, ok := settingsFields[k]
			if !ok {
				return 0, nil, apiErrorf(codeInvalidRequest, "Unknown field %q.", k)
			}
			if isNull {
				return 0, nil, apiErrorf(codeInvalidRequest, "%s may not be null.", k)
			}
			if err := strictUnmarshal(raw, reflect.ValueOf(&s).Elem().Field(i).Addr().Interface()); err != nil {
				return 0, nil, fieldError(k, err)
			}
		}
	}
	u = s.update(q.IsFIFO())
	u.ClearRedrivePolicy = clearRedrive
	if redrive != nil {
		if u.RedrivePolicy, err = a.redrivePolicy(c.ns, redrive); err != nil {
			return 0, nil, err
		}
	}
	if len(fields) > 0 {
		if err := q.SetAttributes(u); err != nil {
			return 0, nil, err
		}
	}
	return http.StatusOK, a.queueJSON(c.r, q), nil
}

func strictUnmarshal(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func fieldError(field string, err error) error {
	ae := toAPIError(jsonError(err))
	ae.Message = field + ": " + ae.Message
	return ae
}

// deleteQueue deletes a queue that no other queue names as its dead-letter
// queue (docs/rest-api.md, "Purging and deleting").
func (a *API) deleteQueue(c *call) (int, any, error) {
	q, err := a.queue(c)
	if err != nil {
		return 0, nil, err
	}
	for _, src := range a.e.DeadLetterSourceQueues(q) {
		if src != q {
			return 0, nil, apiErrorf(codeQueueInUse, "Queue %s is the dead-letter queue of %s; remove that redrive policy first.", q.Name(), src.Name())
		}
	}
	if err := a.e.DeleteQueue(q); err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, nil
}

// purgeQueue deletes every message sent before it, at most once a minute
// per queue.
func (a *API) purgeQueue(c *call) (int, any, error) {
	q, err := a.queue(c)
	if err != nil {
		return 0, nil, err
	}
	if err := q.Purge(); err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, nil
}
