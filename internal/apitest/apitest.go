// Package apitest sends requests to minisqs's JSON APIs (the REST API, the
// test-control API) for tests, and checks every request and answer against
// the API's OpenAPI document, so that the document cannot drift from what
// the server does.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// Spec is a loaded OpenAPI document.
type Spec struct {
	Doc    *openapi3.T
	router routers.Router
}

// Load reads and validates an OpenAPI document. Its servers are dropped, so
// that paths match whatever the test server's host.
func Load(data []byte) (*Spec, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, err
	}
	doc.Servers = nil
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	return &Spec{Doc: doc, router: router}, nil
}

// Mode says what a request is to the document.
type Mode int

// Modes of requests.
const (
	Valid   Mode = iota // the document must accept the request
	Invalid             // the document must refuse it too
	// BeyondSchema is a request that JSON Schema cannot judge (such as two
	// JSON values in one body); only the answer is checked.
	BeyondSchema
)

// Resp is an answer.
type Resp struct {
	Status int
	Header http.Header
	Body   []byte
	// Op is the operationId of the document's operation the request
	// matched, "" for none.
	Op string
}

// Decode reads the answer's JSON into v.
func (r *Resp) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.Body, err)
	}
}

// ErrCode is the error code of an error answer, {"error": {"code", "message"}}.
func (r *Resp) ErrCode(t testing.TB) string {
	t.Helper()
	var e struct {
		Error struct{ Code, Message string }
	}
	r.Decode(t, &e)
	if e.Error.Code == "" || e.Error.Message == "" {
		t.Fatalf("not an error answer: %d %s", r.Status, r.Body)
	}
	return e.Error.Code
}

// Client sends requests to URL, with Token as a bearer token when set.
type Client struct {
	T     testing.TB
	URL   string
	Token string
	Spec  *Spec
}

// Do sends a request and checks it and its answer against the document. A
// string or []byte body is sent as it is; anything else as JSON.
func (c Client) Do(method, path string, body any, mode Mode) *Resp {
	c.T.Helper()
	raw := JSON(body)
	req, err := http.NewRequest(method, c.URL+path, bytes.NewReader(raw))
	if err != nil {
		c.T.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	vreq := req.Clone(context.Background())
	vreq.Body = io.NopCloser(bytes.NewReader(raw))
	route, params, err := c.Spec.router.FindRoute(vreq)
	var input *openapi3filter.RequestValidationInput
	op := ""
	if err == nil {
		op = route.Operation.OperationID
		input = &openapi3filter.RequestValidationInput{
			Request: vreq, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, SkipSettingDefaults: true},
		}
		var verr error
		if mode != BeyondSchema {
			verr = openapi3filter.ValidateRequest(context.Background(), input)
		}
		switch {
		case mode == Valid && verr != nil:
			c.T.Errorf("%s %s: the OpenAPI document refuses the request %s: %v", method, path, Trim(raw), verr)
		case mode == Invalid && verr == nil:
			c.T.Errorf("%s %s: the OpenAPI document accepts the request %s, which the test takes as invalid", method, path, Trim(raw))
		}
	} else if mode == Valid {
		c.T.Errorf("%s %s: no operation in the OpenAPI document: %v", method, path, err)
	}

	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.T.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		c.T.Fatal(err)
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
			c.T.Errorf("%s %s: the answer %d %s does not follow the OpenAPI document: %v", method, path, res.StatusCode, Trim(out), err)
		}
	}
	return &Resp{Status: res.StatusCode, Header: res.Header, Body: out, Op: op}
}

// Must sends a valid request and requires the status.
func (c Client) Must(status int, method, path string, body any) *Resp {
	c.T.Helper()
	r := c.Do(method, path, body, Valid)
	if r.Status != status {
		c.T.Fatalf("%s %s %s: got %d %s, want %d", method, path, Trim(JSON(body)), r.Status, Trim(r.Body), status)
	}
	return r
}

// Fails sends a request and requires an error answer with the code and its
// status.
func (c Client) Fails(status int, code string, mode Mode, method, path string, body any) *Resp {
	c.T.Helper()
	r := c.Do(method, path, body, mode)
	if r.Status != status {
		c.T.Fatalf("%s %s %s: got %d %s, want %d %s", method, path, Trim(JSON(body)), r.Status, Trim(r.Body), status, code)
	}
	if got := r.ErrCode(c.T); got != code {
		c.T.Fatalf("%s %s: got code %s (%s), want %s", method, path, got, r.Body, code)
	}
	return r
}

// JSON is a body as Do sends it: a string or []byte as it is, nil as
// nothing, anything else marshalled.
func JSON(body any) []byte {
	switch b := body.(type) {
	case nil:
		return nil
	case string:
		return []byte(b)
	case []byte:
		return b
	}
	raw, err := json.Marshal(body)
	if err != nil {
		panic("apitest: the body does not marshal: " + err.Error())
	}
	return raw
}

// Trim shortens a body for a message.
func Trim(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}
