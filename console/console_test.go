package console_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/julienschmidt/httprouter"

	"github.com/minisqs/minisqs/console"
)

func TestServesFiles(t *testing.T) {
	r := httprouter.New()
	console.Register(r)
	srv := httptest.NewServer(r)
	defer srv.Close()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	res, err := noRedirect.Get(srv.URL + "/console")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != "/console/" {
		t.Errorf("/console: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}

	for _, tc := range []struct{ path, ctype, contains string }{
		{"/console/", "text/html; charset=utf-8", "<script"},
		{"/console/index.html", "text/html; charset=utf-8", "<script"},
		{"/console/app.js", "text/javascript; charset=utf-8", "sessionStorage"},
		{"/console/app.css", "text/css; charset=utf-8", "prefers-color-scheme"},
		{"/console/favicon.svg", "image/svg+xml", "<svg"},
	} {
		res, err := http.Get(srv.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		h := res.Header
		if res.StatusCode != 200 || h.Get("Content-Type") != tc.ctype || !strings.Contains(string(body), tc.contains) {
			t.Errorf("%s: %d %q, %d bytes", tc.path, res.StatusCode, h.Get("Content-Type"), len(body))
		}
		if h.Get("Cache-Control") != "no-cache" || h.Get("ETag") == "" || h.Get("X-Content-Type-Options") != "nosniff" ||
			!strings.Contains(h.Get("Content-Security-Policy"), "script-src 'self'") {
			t.Errorf("%s: headers %v", tc.path, h)
		}
		// A browser that has the file asks again and gets 304.
		req, _ := http.NewRequest(http.MethodGet, srv.URL+tc.path, nil)
		req.Header.Set("If-None-Match", h.Get("ETag"))
		again, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, again.Body)
		again.Body.Close()
		if again.StatusCode != http.StatusNotModified || n != 0 {
			t.Errorf("%s with its ETag: %d, %d bytes", tc.path, again.StatusCode, n)
		}
	}

	res, err = http.Get(srv.URL + "/console/nope.js")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("unknown file: %d", res.StatusCode)
	}
	res, err = http.Head(srv.URL + "/console/app.js")
	if err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || n != 0 || res.Header.Get("Content-Type") == "" {
		t.Errorf("HEAD: %d, %d bytes", res.StatusCode, n)
	}
}
