package minisqstest

import (
	"bytes"

	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"syscall"
)

// inProcess is an http.RoundTripper that serves each request with a handler
// in the caller's process: no socket, no connection pool, and so none of
// the races of a client and a server that close connections under each
// other. A long poll blocks the round trip as it would on the wire.
type inProcess struct{ handler http.Handler }

// errDropped is what a client sees of a request whose handler dropped the
// connection (a drop fault), as it would over TCP.
var errDropped = &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}

func (t inProcess) RoundTrip(req *http.Request) (resp *http.Response, err error) {
	sreq := req.Clone(req.Context())
	sreq.RequestURI = req.URL.RequestURI()
	sreq.RemoteAddr = "127.0.0.1:0"
	if sreq.Host == "" {
		sreq.Host = req.URL.Host
	}
	if req.Body == nil {
		sreq.Body = http.NoBody
	} else {
		// The handler reads the body whole; the client's copy is closed as a
		// transport would once it is sent.
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		sreq.Body = io.NopCloser(bytes.NewReader(body))
		sreq.ContentLength = int64(len(body))
	}
	rec := httptest.NewRecorder()
	defer func() {
		// A handler drops a connection by aborting its answer.
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				panic(v)
			}
			resp, err = nil, errDropped
		}
	}()
	t.handler.ServeHTTP(rec, sreq)
	resp = rec.Result()
	resp.Request = req
	return resp, nil
}
