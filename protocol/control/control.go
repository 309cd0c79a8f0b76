// Package control serves minisqs's test-control API under /_minisqs: reset
// the engine or some queues, read and move its clock, save and load its
// whole state, and wait for a queue to reach a condition. A test suite
// drives minisqs with it instead of sleeping (docs/control.md).
//
// It answers JSON as the REST API does, with the REST API's error shape and
// time format, and when REST tokens are configured every route needs the
// admin token. The OpenAPI document of its routes is openapi.json beside
// this file, served at GET /_minisqs/openapi.json.
package control

import (
	"net/http"
	"strings"

	"github.com/julienschmidt/httprouter"
	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/rest"
)

// Prefix begins every path of the control API.
const Prefix = "/_minisqs"

// Options configure the control API.
type Options struct {
	// Tokens are the REST API's bearer tokens; when there are any, every
	// route needs an admin's.
	Tokens map[string]rest.Role
	// SubscriptionChanged is told of every queue whose push subscription a
	// reset or a loaded state ended or began.
	SubscriptionChanged func(*engine.Queue)
	// Reset, when set, runs after a full reset: state kept outside the
	// engine, such as fault rules, goes with it.
	Reset func()
}

// API is the control API over one engine.
type API struct {
	e    *engine.Engine
	opts Options
}

// New returns the control API over e.
func New(e *engine.Engine, opts Options) *API { return &API{e: e, opts: opts} }

// route is one operation; its handler returns the status and value to
// answer, or an error for rest.WriteError.
type route struct {
	method, path, op string
	h                func(a *API, w http.ResponseWriter, r *http.Request) (int, any, error)
}

// routes is every operation; the OpenAPI document lists the same ones
// under the same operationIds.
var routes = []route{
	{http.MethodPost, Prefix + "/reset", "Reset", (*API).reset},
	{http.MethodGet, Prefix + "/clock", "GetClock", (*API).getClock},
	{http.MethodPost, Prefix + "/clock/advance", "AdvanceClock", (*API).advanceClock},
	{http.MethodGet, Prefix + "/state", "GetState", (*API).getState},
	{http.MethodPut, Prefix + "/state", "PutState", (*API).putState},
	{http.MethodPost, Prefix + "/wait", "Wait", (*API).wait},
	{http.MethodGet, Prefix + "/openapi.json", "GetControlOpenAPI", (*API).openAPI},
}

// Register adds the API's routes to r. Other paths under Prefix answer the
// API's own 404 and the rest go on to r.NotFound, so call Register after
// setting r.NotFound.
func (a *API) Register(r *httprouter.Router) {
	for _, rt := range routes {
		r.Handle(rt.method, rt.path, a.serve(rt))
	}
	next := r.NotFound
	r.NotFound = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == Prefix || strings.HasPrefix(req.URL.Path, Prefix+"/") {
			if err := rest.AuthorizeAdmin(a.opts.Tokens, req); err != nil {
				rest.WriteError(w, err)
				return
			}
			rest.WriteError(w, rest.Errorf(rest.CodeNotFound, "No operation %s %s.", req.Method, req.URL.Path))
			return
		}
		if next != nil {
			next.ServeHTTP(w, req)
			return
		}
		http.NotFound(w, req)
	})
}

func (a *API) serve(rt route) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
		if err := rest.AuthorizeAdmin(a.opts.Tokens, r); err != nil {
			rest.WriteError(w, err)
			return
		}
		status, v, err := rt.h(a, w, r)
		if err != nil {
			rest.WriteError(w, err)
			return
		}
		rest.WriteJSON(w, status, v)
	}
}

// subscriptionsChanged tells the push deliverer to look again at every
// queue before and after a reset or load.
func (a *API) subscriptionsChanged(before []*engine.Queue) {
	if a.opts.SubscriptionChanged == nil {
		return
	}
	for _, q := range append(before, a.e.AllQueues()...) {
		a.opts.SubscriptionChanged(q)
	}
}

// reset answers POST /_minisqs/reset: everything, or with {"queues": [...]}
// only those queues' messages, deduplication windows and cooldowns.
func (a *API) reset(w http.ResponseWriter, r *http.Request) (int, any, error) {
	var in struct {
		Queues *[]string `json:"queues"`
	}
	if err := rest.DecodeJSON(w, r, &in, 0, true); err != nil {
		return 0, nil, err
	}
	if in.Queues != nil {
		if len(*in.Queues) == 0 {
			return 0, nil, rest.Errorf(rest.CodeInvalidRequest, "queues must name at least one queue; leave it out to reset everything.")
		}
		return http.StatusNoContent, nil, a.e.ResetQueues(*in.Queues)
	}
	before := a.e.AllQueues()
	if err := a.e.Reset(); err != nil {
		return 0, nil, err
	}
	if a.opts.Reset != nil {
		a.opts.Reset()
	}
	a.subscriptionsChanged(before)
	return http.StatusNoContent, nil, nil
}
