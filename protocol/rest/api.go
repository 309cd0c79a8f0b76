// Package rest serves minisqs's documented REST JSON API (the "Queues API",
// docs/rest-api.md) under /v1, over the same engine as the SQS protocols: a
// queue made with the aws CLI is listed here, and a message sent here is
// received by any SQS client.
//
// Handlers decode a request, call the engine and return a value; one writer
// (write and writeError) puts values and errors on the wire, and one table
// (errors.go) maps engine failures to the API's error codes. The OpenAPI
// document of the whole API is openapi.json beside this file, served at
// GET /v1/openapi.json; the package's tests check every request and answer
// they make against it.
package rest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"
	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/dispatch"
	"github.com/minisqs/minisqs/sigv4"
	"github.com/minisqs/minisqs/worker/history"
)

// MaxRequestBytes caps a request body. A SendMessages request carries at most
// 10 messages of 256 KiB; JSON escaping can about triple that. A request
// that announces a longer body is refused with message_too_large before any
// of it is read; one sent without a length is cut at the cap.
const MaxRequestBytes = 8 << 20

// Options configure the API.
type Options struct {
	// Tokens maps bearer tokens to their roles. Empty leaves every operation
	// open, as a local emulator should be.
	Tokens map[string]Role
	// TokenAccounts binds tokens to accounts: a request with such a token
	// acts in that account alone.
	TokenAccounts map[string]string
	// BaseURL prefixes the sqsUrl of queues; empty takes each request's own
	// scheme and host, as the SQS protocols do.
	BaseURL string
	// History, if set, holds the queues' sampled depth that
	// GetQueueHistory answers; without it histories are empty.
	History *history.Sampler
	// Chain holds the steps every authorized request passes on its way to
	// its operation.
	Chain dispatch.Chain
}

// API is the REST JSON API over one engine.
type API struct {
	e       *engine.Engine
	opts    Options
	handler dispatch.Handler // the chain around run
}

// New returns the API over e.
func New(e *engine.Engine, opts Options) *API {
	a := &API{e: e, opts: opts}
	a.handler = opts.Chain.Then(a.run)
	return a
}

// call is one request in progress.
type call struct {
	r      *http.Request
	w      http.ResponseWriter
	params httprouter.Params
	rt     *route
	limit  int64            // body size cap; 0 means MaxRequestBytes
	ns     engine.Namespace // where the request acts
}

// answer is what an operation returns through the dispatch chain.
type answer struct {
	status int
	v      any
}

// route is one operation of the API with the roles that may call it. Its
// handler returns the status and value to answer, or an error for
// writeError; a nil value writes no body.
type route struct {
	method, path, op string
	perm             permission
	h                func(a *API, c *call) (int, any, error)
}

