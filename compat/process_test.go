package compat

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/minisqs/minisqs/internal/serverproc"
	"github.com/minisqs/minisqs/internal/sqsload"
)

var (
	buildMu  sync.Mutex
	binaries = map[string]string{} // built binaries by package
	binDir   string
)

// minisqsBinary builds cmd/minisqs once per test run.
func minisqsBinary(t testing.TB) string {
	t.Helper()
	return goBinary(t, "github.com/minisqs/minisqs/cmd/minisqs")
}

// goBinary builds the main package pkg once per test run.
func goBinary(t testing.TB, pkg string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if bin, ok := binaries[pkg]; ok {
		return bin
	}
	if binDir == "" {
		dir, err := os.MkdirTemp("", "minisqs-bin")
		if err != nil {
			t.Fatal(err)
		}
		binDir = dir
	}
	bin := filepath.Join(binDir, path.Base(pkg))
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	binaries[pkg] = bin
	return bin
}

// freePort finds a loopback port that is free now.
func freePort(t testing.TB) int {
	t.Helper()
	port, err := serverproc.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// process is a server running as its own process: the minisqs binary, or
// the floor server of BenchmarkHTTPCycle.
type process struct{ *serverproc.Process }

// startProcess runs the binary with args on a free loopback port and waits
// until /health answers.
func startProcess(t testing.TB, args ...string) *process {
	t.Helper()
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	cmd := exec.Command(minisqsBinary(t), append([]string{"--addr", addr, "--log-level", "warn"}, args...)...)
	cmd.Stderr = os.Stderr
	return startAndAwait(t, cmd, "http://"+addr)
}

// startAndAwait starts a server process and waits until its /health
// answers at url; a cleanup kills it if the test has not stopped it.
func startAndAwait(t testing.TB, cmd *exec.Cmd, url string) *process {
	t.Helper()
	p, err := serverproc.Start(cmd, url, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	return &process{p}
}

// kill9 ends the process at once, as a crash would.
func (p *process) kill9(t testing.TB) {
	t.Helper()
	if p.Exited() {
		t.Fatalf("%s had exited before it was killed", p.Cmd.Path)
	}
	p.Kill()
}

// stop sends sig (SIGINT or SIGTERM) and waits for a clean exit.
func (p *process) stop(t testing.TB, sig os.Signal) {
	t.Helper()
	if err := p.Stop(sig, 15*time.Second); err != nil {
		t.Fatal(err)
	}
}

// cpuTime is the process's CPU time in user space and in the kernel, from
// /proc.
func (p *process) cpuTime(t testing.TB) (user, system time.Duration) {
	t.Helper()
	user, system, err := p.CPUTime()
	if err != nil {
		t.Fatal(err)
	}
	return user, system
}

// processClient is an aws-sdk-go-v2 client for a server in its own
// process; see sqsload.LoopbackClient for why its transport differs from
// jsonClient's.
func processClient(t testing.TB, endpoint string) *sqsv2.Client {
	t.Helper()
	return sqsload.LoopbackClient(endpoint)
}
