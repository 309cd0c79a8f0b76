// Command benchload is the driver of scripts/bench. It drives the minisqs
// binary and the floor server (internal/benchfloor) with the same
// aws-sdk-go-v2 workload (internal/sqsload), one client on 127.0.0.1, and
// prints what each costs the server in phases: SendMessageBatch,
// ReceiveMessage + DeleteMessageBatch, the full cycle, and 10 s idle, and
// the cycle with minisqs in its other storage mode, to compare a --db file
// with memory. It measures each phase twice: the user-space instructions
// the server executes under valgrind's callgrind, in one run of each
// server, and the CPU time (user + system) the kernel counts for it
// without valgrind, the median of -cpu-rounds rounds in which the servers,
// all started once, take turns in an order that reverses each round. Then it fills a queue with -deep messages (a
// million by default) in each mode and reports the server's RSS, the time
// a restart on the --db file takes to answer, and what a receive costs at
// that depth against a shallow queue. Then, unless -pollers 0, it opens
// many idle long polls on minisqs in memory, meters the server's CPU while
// they wait, and times how soon one answers after each of a run of single
// sends. Last, unless -wall is off, it compares minisqs with goaws on wall
// clocks (wallclock.go); -wall only runs that comparison alone.
//
// Usage:
//
//	benchload -minisqs BIN -floor BIN [-mode memory|db] [-msgs N] [-cpu-msgs N] [-cpu-rounds 5] [-idle 10s]
//		[-table=false] [-deep N] [-pollers 1000] [-poller-sends 200] [-poller-idle 10s]
//		[-wall on|only|off] [-goaws BIN] [-wall-time 3s] [-wall-fill N]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"
)

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchload:", err)
		os.Exit(2)
	}
	if err := run(context.Background(), cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "benchload:", err)
		os.Exit(1)
	}
}

// config is what one run measures.
type config struct {
	minisqs, floor string // the binaries
	mode           string // minisqs's storage in the main table: "memory" or "db"
	msgs           int    // messages in each phase under callgrind
	cpuMsgs        int    // messages in each phase without valgrind, over all its rounds
	cpuRounds      int    // interleaved rounds of each phase without valgrind
	idle           time.Duration
	deep           int  // messages of the deep queue; 0 skips it
	table          bool // measure the main table
	// valgrind and callgrindControl are the tools' paths; with either
	// empty, the instruction columns are skipped.
	valgrind, callgrindControl string
	pollers                    pollersConfig
	wall                       wallConfig // the wall-clock comparison with goaws (wallclock.go)
}

// Environment variables that set the flags' defaults.
const (
	msgsEnv    = "MINISQS_BENCH_MSGS"
	cpuMsgsEnv = "MINISQS_BENCH_CPU_MSGS"
)

