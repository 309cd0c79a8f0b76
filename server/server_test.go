package server

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/sqs"
)

// patience bounds every wait of these tests on the server; the limits they
// set are far shorter, so only a server that never acts reaches it.
const patience = 5 * time.Second

// start runs a server on a loopback port for the test.
func start(t *testing.T, cfg Config) *Server {
	t.Helper()
	cfg.Addr = "127.0.0.1:0"
	cfg.Clock = engine.NewManualClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), patience)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return s
}

// dial opens a raw connection to s.
func dial(t *testing.T, s *Server) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// send writes raw bytes to c.
func send(t *testing.T, c net.Conn, raw string) {
	t.Helper()
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
}

// waitClosed reads c to its end and fails the test unless the server
// closes it within patience.
func waitClosed(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(patience))
	_, err := io.Copy(io.Discard, c)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the server kept the connection open for %v", patience)
	}
}

// Request heads of each protocol, up to the blank line that ends the
// headers; the caller adds the framing headers.
const (
	queryHead = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
	jsonHead  = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Target: AmazonSQS.ListQueues\r\nContent-Type: application/x-amz-json-1.0\r\n"
	restHead  = "POST /v1/queues HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
)

// A client that sends its headers and then stalls on the body loses the
// connection once the body's read deadline passes, whether or not the
// handler reads the body.
func TestStalledBodyIsCut(t *testing.T) {
	s := start(t, Config{ReadTimeout: 100 * time.Millisecond})
	for _, tc := range []struct{ name, raw string }{
		{"query", queryHead + "Content-Length: 100\r\n\r\nAction=List"},
		{"json", jsonHead + "Content-Length: 100\r\n\r\n{"},
		{"json chunked", jsonHead + "Transfer-Encoding: chunked\r\n\r\n10\r\n{\"QueueNamePre"},
		{"rest", restHead + "Content-Length: 100\r\n\r\n{\"name\":"},
		{"unread", "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nx"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, s)
			send(t, c, tc.raw)
			waitClosed(t, c)
		})
	}
}

