package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	credv2 "github.com/aws/aws-sdk-go-v2/credentials"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/julienschmidt/httprouter"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/minisqstest"
	"github.com/minisqs/minisqs/protocol"
	"github.com/minisqs/minisqs/protocol/rest"
)

// The OpenAPI document, loaded once; every request and answer of these
// tests is checked against it.
var (
	specOnce   sync.Once
	specDoc    *openapi3.T
	specRouter routers.Router
	specErr    error
)

func spec(t testing.TB) (*openapi3.T, routers.Router) {
	t.Helper()
	specOnce.Do(func() {
		loader := openapi3.NewLoader()
		specDoc, specErr = loader.LoadFromData(rest.OpenAPI)
		if specErr != nil {
			return
		}
		if specErr = specDoc.Validate(loader.Context); specErr != nil {
			return
		}
		// Match paths whatever the test server's host.
		specDoc.Servers = nil
		specRouter, specErr = legacy.NewRouter(specDoc)
	})
	if specErr != nil {
		t.Fatalf("OpenAPI document: %v", specErr)
	}
	return specDoc, specRouter
}

var start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// env is a server over one engine on a manual clock.
type env struct {
	t     *testing.T
	url   string
	e     *engine.Engine
	clock *engine.ManualClock
	token string // sent as a bearer token when set
}

func openEngine(t *testing.T) (*engine.Engine, *engine.ManualClock) {
	t.Helper()
	clock := engine.NewManualClock(start)
	e, err := engine.Open(engine.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	return e, clock
}

// newEnv serves the full protocol handler (SQS and REST) over httptest.
func newEnv(t *testing.T) *env {
	t.Helper()
	e, clock := openEngine(t)
	srv := httptest.NewServer(protocol.NewHandler(e, protocol.Options{}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { e.Close() })
	return &env{t: t, url: srv.URL, e: e, clock: clock}
}

// newRESTEnv serves the REST API alone, with options the full handler does
// not take yet (tokens, the subscription hook).
func newRESTEnv(t *testing.T, opts rest.Options) *env {
	t.Helper()
	e, clock := openEngine(t)
	r := httprouter.New()
	rest.New(e, opts).Register(r)
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { e.Close() })
	return &env{t: t, url: srv.URL, e: e, clock: clock}
}

func (v *env) withToken(tok string) *env {
	c := *v
	c.token = tok
	return &c
}

// resp is an answer.
type resp struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r *resp) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.Body, err)
	}
}

// errCode is the error code of an error answer.
func (r *resp) errCode(t testing.TB) string {
	t.Helper()
	var e struct {
		Error struct{ Code, Message string }
	}
	r.decode(t, &e)
	if e.Error.Code == "" || e.Error.Message == "" {
		t.Fatalf("not an error answer: %d %s", r.Status, r.Body)
	}
	return e.Error.Code
}

type reqMode int

const (
	validRequest   reqMode = iota // the document must accept the request
	invalidRequest                // the document must refuse it too
	// beyondSchema is a request that JSON Schema cannot judge (such as
	// two JSON values in one body); only the answer is checked.
	beyondSchema
)

