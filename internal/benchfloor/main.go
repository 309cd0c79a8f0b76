// Command benchfloor is the floor of minisqs's benchmarks: a net/http
// server that does no work. It reads each request and answers with the
// body that minisqs gave to the same action, recorded beforehand by
// sqsload.Record, and the headers minisqs sends. Driven with the same
// workload as minisqs, its cost is that of the Go runtime, net/http and the
// kernel alone on the machine, under any figure minisqs can reach.
//
// Usage:
//
//	benchfloor -dir DIR -addr 127.0.0.1:PORT
//
// It serves until it is interrupted (SIGINT or SIGTERM).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/google/uuid"
)

func main() {
	dir := flag.String("dir", "", "directory of recorded answers, one file per action")
	addr := flag.String("addr", "127.0.0.1:9324", "address to listen on")
	flag.Parse()
	if err := serve(*dir, *addr); err != nil {
		fmt.Fprintln(os.Stderr, "benchfloor:", err)
		os.Exit(1)
	}
}

// serve answers at addr with the answers recorded in dir, until SIGINT or
// SIGTERM.
func serve(dir, addr string) error {
	answers, err := load(dir)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := &http.Server{Addr: addr, Handler: handler(answers)}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// load reads the recorded answers in dir, keyed by their files' names:
// the actions.
func load(dir string) (map[string][]byte, error) {
	files, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	answers := make(map[string][]byte, len(files))
	for _, f := range files {
		if answers[f.Name()], err = os.ReadFile(filepath.Join(dir, f.Name())); err != nil {
			return nil, err
		}
	}
	return answers, nil
}

// handler answers each action with its recorded answer, and GET /health
// with an empty 200.
func handler(answers map[string][]byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return
		}
		body, ok := answers[strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AmazonSQS.")]
		if r.URL.Path != "/health" && !ok {
			http.Error(w, "no recorded answer", http.StatusNotImplemented)
			return
		}
		h := w.Header()
		h.Set("x-amzn-RequestId", uuid.NewString())
		h.Set("Content-Type", "application/x-amz-json-1.0")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	})
}