// A request that announces a body over the cap is answered at once with
// the protocol's own error, without the client sending any of the body,
// and the connection is closed rather than drained.
func TestAnnouncedOverCapRefusedAtOnce(t *testing.T) {
	s := start(t, Config{})
	length := "Content-Length: " + strconv.Itoa(sqs.MaxRequestBytes+1) + "\r\n\r\n"
	for _, tc := range []struct{ name, raw, want string }{
		{"query", queryHead + length, "<Code>RequestEntityTooLarge</Code>"},
		{"json", jsonHead + length, `"__type":"com.amazonaws.sqs#RequestEntityTooLarge"`},
		{"rest", restHead + length, `{"error":{"code":"message_too_large"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, s)
			send(t, c, tc.raw)
			c.SetReadDeadline(time.Now().Add(patience))
			res, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatalf("no answer: %v", err)
			}
			body, err := io.ReadAll(res.Body)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), tc.want) {
				t.Errorf("got %d %s, want 413 with %s", res.StatusCode, body, tc.want)
			}
			if !res.Close {
				t.Error("the answer keeps the connection open")
			}
		})
	}
}

const healthRequest = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

// roundTrip sends a request for /health on c and reads its answer, leaving
// the connection open.
func roundTrip(t *testing.T, c net.Conn, br *bufio.Reader) {
	t.Helper()
	send(t, c, healthRequest)
	c.SetReadDeadline(time.Now().Add(patience))
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Close {
		t.Fatalf("got %d, close %v; want 200 kept alive", res.StatusCode, res.Close)
	}
}

// A kept-alive connection that waits for its next request longer than
// IdleTimeout is closed.
func TestIdleConnectionTimesOut(t *testing.T) {
	s := start(t, Config{IdleTimeout: 100 * time.Millisecond})
	c := dial(t, s)
	roundTrip(t, c, bufio.NewReader(c))
	waitClosed(t, c)
}

// Beyond MaxIdleConns kept-alive connections, those idle longest are
// closed; the others still serve.
func TestIdleConnectionsAreCapped(t *testing.T) {
	const limit, conns = 3, 8
	s := start(t, Config{MaxIdleConns: limit})
	var cs []net.Conn
	var brs []*bufio.Reader
	for range conns {
		c := dial(t, s)
		br := bufio.NewReader(c)
		roundTrip(t, c, br)
		// The server marks a connection idle just after it answers; wait
		// for that, so that the order of going idle is the order here.
		waitIdle(t, s, c)
		cs, brs = append(cs, c), append(brs, br)
	}
	for _, c := range cs[:conns-limit] {
		waitClosed(t, c)
	}
	for i := conns - limit; i < conns; i++ {
		roundTrip(t, cs[i], brs[i])
	}
}

// waitIdle waits until the server holds c's connection as idle.
func waitIdle(t *testing.T, s *Server, c net.Conn) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !s.idle.holds(c.LocalAddr()) {
		if time.Now().After(deadline) {
			t.Fatalf("the server never held %v as idle", c.LocalAddr())
		}
		time.Sleep(time.Millisecond)
	}
}

// holds reports whether a connection from addr is among the idle ones.
func (ic *idleConns) holds(addr net.Addr) bool {
	ic.mu.Lock()
	defer ic.mu.Unlock()
	for ec := ic.oldest; ec != nil; ec = ec.next {
		if ec.c.RemoteAddr().String() == addr.String() {
			return true
		}
	}
	return false
}

// idleConns keeps the order in which connections last went idle, through
// requests, closes and hijacks, and closes those idle longest past its cap.
func TestIdleConnsOrder(t *testing.T) {
	ic := newIdleConns(2)
	var cs []net.Conn
	for range 4 {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		cs = append(cs, a)
	}
	idle := func() []net.Conn {
		var out []net.Conn
		for ec := ic.oldest; ec != nil; ec = ec.next {
			out = append(out, ec.c)
		}
		return out
	}
	check := func(step string, want ...net.Conn) {
		t.Helper()
		if got := idle(); !slices.Equal(got, want) || ic.n != len(want) {
			t.Fatalf("%s: idle %v (n %d), want %v", step, got, ic.n, want)
		}
	}
	ic.track(cs[0], http.StateNew)
	ic.track(cs[0], http.StateActive)
	ic.track(cs[0], http.StateIdle)
	ic.track(cs[1], http.StateIdle)
	check("two idle", cs[0], cs[1])
	ic.track(cs[0], http.StateActive)
	check("the first busy", cs[1])
	ic.track(cs[0], http.StateIdle)
	check("the first idle again", cs[1], cs[0])
	ic.track(cs[2], http.StateIdle)
	check("past the cap", cs[0], cs[2])
	if err := cs[1].SetReadDeadline(time.Now()); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("the connection idle longest is still open: %v", err)
	}
	ic.track(cs[1], http.StateClosed)
	check("the closed one gone", cs[0], cs[2])
	ic.track(cs[0], http.StateClosed)
	ic.track(cs[3], http.StateIdle)
	ic.track(cs[2], http.StateHijacked)
	check("closed and hijacked", cs[3])
	if len(ic.conns) != 1 {
		t.Errorf("%d connections kept, want 1", len(ic.conns))
	}
	// Connections come back as new ones; one evicted and then closed
	// changes nothing, and the one that changed state last is found again.
	ic.track(cs[3], http.StateActive)
	ic.track(cs[3], http.StateIdle)
	ic.track(cs[1], http.StateIdle)
	ic.track(cs[0], http.StateIdle)
	check("past the cap again", cs[1], cs[0])
	ic.track(cs[3], http.StateClosed)
	ic.track(cs[0], http.StateActive)
	ic.track(cs[0], http.StateIdle)
	check("after the evicted one closed", cs[1], cs[0])
	if len(ic.conns) != 2 {
		t.Errorf("%d connections kept, want 2", len(ic.conns))
	}
}
