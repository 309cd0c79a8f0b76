// Command minisqs is an Amazon SQS emulator: the SQS query and JSON protocols
// on one port, over one engine, in memory or in a buntdb file.
//
//	minisqs [flags]              serve
//	minisqs healthcheck [flags]  exit 0 if the server at --addr answers /health
//	minisqs version              print the version and the commit it was built from (also --version)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/queueconfig"
	"github.com/minisqs/minisqs/server"
	"github.com/minisqs/minisqs/sigv4"
)

// shutdownGrace bounds how long requests in progress may take to finish.
const shutdownGrace = 10 * time.Second

func main() {
	// The server serves no profiles, so the heap profile's samples would
	// never be read: each costs a walk of the stack, and with a million
	// messages queued their buckets hold 1.4 MiB.
	runtime.MemProfileRate = 0
	args := os.Args[1:]
	if len(args) == 1 && (args[0] == "version" || args[0] == "--version" || args[0] == "-version") {
		fmt.Println(versionLine())
		return
	}
	healthcheck := len(args) > 0 && args[0] == "healthcheck"
	if healthcheck {
		args = args[1:]
	}
	cfg, err := parseConfig(args, os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "minisqs:", err)
		os.Exit(2)
	}
	if healthcheck {
		os.Exit(checkHealth(cfg.Addr))
	}
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "minisqs:", err)
		os.Exit(1)
	}
}

func run(cfg config) error {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	var log *slog.Logger
	if cfg.LogFormat == "json" {
		log = slog.New(slog.NewJSONHandler(os.Stderr, opts))
	} else {
		log = slog.New(slog.NewTextHandler(os.Stderr, opts))
	}
	start := time.Now()
	queues, err := loadQueues(cfg)
	if err != nil {
		return err
	}
	// Signals are caught from before the server answers, so that one sent
	// as soon as it does (or while a store file loads) shuts it down
	// rather than killing it.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	sc := cfg.Config
	sc.Logger = log
	sc.Init = func(e *engine.Engine) error { return createQueues(e, queues, log) }
	srv, err := startServer(sc, newGCPolicy(os.Getenv))
	if err != nil {
		return err
	}
	store := cfg.DB
	if store == "" {
		store = "memory"
	}
	log.Info("minisqs listening", "version", release, "addr", srv.Addr().String(), "store", store, "fsync", cfg.Fsync.String(),
		"region", cfg.Region, "account", cfg.AccountID, "startup", time.Since(start).Round(time.Microsecond))

wait:
	for {
		select {
		case s := <-sig:
			if s == syscall.SIGHUP {
				reloadCredentials(cfg.KeyFile, log)
				continue
			}
			log.Info("shutting down", "signal", s.String())
			break wait
		case err := <-srv.Done():
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	return srv.Shutdown(ctx)
}

// startServer starts the server, with the garbage collector off while it
// loads a store file. All of the heap that loading builds is live, so a
// collection as it grows would only mark it again and again: over a third
// of the load's CPU time. The garbage it leaves is bounded much as GOGC=100
// bounds a heap: buntdb compacts a file once it has doubled, so at most
// about half of what it reads is history. A memory limit (GOMEMLIMIT) still
// holds meanwhile, and gc's policy (or the user's GOGC, gc nil) applies
// again once the server has started.
func startServer(sc server.Config, gc *gcPolicy) (*server.Server, error) {
	if sc.DB != "" {
		defer gc.pause()()
		prepareLoadHeap(sc.DB)
	}
	return server.Start(sc)
}

// reloadCredentials reads the credentials file again, keeping the keys in
// force when the new file is refused.
func reloadCredentials(f *sigv4.KeyFile, log *slog.Logger) {
	if f == nil {
		log.Info("SIGHUP: no credentials file to reload")
		return
	}
	if err := f.Reload(); err != nil {
		log.Error("SIGHUP: credentials not reloaded; the keys in force stay", "err", err)
		return
	}
	log.Info("SIGHUP: credentials reloaded", "keys", f.Len())
}

// loadQueues reads the queues to create at start: the config file's and
// the list's.
func loadQueues(cfg config) (*queueconfig.Config, error) {
	var file *queueconfig.Config
	if cfg.ConfigFile != "" {
		var err error
		if file, err = queueconfig.Load(cfg.ConfigFile); err != nil {
			return nil, err
		}
	}
	list, err := queueconfig.ParseList("queues", cfg.Queues)
	if err != nil {
		return nil, err
	}
	return queueconfig.Merge(file, list)
}

// createQueues makes the configured queues before the server takes
// requests. Queues kept in a db file from an earlier run are left as they
// are when their settings match.
func createQueues(e *engine.Engine, queues *queueconfig.Config, log *slog.Logger) error {
	if len(queues.Queues) == 0 {
		return nil
	}
	results, err := queueconfig.Apply(e, queues)
	if err != nil {
		return err
	}
	n := map[queueconfig.Action]int{}
	for _, r := range results {
		n[r.Action]++
		level := slog.LevelDebug
		if r.Action == queueconfig.Updated {
			level = slog.LevelInfo
		}
		log.Log(context.Background(), level, "queue from configuration", "queue", r.Queue.Name(), "action", string(r.Action), "declared", r.Source.String())
	}
	log.Info("queues from configuration", "created", n[queueconfig.Created], "unchanged", n[queueconfig.Unchanged], "updated", n[queueconfig.Updated])
	return nil
}

// checkHealth asks the server listening on addr for /health; it needs no
// shell, so a scratch image's HEALTHCHECK can run it.
func checkHealth(addr string) int {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "healthcheck:", err)
		return 1
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	client := http.Client{Timeout: 3 * time.Second}
	resp, err := client.Get("http://" + net.JoinHostPort(host, port) + "/health")
	if err != nil {
		fmt.Fprintln(os.Stderr, "healthcheck:", err)
		return 1
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintln(os.Stderr, "healthcheck: status", resp.Status)
		return 1
	}
	return 0
}
