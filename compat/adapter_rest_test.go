package compat

// The REST API (docs/rest-api.md) as a third sqsClient, over plain
// net/http, for the per-action cases of the operations it has. A queue URL
// names the queue by its account (X-Account-Id) and name; queue attributes
// map to the REST fields through the engine's attribute table; a batch
// entry's id is its place in the request. An SQS operation or attribute the
// API lacks is errNotInREST, which no REST row may reach.
//
// Errors come back as *apiError with the API's own codes; env.wantErr and
// env.code translate the SQS codes a row names (restErrors).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minisqs/minisqs/engine"
)

// requestJSON sends body (JSON-encoded, or as it is when []byte) and reads
// the answer whole. header holds name and value pairs.
func requestJSON(method, url string, body any, header ...string) (int, []byte, error) {
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		r = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			return 0, nil, err
		}
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	return res.StatusCode, out, err
}

// doJSON is requestJSON failing the test on a transport error.
func doJSON(t testing.TB, method, url string, body any, header ...string) (int, []byte) {
	t.Helper()
	status, out, err := requestJSON(method, url, body, header...)
	if err != nil {
		t.Fatal(err)
	}
	return status, out
}

// errNotInREST is an SQS operation or attribute the REST API has not.
type errNotInREST string

func (e errNotInREST) Error() string { return "the REST API has no " + string(e) }

// restErr is the REST API's answer to what SQS answers with a code.
type restErr struct {
	code   string
	status int
}

// restErrors are the REST API's codes for the SQS codes of the rows that
// run under it.
var restErrors = map[string]restErr{
	nonExistentQueue:                                      {"queue_not_found", 404},
	"InvalidParameterValue":                               {"invalid_request", 400},
	"InvalidAttributeValue":                               {"invalid_request", 400},
	"MissingParameter":                                    {"invalid_request", 400},
	"InvalidMessageContents":                              {"invalid_request", 400},
	"ReceiptHandleIsInvalid":                              {"invalid_request", 400},
	"AWS.SimpleQueueService.EmptyBatchRequest":            {"invalid_request", 400},
	"AWS.SimpleQueueService.TooManyEntriesInBatchRequest": {"invalid_request", 400},
	"QueueAlreadyExists":                                  {"queue_exists", 409},
	"AWS.SimpleQueueService.QueueDeletedRecently":         {"queue_exists", 409},
	"AWS.SimpleQueueService.PurgeQueueInProgress":         {"purge_in_progress", 429},
}

// restStatus is the status of each code, for the errors of one item of a
// batch, which come with none of their own.
func restStatus(code string) int {
	for _, e := range restErrors {
		if e.code == code {
			return e.status
		}
	}
	return map[string]int{"receipt_handle_stale": 409, "message_too_large": 413, "internal_error": 500}[code]
}

// code is the error code the protocol answers where SQS answers sqsCode.
func (e *env) code(sqsCode string) string {
	e.t.Helper()
	if !e.is("rest") {
		return sqsCode
	}
	r, ok := restErrors[sqsCode]
	if !ok {
		e.t.Fatalf("no REST error stands for %s", sqsCode)
	}
	return r.code
}

// wantErr is wantErr of the protocol: under the REST API, the error that
// stands for code (restErrors), with a message.
func (e *env) wantErr(err error, code string, status int) *apiError {
	e.t.Helper()
	if !e.is("rest") {
		return wantErr(e.t, err, code, status)
	}
	want, ok := restErrors[code]
	if !ok {
		e.t.Fatalf("no REST error stands for %s", code)
	}
	ae := mustAPIError(e.t, err)
	if ae.Code != want.code || ae.Status != want.status {
		e.t.Fatalf("error %s (HTTP %d), want %s (HTTP %d) for %s: %v", ae.Code, ae.Status, want.code, want.status, code, ae)
	}
	return ae
}

// restProtocol is the REST API, for the rows that say it has their
// operations.
var restProtocol = protocol{name: "rest", explicitZero: true, client: func(t testing.TB, endpoint string, o clientOpts) sqsClient {
	return restClient{base: endpoint + "/v1", region: o.region}
}}

