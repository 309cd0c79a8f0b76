package main

import (
	"context"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/server"
)

// startServer turns the collector off for a store file's load only: the
// user's GOGC (no policy) is as it was once the server has started, in
// either mode. TestGCPolicyEnv has the same with the policy.
func TestStartServerGOGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	for db, wantLoading := range map[string]int{"": 150, filepath.Join(t.TempDir(), "db"): -1} {
		loading := 0
		// Init runs on the loaded engine, before the server listens.
		init := func(*engine.Engine) error {
			loading = debug.SetGCPercent(-1)
			debug.SetGCPercent(loading)
			return nil
		}
		srv, err := startServer(server.Config{Addr: "127.0.0.1:0", DB: db, Init: init}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if loading != wantLoading {
			t.Errorf("DB %q: GOGC %d while loading, want %d", db, loading, wantLoading)
		}
		if got := debug.SetGCPercent(150); got != 150 {
			t.Errorf("DB %q: GOGC %d once the server has started, want 150", db, got)
		}
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}