func parseFlags(args []string, getenv func(string) string) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("benchload", flag.ContinueOnError)
	fs.StringVar(&cfg.minisqs, "minisqs", "", "the minisqs binary")
	fs.StringVar(&cfg.floor, "floor", "", "the benchfloor binary")
	fs.StringVar(&cfg.mode, "mode", "memory", "minisqs's storage for the main table: memory, or db (--db FILE --fsync everysec); the cycle runs in the other too")
	msgs := fs.String("msgs", envOr(getenv, msgsEnv, "4000"), "messages in each phase under callgrind, a multiple of 10 (default from "+msgsEnv+")")
	cpuMsgs := fs.String("cpu-msgs", envOr(getenv, cpuMsgsEnv, "50000"), "messages in each phase for the CPU time, in total over its -cpu-rounds rounds, a multiple of 10 times the rounds; and the receives at the deep queue's depth (default from "+cpuMsgsEnv+")")
	fs.IntVar(&cfg.cpuRounds, "cpu-rounds", 5, "interleaved rounds of each phase for the CPU time, whose median it shows; the idle phase's length is split between them")
	fs.DurationVar(&cfg.idle, "idle", 10*time.Second, "how long the idle phase lasts")
	fs.BoolVar(&cfg.table, "table", true, "measure the main table; false runs only the phases after it")
	deep := fs.String("deep", "1000000", "messages in the deep queue, a multiple of 10 and at least -cpu-msgs; 0 skips it")
	fs.IntVar(&cfg.pollers.n, "pollers", 1000, "concurrent long polls in the pollers phase; 0 skips it")
	fs.IntVar(&cfg.pollers.sends, "poller-sends", 200, "messages sent one at a time to the pollers")
	fs.DurationVar(&cfg.pollers.idle, "poller-idle", 10*time.Second, "how long the pollers' idle window lasts")
	fs.StringVar(&cfg.valgrind, "valgrind", lookPath("valgrind"), "valgrind; empty skips the instruction counts")
	fs.StringVar(&cfg.callgrindControl, "callgrind-control", lookPath("callgrind_control"), "callgrind_control, which comes with valgrind")
	cfg.wall.addFlags(fs)
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if cfg.minisqs == "" || (cfg.floor == "" && cfg.wall.mode != wallOnly) {
		return config{}, fmt.Errorf("-minisqs and -floor are both needed")
	}
	if err := cfg.wall.check(); err != nil {
		return config{}, err
	}
	if cfg.pollers.n < 0 || cfg.pollers.n > 0 && cfg.pollers.sends <= 0 {
		return config{}, fmt.Errorf("-pollers %d, -poller-sends %d: want no pollers, or pollers and sends", cfg.pollers.n, cfg.pollers.sends)
	}
	if cfg.pollers.idle <= 0 || cfg.pollers.idle+settleTime >= pollWait*time.Second {
		return config{}, fmt.Errorf("-poller-idle %v: want more than 0 and less than %v, to fit in the polls' first wait", cfg.pollers.idle, pollWait*time.Second-settleTime)
	}
	if cfg.mode != "memory" && cfg.mode != "db" {
		return config{}, fmt.Errorf("-mode %q: want memory or db", cfg.mode)
	}
	var err error
	if cfg.msgs, err = batches("-msgs", *msgs); err != nil {
		return config{}, err
	}
	if cfg.cpuMsgs, err = batches("-cpu-msgs", *cpuMsgs); err != nil {
		return config{}, err
	}
	if cfg.cpuRounds <= 0 || cfg.cpuMsgs%(cfg.cpuRounds*batchSize) != 0 {
		return config{}, fmt.Errorf("-cpu-rounds %d, -cpu-msgs %d: want rounds of a positive multiple of %d messages each", cfg.cpuRounds, cfg.cpuMsgs, batchSize)
	}
	if *deep != "0" {
		if cfg.deep, err = batches("-deep", *deep); err != nil {
			return config{}, err
		}
		if cfg.deep < cfg.cpuMsgs {
			return config{}, fmt.Errorf("-deep %d: the receives at that depth take -cpu-msgs, %d", cfg.deep, cfg.cpuMsgs)
		}
	}
	if !cfg.table && cfg.deep == 0 && cfg.pollers.n == 0 && cfg.wall.mode == wallOff {
		return config{}, fmt.Errorf("-table=false with -deep 0, -pollers 0 and -wall off measures nothing")
	}
	return cfg, nil
}

// cpuRoundMsgs is the messages of one round of a phase without valgrind.
func (cfg config) cpuRoundMsgs() int { return cfg.cpuMsgs / cfg.cpuRounds }

// cpuRoundIdle is the idle phase's length in one round without valgrind.
func (cfg config) cpuRoundIdle() time.Duration { return cfg.idle / time.Duration(cfg.cpuRounds) }

func envOr(getenv func(string) string, name, def string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return def
}

// lookPath is the tool's path, or empty if it is not installed.
func lookPath(name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	return p
}

// batches parses a count of messages, which the workload sends in whole
// batches.
func batches(name, s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || n%batchSize != 0 {
		return 0, fmt.Errorf("%s %q: want a positive multiple of %d", name, s, batchSize)
	}
	return n, nil
}

// run measures every server in every phase and writes the table to out,
// then the deep queue's figures, and its progress to log.
func run(ctx context.Context, cfg config, out, log io.Writer) error {
	b, err := newBench(cfg, log)
	if err != nil {
		return err
	}
	defer b.close()
	if cfg.wall.mode == wallOnly {
		return b.wallClock(ctx, out)
	}
	if cfg.table {
		res, err := b.measureAll(ctx)
		if err != nil {
			return err
		}
		writeTable(out, cfg, res)
	}
	if cfg.deep > 0 {
		memory, db, err := b.measureDeep(ctx)
		if err != nil {
			return err
		}
		writeDeep(out, cfg, memory, db)
	}
	if cfg.pollers.n > 0 {
		pr, err := b.measurePollers(ctx, cfg.pollers)
		if err != nil {
			return err
		}
		writePollers(out, pr)
	}
	if cfg.wall.mode == wallOff {
		return nil
	}
	return b.wallClock(ctx, out)
}
