package rest_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	credv2 "github.com/aws/aws-sdk-go-v2/credentials"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/julienschmidt/httprouter"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/internal/apitest"
	"github.com/minisqs/minisqs/minisqstest"
	"github.com/minisqs/minisqs/protocol/rest"
	"github.com/minisqs/minisqs/server"
)

// The OpenAPI document, loaded once; every request and answer of these
// tests is checked against it.
var openAPI = sync.OnceValues(func() (*apitest.Spec, error) { return apitest.Load(rest.OpenAPI) })

func spec(t testing.TB) *apitest.Spec {
	t.Helper()
	s, err := openAPI()
	if err != nil {
		t.Fatalf("OpenAPI document: %v", err)
	}
	return s
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
	srv := httptest.NewServer(server.NewHandler(e, server.HandlerOptions{}))
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

// resp is an answer; requests and answers are checked against the OpenAPI
// document by apitest.
type resp = apitest.Resp

type reqMode = apitest.Mode

const (
	validRequest   = apitest.Valid
	invalidRequest = apitest.Invalid
	beyondSchema   = apitest.BeyondSchema
)

func (v *env) api() apitest.Client {
	return apitest.Client{T: v.t, URL: v.url, Token: v.token, Spec: spec(v.t)}
}

// do sends a request and checks it and its answer against the document.
func (v *env) do(method, path string, body any, mode reqMode) *resp {
	v.t.Helper()
	return v.api().Do(method, path, body, mode)
}

// must sends a valid request and requires the status.
func (v *env) must(status int, method, path string, body any) *resp {
	v.t.Helper()
	return v.api().Must(status, method, path, body)
}

// fails sends a request and requires an error answer with the code and its
// status.
func (v *env) fails(status int, code string, mode reqMode, method, path string, body any) *resp {
	v.t.Helper()
	return v.api().Fails(status, code, mode, method, path, body)
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
	v.must(201, "POST", "/v1/queues", body).Decode(v.t, &q)
	return q
}

func (v *env) getQueue(ref string) queueOut {
	v.t.Helper()
	var q queueOut
	v.must(200, "GET", "/v1/queues/"+ref, nil).Decode(v.t, &q)
	return q
}

func (v *env) send(queue string, msgs ...msg) []sendResult {
	v.t.Helper()
	var out struct{ Results []sendResult }
	v.must(200, "POST", "/v1/queues/"+queue+"/messages", msg{"messages": msgs}).Decode(v.t, &out)
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
	v.must(200, "POST", "/v1/queues/"+queue+"/messages/receive", body).Decode(v.t, &out)
	return out.Messages
}

func (v *env) peek(queue, query string) []received {
	v.t.Helper()
	var out struct{ Messages []received }
	v.must(200, "GET", "/v1/queues/"+queue+"/messages"+query, nil).Decode(v.t, &out)
	return out.Messages
}

type handleResult struct {
	ReceiptHandle string `json:"receiptHandle"`
	Error         *struct{ Code, Message string }
}

func (v *env) ack(handles ...string) []handleResult {
	v.t.Helper()
	var out struct{ Results []handleResult }
	v.must(200, "POST", "/v1/messages/acknowledge", msg{"receiptHandles": handles}).Decode(v.t, &out)
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
