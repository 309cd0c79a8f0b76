package control

// GET and PUT /_minisqs/state: the engine's whole contents as one JSON
// document, version 1. The document is the engine's State in the API's
// conventions (camelCase, times RFC 3339 with milliseconds); the
// conversions below are the whole of the format.

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/rest"
)

// stateVersion is the document version this package writes and reads.
const stateVersion = 1

// maxStateBytes caps a PUT /_minisqs/state body: a state carries whole
// queues, far beyond one API request.
const maxStateBytes = 256 << 20

// Queue types, as the REST API names them.
const (
	typeStandard = "standard"
	typeFIFO     = "fifo"
)

type stateDoc struct {
	Version   int           `json:"version"`
	Queues    []queueDoc    `json:"queues"`
	MoveTasks []moveTaskDoc `json:"moveTasks"`
}

type queueDoc struct {
	ID                 string            `json:"id,omitempty"`
	Name               string            `json:"name"`
	Type               string            `json:"type,omitempty"`
	CreatedAt          string            `json:"createdAt,omitempty"`
	UpdatedAt          string            `json:"updatedAt,omitempty"`
	Attributes         attributesDoc     `json:"attributes"`
	Policy             string            `json:"policy,omitempty"`
	Redrive            *redriveDoc       `json:"redrive,omitempty"`
	RedriveAllow       *redriveAllowDoc  `json:"redriveAllow,omitempty"`
	Tags               map[string]string `json:"tags,omitempty"`
	LastPurgeAt        string            `json:"lastPurgeAt,omitempty"`
	LastSequenceNumber string            `json:"lastSequenceNumber,omitempty"`
	Subscription       *subscriptionDoc  `json:"subscription,omitempty"`
	Messages           []messageDoc      `json:"messages"`
	Deduplication      []dedupDoc        `json:"deduplication,omitempty"`
}

// attributesDoc holds a queue's settings under their SQS names. A setting
// left out of a PUT takes its default.
type attributesDoc struct {
	DelaySeconds                  *int    `json:"delaySeconds,omitempty"`
	MaximumMessageSize            *int    `json:"maximumMessageSize,omitempty"`
	MessageRetentionPeriod        *int    `json:"messageRetentionPeriod,omitempty"`
	ReceiveMessageWaitTimeSeconds *int    `json:"receiveMessageWaitTimeSeconds,omitempty"`
	VisibilityTimeout             *int    `json:"visibilityTimeout,omitempty"`
	KmsMasterKeyID                *string `json:"kmsMasterKeyId,omitempty"`
	KmsDataKeyReusePeriodSeconds  *int    `json:"kmsDataKeyReusePeriodSeconds,omitempty"`
	SqsManagedSseEnabled          *bool   `json:"sqsManagedSseEnabled,omitempty"`
	ContentBasedDeduplication     *bool   `json:"contentBasedDeduplication,omitempty"`
	DeduplicationScope            *string `json:"deduplicationScope,omitempty"`
	FifoThroughputLimit           *string `json:"fifoThroughputLimit,omitempty"`
}

type redriveDoc struct {
	DeadLetterTargetArn string `json:"deadLetterTargetArn"`
	MaxReceiveCount     int    `json:"maxReceiveCount"`
}

type redriveAllowDoc struct {
	RedrivePermission string   `json:"redrivePermission"`
	SourceQueueArns   []string `json:"sourceQueueArns,omitempty"`
}

type subscriptionDoc struct {
	Slug           string           `json:"slug,omitempty"`
	Endpoint       string           `json:"endpoint"`
	BatchSize      *int             `json:"batchSize,omitempty"`
	MaxWaitSeconds *int             `json:"maxWaitSeconds,omitempty"`
	CreatedAt      string           `json:"createdAt,omitempty"`
	LastDelivery   *lastDeliveryDoc `json:"lastDelivery,omitempty"`
}

type lastDeliveryDoc struct {
	At       string `json:"at"`
	Messages int    `json:"messages"`
	Status   int    `json:"status"`
	Error    string `json:"error,omitempty"`
}

