// Package serverproc runs a server as its own process on a loopback port:
// it starts the process, waits until the server answers /health, reads the
// CPU time the process has used and stops it. The compat tests and the
// benchmark driver (internal/benchload) start minisqs and the benchmark's
// floor server with it.
package serverproc

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// FreePort finds a loopback port that is free now.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Process is a server running as its own process.
type Process struct {
	Cmd *exec.Cmd
	URL string // the server's base URL, e.g. http://127.0.0.1:9324

	exited  chan struct{} // closed once the process has exited
	waitErr error         // cmd.Wait's result, set before exited is closed
}

// Start starts cmd and waits up to timeout until GET url/health answers
// 200. If the process exits first or the time runs out, Start kills it and
// returns an error.
func Start(cmd *exec.Cmd, url string, timeout time.Duration) (*Process, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{Cmd: cmd, URL: url, exited: make(chan struct{})}
	// One goroutine waits for the process, so that a server that dies while
	// starting is noticed at once and Stop and Kill never call Wait twice.
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	deadline := time.Now().Add(timeout)
	for {
		resp, err := http.Get(url + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		select {
		case <-p.exited:
			return nil, fmt.Errorf("%s exited before answering /health: %v", cmd.Path, p.waitErr)
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.Kill()
			return nil, fmt.Errorf("%s did not answer %s/health within %v: %v", cmd.Path, url, timeout, err)
		}
	}
}

// Pid is the process's id.
func (p *Process) Pid() int { return p.Cmd.Process.Pid }

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// Kill ends the process at once, as a crash would, and waits for it to go.
// It does nothing to a process that has already exited.
func (p *Process) Kill() {
	if !p.Exited() {
		p.Cmd.Process.Kill()
	}
	<-p.exited
}

// Stop sends sig (e.g. SIGINT or SIGTERM) and waits up to timeout for the
// process to exit. It returns an error if the process exits with an error,
// or if it is still running after timeout, when Stop kills it.
func (p *Process) Stop(sig os.Signal, timeout time.Duration) error {
	if err := p.Cmd.Process.Signal(sig); err != nil {
		return err
	}
	select {
	case <-p.exited:
		if p.waitErr != nil {
			return fmt.Errorf("%s exited with %v", p.Cmd.Path, p.waitErr)
		}
		return nil
	case <-time.After(timeout):
		p.Kill()
		return fmt.Errorf("%s did not stop within %v of %v", p.Cmd.Path, timeout, sig)
	}
}

// CPUTime is the CPU time the process has used in user space and in the
// kernel, from /proc/PID/stat. The kernel counts it in clock ticks of 10 ms.
func (p *Process) CPUTime() (user, system time.Duration, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/stat", p.Pid()))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil {
		return 0, 0, err
	}
	// Fields after the command name, which is in parentheses: utime is the
	// 14th field of the line and stime the 15th, in clock ticks.
	fields := strings.Fields(line[strings.LastIndexByte(line, ')')+2:])
	utime, err := strconv.ParseInt(fields[11], 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("utime in /proc/%d/stat: %v", p.Pid(), err)
	}
	stime, err := strconv.ParseInt(fields[12], 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("stime in /proc/%d/stat: %v", p.Pid(), err)
	}
	const ticksPerSecond = 100 // USER_HZ on Linux
	return time.Duration(utime) * time.Second / ticksPerSecond, time.Duration(stime) * time.Second / ticksPerSecond, nil
}
