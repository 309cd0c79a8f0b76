package compat

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// minisqsBinary builds cmd/minisqs once per test run.
func minisqsBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "minisqs-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "minisqs")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/minisqs/minisqs/cmd/minisqs").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// freePort finds a loopback port that is free now.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// process is a server running as its own process: the minisqs binary, or
// the canned server of BenchmarkHTTPCycle.
type process struct {
	cmd *exec.Cmd
	URL string
}

// startProcess runs the binary with args on a free loopback port and waits
// until /health answers.
func startProcess(t testing.TB, args ...string) *process {
	t.Helper()
	return startProcessOn(t, "127.0.0.1:"+strconv.Itoa(freePort(t)), args...)
}

// startProcessOn is startProcess on a given address, for a server that must
// come back where its clients left it.
func startProcessOn(t testing.TB, addr string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(minisqsBinary(t), append([]string{"--addr", addr, "--log-level", "warn"}, args...)...)
	cmd.Stderr = os.Stderr
	return startAndAwait(t, cmd, "http://"+addr)
}

// startAndAwait starts a server process and waits until its /health
// answers at url; a cleanup kills it if the test has not stopped it.
func startAndAwait(t testing.TB, cmd *exec.Cmd, url string) *process {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, URL: url}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(p.URL + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer /health: %v", cmd.Path, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// kill9 ends the process at once, as a crash would.
func (p *process) kill9(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.cmd.Wait()
}

// stop sends sig (SIGINT or SIGTERM) and waits for a clean exit.
func (p *process) stop(t testing.TB, sig os.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("minisqs exited with %v", err)
		}
	case <-time.After(15 * time.Second):
		p.cmd.Process.Kill()
		t.Fatalf("minisqs did not stop within 15s of %v", sig)
	}
}

// cpuTime is the process's CPU time in user space and in the kernel, from
// /proc.
func (p *process) cpuTime(t testing.TB) (user, system time.Duration) {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the command name, which is in parentheses: utime is the
	// 14th field of the line and stime the 15th, in clock ticks.
	fields := strings.Fields(line[strings.LastIndexByte(line, ')')+2:])
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	const ticksPerSecond = 100 // USER_HZ on Linux
	return time.Duration(utime) * time.Second / ticksPerSecond, time.Duration(stime) * time.Second / ticksPerSecond
}

// processClient is jsonClient for a server in its own process: its
// transport reads each answer whole, since the SDK's early close of request
// bodies (below) can otherwise make it retry calls a local server has
// already answered. Like the SDK's default client, each client has its own
// transport that keeps up to ten idle connections to the server; Go's
// shared default transport keeps two, which makes concurrent clients open
// a new connection for many calls.
func processClient(t testing.TB, endpoint string) *sqsv2.Client {
	sdkTransport := awshttp.NewBuildableClient().GetTransport()
	return sqsv2.New(jsonClient(t, endpoint).Options(), func(o *sqsv2.Options) {
		o.HTTPClient = &http.Client{Timeout: 30 * time.Second, Transport: bufferedTransport{sdkTransport}}
	})
}

// bufferedTransport reads each answer whole before handing it on.
// aws-sdk-go-v2 closes a request's body as soon as the answer's headers
// arrive (aws/aws-sdk-go-v2#2737); against a server as close as this one,
// that can come before Go's transport has finished with the body, which
// then tears the connection down under the answer, and the SDK retries the
// call. A retried ReceiveMessage finds its messages already in flight, and
// a test or benchmark would wait out their visibility timeout.
type bufferedTransport struct{ next http.RoundTripper }

func (t bufferedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}
