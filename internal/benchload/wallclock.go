package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqsv1 "github.com/aws/aws-sdk-go/service/sqs"

	"github.com/minisqs/minisqs/internal/serverproc"
	"github.com/minisqs/minisqs/internal/sqsload"
)

// The wall-clock comparison: messages a second that minisqs and goaws
// (github.com/Admiral-Piett/goaws, another SQS emulator in Go) handle for
// the same clients, one server after the other, run by run. goaws speaks
// the query protocol only, so both servers get aws-sdk-go v1 clients;
// minisqs also gets aws-sdk-go-v2's, which speak JSON, its usual protocol.

// The values of -wall.
const (
	wallOn   = "on"   // after the main table
	wallOnly = "only" // instead of it
	wallOff  = "off"
)

// wallConfig is what the wall-clock comparison runs.
type wallConfig struct {
	mode    string
	goaws   string        // the goaws binary; empty skips its columns
	runTime time.Duration // how long each timed run lasts
	fill    int           // messages in the queue before each receive run
}

func (w *wallConfig) addFlags(fs *flag.FlagSet) {
	fs.StringVar(&w.mode, "wall", wallOn, "the wall-clock comparison with goaws: on (after the main table), only (without it), or off")
	fs.StringVar(&w.goaws, "goaws", "", "the goaws binary (github.com/Admiral-Piett/goaws/app/cmd) for the wall-clock comparison; empty skips its columns")
	fs.DurationVar(&w.runTime, "wall-time", 3*time.Second, "how long each timed wall-clock run lasts")
	fs.IntVar(&w.fill, "wall-fill", 20_000, "messages in the queue before each wall-clock receive + delete run, a multiple of 10")
}

func (w *wallConfig) check() error {
	switch {
	case w.mode != wallOn && w.mode != wallOnly && w.mode != wallOff:
		return fmt.Errorf("-wall %q: want on, only or off", w.mode)
	case w.runTime <= 0:
		return fmt.Errorf("-wall-time %v: want a positive duration", w.runTime)
	case w.fill <= 0 || w.fill%batchSize != 0:
		return fmt.Errorf("-wall-fill %d: want a positive multiple of %d", w.fill, batchSize)
	}
	return nil
}

// wallClients is how many clients run at once in the concurrent workloads,
// each with its own connection.
const wallClients = 16

// wallRuns is how many runs each figure is the median of.
const wallRuns = 3

// loadQueue is one client's view of a queue: *sqsload.Queue (JSON) or
// *sqsload.QueryQueue (query).
type loadQueue interface {
	Send(ctx context.Context) error
	SendOne(ctx context.Context) error
	ReceiveDelete(ctx context.Context) (int, error)
	Cycle(ctx context.Context) error
	Delete(ctx context.Context) error
}

// wallTarget is one column: a server and the protocol its clients speak.
type wallTarget struct {
	name string
	proc *serverproc.Process // the server, whose CPU time the log reports
	// open is client i's view of the queue name, which it creates.
	open func(ctx context.Context, i int, name string) (loadQueue, error)
}

func jsonTarget(name string, p *serverproc.Process) wallTarget {
	clients := make([]*sqs.Client, wallClients)
	for i := range clients {
		clients[i] = sqsload.LoopbackClient(p.URL)
	}
	return wallTarget{name, p, func(ctx context.Context, i int, queue string) (loadQueue, error) {
		return sqsload.NewQueue(ctx, clients[i], queue)
	}}
}

func queryTarget(name string, p *serverproc.Process) (wallTarget, error) {
	clients := make([]*sqsv1.SQS, wallClients)
	for i := range clients {
		c, err := sqsload.QueryClient(p.URL)
		if err != nil {
			return wallTarget{}, err
		}
		clients[i] = c
	}
	return wallTarget{name, p, func(ctx context.Context, i int, queue string) (loadQueue, error) {
		return sqsload.NewQueryQueue(ctx, clients[i], queue)
	}}, nil
}

