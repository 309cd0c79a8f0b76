// Package minisqstest runs minisqs inside a Go test, as net/http/httptest
// runs an HTTP server: one line starts it on a loopback port and the test's
// cleanup stops it; its aws-sdk-go-v2 client talks to it in process, without
// a socket; and the test controls its clock, its faults and its state.
//
//	func TestOrders(t *testing.T) {
//		srv := minisqstest.RunT(t, minisqstest.WithQueues("orders"))
//		client := srv.Client()
//		url := srv.QueueURL("orders")
//		...
//		srv.Advance(31 * time.Second) // a visibility timeout ends, without sleeping
//	}
package minisqstest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/rest"
	"github.com/minisqs/minisqs/queueconfig"
	"github.com/minisqs/minisqs/server"
)

// Option configures a Server.
type Option func(*options)

type options struct {
	cfg    server.Config
	queues []string
	clock  *engine.ManualClock
	state  *engine.State
}

// WithRegion sets the region in queue ARNs and the client's region.
func WithRegion(region string) Option { return func(o *options) { o.cfg.Region = region } }

// WithAccount sets the account id in queue URLs and ARNs.
func WithAccount(id string) Option { return func(o *options) { o.cfg.AccountID = id } }

// WithQueues creates queues before the server answers: names ending in
// ".fifo" make FIFO queues.
func WithQueues(names ...string) Option {
	return func(o *options) { o.queues = append(o.queues, names...) }
}

// WithManualClock runs the server on a clock that moves only when the test
// calls Advance, starting at start. Without it the server runs on the wall
// clock, which Advance moves forward too.
func WithManualClock(start time.Time) Option {
	return func(o *options) { o.clock = engine.NewManualClock(start) }
}

// WithState starts the server holding st, a fixture as State returns it,
// before WithQueues's queues are made.
func WithState(st *engine.State) Option { return func(o *options) { o.state = st } }

// WithConfig starts from cfg, for settings without an option of their own
// (a db file, REST tokens, cooldowns). Its Addr and Clock are replaced.
func WithConfig(cfg server.Config) Option { return func(o *options) { o.cfg = cfg } }

// Server is a minisqs running in the test's process.
type Server struct {
	t          testing.TB // of RunT; nil for Run
	srv        *server.Server
	clock      *engine.ManualClock
	http       *http.Client
	client     *sqs.Client
	adminToken string // for the control API, when REST tokens are set
	closeOnce  sync.Once
	closeErr   error
}

// RunT starts a server for t and stops it when t ends. It fails t if the
// server cannot start.
func RunT(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := Run(opts...)
	if err != nil {
		t.Fatalf("minisqstest: %v", err)
	}
	s.t = t
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("minisqstest: close: %v", err)
		}
	})
	return s
}

// Run starts a server; the caller stops it with Close.
func Run(opts ...Option) (*Server, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	cfg := o.cfg
	cfg.Addr = "127.0.0.1:0"
	if o.clock != nil {
		cfg.Clock = o.clock
	}
	if cfg.Region == "" {
		cfg.Region = engine.DefaultRegion
	}
	list, err := queueconfig.ParseList("WithQueues", strings.Join(o.queues, ","))
	if err != nil {
		return nil, err
	}
	init := cfg.Init
	cfg.Init = func(e *engine.Engine) error {
		if init != nil {
			if err := init(e); err != nil {
				return err
			}
		}
		if o.state != nil {
			if err := e.Load(o.state); err != nil {
				return fmt.Errorf("WithState: %w", err)
			}
		}
		if len(list.Queues) == 0 {
			return nil
		}
		_, err := queueconfig.Apply(e, list)
		return err
	}
	srv, err := server.Start(cfg)
	if err != nil {
		return nil, err
	}
	s := &Server{srv: srv, clock: o.clock}
	for token, role := range cfg.Tokens {
		if role == rest.RoleAdmin {
			s.adminToken = token
			break
		}
	}
	s.http = &http.Client{Transport: inProcess{handler: srv.Handler()}}
	s.client = sqs.New(sqs.Options{
		Region:       cfg.Region,
		BaseEndpoint: aws.String(s.URL()),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		HTTPClient:   s.http,
	})
	return s, nil
}

// Close stops the server: long polls end, requests in progress finish and
// the store closes. Closing again does nothing.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.closeErr = s.srv.Shutdown(ctx)
	})
	return s.closeErr
}

// Addr is the server's loopback address.
func (s *Server) Addr() net.Addr { return s.srv.Addr() }

// ManualClock is the clock WithManualClock gave the server, or nil.
func (s *Server) ManualClock() *engine.ManualClock { return s.clock }

// URL is the server's endpoint on its loopback port, for clients of other
// kinds (another SDK, the aws CLI, a process under test).
func (s *Server) URL() string { return s.srv.URL() }

// Client is an aws-sdk-go-v2 SQS client for the server, over the in-process
// transport.
func (s *Server) Client() *sqs.Client { return s.client }

// HTTPClient is an HTTP client whose requests the server answers in
// process, without a socket. Requests may name any host.
func (s *Server) HTTPClient() *http.Client { return s.http }

// Engine is the server's engine, for what the SQS API does not show.
func (s *Server) Engine() *engine.Engine { return s.srv.Engine }

// QueueURL is the SQS URL of the queue called name.
func (s *Server) QueueURL(name string) string {
	return fmt.Sprintf("%s/%s/%s", s.URL(), s.srv.Engine.AccountID(), name)
}

// AwaitWaiters blocks until at least n timers wait on the manual clock c
// (say, a long poll has started waiting), so that a test can advance the
// clock past them; it fails t after 5 s.
func AwaitWaiters(t testing.TB, c *engine.ManualClock, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.AwaitWaiters(ctx, n); err != nil {
		t.Fatalf("minisqstest: %d clock waiters did not come within 5 s (have %d)", n, c.Waiters())
	}
}