type messageDoc struct {
	MessageID           string                  `json:"messageId,omitempty"`
	Body                string                  `json:"body"`
	Attributes          map[string]attributeDoc `json:"attributes,omitempty"`
	SystemAttributes    map[string]attributeDoc `json:"systemAttributes,omitempty"`
	SenderID            string                  `json:"senderId,omitempty"`
	SentAt              string                  `json:"sentAt,omitempty"`
	ExpiresAt           string                  `json:"expiresAt,omitempty"`
	State               string                  `json:"state,omitempty"`
	VisibleAt           string                  `json:"visibleAt,omitempty"`
	ReceiveCount        int                     `json:"receiveCount"`
	FirstReceivedAt     string                  `json:"firstReceivedAt,omitempty"`
	GroupID             string                  `json:"groupId,omitempty"`
	DeduplicationID     string                  `json:"deduplicationId,omitempty"`
	SequenceNumber      string                  `json:"sequenceNumber,omitempty"`
	DeadLetterSourceArn string                  `json:"deadLetterSourceArn,omitempty"`
}

// attributeDoc is a message attribute: a String or Number type (with an
// optional ".label") carries stringValue, a Binary one binaryValue in
// base64.
type attributeDoc struct {
	DataType    string `json:"dataType"`
	StringValue string `json:"stringValue,omitempty"`
	BinaryValue []byte `json:"binaryValue,omitempty"`
}

type dedupDoc struct {
	DeduplicationID string `json:"deduplicationId"`
	GroupID         string `json:"groupId,omitempty"`
	MessageID       string `json:"messageId"`
	SequenceNumber  string `json:"sequenceNumber,omitempty"`
	ExpiresAt       string `json:"expiresAt"`
}

type moveTaskDoc struct {
	Handle         string `json:"handle"`
	SourceArn      string `json:"sourceArn"`
	DestinationArn string `json:"destinationArn,omitempty"`
	MaxPerSecond   int    `json:"maxPerSecond,omitempty"`
	Status         string `json:"status"`
	Moved          int64  `json:"moved"`
	ToMove         int64  `json:"toMove"`
	FailureReason  string `json:"failureReason,omitempty"`
	StartedAt      string `json:"startedAt,omitempty"`
}

func (a *API) getState(http.ResponseWriter, *http.Request) (int, any, error) {
	s, err := a.e.State()
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, stateOut(s), nil
}

// putState answers PUT /_minisqs/state: the document replaces everything,
// or, if it does not parse or breaks a rule, nothing changes.
func (a *API) putState(w http.ResponseWriter, r *http.Request) (int, any, error) {
	var doc stateDoc
	if err := rest.DecodeJSON(w, r, &doc, maxStateBytes, false); err != nil {
		return 0, nil, err
	}
	s, err := doc.state(a.e.Limits())
	if err != nil {
		return 0, nil, err
	}
	if err := a.e.Load(s); err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, nil
}

// Engine state to document.

func stateOut(s *engine.State) stateDoc {
	doc := stateDoc{Version: stateVersion, Queues: make([]queueDoc, 0, len(s.Queues)), MoveTasks: make([]moveTaskDoc, 0, len(s.MoveTasks))}
	for _, qs := range s.Queues {
		doc.Queues = append(doc.Queues, queueOut(qs))
	}
	for _, t := range s.MoveTasks {
		doc.MoveTasks = append(doc.MoveTasks, moveTaskDoc{
			Handle: t.Handle, SourceArn: t.SourceArn, DestinationArn: t.DestinationArn, MaxPerSecond: t.MaxPerSecond,
			Status: t.Status, Moved: t.Moved, ToMove: t.ToMove, FailureReason: t.FailureReason,
			StartedAt: rest.FormatTime(time.UnixMilli(t.Started)),
		})
	}
	return doc
}

func optTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return rest.FormatTime(t)
}