// Names of the columns.
const (
	minisqsJSON  = "minisqs JSON"
	minisqsQuery = "minisqs query"
	goawsQuery   = "goaws query"
)

// workload is one row of the wall-clock table.
type workload struct {
	name, label string
	clients     int
	filled      bool // the queue holds wallConfig.fill messages before the run
	// run drives the queues, one a client, and returns how many messages
	// a second they handled.
	run func(ctx context.Context, w wallConfig, qs []loadQueue) (float64, error)
}

func workloads() []workload {
	return []workload{
		{"send", "send, 1 msg a call", wallClients, false, func(ctx context.Context, w wallConfig, qs []loadQueue) (float64, error) {
			return timed(ctx, qs, w.runTime, 1, loadQueue.SendOne)
		}},
		{"batch", "send, batches of 10", wallClients, false, func(ctx context.Context, w wallConfig, qs []loadQueue) (float64, error) {
			return timed(ctx, qs, w.runTime, batchSize, loadQueue.Send)
		}},
		{"receive", "receive 10 + delete batch", wallClients, true, func(ctx context.Context, w wallConfig, qs []loadQueue) (float64, error) {
			return drainAll(ctx, qs, w.fill)
		}},
		{"cycle", "cycle of 10", 1, false, func(ctx context.Context, w wallConfig, qs []loadQueue) (float64, error) {
			return timed(ctx, qs, w.runTime, batchSize, loadQueue.Cycle)
		}},
	}
}