// routes is every operation of the API; the OpenAPI document lists the same
// operations under the same operationIds.
var routes = []route{
	{http.MethodPost, "/v1/queues", "CreateQueue", permAdmin, (*API).createQueue},
	{http.MethodGet, "/v1/queues", "ListQueues", permInspect, (*API).listQueues},
	{http.MethodGet, "/v1/queues/:queue", "GetQueue", permAnyRole, (*API).getQueue},
	{http.MethodPatch, "/v1/queues/:queue", "UpdateQueue", permAdmin, (*API).updateQueue},
	{http.MethodDelete, "/v1/queues/:queue", "DeleteQueue", permAdmin, (*API).deleteQueue},
	{http.MethodPost, "/v1/queues/:queue/purge", "PurgeQueue", permAdmin, (*API).purgeQueue},

	{http.MethodPost, "/v1/queues/:queue/messages", "SendMessages", permProduce, (*API).sendMessages},
	{http.MethodPost, "/v1/queues/:queue/messages/receive", "ReceiveMessages", permConsume, (*API).receiveMessages},
	{http.MethodGet, "/v1/queues/:queue/messages", "PeekMessages", permInspect, (*API).peekMessages},
	{http.MethodPost, "/v1/messages/acknowledge", "AcknowledgeMessages", permNone, (*API).acknowledgeMessages},
	{http.MethodPost, "/v1/messages/visibility", "ChangeVisibility", permNone, (*API).changeVisibility},

	{http.MethodPut, "/v1/queues/:queue/subscription", "PutSubscription", permAdmin, (*API).putSubscription},
	{http.MethodGet, "/v1/queues/:queue/subscription", "GetSubscription", permInspect, (*API).getSubscription},
	{http.MethodDelete, "/v1/queues/:queue/subscription", "DeleteSubscription", permAdmin, (*API).deleteSubscription},

	{http.MethodGet, "/v1/openapi.json", "GetOpenAPI", permNone, (*API).openAPI},

	{http.MethodDelete, "/v1/queues/:queue/messages/:message", "DeleteMessage", permAdmin, (*API).deleteMessage},
	{http.MethodGet, "/v1/queues/:queue/tags", "GetQueueTags", permAnyRole, (*API).getQueueTags},
	{http.MethodPut, "/v1/queues/:queue/tags", "PutQueueTags", permAdmin, (*API).putQueueTags},
	{http.MethodPost, "/v1/queues/:queue/move-tasks", "StartMoveTask", permAdmin, (*API).startMoveTask},
	{http.MethodGet, "/v1/queues/:queue/move-tasks", "ListMoveTasks", permInspect, (*API).listMoveTasks},
	{http.MethodPost, "/v1/queues/:queue/move-tasks/cancel", "CancelMoveTask", permAdmin, (*API).cancelMoveTask},
	{http.MethodGet, "/v1/queues/:queue/history", "GetQueueHistory", permInspect, (*API).getQueueHistory},
	{http.MethodGet, "/v1/history", "ListQueueHistories", permInspect, (*API).listQueueHistories},
	{http.MethodGet, "/v1/subscriptions", "ListSubscriptions", permInspect, (*API).listSubscriptions},
	{http.MethodGet, "/v1/whoami", "WhoAmI", permAnyRole, (*API).whoAmI},
}

// Register adds every route of the API to r. Paths under /v1 that match no
// route answer the API's own 404 and other paths go on to r.NotFound, so
// call Register after setting r.NotFound.
func (a *API) Register(r *httprouter.Router) {
	for i := range routes {
		r.Handle(routes[i].method, routes[i].path, a.serve(&routes[i]))
	}
	next := r.NotFound
	r.NotFound = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/v1" || strings.HasPrefix(req.URL.Path, "/v1/") {
			writeError(w, apiErrorf(codeNotFound, "No operation %s %s.", req.Method, req.URL.Path))
			return
		}
		if next != nil {
			next.ServeHTTP(w, req)
			return
		}
		http.NotFound(w, req)
	})
}

// Operations lists the names of the API's operations, in the order of
// routes.
func Operations() []string {
	ops := make([]string, len(routes))
	for i, rt := range routes {
		ops[i] = rt.op
	}
	return ops
}

func (a *API) serve(rt *route) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, p httprouter.Params) {
		if err := a.authorize(r, rt.perm); err != nil {
			writeError(w, err)
			return
		}
		ns, err := a.namespace(r)
		if err != nil {
			writeError(w, err)
			return
		}
		out, err := a.handler(r.Context(), &dispatch.Request{
			Protocol: dispatch.REST,
			Action:   rt.op,
			Queue:    a.queueName(ns, p.ByName("queue")),
			HTTP:     r,
			Classify: classify,
			Call:     &call{r: r, w: w, params: p, rt: rt, ns: ns},
		})
		if err != nil {
			if !dispatch.Hangup(w, err) {
				writeError(w, err)
			}
			return
		}
		ans := out.(answer)
		write(w, ans.status, ans.v)
	}
}

// run is the end of the dispatch chain: the operation's handler.
func (a *API) run(ctx context.Context, req *dispatch.Request) (any, error) {
	c := req.Call.(*call)
	if ctx != c.r.Context() {
		c.r = c.r.WithContext(ctx)
	}
	status, v, err := c.rt.h(a, c)
	if err != nil {
		return nil, err
	}
	return answer{status, v}, nil
}

// queueName is the name of the queue a path's {queue} refers to, or the
// reference as it is when no queue has it.
func (a *API) queueName(ns engine.Namespace, ref string) string {
	if ref == "" {
		return ""
	}
	if q, err := a.e.LookupQueueIn(ns, ref); err == nil {
		return q.Name()
	}
	return ref
}

// Headers that name the namespace a request acts in; without them it acts
// in the server's own account and region.
const (
	accountHeader = "X-Account-Id"
	regionHeader  = "X-Region"
)

