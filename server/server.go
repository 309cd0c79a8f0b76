// Package server runs minisqs, and is its one composition root: it opens the
// engine, builds the HTTP handler (NewHandler: every front end of
// protocol/... on one router, behind one dispatch chain), starts the
// background workers of worker/..., serves every protocol on one listener
// and shuts it all down cleanly. The minisqs command is a thin wrapper
// around it, and Go tests can embed it.
package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/rest"
	"github.com/minisqs/minisqs/protocol/sqs"
	"github.com/minisqs/minisqs/sigv4"
	"github.com/minisqs/minisqs/worker/history"
	"github.com/minisqs/minisqs/worker/push"
)

// Config is everything a server needs.
type Config struct {
	// Addr is the listen address, such as "127.0.0.1:9324" or ":0".
	Addr string
	// DB is the buntdb file; empty keeps everything in memory.
	DB            string
	Fsync         engine.FsyncPolicy
	Region        string
	AccountID     string
	BaseURL       string
	SkipCooldowns bool
	// Limits is the profile of limits every protocol enforces; the zero
	// value is engine.AWSLimits.
	Limits engine.Limits
	Logger *slog.Logger
	// Clock replaces the default, an engine.OffsetClock: the wall clock,
	// which the control API can move forward.
	Clock engine.Clock
	// Tokens are the REST API's bearer tokens and their roles; none leaves
	// it open.
	Tokens map[string]rest.Role
	// TokenAccounts binds tokens to accounts: a REST request with such a
	// token acts in that account alone.
	TokenAccounts map[string]string
	// VerifySignatures makes every SQS request carry a valid AWS
	// Signature Version 4 of a key in Credentials.
	VerifySignatures bool
	// Credentials are the access keys the SQS protocols know: a key's
	// account is where its requests act. Needed with VerifySignatures.
	Credentials sigv4.Keys
	// Init, if set, runs on the opened engine before the server listens, so
	// that no request sees the engine before it is ready: the minisqs
	// command creates the queues of its config file here. An error stops
	// the start.
	Init func(*engine.Engine) error

	// Limits on slow, stalled and idle clients; zero takes the default
	// (DefaultReadHeaderTimeout and the rest). Tests shrink them.
	//
	// ReadHeaderTimeout bounds the reading of a request's headers.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds the reading of a whole request, headers and body;
	// a long poll's wait, after the body, is not under it.
	ReadTimeout time.Duration
	// WriteTimeout bounds a request from the end of its headers to the end
	// of its answer, waits included. Zero takes ReadTimeout, the longest
	// long poll and writeAllowance together.
	WriteTimeout time.Duration
	// IdleTimeout closes a kept-alive connection that has waited this long
	// for its next request.
	IdleTimeout time.Duration
	// MaxIdleConns caps the kept-alive connections waiting for a request;
	// beyond it, those that have waited longest are closed.
	MaxIdleConns int
}

// Defaults of the connection limits. None should be reached by a working
// client: they are there so that stalled or abandoned connections cannot
// hold memory and goroutines without end.
const (
	// DefaultReadHeaderTimeout: an SDK sends its headers in one write.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultReadTimeout: the largest request, 8 MiB, arrives within it at
	// about 2 Mbit/s, far slower than any client on a working network.
	DefaultReadTimeout = 30 * time.Second
	// DefaultIdleTimeout is longer than the 90 s after which Go's
	// http.Transport and aws-sdk-go-v2 drop an idle connection, so that
	// those clients retire a connection before the server closes it under
	// a request they are sending.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultMaxIdleConns is many times the pools of a few dozen SDK
	// clients (aws-sdk-go-v2 and botocore keep at most 10 connections to a
	// host), and few enough that idle connections, a goroutine and two
	// 4 KiB buffers each, cost a few MiB.
	DefaultMaxIdleConns = 512
	// writeAllowance is the time to write the largest answer, ten 1 MiB
	// messages, at the pace DefaultReadTimeout allows for reading.
	writeAllowance = 30 * time.Second
)