// parallel calls f with each queue's index in its own goroutine and
// returns the first error, once all have returned.
func parallel(n int, f func(i int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = f(i) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// timed has each queue's client call call, which handles perCall messages,
// again and again until d has passed (at least once each), and returns the
// messages a second, up to the end of the last call.
func timed(ctx context.Context, qs []loadQueue, d time.Duration, perCall int, call func(loadQueue, context.Context) error) (float64, error) {
	var calls atomic.Int64
	start := time.Now()
	err := parallel(len(qs), func(i int) error {
		for {
			if err := call(qs[i], ctx); err != nil {
				return err
			}
			calls.Add(1)
			if time.Since(start) >= d {
				return nil
			}
		}
	})
	elapsed := time.Since(start)
	return float64(calls.Load()*int64(perCall)) / elapsed.Seconds(), err
}

// fill sends n messages to the queue in batches, spread over the clients.
func fill(ctx context.Context, qs []loadQueue, n int) error {
	batches := n / batchSize
	return parallel(len(qs), func(i int) error {
		for range batches/len(qs) + btoi(i < batches%len(qs)) {
			if err := qs[i].Send(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// maxEmptyDrains bounds drainAll's loops: a client that keeps finding no
// message while others are still owed has met a server that lost them.
const maxEmptyDrains = 1000

// drainAll has the clients receive and delete the n messages in the queue
// between them, and returns the messages a second.
func drainAll(ctx context.Context, qs []loadQueue, n int) (float64, error) {
	var left atomic.Int64
	left.Store(int64(n))
	start := time.Now()
	err := parallel(len(qs), func(i int) error {
		for empty := 0; left.Load() > 0; {
			k, err := qs[i].ReceiveDelete(ctx)
			if err != nil {
				return err
			}
			left.Add(-int64(k))
			if k > 0 {
				empty = 0
			} else if empty++; empty == maxEmptyDrains {
				return fmt.Errorf("%d receives in a row found no message; %d of %d are missing", empty, left.Load(), n)
			}
		}
		return nil
	})
	return float64(n) / time.Since(start).Seconds(), err
}

// wallResults are the median figures, in messages a second, by workload
// then column.
type wallResults map[string]map[string]float64

// wallClock starts minisqs in memory and goaws, when there is one, and
// runs every workload on each, in turn, wallRuns times; then it writes
// the table to out.
func (b *bench) wallClock(ctx context.Context, out io.Writer) error {
	minisqs, err := b.startWall(b.memoryServer())
	if err != nil {
		return err
	}
	defer minisqs.stop()
	query, err := queryTarget(minisqsQuery, minisqs.p)
	if err != nil {
		return err
	}
	targets := []wallTarget{jsonTarget(minisqsJSON, minisqs.p), query}
	if b.cfg.wall.goaws == "" {
		fmt.Fprintln(b.log, "bench: no -goaws binary; the goaws columns are skipped")
	} else {
		var cfgErr error
		goaws, err := b.startWall(server{"goaws", "goaws", b.cfg.wall.goaws, func(dir, addr string) []string {
			file := filepath.Join(dir, "goaws.yaml")
			cfgErr = writeGoawsConfig(file, addr)
			return []string{"-config", file}
		}})
		if err != nil {
			return fmt.Errorf("goaws: %w", errors.Join(cfgErr, err))
		}
		defer goaws.stop()
		t, err := queryTarget(goawsQuery, goaws.p)
		if err != nil {
			return err
		}
		targets = append(targets, t)
	}
	res, err := b.runWall(ctx, targets)
	if err != nil {
		return err
	}
	writeWallTable(out, b.cfg.wall, res)
	return nil
}

// wallProcess is a server the wall-clock comparison started, with its
// directory.
type wallProcess struct {
	p   *serverproc.Process
	dir string
}

func (b *bench) startWall(srv server) (*wallProcess, error) {
	p, dir, err := b.start(srv, cpuTool{})
	if err != nil {
		return nil, err
	}
	return &wallProcess{p, dir}, nil
}

func (w *wallProcess) stop() {
	w.p.Kill()
	os.RemoveAll(w.dir)
}

// memoryServer is minisqs in memory, in either mode of the main table.
func (b *bench) memoryServer() server {
	_, main, other := b.servers()
	if b.cfg.mode == "db" {
		return other
	}
	return main
}

// writeGoawsConfig writes a goaws configuration that serves SQS at addr,
// with queue URLs on 127.0.0.1. Without a Region, goaws leaves it out of
// the URLs' host. goaws listens on every interface, at addr's port.
func writeGoawsConfig(file, addr string) error {
	host, port, ok := strings.Cut(addr, ":")
	if !ok {
		return fmt.Errorf("address %q has no port", addr)
	}
	yaml := fmt.Sprintf("Local:\n  Host: %s\n  Port: %s\n  AccountId: \"100010001000\"\n  LogToFile: false\n", host, port)
	return os.WriteFile(file, []byte(yaml), 0o644)
}

// runWall runs each workload wallRuns times; within a run, on each target
// in turn, so that the machine's other load falls on all of them alike,
// and each run starting with the next target, so that none is always
// first. Every run has a new queue, deleted after it. The progress log
// has each run's figure and the server's CPU time a message, which the
// machine's other load changes far less than the figure.
func (b *bench) runWall(ctx context.Context, targets []wallTarget) (wallResults, error) {
	// Queue names differ between targets too: minisqs's two share one
	// server, which will not create a queue of a name deleted within the
	// last minute.
	for ti, t := range targets {
		if err := warmUp(ctx, t, fmt.Sprintf("wall-%d-warmup", ti)); err != nil {
			return nil, fmt.Errorf("%s: warming up: %w", t.name, err)
		}
	}
	res := wallResults{}
	for _, wl := range workloads() {
		rates := map[string][]float64{}
		for run := range wallRuns {
			for k := range targets {
				ti := (run + k) % len(targets)
				t := targets[ti]
				r, cpu, err := runOnce(ctx, b.cfg.wall, wl, t, fmt.Sprintf("wall-%d-%s-%d", ti, wl.name, run))
				if err != nil {
					return nil, fmt.Errorf("%s, %s: %w", t.name, wl.label, err)
				}
				fmt.Fprintf(b.log, "bench: wall clock, %s, %s, run %d: %s msg/s, server CPU %s µs a message\n", wl.label, t.name, run+1, count(r), micros(cpu))
				rates[t.name] = append(rates[t.name], r)
			}
		}
		res[wl.name] = map[string]float64{}
		for name, rs := range rates {
			res[wl.name][name] = median(rs)
		}
	}
	return res, nil
}

// warmUp opens every client's connection and takes each code path of the
// server: every client cycles warmupCycles times.
func warmUp(ctx context.Context, t wallTarget, queue string) error {
	qs, err := openQueues(ctx, t, wallClients, queue)
	if err != nil {
		return err
	}
	err = parallel(len(qs), func(i int) error {
		for range warmupCycles {
			if err := qs[i].Cycle(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	return errors.Join(err, qs[0].Delete(ctx))
}

// runOnce runs wl on a new queue of t's and returns the messages a second
// and the server's CPU time, in µs, a message.
func runOnce(ctx context.Context, w wallConfig, wl workload, t wallTarget, queue string) (rate, cpu float64, err error) {
	qs, err := openQueues(ctx, t, wl.clients, queue)
	if err != nil {
		return 0, 0, err
	}
	defer func() { err = errors.Join(err, qs[0].Delete(ctx)) }()
	if wl.filled {
		if err := fill(ctx, qs, w.fill); err != nil {
			return 0, 0, err
		}
	}
	m := cpuTool{}.meter("", t.proc)
	if err := m.start(); err != nil {
		return 0, 0, err
	}
	start := time.Now()
	if rate, err = wl.run(ctx, w, qs); err != nil {
		return 0, 0, err
	}
	elapsed := time.Since(start)
	us, err := m.stop()
	return rate, us / (rate * elapsed.Seconds()), err
}

// openQueues is the queue name for each of n of t's clients.
func openQueues(ctx context.Context, t wallTarget, n int, name string) ([]loadQueue, error) {
	qs := make([]loadQueue, n)
	for i := range qs {
		q, err := t.open(ctx, i, name)
		if err != nil {
			return nil, err
		}
		qs[i] = q
	}
	return qs, nil
}

// median is the middle of xs, or the mean of the two in the middle.
func median[T float64 | time.Duration](xs []T) T {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// writeWallTable prints the medians, and minisqs's ratio to goaws with
// either client. The target is met where minisqs handles at least as many
// messages a second as goaws for the same client work: the query column.
func writeWallTable(w io.Writer, cfg wallConfig, res wallResults) {
	fmt.Fprintf(w, "\nwall clock, msg/s: minisqs in memory against goaws on 127.0.0.1; GOMAXPROCS=2 for each server;\n")
	fmt.Fprintf(w, "each figure the median of %d runs of %v, the servers in turn within each run\n\n", wallRuns, cfg.runTime)
	rows := [][]string{{"workload", "clients", minisqsJSON, minisqsQuery, goawsQuery, "query ratio", "JSON ratio", "met"}}
	for _, wl := range workloads() {
		f := res[wl.name]
		row := []string{wl.label, strconv.Itoa(wl.clients), count(f[minisqsJSON]), count(f[minisqsQuery]), "-", "-", "-", "-"}
		if g, ok := f[goawsQuery]; ok {
			row[4], row[5], row[6] = count(g), ratio(f[minisqsQuery], g), ratio(f[minisqsJSON], g)
			row[7] = yesNo(f[minisqsQuery] >= g)
		}
		rows = append(rows, row)
	}
	widths := columnWidths(rows)
	for _, row := range rows {
		fmt.Fprintln(w, alignedLine(row, widths))
	}
	fmt.Fprintf(w, `
ratio: minisqs / goaws, with minisqs's query (aws-sdk-go v1) or JSON (aws-sdk-go-v2) clients;
goaws speaks the query protocol only. met: minisqs's query figure >= goaws's. Each client has
its own connection; messages of 200 B with one attribute. receive 10 + delete batch: %d
messages sent first, then received and deleted to the last (goaws's delete is linear in the
queue's depth); cycle: SendMessageBatch, then receive and delete its messages.
`, cfg.fill)
}