func queueOut(qs engine.QueueState) queueDoc {
	a := qs.Attributes
	q := queueDoc{
		ID: qs.ID, Name: qs.Name, Type: typeStandard, CreatedAt: optTime(qs.Created), UpdatedAt: optTime(qs.Modified),
		Attributes: attributesDoc{
			DelaySeconds: &a.DelaySeconds, MaximumMessageSize: &a.MaximumMessageSize,
			MessageRetentionPeriod: &a.MessageRetentionPeriod, ReceiveMessageWaitTimeSeconds: &a.ReceiveMessageWaitTimeSeconds,
			VisibilityTimeout: &a.VisibilityTimeout, KmsDataKeyReusePeriodSeconds: &a.KmsDataKeyReusePeriodSeconds,
			SqsManagedSseEnabled: &a.SqsManagedSseEnabled,
		},
		Policy: a.Policy, Tags: qs.Tags, LastPurgeAt: optTime(qs.LastPurge), Messages: make([]messageDoc, 0, len(qs.Messages)),
	}
	if a.KmsMasterKeyID != "" {
		q.Attributes.KmsMasterKeyID = &a.KmsMasterKeyID
	}
	if a.FifoQueue {
		q.Type = typeFIFO
		q.Attributes.ContentBasedDeduplication = &a.ContentBasedDeduplication
		q.Attributes.DeduplicationScope = &a.DeduplicationScope
		q.Attributes.FifoThroughputLimit = &a.FifoThroughputLimit
		q.LastSequenceNumber = fmt.Sprintf("%020d", qs.LastSequence)
	}
	if p := a.RedrivePolicy; p != nil {
		q.Redrive = &redriveDoc{DeadLetterTargetArn: p.DeadLetterTargetArn, MaxReceiveCount: p.MaxReceiveCount}
	}
	if p := a.RedriveAllowPolicy; p != nil {
		q.RedriveAllow = &redriveAllowDoc{RedrivePermission: p.RedrivePermission, SourceQueueArns: p.SourceQueueArns}
	}
	if s := qs.Subscription; s != nil {
		q.Subscription = &subscriptionDoc{
			Slug: s.Slug, Endpoint: s.Endpoint, BatchSize: &s.BatchSize, MaxWaitSeconds: &s.MaxWaitSeconds,
			CreatedAt: optTime(s.Created),
		}
		if d := s.LastDelivery; d != nil {
			q.Subscription.LastDelivery = &lastDeliveryDoc{At: optTime(d.At), Messages: d.Messages, Status: d.Status, Error: d.Error}
		}
	}
	for _, m := range qs.Messages {
		q.Messages = append(q.Messages, messageOut(m))
	}
	for _, d := range qs.Deduplication {
		q.Deduplication = append(q.Deduplication, dedupDoc{
			DeduplicationID: d.DeduplicationID, GroupID: d.GroupID, MessageID: d.MessageID,
			SequenceNumber: d.SequenceNumber, ExpiresAt: optTime(d.ExpiresAt),
		})
	}
	return q
}

func messageOut(m engine.MessageState) messageDoc {
	return messageDoc{
		MessageID: m.ID, Body: m.Body, Attributes: attributesOut(m.Attributes), SystemAttributes: attributesOut(m.SystemAttributes),
		SenderID: m.SenderID, SentAt: optTime(m.SentAt), ExpiresAt: optTime(m.ExpiresAt), State: string(m.Status),
		VisibleAt: optTime(m.VisibleAt), ReceiveCount: m.ReceiveCount, FirstReceivedAt: optTime(m.FirstReceivedAt),
		GroupID: m.GroupID, DeduplicationID: m.DeduplicationID, SequenceNumber: m.SequenceNumber,
		DeadLetterSourceArn: m.DeadLetterSourceArn,
	}
}

func attributesOut(attrs []engine.MessageAttribute) map[string]attributeDoc {
	if len(attrs) == 0 {
		return nil
	}
	out := make(map[string]attributeDoc, len(attrs))
	for _, at := range attrs {
		d := attributeDoc{DataType: at.DataType}
		if at.IsBinary() {
			d.BinaryValue = at.BinaryValue
		} else {
			d.StringValue = at.StringValue
		}
		out[at.Name] = d
	}
	return out
}

// Document to engine state. Only the document's own form is checked here;
// the engine's Load checks every rule of the state itself.

// docError names where in the document a value is wrong.
func docError(where, format string, args ...any) error {
	return rest.Errorf(rest.CodeInvalidRequest, "%s: %s", where, fmt.Sprintf(format, args...))
}

// parseTime reads an optional RFC 3339 time.
func parseTime(where, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, docError(where, "%q is not an RFC 3339 time", s)
	}
	return t, nil
}

