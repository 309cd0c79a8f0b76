package protocol_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol"
	"github.com/minisqs/minisqs/protocol/rest"
)

// The test-control API's OpenAPI document; every request and answer of
// these tests is checked against it.
var (
	ctlOnce   sync.Once
	ctlDoc    *openapi3.T
	ctlRouter routers.Router
	ctlErr    error
)

func ctlSpec(t testing.TB) routers.Router {
	t.Helper()
	ctlOnce.Do(func() {
		raw, err := os.ReadFile("../docs/control-openapi.json")
		if err != nil {
			ctlErr = err
			return
		}
		loader := openapi3.NewLoader()
		if ctlDoc, ctlErr = loader.LoadFromData(raw); ctlErr != nil {
			return
		}
		if ctlErr = ctlDoc.Validate(loader.Context); ctlErr != nil {
			return
		}
		ctlRouter, ctlErr = legacy.NewRouter(ctlDoc)
	})
	if ctlErr != nil {
		t.Fatalf("control OpenAPI document: %v", ctlErr)
	}
	return ctlRouter
}

type ctlEnv struct {
	t     *testing.T
	url   string
	token string
}

func newCtlEnv(t *testing.T, tokens map[string]rest.Role) *ctlEnv {
	t.Helper()
	e, err := engine.Open(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(protocol.NewHandler(e, protocol.Options{Tokens: tokens}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { e.Close() })
	return &ctlEnv{t: t, url: srv.URL}
}

type ctlResp struct {
	op     string // the document's operationId
	status int
	header http.Header
	body   []byte
}

func (r ctlResp) code(t *testing.T) string {
	t.Helper()
	var e struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal(r.body, &e); err != nil || e.Error.Code == "" || e.Error.Message == "" {
		t.Fatalf("not an error answer: %d %s", r.status, r.body)
	}
	return e.Error.Code
}

// do sends a request, which the document must accept when valid is set and
// refuse otherwise, and checks the answer against the document.
func (v *ctlEnv) do(method, path, body string, valid bool) ctlResp {
	v.t.Helper()
	req, err := http.NewRequest(method, v.url+path, strings.NewReader(body))
	if err != nil {
		v.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if v.token != "" {
		req.Header.Set("Authorization", "Bearer "+v.token)
	}
	vreq := req.Clone(context.Background())
	vreq.Body = io.NopCloser(strings.NewReader(body))
	vreq.URL.Host, vreq.URL.Scheme = "", "" // match the document's relative paths
	route, params, err := ctlSpec(v.t).FindRoute(vreq)
	if err != nil {
		v.t.Fatalf("%s %s: no operation in the document: %v", method, path, err)
	}
	in := &openapi3filter.RequestValidationInput{
		Request: vreq, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, SkipSettingDefaults: true},
	}
	verr := openapi3filter.ValidateRequest(context.Background(), in)
	if valid && verr != nil {
		v.t.Errorf("%s %s %s: the document refuses the request: %v", method, path, body, verr)
	}
	if !valid && verr == nil {
		v.t.Errorf("%s %s %s: the document accepts a request the test takes as invalid", method, path, body)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		v.t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	in.Request.Body = io.NopCloser(strings.NewReader(body))
	rin := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: res.StatusCode, Header: res.Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true},
	}
	rin.SetBodyBytes(out)
	if err := openapi3filter.ValidateResponse(context.Background(), rin); err != nil {
		v.t.Errorf("%s %s: the answer %d %s does not follow the document: %v", method, path, res.StatusCode, out, err)
	}
	return ctlResp{route.Operation.OperationID, res.StatusCode, res.Header, out}
}

func (v *ctlEnv) must(status int, method, path, body string) ctlResp {
	v.t.Helper()
	r := v.do(method, path, body, true)
	if r.status != status {
		v.t.Fatalf("%s %s %s: %d %s, want %d", method, path, body, r.status, r.body, status)
	}
	return r
}

func TestFaultsAPI(t *testing.T) {
	v := newCtlEnv(t, nil)
	var f struct {
		ID          string
		Action      string
		Queue       string
		Error       string
		Probability float64
		Count       int
		Hits        int
	}
	r := v.must(201, "POST", "/_minisqs/faults", `{"action": "SendMessage", "queue": "orders", "error": "RequestThrottled", "count": 2}`)
	if err := json.Unmarshal(r.body, &f); err != nil {
		t.Fatal(err)
	}
	if f.ID == "" || f.Action != "SendMessage" || f.Queue != "orders" || f.Error != "RequestThrottled" || f.Probability != 1 || f.Count != 2 || f.Hits != 0 {
		t.Errorf("created %s", r.body)
	}
	v.must(201, "POST", "/_minisqs/faults", `{"action": "*", "latencyMs": 5, "probability": 0}`)

	// The rule answers an SQS request and counts the hit.
	req, _ := http.NewRequest("POST", v.url+"/", bytes.NewReader([]byte(`{"QueueUrl": "http://x/000000000000/orders", "MessageBody": "m"}`)))
	req.Header.Set("X-Amz-Target", "AmazonSQS.SendMessage")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 403 || res.Header.Get("x-amzn-query-error") != "RequestThrottled;Sender" {
		t.Errorf("faulted SendMessage: %d %q", res.StatusCode, res.Header.Get("x-amzn-query-error"))
	}

	var list struct {
		Faults []struct {
			ID, Action string
			Hits       int
		}
	}
	json.Unmarshal(v.must(200, "GET", "/_minisqs/faults", "").body, &list)
	if len(list.Faults) != 2 || list.Faults[0].ID != f.ID || list.Faults[0].Hits != 1 || list.Faults[1].Action != "*" {
		t.Errorf("list %+v", list)
	}

	v.must(204, "DELETE", "/_minisqs/faults/"+f.ID, "")
	if r := v.must(404, "DELETE", "/_minisqs/faults/"+f.ID, ""); r.code(t) != "not_found" {
		t.Errorf("second delete: %s", r.body)
	}
	v.must(204, "DELETE", "/_minisqs/faults", "")
	json.Unmarshal(v.must(200, "GET", "/_minisqs/faults", "").body, &list)
	if len(list.Faults) != 0 {
		t.Errorf("after clearing: %+v", list)
	}
}

func TestFaultsAPIRefusesBadRules(t *testing.T) {
	v := newCtlEnv(t, nil)
	for _, tc := range []struct {
		body   string
		schema bool // the document's schema refuses it too
	}{
		{`{"action": "SendMesage", "error": "ThrottlingException"}`, false},
		{`{"action": "SendMessage", "error": "Throttled"}`, false},
		{`{"action": "SendMessage", "error": "ThrottlingException", "drop": true}`, false},
		{`{"action": "SendMessage", "latencyMs": 5, "drop": true}`, false},
		{`{"action": "SendMessage"}`, false},
		{`{"action": "SendMessage", "drop": false}`, false},
		{`{"action": "SendMessage", "drop": true, "probability": 1.5}`, true},
		{`{"action": "SendMessage", "drop": true, "probability": -1}`, true},
		{`{"action": "SendMessage", "drop": true, "count": 0}`, true},
		{`{"action": "SendMessage", "latencyMs": 300001}`, true},
		{`{"action": "SendMessage", "queue": "http://h/000000000000/q", "drop": true}`, false},
		{`{"error": "ThrottlingException"}`, true},
		{`{"action": "SendMessage", "drop": true, "times": 3}`, true},
		{`{"action": "SendMessage", "count": "two", "drop": true}`, true},
		{`{"action": "SendMessage"`, true},
		{``, true},
	} {
		r := v.do("POST", "/_minisqs/faults", tc.body, !tc.schema)
		if r.status != 400 || r.code(t) != "invalid_request" {
			t.Errorf("%s: %d %s, want 400 invalid_request", tc.body, r.status, r.body)
		}
	}
	var list struct{ Faults []any }
	json.Unmarshal(v.must(200, "GET", "/_minisqs/faults", "").body, &list)
	if len(list.Faults) != 0 {
		t.Errorf("refused rules are listed: %+v", list)
	}
}

func TestRequestsAPI(t *testing.T) {
	v := newCtlEnv(t, nil)
	// A REST request, so the journal has something to show.
	res, err := http.Post(v.url+"/v1/queues", "application/json", strings.NewReader(`{"name": "orders"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	var out struct {
		Requests []struct {
			Protocol, Action string
			Status           int
		}
	}
	json.Unmarshal(v.must(200, "GET", "/_minisqs/requests", "").body, &out)
	if len(out.Requests) != 1 || out.Requests[0].Protocol != "rest" || out.Requests[0].Action != "CreateQueue" || out.Requests[0].Status != 201 {
		t.Errorf("journal %+v", out)
	}
	v.must(200, "GET", "/_minisqs/requests?limit=1000", "")
	for _, q := range []string{"?limit=0", "?limit=x"} {
		if r := v.do("GET", "/_minisqs/requests"+q, "", false); r.status != 400 || r.code(t) != "invalid_request" {
			t.Errorf("%s: %d %s", q, r.status, r.body)
		}
	}
	// The control routes are not journaled.
	json.Unmarshal(v.must(200, "GET", "/_minisqs/requests", "").body, &out)
	if len(out.Requests) != 1 {
		t.Errorf("journal %+v", out)
	}
}

// TestControlTokens: with tokens, every control route needs the admin's.
// It calls every operation of the document.
func TestControlTokens(t *testing.T) {
	base := newCtlEnv(t, map[string]rest.Role{"adm": rest.RoleAdmin, "pro": rest.RoleProducer})
	routes := []struct{ method, path, body string }{
		{"POST", "/_minisqs/faults", `{"action": "*", "latencyMs": 1, "probability": 0}`},
		{"GET", "/_minisqs/faults", ""},
		{"DELETE", "/_minisqs/faults/none", ""},
		{"DELETE", "/_minisqs/faults", ""},
		{"GET", "/_minisqs/requests", ""},
	}
	called := map[string]bool{}
	for _, rt := range routes {
		for _, tok := range []string{"", "wrong", "pro"} {
			v := *base
			v.token = tok
			r := v.do(rt.method, rt.path, rt.body, true)
			want, code := 401, "unauthorized"
			if tok == "pro" {
				want, code = 403, "forbidden"
			}
			if r.status != want || r.code(t) != code {
				t.Errorf("%s %s with %q: %d %s", rt.method, rt.path, tok, r.status, r.body)
			}
			if want == 401 && r.header.Get("WWW-Authenticate") == "" {
				t.Errorf("%s %s: 401 without WWW-Authenticate", rt.method, rt.path)
			}
		}
		v := *base
		v.token = "adm"
		r := v.do(rt.method, rt.path, rt.body, true)
		if r.status == 401 || r.status == 403 || r.status >= 500 {
			t.Errorf("%s %s as admin: %d %s", rt.method, rt.path, r.status, r.body)
		}
		called[r.op] = true
	}
	var missing []string
	for _, item := range ctlDoc.Paths.Map() {
		for _, op := range item.Operations() {
			if !called[op.OperationID] {
				missing = append(missing, op.OperationID)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("operations of the document this test does not call: %v", missing)
	}
}