type restClient struct{ base, region string }

// call sends a request in account ("" for the server's) and decodes a
// success into out; an error answer is an *apiError.
func (c restClient) call(method, path, account string, body, out any) error {
	var header []string
	if account != "" {
		header = append(header, "X-Account-Id", account)
	}
	if c.region != "" {
		header = append(header, "X-Region", c.region)
	}
	status, b, err := requestJSON(method, c.base+path, body, header...)
	if err != nil {
		return err
	}
	if status >= 300 {
		var e struct {
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal(b, &e); err != nil || e.Error.Code == "" {
			return fmt.Errorf("%s %s: %d %s", method, path, status, b)
		}
		return &apiError{Code: e.Error.Code, Message: e.Error.Message, Status: status, Sender: status < 500}
	}
	if out == nil || len(b) == 0 {
		return nil
	}
	return json.Unmarshal(b, out)
}

// queuePath is the path and account of the queue an SQS URL names.
func queuePath(queueURL string) (path, account string) {
	u, err := url.Parse(queueURL)
	if err != nil {
		return "/queues/" + url.PathEscape(queueURL), ""
	}
	account, name, _ := strings.Cut(strings.Trim(u.Path, "/"), "/")
	return "/queues/" + url.PathEscape(name), account
}

// itemError is the error of one item of a batch as an *apiError.
func itemError(code, message string) *apiError {
	return &apiError{Code: code, Message: message, Status: restStatus(code), Sender: true}
}

// restQueueJSON is the REST API's queue object, as far as the adapter
// reads it.
type restQueueJSON struct {
	Type                     string
	VisibilityTimeoutSeconds int
	RetentionSeconds         int
	DelaySeconds             int
	ReceiveWaitSeconds       int
	ContentBasedDedup        bool
	Counts                   struct{ Visible, InFlight, Delayed int }
	SQSURL                   string `json:"sqsUrl"`
	Arn                      string
	CreatedAt                time.Time
	UpdatedAt                time.Time
}

// restSettings are SQS attributes as REST fields.
func restSettings(attrs map[string]string) (map[string]any, error) {
	out := map[string]any{}
	for k, v := range attrs {
		if k == "FifoQueue" {
			if v == "true" {
				out["type"] = "fifo"
			}
			continue
		}
		i := slices.IndexFunc(engine.QueueAttributeTable(), func(s engine.AttributeSpec) bool { return s.Name == k && s.REST != "" })
		if i < 0 {
			return nil, errNotInREST("attribute " + k)
		}
		s := engine.QueueAttributeTable()[i]
		switch s.Kind {
		case engine.AttrInt:
			if n, err := strconv.Atoi(v); err == nil {
				out[s.REST] = n
				continue
			}
			out[s.REST] = v // the API refuses it
		case engine.AttrBool:
			if b, err := strconv.ParseBool(v); err == nil {
				out[s.REST] = b
				continue
			}
			out[s.REST] = v
		case engine.AttrRedrivePolicy:
			if v == "" {
				out[s.REST] = nil
				continue
			}
			var p struct {
				DeadLetterTargetArn string
				MaxReceiveCount     json.Number
			}
			if err := json.Unmarshal([]byte(v), &p); err != nil {
				return nil, errNotInREST("RedrivePolicy " + v)
			}
			n, _ := p.MaxReceiveCount.Int64()
			out[s.REST] = map[string]any{"deadLetterQueue": p.DeadLetterTargetArn[strings.LastIndex(p.DeadLetterTargetArn, ":")+1:], "maxReceiveCount": n}
		default:
			return nil, errNotInREST("attribute " + k)
		}
	}
	return out, nil
}

func (c restClient) CreateQueue(name string, attrs, tags map[string]string) (string, error) {
	body, err := restSettings(attrs)
	if err != nil {
		return "", err
	}
	body["name"] = name
	var q restQueueJSON
	if err := c.call(http.MethodPost, "/queues", "", body, &q); err != nil {
		return "", err
	}
	if tags != nil {
		if err := c.call(http.MethodPut, "/queues/"+url.PathEscape(name)+"/tags", "", map[string]any{"tags": tags}, nil); err != nil {
			return "", err
		}
	}
	return q.SQSURL, nil
}

func (c restClient) GetQueueURL(name, owner string) (string, error) {
	var q restQueueJSON
	err := c.call(http.MethodGet, "/queues/"+url.PathEscape(name), owner, nil, &q)
	return q.SQSURL, err
}

func (c restClient) ListQueues(prefix string, max *int, token string) ([]string, string, error) {
	// SQS answers up to 1,000 queues, and no token, without MaxResults.
	limit := 1000
	if max != nil {
		limit = *max
	}
	v := url.Values{"prefix": {prefix}, "limit": {strconv.Itoa(limit)}}
	if token != "" {
		v.Set("cursor", token)
	}
	var out struct {
		Queues     []restQueueJSON
		NextCursor string
	}
	if err := c.call(http.MethodGet, "/queues?"+v.Encode(), "", nil, &out); err != nil {
		return nil, "", err
	}
	var urls []string
	for _, q := range out.Queues {
		urls = append(urls, q.SQSURL)
	}
	if max == nil {
		out.NextCursor = ""
	}
	return urls, out.NextCursor, nil
}

func (c restClient) DeleteQueue(queueURL string) error {
	path, account := queuePath(queueURL)
	return c.call(http.MethodDelete, path, account, nil, nil)
}

func (c restClient) GetQueueAttributes(queueURL string, names ...string) (map[string]string, error) {
	path, account := queuePath(queueURL)
	var q restQueueJSON
	if err := c.call(http.MethodGet, path, account, nil, &q); err != nil {
		return nil, err
	}
	all := map[string]string{
		"QueueArn":                              q.Arn,
		"ApproximateNumberOfMessages":           strconv.Itoa(q.Counts.Visible),
		"ApproximateNumberOfMessagesNotVisible": strconv.Itoa(q.Counts.InFlight),
		"ApproximateNumberOfMessagesDelayed":    strconv.Itoa(q.Counts.Delayed),
		"CreatedTimestamp":                      strconv.FormatInt(q.CreatedAt.Unix(), 10),
		"LastModifiedTimestamp":                 strconv.FormatInt(q.UpdatedAt.Unix(), 10),
		"VisibilityTimeout":                     strconv.Itoa(q.VisibilityTimeoutSeconds),
		"MessageRetentionPeriod":                strconv.Itoa(q.RetentionSeconds),
		"DelaySeconds":                          strconv.Itoa(q.DelaySeconds),
		"ReceiveMessageWaitTimeSeconds":         strconv.Itoa(q.ReceiveWaitSeconds),
	}
	if q.Type == "fifo" {
		all["FifoQueue"] = "true"
		all["ContentBasedDeduplication"] = strconv.FormatBool(q.ContentBasedDedup)
	}
	out := map[string]string{}
	for _, n := range names {
		if n == "All" {
			return all, nil
		}
		v, ok := all[n]
		if !ok {
			return nil, errNotInREST("attribute " + n)
		}
		out[n] = v
	}
	return out, nil
}

func (c restClient) SetQueueAttributes(queueURL string, attrs map[string]string) error {
	body, err := restSettings(attrs)
	if err != nil {
		return err
	}
	path, account := queuePath(queueURL)
	return c.call(http.MethodPatch, path, account, body, nil)
}

func (c restClient) PurgeQueue(queueURL string) error {
	path, account := queuePath(queueURL)
	return c.call(http.MethodPost, path+"/purge", account, nil, nil)
}

func (c restClient) ListQueueTags(queueURL string) (map[string]string, error) {
	path, account := queuePath(queueURL)
	var out struct{ Tags map[string]string }
	err := c.call(http.MethodGet, path+"/tags", account, nil, &out)
	return out.Tags, err
}

// putTags sets the queue's tags to what change makes of them: the API
// replaces them whole, SQS adds and removes.
func (c restClient) putTags(queueURL string, change func(map[string]string)) error {
	tags, err := c.ListQueueTags(queueURL)
	if err != nil {
		return err
	}
	if tags == nil {
		tags = map[string]string{}
	}
	change(tags)
	path, account := queuePath(queueURL)
	return c.call(http.MethodPut, path+"/tags", account, map[string]any{"tags": tags}, nil)
}

func (c restClient) TagQueue(queueURL string, tags map[string]string) error {
	return c.putTags(queueURL, func(m map[string]string) {
		for k, v := range tags {
			m[k] = v
		}
	})
}

func (c restClient) UntagQueue(queueURL string, keys ...string) error {
	return c.putTags(queueURL, func(m map[string]string) {
		for _, k := range keys {
			delete(m, k)
		}
	})
}

func (c restClient) send(queueURL string, ms []sendIn) ([]sendOut, []batchFailure, error) {
	var msgs []map[string]any
	for _, m := range ms {
		if m.SysAttrs != nil {
			return nil, nil, errNotInREST("system attributes")
		}
		one := map[string]any{"body": m.Body}
		if m.Attrs != nil {
			attrs := map[string]string{}
			for k, a := range m.Attrs {
				if a.DataType != "String" {
					return nil, nil, errNotInREST(a.DataType + " attributes")
				}
				attrs[k] = a.StringValue
			}
			one["attributes"] = attrs
		}
		if m.Delay != nil {
			one["delaySeconds"] = *m.Delay
		}
		if m.Group != nil {
			one["groupId"] = *m.Group
		}
		if m.Dedup != nil {
			one["dedupId"] = *m.Dedup
		}
		msgs = append(msgs, one)
	}
	var out struct {
		Results []struct {
			MessageID      string `json:"messageId"`
			SequenceNumber string
			Error          *struct{ Code, Message string }
		}
	}
	path, account := queuePath(queueURL)
	if err := c.call(http.MethodPost, path+"/messages", account, map[string]any{"messages": msgs}, &out); err != nil {
		return nil, nil, err
	}
	var ok []sendOut
	var failed []batchFailure
	for i, r := range out.Results {
		if r.Error != nil {
			failed = append(failed, batchFailure{ID: ms[i].ID, Code: r.Error.Code, Message: r.Error.Message, SenderFault: true})
			continue
		}
		ok = append(ok, sendOut{ID: ms[i].ID, MessageID: r.MessageID, SequenceNumber: r.SequenceNumber})
	}
	return ok, failed, nil
}

func (c restClient) SendMessage(queueURL string, m sendIn) (sendOut, error) {
	ok, failed, err := c.send(queueURL, []sendIn{m})
	switch {
	case err != nil:
		return sendOut{}, err
	case len(failed) > 0:
		return sendOut{}, itemError(failed[0].Code, failed[0].Message)
	}
	return ok[0], nil
}

func (c restClient) SendMessageBatch(queueURL string, ms []sendIn) ([]sendOut, []batchFailure, error) {
	return c.send(queueURL, ms)
}

// millis is an RFC 3339 time as SQS's epoch milliseconds; "" stays "".
func millis(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return ""
	}
	return strconv.FormatInt(t.UnixMilli(), 10)
}

