package control_test

import (
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/internal/apitest"
	"github.com/minisqs/minisqs/protocol/control"
	"github.com/minisqs/minisqs/protocol/rest"
	"github.com/minisqs/minisqs/server"
)

// The control API's OpenAPI document, loaded once; every request and answer
// of these tests is checked against it.
var openAPI = sync.OnceValues(func() (*apitest.Spec, error) { return apitest.Load(control.OpenAPI) })

func spec(t testing.TB) *apitest.Spec {
	t.Helper()
	s, err := openAPI()
	if err != nil {
		t.Fatalf("OpenAPI document: %v", err)
	}
	return s
}

// start is where every test's clock begins: the times in testdata/.
var start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

type env struct {
	t     *testing.T
	url   string
	e     *engine.Engine
	clock *engine.ManualClock
	token string
	// changed records the queues whose subscriptions the engine announced.
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
	e.WatchSubscriptions(func(q *engine.Queue) {
		v.mu.Lock()
		defer v.mu.Unlock()
		v.changed = append(v.changed, q.Name())
	})
	srv := httptest.NewServer(server.NewHandler(e, server.HandlerOptions{Tokens: tokens}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { e.Close() })
	v.url = srv.URL
	return v
}

func (v *env) withToken(tok string) *env {
	return &env{t: v.t, url: v.url, e: v.e, clock: v.clock, token: tok}
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