// state reads the document into the engine's state; settings it leaves out
// take the defaults of the limits l.
func (doc *stateDoc) state(l engine.Limits) (*engine.State, error) {
	if doc.Version != stateVersion {
		return nil, rest.Errorf(rest.CodeInvalidRequest, "version must be %d.", stateVersion)
	}
	s := &engine.State{}
	for i := range doc.Queues {
		qs, err := doc.Queues[i].state(fmt.Sprintf("queues[%d]", i), l)
		if err != nil {
			return nil, err
		}
		s.Queues = append(s.Queues, qs)
	}
	for i, t := range doc.MoveTasks {
		where := fmt.Sprintf("moveTasks[%d].startedAt", i)
		started, err := parseTime(where, t.StartedAt)
		if err != nil {
			return nil, err
		}
		task := engine.MoveTask{
			Handle: t.Handle, SourceArn: t.SourceArn, DestinationArn: t.DestinationArn, MaxPerSecond: t.MaxPerSecond,
			Status: t.Status, Moved: t.Moved, ToMove: t.ToMove, FailureReason: t.FailureReason,
		}
		if !started.IsZero() {
			task.Started = started.UnixMilli()
		}
		s.MoveTasks = append(s.MoveTasks, task)
	}
	return s, nil
}

func (d *queueDoc) state(where string, l engine.Limits) (engine.QueueState, error) {
	var fifo bool
	switch d.Type {
	case typeFIFO:
		fifo = true
	case typeStandard:
	case "":
		fifo = strings.HasSuffix(d.Name, ".fifo")
	default:
		return engine.QueueState{}, docError(where+".type", "%q is neither %s nor %s", d.Type, typeStandard, typeFIFO)
	}
	qs := engine.QueueState{ID: d.ID, Name: d.Name, Attributes: d.Attributes.settings(fifo, l), Tags: maps.Clone(d.Tags)}
	qs.Attributes.Policy = d.Policy
	if r := d.Redrive; r != nil {
		qs.Attributes.RedrivePolicy = &engine.RedrivePolicy{DeadLetterTargetArn: r.DeadLetterTargetArn, MaxReceiveCount: r.MaxReceiveCount}
	}
	if r := d.RedriveAllow; r != nil {
		qs.Attributes.RedriveAllowPolicy = &engine.RedriveAllowPolicy{RedrivePermission: r.RedrivePermission, SourceQueueArns: slices.Clone(r.SourceQueueArns)}
	}
	var err error
	for _, f := range []struct {
		name string
		s    string
		t    *time.Time
	}{{"createdAt", d.CreatedAt, &qs.Created}, {"updatedAt", d.UpdatedAt, &qs.Modified}, {"lastPurgeAt", d.LastPurgeAt, &qs.LastPurge}} {
		if *f.t, err = parseTime(where+"."+f.name, f.s); err != nil {
			return engine.QueueState{}, err
		}
	}
	if d.LastSequenceNumber != "" {
		if !fifo {
			return engine.QueueState{}, docError(where+".lastSequenceNumber", "only a FIFO queue has sequence numbers")
		}
		if qs.LastSequence, err = strconv.ParseUint(d.LastSequenceNumber, 10, 64); err != nil {
			return engine.QueueState{}, docError(where+".lastSequenceNumber", "%q is not a number", d.LastSequenceNumber)
		}
	}
	if sd := d.Subscription; sd != nil {
		sub := &engine.Subscription{Slug: sd.Slug, Endpoint: sd.Endpoint, BatchSize: engine.MaxSubscriptionBatch, MaxWaitSeconds: engine.MaxSubscriptionWait}
		if sd.BatchSize != nil {
			sub.BatchSize = *sd.BatchSize
		}
		if sd.MaxWaitSeconds != nil {
			sub.MaxWaitSeconds = *sd.MaxWaitSeconds
		}
		if sub.Created, err = parseTime(where+".subscription.createdAt", sd.CreatedAt); err != nil {
			return engine.QueueState{}, err
		}
		if ld := sd.LastDelivery; ld != nil {
			at, err := parseTime(where+".subscription.lastDelivery.at", ld.At)
			if err != nil {
				return engine.QueueState{}, err
			}
			sub.LastDelivery = &engine.DeliveryResult{At: at, Messages: ld.Messages, Status: ld.Status, Error: ld.Error}
		}
		qs.Subscription = sub
	}
	for i := range d.Messages {
		ms, err := d.Messages[i].state(fmt.Sprintf("%s.messages[%d]", where, i))
		if err != nil {
			return engine.QueueState{}, err
		}
		qs.Messages = append(qs.Messages, ms)
	}
	for i, dd := range d.Deduplication {
		expires, err := parseTime(fmt.Sprintf("%s.deduplication[%d].expiresAt", where, i), dd.ExpiresAt)
		if err != nil {
			return engine.QueueState{}, err
		}
		qs.Deduplication = append(qs.Deduplication, engine.DeduplicationState{
			GroupID: dd.GroupID, DeduplicationID: dd.DeduplicationID, MessageID: dd.MessageID,
			SequenceNumber: dd.SequenceNumber, ExpiresAt: expires,
		})
	}
	return qs, nil
}

