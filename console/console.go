// Package console serves minisqs's web console at /console/: plain HTML,
// CSS and JavaScript embedded in the binary, with nothing fetched from
// elsewhere, so it works offline. The page is a client of the REST API
// (/v1) and the test-control API (/_minisqs); this package only serves its
// files.
package console

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/julienschmidt/httprouter"
)

// Path is where the console is served.
const Path = "/console/"

//go:embed static
var static embed.FS

// file is one embedded file, ready to serve.
type file struct {
	body        []byte
	contentType string
	etag        string
}

// contentTypes are the types of the files the console ships; a file of
// another kind is not served, so that nothing goes out sniffed.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".svg":  "image/svg+xml",
	".png":  "image/png",
}

// securityHeaders keep the page to its own origin: scripts, styles and
// requests from the server itself, no framing.
var securityHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
	"X-Content-Type-Options": "nosniff",
	"Referrer-Policy":        "no-referrer",
}

// files loads every embedded file once.
func files() map[string]file {
	out := map[string]file{}
	err := fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ct, ok := contentTypes[path.Ext(p)]
		if !ok {
			return nil
		}
		b, err := static.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[strings.TrimPrefix(p, "static/")] = file{body: b, contentType: ct, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	})
	if err != nil {
		panic("console: reading the embedded files: " + err.Error()) // the build embeds them
	}
	return out
}

// Handler serves the console's files under Path. Every answer carries an
// ETag and Cache-Control: no-cache, so a browser keeps the files and asks
// each time whether they changed: a new binary is seen at once, an
// unchanged one costs a 304.
func Handler() http.Handler {
	fs := files()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, Path)
		if name == "" {
			name = "index.html"
		}
		f, ok := fs[name]
		for k, v := range securityHeaders {
			w.Header().Set(k, v)
		}
		if !ok {
			http.Error(w, "404 page not found", http.StatusNotFound)
			return
		}
		h := w.Header()
		h.Set("Content-Type", f.contentType)
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", f.etag)
		if match := r.Header.Get("If-None-Match"); match != "" && etagMatches(match, f.etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		if r.Method == http.MethodHead {
			return
		}
		w.Write(f.body)
	})
}

// etagMatches reports whether an If-None-Match header names etag.
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

// Register serves the console on r: its files under /console/, and
// /console redirected there.
func Register(r *httprouter.Router) {
	h := Handler()
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		r.Handler(m, Path+"*file", h)
		r.Handler(m, strings.TrimSuffix(Path, "/"), http.RedirectHandler(Path, http.StatusMovedPermanently))
	}
}