// do sends a request and checks it and its answer against the document. A
// body that is a string is sent as is; anything else as JSON.
func (v *env) do(method, path string, body any, mode reqMode) *resp {
	v.t.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			v.t.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, v.url+path, bytes.NewReader(raw))
	if err != nil {
		v.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if v.token != "" {
		req.Header.Set("Authorization", "Bearer "+v.token)
	}
	_, router := spec(v.t)
	vreq := req.Clone(context.Background())
	vreq.Body = io.NopCloser(bytes.NewReader(raw))
	route, params, err := router.FindRoute(vreq)
	var input *openapi3filter.RequestValidationInput
	if err == nil {
		input = &openapi3filter.RequestValidationInput{
			Request: vreq, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, SkipSettingDefaults: true},
		}
		var verr error
		if mode != beyondSchema {
			verr = openapi3filter.ValidateRequest(context.Background(), input)
		}
		switch {
		case mode == validRequest && verr != nil:
			v.t.Errorf("%s %s: the OpenAPI document refuses the request %s: %v", method, path, trim(raw), verr)
		case mode == invalidRequest && verr == nil:
			v.t.Errorf("%s %s: the OpenAPI document accepts the request %s, which the test takes as invalid", method, path, trim(raw))
		}
	} else if mode == validRequest {
		v.t.Errorf("%s %s: no operation in the OpenAPI document: %v", method, path, err)
	}

	res, err := http.DefaultClient.Do(req)
	if err != nil {
		v.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		v.t.Fatal(err)
	}
	if input != nil {
		input.Request.Body = io.NopCloser(bytes.NewReader(raw))
		rin := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: input,
			Status:                 res.StatusCode,
			Header:                 res.Header,
			Options:                &openapi3filter.Options{IncludeResponseStatus: true},
		}
		rin.SetBodyBytes(out)
		if err := openapi3filter.ValidateResponse(context.Background(), rin); err != nil {
			v.t.Errorf("%s %s: the answer %d %s does not follow the OpenAPI document: %v", method, path, res.StatusCode, trim(out), err)
		}
	}
	return &resp{Status: res.StatusCode, Header: res.Header, Body: out}
}

func trim(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}

// must sends a valid request and requires the status.
func (v *env) must(status int, method, path string, body any) *resp {
	v.t.Helper()
	r := v.do(method, path, body, validRequest)
	if r.Status != status {
		v.t.Fatalf("%s %s %s: got %d %s, want %d", method, path, trim(mustJSON(body)), r.Status, r.Body, status)
	}
	return r
}

// fails sends a request and requires an error answer with the code and its
// status.
func (v *env) fails(status int, code string, mode reqMode, method, path string, body any) *resp {
	v.t.Helper()
	r := v.do(method, path, body, mode)
	if r.Status != status {
		v.t.Fatalf("%s %s %s: got %d %s, want %d %s", method, path, trim(mustJSON(body)), r.Status, r.Body, status, code)
	}
	if got := r.errCode(v.t); got != code {
		v.t.Fatalf("%s %s: got code %s (%s), want %s", method, path, got, r.Body, code)
	}
	return r
}

func mustJSON(v any) []byte {
	switch b := v.(type) {
	case nil:
		return nil
	case string:
		return []byte(b)
	}
	raw, _ := json.Marshal(v)
	return raw
}

// Wire shapes as the tests read them.
type queueOut struct {
	ID                       string `json:"id"`
	Slug                     string `json:"slug"`
	Name                     string `json:"name"`
	Type                     string `json:"type"`
	VisibilityTimeoutSeconds int    `json:"visibilityTimeoutSeconds"`
	RetentionSeconds         int    `json:"retentionSeconds"`
	DelaySeconds             int    `json:"delaySeconds"`
	ReceiveWaitSeconds       int    `json:"receiveWaitSeconds"`
	Redrive                  *struct {
		DeadLetterQueue string `json:"deadLetterQueue"`
		MaxReceiveCount int    `json:"maxReceiveCount"`
	} `json:"redrive"`
	ContentBasedDedup bool `json:"contentBasedDedup"`
	Partitions        int  `json:"partitions"`
	Counts            struct {
		Visible, InFlight, Delayed int
		Truncated                  bool
	} `json:"counts"`
	SQSURL    string `json:"sqsUrl"`
	Arn       string `json:"arn"`
	CreatedAt string `json:"createdAt"`
	UpdatedAt string `json:"updatedAt"`
}

type sendResult struct {
	MessageID      string `json:"messageId"`
	SequenceNumber string `json:"sequenceNumber"`
	Error          *struct{ Code, Message string }
}