func (c restClient) ReceiveMessage(queueURL string, r receiveIn) ([]message, error) {
	body := map[string]any{}
	for k, p := range map[string]*int{"maxMessages": r.Max, "waitSeconds": r.Wait, "visibilityTimeoutSeconds": r.Visibility} {
		if p != nil {
			body[k] = *p
		}
	}
	var out struct {
		Messages []struct {
			MessageID               string `json:"messageId"`
			Body, ReceiptHandle     string
			Attributes              map[string]string
			ReceiveCount            int
			SentAt, FirstReceivedAt string
		}
	}
	path, account := queuePath(queueURL)
	if err := c.call(http.MethodPost, path+"/messages/receive", account, body, &out); err != nil {
		return nil, err
	}
	var got []message
	for _, m := range out.Messages {
		msg := message{MessageID: m.MessageID, Body: m.Body, Handle: m.ReceiptHandle}
		// The API answers every attribute; as SQS, give those asked for.
		if len(r.MsgAttrNames) > 0 && len(m.Attributes) > 0 {
			msg.MsgAttrs = map[string]msgAttr{}
			for k, v := range m.Attributes {
				msg.MsgAttrs[k] = strAttr("String", v)
			}
		}
		sys := map[string]string{
			"ApproximateReceiveCount":          strconv.Itoa(m.ReceiveCount),
			"SentTimestamp":                    millis(m.SentAt),
			"ApproximateFirstReceiveTimestamp": millis(m.FirstReceivedAt),
		}
		for k := range sys {
			if !slices.Contains(r.SysNames, "All") && !slices.Contains(r.SysNames, k) {
				delete(sys, k)
			}
		}
		if len(sys) > 0 {
			msg.Attrs = sys
		}
		got = append(got, msg)
	}
	return got, nil
}

