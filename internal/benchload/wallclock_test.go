package main

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestWallFlags(t *testing.T) {
	getenv := func(string) string { return "" }
	cfg, err := parseFlags([]string{"-minisqs", "m", "-floor", "f"}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if want := (wallConfig{mode: wallOn, runTime: 3 * time.Second, fill: 20_000}); cfg.wall != want {
		t.Errorf("defaults: %+v, want %+v", cfg.wall, want)
	}
	// The wall-clock table alone needs no floor.
	cfg, err = parseFlags([]string{"-minisqs", "m", "-wall", "only", "-goaws", "g", "-wall-time", "1s", "-wall-fill", "160"}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if want := (wallConfig{mode: wallOnly, goaws: "g", runTime: time.Second, fill: 160}); cfg.wall != want {
		t.Errorf("-wall only: %+v, want %+v", cfg.wall, want)
	}
	for _, bad := range [][]string{
		{"-minisqs", "m", "-wall", "off"},
		{"-minisqs", "m", "-floor", "f", "-wall", "sometimes"},
		{"-minisqs", "m", "-wall", "only", "-wall-time", "0s"},
		{"-minisqs", "m", "-wall", "only", "-wall-fill", "15"},
	} {
		if _, err := parseFlags(bad, getenv); err == nil {
			t.Errorf("parseFlags(%q): no error", bad)
		}
	}
}

func TestWriteWallTable(t *testing.T) {
	cfg := wallConfig{runTime: 3 * time.Second, fill: 20_000}
	res := wallResults{
		"send":    {minisqsJSON: 4700, minisqsQuery: 4000, goawsQuery: 5000},
		"batch":   {minisqsJSON: 20000, minisqsQuery: 6000, goawsQuery: 6000},
		"receive": {minisqsJSON: 25000, minisqsQuery: 12000, goawsQuery: 10000},
		"cycle":   {minisqsJSON: 10000, minisqsQuery: 6000, goawsQuery: 5000},
	}
	var out bytes.Buffer
	writeWallTable(&out, cfg, res)
	want := map[string][]string{
		"send, 1 msg a call":        {"16", "4,700", "4,000", "5,000", "0.80x", "0.94x", "no"},
		"send, batches of 10":       {"16", "20,000", "6,000", "6,000", "1.00x", "3.33x", "yes"},
		"receive 10 + delete batch": {"16", "25,000", "12,000", "10,000", "1.20x", "2.50x", "yes"},
		"cycle of 10":               {"1", "10,000", "6,000", "5,000", "1.20x", "2.00x", "yes"},
	}
	if got := rowsUnder(t, out.String(), "workload "); !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("rows %q, want %q:\n%s", got, want, out.String())
	}

	// Without goaws, its columns are empty.
	for _, f := range res {
		delete(f, goawsQuery)
	}
	out.Reset()
	writeWallTable(&out, cfg, res)
	if got := rowsUnder(t, out.String(), "workload ")["send, 1 msg a call"]; !slices.Equal(got, []string{"16", "4,700", "4,000", "-", "-", "-", "-"}) {
		t.Errorf("send without goaws: %q\n%s", got, out.String())
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{5}, 5}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.xs); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}

// countingQueue is a loadQueue that counts its calls; its receives find
// recv messages each.
type countingQueue struct {
	sends, ones, receives, cycles atomic.Int64
	recv                          int
}

func (q *countingQueue) Send(context.Context) error    { q.sends.Add(1); return nil }
func (q *countingQueue) SendOne(context.Context) error { q.ones.Add(1); return nil }
func (q *countingQueue) Cycle(context.Context) error   { q.cycles.Add(1); return nil }
func (q *countingQueue) Delete(context.Context) error  { return nil }
func (q *countingQueue) ReceiveDelete(context.Context) (int, error) {
	q.receives.Add(1)
	return q.recv, nil
}

func countingQueues(n, recv int) ([]loadQueue, []*countingQueue) {
	qs, cs := make([]loadQueue, n), make([]*countingQueue, n)
	for i := range qs {
		cs[i] = &countingQueue{recv: recv}
		qs[i] = cs[i]
	}
	return qs, cs
}

func TestFillSpreadsBatches(t *testing.T) {
	qs, cs := countingQueues(4, 0)
	if err := fill(context.Background(), qs, 70); err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, c := range cs {
		got = append(got, c.sends.Load())
	}
	if want := []int64{2, 2, 2, 1}; !slices.Equal(got, want) {
		t.Errorf("batches a client: %v, want %v (7 batches over 4 clients)", got, want)
	}
}

