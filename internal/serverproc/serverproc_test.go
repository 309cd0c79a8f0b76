package serverproc

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperEnv, when set, makes this test binary a server for the tests: it
// serves /health at the address it holds until SIGINT, or exits at once
// with status 3 when it is "exit".
const helperEnv = "SERVERPROC_HELPER"

func TestMain(m *testing.M) {
	switch addr := os.Getenv(helperEnv); addr {
	case "":
		os.Exit(m.Run())
	case "exit":
		os.Exit(3)
	default:
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		srv := &http.Server{Addr: addr, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})}
		go func() {
			<-ctx.Done()
			srv.Close()
		}()
		if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
			os.Exit(1)
		}
		os.Exit(0)
	}
}

func helper(t *testing.T, arg string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"="+arg)
	return cmd
}

func startHelper(t *testing.T) *Process {
	t.Helper()
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	p, err := Start(helper(t, addr), "http://"+addr, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	return p
}

func TestStartAndStop(t *testing.T) {
	p := startHelper(t)
	resp, err := http.Get(p.URL + "/health")
	if err != nil {
		t.Fatalf("server not answering after Start: %v", err)
	}
	resp.Body.Close()
	user, system, err := p.CPUTime()
	if err != nil {
		t.Fatal(err)
	}
	if user < 0 || system < 0 {
		t.Errorf("CPUTime = %v, %v; want no negative time", user, system)
	}
	if err := p.Stop(os.Interrupt, time.Minute); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if !p.Exited() {
		t.Error("Exited() = false after Stop")
	}
	if _, _, err := p.CPUTime(); err == nil {
		t.Error("CPUTime of a process that has exited: no error")
	}
	p.Kill() // a no-op now
}

func TestKill(t *testing.T) {
	p := startHelper(t)
	p.Kill()
	if !p.Exited() {
		t.Fatal("Exited() = false after Kill")
	}
	if err := p.Stop(syscall.SIGTERM, time.Minute); err == nil {
		t.Error("Stop of a killed process: no error")
	}
}

func TestStopReportsExitStatus(t *testing.T) {
	p := startHelper(t)
	// SIGTERM is not handled by the helper, so it dies of it.
	err := p.Stop(syscall.SIGTERM, time.Minute)
	if err == nil || !strings.Contains(err.Error(), "terminated") {
		t.Errorf("Stop(SIGTERM) = %v, want the signal that ended it", err)
	}
}

func TestStartNoticesEarlyExit(t *testing.T) {
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	// The timeout is far longer than a test runs: Start must return when
	// the process exits, not when the time runs out.
	_, err = Start(helper(t, "exit"), "http://127.0.0.1:"+strconv.Itoa(port), time.Hour)
	if err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("Start of a process that exits = %v, want its exit status", err)
	}
}