func (c restClient) acknowledge(handles []string) ([]int, []batchFailure, error) {
	var out struct {
		Results []struct {
			ReceiptHandle string
			Error         *struct{ Code, Message string }
		}
	}
	if err := c.call(http.MethodPost, "/messages/acknowledge", "", map[string]any{"receiptHandles": handles}, &out); err != nil {
		return nil, nil, err
	}
	var ok []int
	var failed []batchFailure
	for i, r := range out.Results {
		if r.Error != nil {
			failed = append(failed, batchFailure{ID: strconv.Itoa(i), Code: r.Error.Code, Message: r.Error.Message, SenderFault: true})
			continue
		}
		ok = append(ok, i)
	}
	return ok, failed, nil
}

func (c restClient) DeleteMessage(_, handle string) error {
	_, failed, err := c.acknowledge([]string{handle})
	if err == nil && len(failed) > 0 {
		err = itemError(failed[0].Code, failed[0].Message)
	}
	return err
}

func (c restClient) DeleteMessageBatch(_ string, es []handleEntry) ([]string, []batchFailure, error) {
	handles := []string{}
	for _, x := range es {
		handles = append(handles, x.Handle)
	}
	okAt, failed, err := c.acknowledge(handles)
	if err != nil {
		return nil, nil, err
	}
	var ok []string
	for _, i := range okAt {
		ok = append(ok, es[i].ID)
	}
	for i := range failed {
		n, _ := strconv.Atoi(failed[i].ID)
		failed[i].ID = es[n].ID
	}
	return ok, failed, nil
}