func TestTimedCallsEveryClient(t *testing.T) {
	qs, cs := countingQueues(3, 0)
	r, err := timed(context.Background(), qs, time.Nanosecond, batchSize, loadQueue.Send)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cs {
		if c.sends.Load() < 1 {
			t.Errorf("client %d never sent", i)
		}
	}
	if r <= 0 {
		t.Errorf("rate %v, want > 0", r)
	}
	failing := errors.New("send failed")
	_, err = timed(context.Background(), []loadQueue{failingQueue{failing}}, time.Hour, 1, loadQueue.SendOne)
	if !errors.Is(err, failing) {
		t.Errorf("timed with a failing call = %v, want %v", err, failing)
	}
}

type failingQueue struct{ err error }

func (q failingQueue) Send(context.Context) error                 { return q.err }
func (q failingQueue) SendOne(context.Context) error              { return q.err }
func (q failingQueue) Cycle(context.Context) error                { return q.err }
func (q failingQueue) Delete(context.Context) error               { return nil }
func (q failingQueue) ReceiveDelete(context.Context) (int, error) { return 0, q.err }

func TestDrainAll(t *testing.T) {
	qs, cs := countingQueues(4, batchSize)
	if _, err := drainAll(context.Background(), qs, 100); err != nil {
		t.Fatal(err)
	}
	var receives int64
	for _, c := range cs {
		receives += c.receives.Load()
	}
	// Each receive finds 10: 10 are enough, and each client may start one
	// more before it sees the count reach zero.
	if receives < 10 || receives > 10+int64(len(cs)) {
		t.Errorf("%d receives for 100 messages of 10 each", receives)
	}
	// A queue that finds nothing has lost the messages: the loop ends.
	empty, _ := countingQueues(2, 0)
	if _, err := drainAll(context.Background(), empty, 10); err == nil || !strings.Contains(err.Error(), "10 of 10 are missing") {
		t.Errorf("drainAll of an empty queue = %v, want an error naming the missing messages", err)
	}
}

var (
	goawsOnce sync.Once
	goawsBin  string
	goawsErr  error
)

// goaws builds goaws v0.4.5, as scripts/bench does, but from the module
// cache only, as a proxy: tests use no network. What is in the cache was
// checked against the checksum database when it was downloaded.
func goaws(t *testing.T) string {
	t.Helper()
	goawsOnce.Do(func() {
		dir, err := os.MkdirTemp("", "benchload-goaws")
		if err != nil {
			goawsErr = err
			return
		}
		modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
		if err != nil {
			goawsErr = err
			return
		}
		cmd := exec.Command("go", "install", "github.com/Admiral-Piett/goaws/app/cmd@v0.4.5")
		cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOFLAGS=-mod=mod", "GOSUMDB=off",
			"GOPROXY=file://"+filepath.Join(strings.TrimSpace(string(modcache)), "cache", "download"))
		if out, err := cmd.CombinedOutput(); err != nil {
			goawsErr = &buildError{err, out}
			return
		}
		goawsBin = filepath.Join(dir, "cmd")
	})
	if goawsErr != nil {
		// goaws is optional in the bench too, which skips its columns.
		t.Skipf("goaws v0.4.5 is not in the module cache (scripts/bench fetches it): %v", goawsErr)
	}
	return goawsBin
}

// TestWallClock runs every workload against minisqs, with either client,
// and against goaws when it can be built, on tiny counts, and checks that
// each figure was measured.
func TestWallClock(t *testing.T) {
	minisqs, _ := binaries(t)
	wallClock := func(t *testing.T, goawsBin string, columns int) {
		wall := wallConfig{mode: wallOnly, goaws: goawsBin, runTime: time.Millisecond, fill: 2 * wallClients * batchSize}
		b, err := newBench(config{minisqs: minisqs, mode: "memory", wall: wall}, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		defer b.close()
		var out bytes.Buffer
		if err := b.wallClock(context.Background(), &out); err != nil {
			t.Fatal(err)
		}
		rows := rowsUnder(t, out.String(), "workload ")
		if len(rows) != len(workloads()) {
			t.Errorf("rows %q, want %d", rows, len(workloads()))
		}
		for label, row := range rows {
			for i, cell := range row[1 : 1+columns] {
				if cell == "-" || cell == "0" {
					t.Errorf("%s: column %d is %q, want a measured rate\n%s", label, i+2, cell, out.String())
				}
			}
		}
	}
	t.Run("minisqs", func(t *testing.T) { wallClock(t, "", 2) })
	t.Run("goaws", func(t *testing.T) { wallClock(t, goaws(t), 3) })
}