// withDefaults fills the zero limits of cfg.
func (cfg Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&cfg.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	def(&cfg.ReadTimeout, DefaultReadTimeout)
	if cfg.Limits == (engine.Limits{}) {
		cfg.Limits = engine.AWSLimits
	}
	// net/http sets the write deadline when the headers are read, so it
	// must cover the body, a long poll's whole wait and then the answer:
	// cutting a long poll after it took messages would leave them in
	// flight until their visibility timeout.
	def(&cfg.WriteTimeout, cfg.ReadTimeout+time.Duration(cfg.Limits.MaxReceiveWaitSeconds)*time.Second+writeAllowance)
	def(&cfg.IdleTimeout, DefaultIdleTimeout)
	if cfg.MaxIdleConns == 0 {
		cfg.MaxIdleConns = DefaultMaxIdleConns
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return cfg
}

// Server is a running minisqs.
type Server struct {
	Engine   *engine.Engine
	push     *push.Deliverer
	history  *history.Sampler
	listener net.Listener
	http     *http.Server
	idle     *idleConns
	done     chan error
}

// Start opens the engine and begins serving on cfg.Addr.
func Start(cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	if cfg.VerifySignatures && cfg.Credentials == nil {
		return nil, errors.New("signature checks need credentials to check them against")
	}
	e, err := engine.Open(engine.Options{
		Path: cfg.DB, Fsync: cfg.Fsync, Clock: cfg.Clock, Region: cfg.Region,
		AccountID: cfg.AccountID, SkipCooldowns: cfg.SkipCooldowns, Logger: cfg.Logger,
		Limits: cfg.Limits,
	})
	if err != nil {
		return nil, err
	}
	if cfg.Init != nil {
		if err := cfg.Init(e); err != nil {
			e.Close()
			return nil, err
		}
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		e.Close()
		return nil, err
	}
	deliverer := push.Start(e, cfg.Logger)
	sampler := history.New(e, 0, 0)
	sampler.Start()
	idle := newIdleConns(cfg.MaxIdleConns)
	s := &Server{
		Engine:   e,
		push:     deliverer,
		history:  sampler,
		listener: ln,
		idle:     idle,
		http: &http.Server{
			Handler: NewHandler(e, HandlerOptions{
				BaseURL:       cfg.BaseURL,
				Tokens:        cfg.Tokens,
				TokenAccounts: cfg.TokenAccounts,
				History:       sampler,
				Identity:      sqs.Identity{Verify: cfg.VerifySignatures, Keys: cfg.Credentials},
			}),
			ReadHeaderTimeout: cfg.ReadHeaderTimeout,
			// ReadTimeout rather than a deadline each handler sets through
			// http.ResponseController: net/http applies it to all of a
			// request's reading, its own draining of a body the handler
			// left unread included, and lifts it itself once the body is
			// read, as it starts watching for the client to hang up. So a
			// long poll's wait is never under it. A deadline a handler set
			// while that watch runs (as it does from the start for a
			// request without a body) would instead cancel the request's
			// context when it passed (golang/go#70834).
			ReadTimeout:  cfg.ReadTimeout,
			WriteTimeout: cfg.WriteTimeout,
			IdleTimeout:  cfg.IdleTimeout,
			ConnState:    idle.track,
			ErrorLog:     slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelWarn),
		},
		done: make(chan error, 1),
	}
	go func() {
		err := s.http.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	return s, nil
}

// Handler is the server's HTTP handler: every protocol on one mux, for
// serving requests in process.
func (s *Server) Handler() http.Handler { return s.http.Handler }

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.listener.Addr() }

// URL is the server's endpoint, for SDK clients.
func (s *Server) URL() string { return "http://" + s.listener.Addr().String() }

// Shutdown stops push deliveries and depth sampling, ends long polls, lets
// requests in progress finish, and closes the engine, flushing the store.
func (s *Server) Shutdown(ctx context.Context) error {
	s.push.Close()
	s.history.Stop()
	s.Engine.EndLongPolls()
	herr := s.http.Shutdown(ctx)
	eerr := s.Engine.Close()
	return errors.Join(herr, eerr)
}

// Done reports the serve loop's end.
func (s *Server) Done() <-chan error { return s.done }

// idleConns closes the kept-alive connections that have waited longest for
// a request once more than max wait: each holds a goroutine and buffers, and
// clients that open connections and never reuse them would otherwise keep
// them all until IdleTimeout. A connection keeps its place in the list
// while it lives, so that the two changes of state each request makes cost
// a lookup, not an allocation.
type idleConns struct {
	max int

	mu    sync.Mutex // guards the rest
	conns map[net.Conn]*idleConn
	// last is the entry of conns whose connection changed state last, and
	// most often changes next: a kept-alive connection goes active and idle
	// in turn, and finds its entry without hashing.
	last *idleConn
	// oldest and newest end the list of idle connections, longest idle
	// first.
	oldest, newest *idleConn
	n              int // idle connections
}

// idleConn is a connection that has been idle, and may be again.
type idleConn struct {
	c          net.Conn
	idle       bool
	prev, next *idleConn // in the idle list, when idle
}

func newIdleConns(max int) *idleConns {
	return &idleConns{max: max, conns: map[net.Conn]*idleConn{}}
}

// track is the http.Server's ConnState hook.
func (ic *idleConns) track(c net.Conn, state http.ConnState) {
	var oldest net.Conn
	ic.mu.Lock()
	ec := ic.last
	if ec == nil || ec.c != c {
		ec = ic.conns[c]
	}
	if ec != nil && ec.idle {
		ic.unlink(ec)
	}
	switch state {
	case http.StateIdle:
		if ec == nil {
			ec = &idleConn{c: c}
			ic.conns[c] = ec
		}
		ic.last = ec
		ic.push(ec)
		if ic.n > ic.max {
			first := ic.oldest
			ic.unlink(first)
			ic.forget(first)
			oldest = first.c
		}
	case http.StateClosed, http.StateHijacked:
		if ec != nil {
			ic.forget(ec)
		}
	default:
		if ec != nil {
			ic.last = ec
		}
	}
	ic.mu.Unlock()
	if oldest != nil {
		// Its server goroutine, waiting for a request, sees the close and
		// ends the connection.
		oldest.Close()
	}
}

// forget removes ec from conns; ic.mu is held.
func (ic *idleConns) forget(ec *idleConn) {
	delete(ic.conns, ec.c)
	if ic.last == ec {
		ic.last = nil
	}
}

// push puts ec last in the idle list; ic.mu is held.
func (ic *idleConns) push(ec *idleConn) {
	ec.idle, ec.prev, ec.next = true, ic.newest, nil
	if ic.newest != nil {
		ic.newest.next = ec
	} else {
		ic.oldest = ec
	}
	ic.newest = ec
	ic.n++
}

// unlink takes ec, idle, out of the idle list; ic.mu is held.
func (ic *idleConns) unlink(ec *idleConn) {
	if ec.prev != nil {
		ec.prev.next = ec.next
	} else {
		ic.oldest = ec.next
	}
	if ec.next != nil {
		ec.next.prev = ec.prev
	} else {
		ic.newest = ec.prev
	}
	ec.idle, ec.prev, ec.next = false, nil, nil
	ic.n--
}
