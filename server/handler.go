package server

import (
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"
	"github.com/minisqs/minisqs/console"
	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/metrics"
	"github.com/minisqs/minisqs/protocol/control"
	"github.com/minisqs/minisqs/protocol/dispatch"
	"github.com/minisqs/minisqs/protocol/faults"
	"github.com/minisqs/minisqs/protocol/journal"
	"github.com/minisqs/minisqs/protocol/localstack"
	"github.com/minisqs/minisqs/protocol/rest"
	"github.com/minisqs/minisqs/protocol/sqs"
	"github.com/minisqs/minisqs/worker/history"
)

// HandlerOptions configure the handler.
type HandlerOptions struct {
	// BaseURL prefixes queue URLs; empty takes each request's own host.
	BaseURL string
	// Tokens are the REST API's bearer tokens and their roles; none leaves
	// it open.
	Tokens map[string]rest.Role
	// TokenAccounts binds REST tokens to the accounts they act in.
	TokenAccounts map[string]string
	// History is the queues' sampled depth, for the REST API.
	History *history.Sampler
	// Identity is how the SQS protocols find, and when asked check, who
	// signed a request.
	Identity sqs.Identity
}

// NewHandler puts minisqs's front ends on one HTTP handler over e: the SQS
// query and JSON protocols, told apart per request, the REST API, the
// test-control API, LocalStack's developer endpoints and the service
// endpoints, with the dispatch chain their requests pass. SQS requests may
// come to the root or to a queue's own path (/ACCOUNT/NAME), by POST or GET;
// the JSON protocol is recognised by its X-Amz-Target header.
func NewHandler(e *engine.Engine, opts HandlerOptions) http.Handler {
	// Every SQS and REST request passes one chain: the journal outermost,
	// so that it records what the client saw (faults included), then
	// metrics, then identity (signatures, namespaces), then the fault
	// rules, next to the action.
	rules := faults.New(append(sqs.Actions(), rest.Operations()...), sqs.ErrorCodes())
	requests := journal.New(e.Now)
	reqMetrics := metrics.NewRequests()
	if opts.Identity.Now == nil {
		opts.Identity.Now = time.Now
	}
	chain := dispatch.Chain{requests.Step(), reqMetrics.Step(), opts.Identity.Step(), rules.Step()}
	svc := sqs.New(e, sqs.Options{BaseURL: opts.BaseURL, Chain: chain})
	serveSQS := func(w http.ResponseWriter, r *http.Request) {
		if sqs.IsJSONRequest(r) {
			svc.ServeJSON(w, r)
			return
		}
		svc.ServeQuery(w, r)
	}
	router := httprouter.New()
	router.RedirectTrailingSlash = false
	router.RedirectFixedPath = false
	router.HandleMethodNotAllowed = false
	router.GET("/health", func(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok\n"))
	})
	router.Handler(http.MethodGet, "/metrics", metrics.Handler(e, reqMetrics))
	// The test-control routes need the admin token when tokens are set.
	admin := func(h http.Handler) http.Handler { return rest.RequireAdmin(opts.Tokens, h) }
	rules.Register(router, admin)
	router.Handler(http.MethodGet, journal.Path, admin(requests))
	router.Handler(http.MethodPost, "/", http.HandlerFunc(serveSQS))
	router.Handler(http.MethodGet, "/", http.HandlerFunc(serveSQS))
	// Queue paths cannot share httprouter's tree with fixed routes, so every
	// path the router does not know goes to the SQS handler, which finds the
	// queue from the path or answers the protocol's own error.
	router.NotFound = http.HandlerFunc(serveSQS)
	// After NotFound is set: the REST API answers unknown /v1 paths itself,
	// and the control API unknown /_minisqs paths.
	rest.New(e, rest.Options{BaseURL: opts.BaseURL, Tokens: opts.Tokens, TokenAccounts: opts.TokenAccounts, Chain: chain, History: opts.History}).Register(router)
	control.New(e, control.Options{Tokens: opts.Tokens, Reset: rules.Clear}).Register(router)
	localstack.Register(router, e)
	console.Register(router)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The router would send these to serveSQS too; nearly every request
		// is one, and skips its lookup.
		if r.URL.Path == "/" && r.Method == http.MethodPost {
			serveSQS(w, r)
			return
		}
		router.ServeHTTP(w, r)
	})
}
