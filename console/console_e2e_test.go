package console_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/minisqs/minisqs/internal/testenv"
	"github.com/minisqs/minisqs/protocol/rest"
	"github.com/minisqs/minisqs/server"
)

// chromiumPath is Debian's Chromium, which the tests drive; they never
// download a browser.
const chromiumPath = "/usr/bin/chromium"

// TestConsoleEndToEnd runs the browser tests of e2e/ (node's test runner,
// playwright-core and headless Chromium) against two real servers, one open
// and one with tokens, with the aws CLI as the SQS client. It installs the
// tests' npm packages when they are missing, and saves a screenshot of each
// main page in e2e/screenshots/ (or MINISQS_SCREENSHOTS).
func TestConsoleEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	need := map[string]string{}
	for _, tool := range []string{"node", "npm", "aws"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			testenv.Missing(t, "the console's end-to-end tests need %s on PATH", tool)
		}
		need[tool] = p
	}
	chromium := chromiumPath
	if p := os.Getenv("MINISQS_CHROMIUM"); p != "" {
		chromium = p
	}
	if _, err := os.Stat(chromium); err != nil {
		testenv.Missing(t, "the console's end-to-end tests need Chromium at %s (apt-get install chromium)", chromium)
	}
	dir, err := filepath.Abs("e2e")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "playwright-core")); err != nil {
		npm := exec.CommandContext(ctx, need["npm"], "ci", "--ignore-scripts", "--no-audit", "--no-fund")
		npm.Dir = dir
		npm.Env = append(os.Environ(), "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")
		if out, err := npm.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
	}

	open := startServer(t, nil)
	guarded := startServer(t, map[string]rest.Role{"e2e-admin": rest.RoleAdmin, "e2e-inspector": rest.RoleInspector})
	shots := os.Getenv("MINISQS_SCREENSHOTS")
	if shots == "" {
		shots = filepath.Join(dir, "screenshots")
	}
	t.Logf("screenshots go to %s", shots)

	node := exec.CommandContext(ctx, need["node"], "--test", "--test-concurrency=1", "--test-reporter=spec", ".")
	node.Dir = dir
	node.Env = append(os.Environ(),
		"MINISQS_URL="+open.URL(),
		"MINISQS_TOKEN_URL="+guarded.URL(),
		"MINISQS_ADMIN_TOKEN=e2e-admin",
		"MINISQS_INSPECTOR_TOKEN=e2e-inspector",
		"MINISQS_SCREENSHOTS="+shots,
		"MINISQS_CHROMIUM="+chromium,
		"MINISQS_AWS_CLI="+need["aws"],
		"NO_COLOR=1",
	)
	var out bytes.Buffer
	node.Stdout, node.Stderr = &out, &out
	err = node.Run()
	t.Logf("node --test in %s:\n%s", dir, out.String())
	if err != nil {
		t.Fatalf("the console's end-to-end tests failed: %v", err)
	}
}

func startServer(t *testing.T, tokens map[string]rest.Role) *server.Server {
	t.Helper()
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0", Tokens: tokens})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return srv
}