type received struct {
	MessageID       string            `json:"messageId"`
	Body            string            `json:"body"`
	Attributes      map[string]string `json:"attributes"`
	ReceiptHandle   string            `json:"receiptHandle"`
	ReceiveCount    int               `json:"receiveCount"`
	SentAt          string            `json:"sentAt"`
	FirstReceivedAt string            `json:"firstReceivedAt"`
	GroupID         string            `json:"groupId"`
	SequenceNumber  string            `json:"sequenceNumber"`
}

type msg = map[string]any

func (v *env) createQueue(body msg) queueOut {
	v.t.Helper()
	var q queueOut
	v.must(201, "POST", "/v1/queues", body).decode(v.t, &q)
	return q
}

func (v *env) getQueue(ref string) queueOut {
	v.t.Helper()
	var q queueOut
	v.must(200, "GET", "/v1/queues/"+ref, nil).decode(v.t, &q)
	return q
}

func (v *env) send(queue string, msgs ...msg) []sendResult {
	v.t.Helper()
	var out struct{ Results []sendResult }
	v.must(200, "POST", "/v1/queues/"+queue+"/messages", msg{"messages": msgs}).decode(v.t, &out)
	if len(out.Results) != len(msgs) {
		v.t.Fatalf("%d results for %d messages", len(out.Results), len(msgs))
	}
	return out.Results
}

func (v *env) sendOK(queue string, msgs ...msg) []sendResult {
	v.t.Helper()
	res := v.send(queue, msgs...)
	for i, r := range res {
		if r.Error != nil || r.MessageID == "" {
			v.t.Fatalf("message %d: %+v", i, r)
		}
	}
	return res
}

func (v *env) receive(queue string, body msg) []received {
	v.t.Helper()
	var out struct{ Messages []received }
	v.must(200, "POST", "/v1/queues/"+queue+"/messages/receive", body).decode(v.t, &out)
	return out.Messages
}

func (v *env) peek(queue, query string) []received {
	v.t.Helper()
	var out struct{ Messages []received }
	v.must(200, "GET", "/v1/queues/"+queue+"/messages"+query, nil).decode(v.t, &out)
	return out.Messages
}

type handleResult struct {
	ReceiptHandle string `json:"receiptHandle"`
	Error         *struct{ Code, Message string }
}

func (v *env) ack(handles ...string) []handleResult {
	v.t.Helper()
	var out struct{ Results []handleResult }
	v.must(200, "POST", "/v1/messages/acknowledge", msg{"receiptHandles": handles}).decode(v.t, &out)
	if len(out.Results) != len(handles) {
		v.t.Fatalf("%d results for %d handles", len(out.Results), len(handles))
	}
	for i, r := range out.Results {
		if r.ReceiptHandle != handles[i] {
			v.t.Fatalf("result %d is for another handle", i)
		}
	}
	return out.Results
}

// waitForWaiters blocks until n timers wait on the clock (a long poll has
// started waiting), so a test can advance time past it.
var waitForWaiters = minisqstest.AwaitWaiters

// async runs f in the background; the returned function waits for it.
func async[T any](f func() T) func(t testing.TB) T {
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	return func(t testing.TB) T {
		t.Helper()
		select {
		case v := <-ch:
			return v
		case <-time.After(10 * time.Second):
			t.Fatal("timed out")
			panic("unreachable")
		}
	}
}

// sqsClient is an aws-sdk-go-v2 client (the SQS JSON protocol) of the
// env's server.
func (v *env) sqsClient() *sqsv2.Client {
	return sqsv2.New(sqsv2.Options{
		Region:       "us-east-1",
		BaseEndpoint: awsv2.String(v.url),
		Credentials:  credv2.NewStaticCredentialsProvider("test", "test", ""),
		HTTPClient:   &http.Client{Timeout: 30 * time.Second},
	})
}

func bigString(n int) string { return strings.Repeat("x", n) }

// asError is errors.As for typed SDK errors.
func asError[T error](err error, target *T) bool { return errors.As(err, target) }