// namespace is the account and region a request names.
func (a *API) namespace(r *http.Request) (engine.Namespace, error) {
	account, region := r.Header.Get(accountHeader), r.Header.Get(regionHeader)
	if account != "" && !sigv4.IsAccountID(account) {
		return engine.Namespace{}, apiErrorf(codeInvalidRequest, "%s must be an account id of 12 digits.", accountHeader)
	}
	if token, ok := bearer(r); ok {
		if bound := a.opts.TokenAccounts[token]; bound != "" {
			if account != "" && account != bound {
				return engine.Namespace{}, apiErrorf(codeForbidden, "This token acts in account %s only.", bound)
			}
			account = bound
		}
	}
	if region != "" && !validRegion(region) {
		return engine.Namespace{}, apiErrorf(codeInvalidRequest, "%s must be a region name such as us-east-1.", regionHeader)
	}
	return a.e.Namespace(account, region), nil
}

// validRegion reports whether s looks like a region name: lower-case
// letters, digits and hyphens.
func validRegion(s string) bool {
	if len(s) > 32 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// classify gives the status and code the API answers with.
func classify(out any, err error) (int, string) {
	if err != nil {
		ae := toAPIError(err)
		return ae.Status, ae.Code
	}
	return out.(answer).status, ""
}

// write puts a value on the wire as JSON.
func write(w http.ResponseWriter, status int, v any) {
	if v == nil {
		w.WriteHeader(status)
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if raw, ok := v.(json.RawMessage); ok {
		buf.Write(raw)
	} else if err := enc.Encode(v); err != nil {
		writeError(w, apiErrorf(codeInternal, "encoding the answer: %v", err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// writeError puts an error on the wire as {"error": {"code", "message"}}.
func writeError(w http.ResponseWriter, err error) {
	ae := toAPIError(err)
	w.Header().Set("Content-Type", "application/json")
	if ae.Code == codeUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="minisqs"`)
	}
	w.WriteHeader(ae.Status)
	b, _ := json.Marshal(errorBody{Error: ae})
	w.Write(append(b, '\n'))
}

type errorBody struct {
	Error *apiError `json:"error"`
}

// decode reads a JSON body into v, refusing unknown fields and trailing
// data. An empty body decodes as {} when emptyOK.
func (c *call) decode(v any, emptyOK bool) error {
	body, err := c.body()
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if emptyOK {
			return nil
		}
		return apiErrorf(codeInvalidRequest, "The request needs a JSON body.")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if dec.More() {
		return apiErrorf(codeInvalidRequest, "The body holds more than one JSON value.")
	}
	return nil
}

// body reads the request body within MaxRequestBytes or the call's limit.
// io.ReadAll grows its buffer with the bytes that arrive, whatever length
// the request announced.
func (c *call) body() ([]byte, error) {
	limit := cmp.Or(c.limit, MaxRequestBytes)
	if c.r.ContentLength > limit {
		// Refused unread: net/http then closes the connection rather than
		// drain the body.
		return nil, errBodyTooLarge(limit)
	}
	b, err := io.ReadAll(http.MaxBytesReader(c.w, c.r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, errBodyTooLarge(limit)
		}
		return nil, apiErrorf(codeInvalidRequest, "Could not read the request: %v", err)
	}
	return b, nil
}

func errBodyTooLarge(limit int64) error {
	return apiErrorf(codeMessageTooLarge, "The request body is over %d bytes.", limit)
}

// jsonError turns a decoding failure into an invalid_request that names the
// field where it can.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return apiErrorf(codeInvalidRequest, "Field %s must be %s.", te.Field, jsonKind(te.Type.Kind().String()))
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return apiErrorf(codeInvalidRequest, "Unknown field %s.", f)
	}
	return apiErrorf(codeInvalidRequest, "Malformed JSON: %s", strings.TrimPrefix(msg, "json: "))
}

func jsonKind(k string) string {
	switch {
	case strings.HasPrefix(k, "int"), strings.HasPrefix(k, "uint"):
		return "an integer"
	case k == "string":
		return "a string"
	case k == "bool":
		return "a boolean"
	case k == "slice":
		return "an array"
	case k == "map", k == "struct", k == "ptr":
		return "an object"
	}
	return "of another type"
}

// timeFormat is RFC 3339 with milliseconds, in UTC.
const timeFormat = "2006-01-02T15:04:05.000Z07:00"

func formatTime(t time.Time) string { return t.UTC().Format(timeFormat) }
