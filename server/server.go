// Package server runs minisqs: it opens the engine, serves every protocol on
// one listener and shuts both down cleanly. The minisqs command is a thin
// wrapper around it, and Go tests can embed it.
package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol"
	"github.com/minisqs/minisqs/protocol/rest"
	"github.com/minisqs/minisqs/push"
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
	Logger        *slog.Logger
	// Clock replaces the default, an engine.OffsetClock: the wall clock,
	// which the control API can move forward.
	Clock engine.Clock
	// Tokens are the REST API's bearer tokens and their roles; none leaves
	// it open.
	Tokens map[string]rest.Role
	// Init, if set, runs on the opened engine before the server listens, so
	// that no request sees the engine before it is ready: the minisqs
	// command creates the queues of its config file here. An error stops
	// the start.
	Init func(*engine.Engine) error
}

// Server is a running minisqs.
type Server struct {
	Engine   *engine.Engine
	push     *push.Deliverer
	listener net.Listener
	http     *http.Server
	done     chan error
}

// Start opens the engine and begins serving on cfg.Addr.
func Start(cfg Config) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	e, err := engine.Open(engine.Options{
		Path: cfg.DB, Fsync: cfg.Fsync, Clock: cfg.Clock, Region: cfg.Region,
		AccountID: cfg.AccountID, SkipCooldowns: cfg.SkipCooldowns, Logger: cfg.Logger,
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
	s := &Server{
		Engine:   e,
		push:     deliverer,
		listener: ln,
		http: &http.Server{
			Handler: protocol.NewHandler(e, protocol.Options{
				BaseURL:             cfg.BaseURL,
				SubscriptionChanged: deliverer.Sync,
				Tokens:              cfg.Tokens,
			}),
			ReadHeaderTimeout: 10 * time.Second,
			ErrorLog:          slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelWarn),
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

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.listener.Addr() }

// URL is the server's endpoint, for SDK clients.
func (s *Server) URL() string { return "http://" + s.listener.Addr().String() }

// Shutdown stops push deliveries, ends long polls, lets requests in
// progress finish, and closes the engine, flushing the store.
func (s *Server) Shutdown(ctx context.Context) error {
	s.push.Close()
	s.Engine.EndLongPolls()
	herr := s.http.Shutdown(ctx)
	eerr := s.Engine.Close()
	return errors.Join(herr, eerr)
}

// Done reports the serve loop's end.
func (s *Server) Done() <-chan error { return s.done }