func (c restClient) ChangeMessageVisibility(_, handle string, secs int) error {
	return c.call(http.MethodPost, "/messages/visibility", "", map[string]any{"receiptHandle": handle, "visibilityTimeoutSeconds": secs}, nil)
}

func (c restClient) ListDeadLetterSourceQueues(string, *int, string) ([]string, string, error) {
	return nil, "", errNotInREST("ListDeadLetterSourceQueues")
}

func (c restClient) AddPermission(string, string, []string, []string) error {
	return errNotInREST("AddPermission")
}

func (c restClient) RemovePermission(string, string) error {
	return errNotInREST("RemovePermission")
}

func (c restClient) ChangeMessageVisibilityBatch(string, []handleEntry) ([]string, []batchFailure, error) {
	return nil, nil, errNotInREST("ChangeMessageVisibilityBatch")
}

func (c restClient) StartMessageMoveTask(string, string, *int) (string, error) {
	return "", errNotInREST("StartMessageMoveTask by ARN")
}

func (c restClient) CancelMessageMoveTask(string) (int64, error) {
	return 0, errNotInREST("CancelMessageMoveTask by handle")
}

func (c restClient) ListMessageMoveTasks(string, *int) ([]moveTask, error) {
	return nil, errNotInREST("ListMessageMoveTasks by ARN")
}

// asRESTError is err as the REST client's *apiError, or nil.
func asRESTError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	return nil
}