// settings lays the document's settings over the defaults of the type
// under the limits l.
func (d *attributesDoc) settings(fifo bool, l engine.Limits) engine.QueueAttributes {
	a := l.DefaultAttributes(fifo)
	for _, f := range []struct {
		dst *int
		v   *int
	}{
		{&a.DelaySeconds, d.DelaySeconds}, {&a.MaximumMessageSize, d.MaximumMessageSize},
		{&a.MessageRetentionPeriod, d.MessageRetentionPeriod}, {&a.ReceiveMessageWaitTimeSeconds, d.ReceiveMessageWaitTimeSeconds},
		{&a.VisibilityTimeout, d.VisibilityTimeout}, {&a.KmsDataKeyReusePeriodSeconds, d.KmsDataKeyReusePeriodSeconds},
	} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	for _, f := range []struct {
		dst *string
		v   *string
	}{{&a.KmsMasterKeyID, d.KmsMasterKeyID}, {&a.DeduplicationScope, d.DeduplicationScope}, {&a.FifoThroughputLimit, d.FifoThroughputLimit}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	for _, f := range []struct {
		dst *bool
		v   *bool
	}{{&a.SqsManagedSseEnabled, d.SqsManagedSseEnabled}, {&a.ContentBasedDeduplication, d.ContentBasedDeduplication}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	return a
}

func (d *messageDoc) state(where string) (engine.MessageState, error) {
	ms := engine.MessageState{
		Message: engine.Message{
			ID: d.MessageID, Body: d.Body, SenderID: d.SenderID, GroupID: d.GroupID,
			DeduplicationID: d.DeduplicationID, SequenceNumber: d.SequenceNumber, DeadLetterSourceArn: d.DeadLetterSourceArn,
		},
		Status:       engine.MessageStatus(d.State),
		ReceiveCount: d.ReceiveCount,
	}
	var err error
	if ms.Attributes, err = attributesIn(where+".attributes", d.Attributes); err != nil {
		return ms, err
	}
	if ms.SystemAttributes, err = attributesIn(where+".systemAttributes", d.SystemAttributes); err != nil {
		return ms, err
	}
	for _, f := range []struct {
		name string
		s    string
		t    *time.Time
	}{
		{"sentAt", d.SentAt, &ms.SentAt}, {"expiresAt", d.ExpiresAt, &ms.ExpiresAt},
		{"visibleAt", d.VisibleAt, &ms.VisibleAt}, {"firstReceivedAt", d.FirstReceivedAt, &ms.FirstReceivedAt},
	} {
		if *f.t, err = parseTime(where+"."+f.name, f.s); err != nil {
			return ms, err
		}
	}
	return ms, nil
}

// attributesIn reads message attributes, in name order as every front end
// stores them.
func attributesIn(where string, in map[string]attributeDoc) ([]engine.MessageAttribute, error) {
	var out []engine.MessageAttribute
	for _, name := range slices.Sorted(maps.Keys(in)) {
		d := in[name]
		at := engine.MessageAttribute{Name: name, DataType: d.DataType, StringValue: d.StringValue, BinaryValue: d.BinaryValue}
		if at.IsBinary() != (d.BinaryValue != nil) || at.IsBinary() && d.StringValue != "" {
			return nil, docError(where+"."+name, "a Binary attribute has a binaryValue, any other a stringValue")
		}
		out = append(out, at)
	}
	return out, nil
}
