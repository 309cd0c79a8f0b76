package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/internal/apitest"
	"github.com/minisqs/minisqs/protocol/rest"
	"github.com/minisqs/minisqs/server"
)

// The fault and request routes' OpenAPI document; every request and answer
// of these tests is checked against it.
var ctlOpenAPI = sync.OnceValues(func() (*apitest.Spec, error) {
	raw, err := os.ReadFile("../docs/control-openapi.json")
	if err != nil {
		return nil, err
	}
	return apitest.Load(raw)
})

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
	srv := httptest.NewServer(server.NewHandler(e, server.HandlerOptions{Tokens: tokens}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { e.Close() })
	return &ctlEnv{t: t, url: srv.URL}
}

// do sends a request, which the document must accept when valid is set and
// refuse otherwise, and checks the answer against the document.
func (v *ctlEnv) do(method, path, body string, valid bool) *apitest.Resp {
	v.t.Helper()
	spec, err := ctlOpenAPI()
	if err != nil {
		v.t.Fatalf("control OpenAPI document: %v", err)
	}
	mode := apitest.Valid
	if !valid {
		mode = apitest.Invalid
	}
	var b any
	if body != "" {
		b = body
	}
	return apitest.Client{T: v.t, URL: v.url, Token: v.token, Spec: spec}.Do(method, path, b, mode)
}

func (v *ctlEnv) must(status int, method, path, body string) *apitest.Resp {
	v.t.Helper()
	r := v.do(method, path, body, true)
	if r.Status != status {
		v.t.Fatalf("%s %s %s: %d %s, want %d", method, path, body, r.Status, r.Body, status)
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
	if err := json.Unmarshal(r.Body, &f); err != nil {
		t.Fatal(err)
	}
	if f.ID == "" || f.Action != "SendMessage" || f.Queue != "orders" || f.Error != "RequestThrottled" || f.Probability != 1 || f.Count != 2 || f.Hits != 0 {
		t.Errorf("created %s", r.Body)
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
	json.Unmarshal(v.must(200, "GET", "/_minisqs/faults", "").Body, &list)
	if len(list.Faults) != 2 || list.Faults[0].ID != f.ID || list.Faults[0].Hits != 1 || list.Faults[1].Action != "*" {
		t.Errorf("list %+v", list)
	}

	v.must(204, "DELETE", "/_minisqs/faults/"+f.ID, "")
	if r := v.must(404, "DELETE", "/_minisqs/faults/"+f.ID, ""); r.ErrCode(t) != "not_found" {
		t.Errorf("second delete: %s", r.Body)
	}
	v.must(204, "DELETE", "/_minisqs/faults", "")
	json.Unmarshal(v.must(200, "GET", "/_minisqs/faults", "").Body, &list)
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
		if r.Status != 400 || r.ErrCode(t) != "invalid_request" {
			t.Errorf("%s: %d %s, want 400 invalid_request", tc.body, r.Status, r.Body)
		}
	}
	var list struct{ Faults []any }
	json.Unmarshal(v.must(200, "GET", "/_minisqs/faults", "").Body, &list)
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
	json.Unmarshal(v.must(200, "GET", "/_minisqs/requests", "").Body, &out)
	if len(out.Requests) != 1 || out.Requests[0].Protocol != "rest" || out.Requests[0].Action != "CreateQueue" || out.Requests[0].Status != 201 {
		t.Errorf("journal %+v", out)
	}
	v.must(200, "GET", "/_minisqs/requests?limit=1000", "")
	for _, q := range []string{"?limit=0", "?limit=x"} {
		if r := v.do("GET", "/_minisqs/requests"+q, "", false); r.Status != 400 || r.ErrCode(t) != "invalid_request" {
			t.Errorf("%s: %d %s", q, r.Status, r.Body)
		}
	}
	// The control routes are not journaled.
	json.Unmarshal(v.must(200, "GET", "/_minisqs/requests", "").Body, &out)
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
			if r.Status != want || r.ErrCode(t) != code {
				t.Errorf("%s %s with %q: %d %s", rt.method, rt.path, tok, r.Status, r.Body)
			}
			if want == 401 && r.Header.Get("WWW-Authenticate") == "" {
				t.Errorf("%s %s: 401 without WWW-Authenticate", rt.method, rt.path)
			}
		}
		v := *base
		v.token = "adm"
		r := v.do(rt.method, rt.path, rt.body, true)
		if r.Status == 401 || r.Status == 403 || r.Status >= 500 {
			t.Errorf("%s %s as admin: %d %s", rt.method, rt.path, r.Status, r.Body)
		}
		called[r.Op] = true
	}
	spec, err := ctlOpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, item := range spec.Doc.Paths.Map() {
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
