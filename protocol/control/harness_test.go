package control_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol"
	"github.com/minisqs/minisqs/protocol/control"
	"github.com/minisqs/minisqs/protocol/rest"
)

// The control API's OpenAPI document, loaded once; every request and answer
// of these tests is checked against it.
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
		if specDoc, specErr = loader.LoadFromData(control.OpenAPI); specErr != nil {
			return
		}
		if specErr = specDoc.Validate(loader.Context); specErr != nil {
			return
		}
		specDoc.Servers = nil // match paths whatever the test server's host
		specRouter, specErr = legacy.NewRouter(specDoc)
	})
	if specErr != nil {
		t.Fatalf("OpenAPI document: %v", specErr)
	}
	return specDoc, specRouter
}

// start is where every test's clock begins: the times in testdata/.
var start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

type env struct {
	t     *testing.T
	url   string
	e     *engine.Engine
	clock *engine.ManualClock
	token string
	// changed records the queues SubscriptionChanged was told of.
	mu      sync.Mutex
	changed []string
}

// newEnv serves the whole protocol handler over an engine on a manual
// clock.
func newEnv(t *testing.T, tokens map[string]rest.Role) *env {
	t.Helper()
	clock := engine.NewManualClock(start)
	e, err := engine.Open(engine.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	v := &env{t: t, e: e, clock: clock}
	srv := httptest.NewServer(protocol.NewHandler(e, protocol.Options{
		Tokens: tokens,
		SubscriptionChanged: func(q *engine.Queue) {
			v.mu.Lock()
			defer v.mu.Unlock()
			v.changed = append(v.changed, q.Name())
		},
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { e.Close() })
	v.url = srv.URL
	return v
}

func (v *env) withToken(tok string) *env {
	return &env{t: v.t, url: v.url, e: v.e, clock: v.clock, token: tok}
}

type resp struct {
	Status int
	Body   []byte
}

func (r *resp) decode(t testing.TB, out any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, out); err != nil {
		t.Fatalf("decoding %s: %v", r.Body, err)
	}
}

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
	beyondSchema                  // a request JSON Schema cannot judge; only the answer is checked
)

// do sends a request and checks it and its answer against the document. A
// string or []byte body is sent as it is; anything else as JSON.
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
		if mode != beyondSchema {
			verr := openapi3filter.ValidateRequest(context.Background(), input)
			switch {
			case mode == validRequest && verr != nil:
				v.t.Errorf("%s %s: the OpenAPI document refuses the request %s: %v", method, path, trim(raw), verr)
			case mode == invalidRequest && verr == nil:
				v.t.Errorf("%s %s: the OpenAPI document accepts the request %s, which the test takes as invalid", method, path, trim(raw))
			}
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
			RequestValidationInput: input, Status: res.StatusCode, Header: res.Header,
			Options: &openapi3filter.Options{IncludeResponseStatus: true},
		}
		rin.SetBodyBytes(out)
		if err := openapi3filter.ValidateResponse(context.Background(), rin); err != nil {
			v.t.Errorf("%s %s: the answer %d %s does not follow the OpenAPI document: %v", method, path, res.StatusCode, trim(out), err)
		}
	}
	return &resp{Status: res.StatusCode, Body: out}
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
		v.t.Fatalf("%s %s: got %d %s, want %d", method, path, r.Status, trim(r.Body), status)
	}
	return r
}

// fails requires an error answer with the status and code.
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
	case []byte:
		return b
	}
	raw, _ := json.Marshal(v)
	return raw
}

type msg = map[string]any

func (v *env) queue(name string, u engine.AttributeUpdate) *engine.Queue {
	v.t.Helper()
	q, err := v.e.CreateQueue(name, u, nil)
	if err != nil {
		v.t.Fatal(err)
	}
	return q
}

func (v *env) send(q *engine.Queue, bodies ...string) {
	v.t.Helper()
	for _, b := range bodies {
		if r := q.Send([]engine.NewMessage{{Body: b}})[0]; r.Err != nil {
			v.t.Fatal(r.Err)
		}
	}
}
