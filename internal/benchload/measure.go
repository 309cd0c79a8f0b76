package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/minisqs/minisqs/internal/serverproc"
	"github.com/minisqs/minisqs/internal/sqsload"
)

const batchSize = sqsload.BatchSize

// queueName is the queue of every run, and of the recording, so that the
// floor's requests are the same bytes as minisqs's.
const queueName = "bench"

// warmupCycles run before the first phase of each server process, to open
// the connection, grow the heap and take every code path once.
const warmupCycles = 20

// phase is one measured part of the workload.
type phase struct {
	name  string
	label string  // as in the table
	limit float64 // the target in instructions; 0 for none
	// run drives q through the phase with msgs messages and returns how
	// many it handled; the figure is per message, or in total for a phase
	// of none.
	run func(ctx context.Context, q *sqsload.Queue, msgs int) (int, error)
}

func sendPhase(ctx context.Context, q *sqsload.Queue, msgs int) (int, error) {
	for range msgs / batchSize {
		if err := q.Send(ctx); err != nil {
			return 0, err
		}
	}
	return msgs, nil
}

// receivePhase drains what sendPhase sent, which must come just before it.
func receivePhase(ctx context.Context, q *sqsload.Queue, msgs int) (int, error) {
	return msgs, q.Drain(ctx, msgs)
}

func cyclePhase(ctx context.Context, q *sqsload.Queue, msgs int) (int, error) {
	for range msgs / batchSize {
		if err := q.Cycle(ctx); err != nil {
			return 0, err
		}
	}
	return msgs, nil
}

// idlePhase is the name of the phase of no requests, whose figures are in
// total rather than per message.
const idlePhase = "idle"

// phases are the table's rows, in the order they run on one server.
func phases(idle time.Duration) []phase {
	return []phase{
		{"send", "send, per msg", 20_000, sendPhase},
		{"receive", "receive + delete, per msg", 40_000, receivePhase},
		{"cycle", "cycle, per msg", 60_000, cyclePhase},
		{idlePhase, fmt.Sprintf("idle %v, in total", idle), 50_000, func(ctx context.Context, _ *sqsload.Queue, _ int) (int, error) {
			select {
			case <-time.After(idle):
				return 0, nil
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		}},
	}
}

// dbFile is the name of minisqs's --db file in its directory.
const dbFile = "minisqs.db"

// server is one server the bench drives.
type server struct {
	name string // its key in results
	desc string // for the progress log
	bin  string
	// args are its arguments to serve at addr, keeping any files in dir,
	// which is new for each process.
	args func(dir, addr string) []string
}

// figures are one server's figures in one run, by phase name.
type figures map[string]float64

// results are the figures of every server, by server name: instructions
// (nil without valgrind) and CPU time in µs, with the CPU time of each
// round that cpu summarizes.
type results struct {
	instr, cpu map[string]figures
	cpuRounds  map[string]samples
}

// bench holds what the runs share: the floor's recorded answers.
type bench struct {
	cfg     config
	log     io.Writer
	answers string // directory of the floor's answers
}

func newBench(cfg config, log io.Writer) (*bench, error) {
	dir, err := os.MkdirTemp("", "minisqs-bench")
	if err != nil {
		return nil, err
	}
	return &bench{cfg: cfg, log: log, answers: dir}, nil
}

func (b *bench) close() { os.RemoveAll(b.answers) }

// Names of the servers in results.
const (
	floorName = "floor"
	mainName  = "minisqs"
	otherName = "minisqs, other mode"
)

// servers are the floor, minisqs in cfg.mode and minisqs in the other mode.
func (b *bench) servers() (floor, main, other server) {
	floor = server{floorName, "the floor", b.cfg.floor, func(_, addr string) []string {
		return []string{"-dir", b.answers, "-addr", addr}
	}}
	memory := server{mainName, "minisqs in memory", b.cfg.minisqs, func(_, addr string) []string {
		return []string{"--addr", addr, "--log-level", "warn"}
	}}
	db := server{mainName, "minisqs --db FILE --fsync everysec", b.cfg.minisqs, func(dir, addr string) []string {
		return []string{"--addr", addr, "--log-level", "warn", "--db", filepath.Join(dir, dbFile), "--fsync", "everysec"}
	}}
	if b.cfg.mode == "db" {
		main, other = db, memory
	} else {
		main, other = memory, db
	}
	other.name = otherName
	return floor, main, other
}

// job is a server and the phases it runs.
type job struct {
	srv    server
	phases []phase
}

// jobs are the servers of the main table: the floor and minisqs in every
// phase, minisqs in the other mode in the cycle only, each phase's idle
// lasting idle.
func (b *bench) jobs(idle time.Duration) []job {
	floor, main, other := b.servers()
	all := phases(idle)
	return []job{{floor, all}, {main, all}, {other, all[2:3]}}
}

// measureAll records the floor's answers from minisqs, then runs the
// servers without valgrind, in interleaved rounds, and under callgrind.
func (b *bench) measureAll(ctx context.Context) (results, error) {
	_, main, _ := b.servers()
	if err := b.record(ctx, main); err != nil {
		return results{}, fmt.Errorf("recording minisqs's answers: %w", err)
	}
	var res results
	var err error
	if res.cpu, res.cpuRounds, err = b.measureCPU(ctx); err != nil {
		return results{}, err
	}
	if b.cfg.valgrind == "" || b.cfg.callgrindControl == "" {
		return res, nil
	}
	res.instr = map[string]figures{}
	for _, j := range b.jobs(b.cfg.idle) {
		f, err := b.measure(ctx, j.srv, j.phases, b.cfg.msgs, callgrindTool{b.cfg.valgrind, b.cfg.callgrindControl})
		if err != nil {
			return results{}, fmt.Errorf("%s under callgrind: %w", j.srv.desc, err)
		}
		res.instr[j.srv.name] = f
	}
	return res, nil
}

// measureCPU starts every server once, without valgrind, and measures the
// CPU time of their phases in cfg.cpuRounds interleaved rounds. It returns
// each server's figures (see summarize) and what each round measured, by
// server name.
func (b *bench) measureCPU(ctx context.Context) (map[string]figures, map[string]samples, error) {
	rounds, msgs := b.cfg.cpuRounds, b.cfg.cpuRoundMsgs()
	jobs := b.jobs(b.cfg.cpuRoundIdle())
	procs := make([]*running, len(jobs))
	for i, j := range jobs {
		fmt.Fprintf(b.log, "bench: %s without valgrind, %d rounds of %d messages a phase\n", j.srv.desc, rounds, msgs)
		r, err := b.launch(ctx, j.srv, cpuTool{})
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", j.srv.desc, err)
		}
		defer r.close()
		procs[i] = r
	}
	got, err := interleave(rounds, jobs, func(round, i int, ph phase) (float64, error) {
		v, err := procs[i].phase(ctx, ph, msgs)
		if err != nil {
			return 0, fmt.Errorf("%s, round %d: %w", jobs[i].srv.desc, round+1, err)
		}
		fmt.Fprintf(b.log, "bench: CPU round %d of %d, %s, %s: %s µs\n", round+1, rounds, jobs[i].srv.desc, ph.label, micros(v))
		return v, nil
	})
	if err != nil {
		return nil, nil, err
	}
	cpu, all := map[string]figures{}, map[string]samples{}
	for i, j := range jobs {
		if err := procs[i].stop(); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", j.srv.desc, err)
		}
		cpu[j.srv.name], all[j.srv.name] = summarize(got[i]), got[i]
	}
	return cpu, all, nil
}

// samples are one server's figures of every round, by phase name, in the
// rounds' order.
type samples map[string][]float64

// interleave runs rounds rounds of the jobs' phases and returns what run
// measured for each job. A round runs each phase in turn, in the order of
// the first job's phases, on every job that has it; the jobs take their
// turns in their order in even rounds and in the reverse order in odd
// ones, so that a burst of the machine's other load falls on every server
// alike over the rounds, and no server always runs first or last. run
// measures job i's phase once.
func interleave(rounds int, jobs []job, run func(round, i int, ph phase) (float64, error)) ([]samples, error) {
	got := make([]samples, len(jobs))
	for i := range got {
		got[i] = samples{}
	}
	for round := range rounds {
		order := roundOrder(round, len(jobs))
		for _, ph := range jobs[0].phases {
			for _, i := range order {
				if !slices.ContainsFunc(jobs[i].phases, func(p phase) bool { return p.name == ph.name }) {
					continue
				}
				v, err := run(round, i, ph)
				if err != nil {
					return nil, err
				}
				got[i][ph.name] = append(got[i][ph.name], v)
			}
		}
	}
	return got, nil
}

// roundOrder is the order of n jobs in round: forward in even rounds,
// backward in odd ones.
func roundOrder(round, n int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if round%2 == 1 {
		slices.Reverse(order)
	}
	return order
}

// summarize is one figure a phase from the rounds' samples: the median for
// a phase per message, which a burst of load in one round does not move;
// the sum for a phase in total (idle), whose rounds' windows add up to its
// whole length, and whose few 10 ms ticks a median would round away.
func summarize(s samples) figures {
	f := figures{}
	for name, vs := range s {
		if name == idlePhase {
			var sum float64
			for _, v := range vs {
				sum += v
			}
			f[name] = sum
		} else {
			f[name] = median(vs)
		}
	}
	return f
}

// record runs minisqs, without valgrind, through one cycle and keeps its
// answers for the floor.
func (b *bench) record(ctx context.Context, srv server) error {
	p, dir, err := b.start(srv, cpuTool{})
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	defer p.Kill()
	if err := sqsload.Record(ctx, p.URL, b.answers, queueName); err != nil {
		return err
	}
	return p.Stop(os.Interrupt, time.Minute)
}

// tool measures a server's work: it makes the command that runs the server
// and the meter for its process.
type tool interface {
	name() string
	command(dir, bin string, args []string) *exec.Cmd
	meter(dir string, p *serverproc.Process) meter
	// startTimeout is how long the server may take to answer /health.
	startTimeout() time.Duration
}

// warmQueue opens the bench's queue on the server at url and runs the
// warm-up cycles on it, which leave it as deep as it was.
func warmQueue(ctx context.Context, url string) (*sqsload.Queue, error) {
	q, err := sqsload.NewQueue(ctx, sqsload.LoopbackClient(url), queueName)
	if err != nil {
		return nil, err
	}
	for range warmupCycles {
		if err := q.Cycle(ctx); err != nil {
			return nil, err
		}
	}
	return q, nil
}

// meter measures a server's work over one phase.
type meter interface {
	start() error
	// stop returns the work done since start: µs of CPU time, or
	// instructions.
	stop() (float64, error)
}

// measure starts srv under t, warms it up, runs the phases with msgs
// messages each and stops it.
func (b *bench) measure(ctx context.Context, srv server, phases []phase, msgs int, t tool) (figures, error) {
	fmt.Fprintf(b.log, "bench: %s %s, %d messages a phase\n", srv.desc, t.name(), msgs)
	r, err := b.launch(ctx, srv, t)
	if err != nil {
		return nil, err
	}
	defer r.close()
	f := figures{}
	for _, ph := range phases {
		if f[ph.name], err = r.phase(ctx, ph, msgs); err != nil {
			return nil, err
		}
	}
	return f, r.stop()
}

// running is a server process, warmed up, with its queue and its meter.
type running struct {
	p   *serverproc.Process
	dir string
	q   *sqsload.Queue
	m   meter
}

// launch starts srv under t and warms it up.
func (b *bench) launch(ctx context.Context, srv server, t tool) (*running, error) {
	p, dir, err := b.start(srv, t)
	if err != nil {
		return nil, err
	}
	r := &running{p: p, dir: dir}
	if r.q, err = warmQueue(ctx, p.URL); err != nil {
		r.close()
		return nil, r.fail(err)
	}
	r.m = t.meter(dir, p)
	return r, nil
}

// phase runs ph with msgs messages and returns its meter's figure, per
// message, or in total for a phase of none.
func (r *running) phase(ctx context.Context, ph phase, msgs int) (float64, error) {
	if err := r.m.start(); err != nil {
		return 0, r.fail(err)
	}
	n, err := ph.run(ctx, r.q, msgs)
	if err != nil {
		return 0, r.fail(fmt.Errorf("%s: %w", ph.name, err))
	}
	v, err := r.m.stop()
	if err != nil {
		return 0, r.fail(err)
	}
	if n > 0 {
		v /= float64(n)
	}
	return v, nil
}

// stop stops the server, which must exit cleanly.
func (r *running) stop() error {
	if err := r.p.Stop(os.Interrupt, 2*time.Minute); err != nil {
		return r.fail(err)
	}
	return nil
}

// close kills the server, if it still runs, and removes its directory.
func (r *running) close() {
	r.p.Kill()
	os.RemoveAll(r.dir)
}

// fail adds the end of the server's logs to err.
func (r *running) fail(err error) error { return fmt.Errorf("%w%s", err, logTail(r.dir)) }

// serverEnv is the servers' environment on top of the bench's own: the
// runtime uses the machine's two cores, with or without valgrind.
var serverEnv = []string{"GOMAXPROCS=2"}

// start starts srv under t on a free loopback port, with a new directory
// for its files and logs, and waits until it answers.
func (b *bench) start(srv server, t tool) (*serverproc.Process, string, error) {
	dir, err := os.MkdirTemp("", "minisqs-bench")
	if err != nil {
		return nil, "", err
	}
	p, err := b.startIn(dir, srv, t)
	if err != nil {
		os.RemoveAll(dir)
		return nil, "", err
	}
	return p, dir, nil
}

func (b *bench) startIn(dir string, srv server, t tool) (*serverproc.Process, error) {
	port, err := serverproc.FreePort()
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := t.command(dir, srv.bin, srv.args(dir, addr))
	cmd.Env = append(append(os.Environ(), serverEnv...), cmd.Env...)
	stderr, err := os.Create(filepath.Join(dir, "stderr.log"))
	if err != nil {
		return nil, err
	}
	defer stderr.Close() // the child has its own copy
	cmd.Stderr = stderr
	p, err := serverproc.Start(cmd, "http://"+addr, t.startTimeout())
	if err != nil {
		return nil, fmt.Errorf("%w%s", err, logTail(dir))
	}
	return p, nil
}

// logTail is the end of the logs a server left in dir, to explain a
// failure.
func logTail(dir string) string {
	var s strings.Builder
	for _, name := range []string{"stderr.log", "valgrind.log"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || len(data) == 0 {
			continue
		}
		if len(data) > 2000 {
			data = data[len(data)-2000:]
		}
		fmt.Fprintf(&s, "\n%s:\n%s", name, data)
	}
	return s.String()
}

// cpuTool runs a server as it is, and meters the CPU time the kernel
// counts for it.
type cpuTool struct{}

func (cpuTool) name() string { return "without valgrind" }

func (cpuTool) command(_, bin string, args []string) *exec.Cmd { return exec.Command(bin, args...) }

func (cpuTool) meter(_ string, p *serverproc.Process) meter { return &cpuMeter{p: p} }

// startTimeout allows for opening a --db file of a million messages.
func (cpuTool) startTimeout() time.Duration { return time.Minute }

// cpuMeter reads the process's CPU time, user and system, from /proc.
type cpuMeter struct {
	p     *serverproc.Process
	begin time.Duration
}

func (m *cpuMeter) start() (err error) {
	m.begin, err = m.read()
	return err
}

func (m *cpuMeter) stop() (float64, error) {
	t, err := m.read()
	return float64((t - m.begin).Nanoseconds()) / 1e3, err
}

func (m *cpuMeter) read() (time.Duration, error) {
	user, system, err := m.p.CPUTime()
	return user + system, err
}

// callgrindTool runs a server under valgrind's callgrind with
// instrumentation off, so that nothing of the start-up is counted; its
// meter switches it on for each phase only. Doing that in one process,
// rather than subtracting a run that only starts up from one that also
// works, keeps the start-up's own variation (the runtime's and the GC's
// timing) out of the figures.
//
// Valgrind runs one thread at a time, and slows the server some 50 times.
// GOMAXPROCS=2 (serverEnv) keeps the runtime's shape as on the machine;
// asynchronous preemption is off because goroutines that run 50 times
// longer would be preempted, by signal, far more often than they are
// without valgrind. --fair-sched=yes hands valgrind's lock from thread to
// thread in turn: with its default lock, a thread spinning in the Go
// runtime can keep it for time slice after time slice while the thread it
// waits for cannot run. The runtime's background sweeper does that when it
// finds the sweep unfinished because another thread is sweeping (it yields
// and tries again), and a phase in which it did counted up to fifty times
// the instructions of one in which it did not.
type callgrindTool struct{ valgrind, control string }

func (callgrindTool) name() string { return "under callgrind" }

func (t callgrindTool) command(dir, bin string, args []string) *exec.Cmd {
	cmd := exec.Command(t.valgrind, append([]string{
		"--tool=callgrind", "--fair-sched=yes", "--instr-atstart=no",
		"--callgrind-out-file=" + filepath.Join(dir, "callgrind.out"),
		"--log-file=" + filepath.Join(dir, "valgrind.log"),
		bin}, args...)...)
	// Valgrind does not implement RDTSCP, which the runtime reads the CPU's
	// clock with when the CPU has it (valgrind stops the process at it);
	// without it, the runtime uses RDTSC, which valgrind does implement.
	cmd.Env = []string{"GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off"}
	return cmd
}

func (t callgrindTool) meter(dir string, p *serverproc.Process) meter {
	return &callgrindMeter{control: t.control, pid: p.Pid(), out: filepath.Join(dir, "callgrind.out")}
}

// startTimeout allows for the Go runtime's slow start under valgrind.
func (callgrindTool) startTimeout() time.Duration { return 2 * time.Minute }

// callgrindMeter counts the instructions a process under callgrind runs
// between start and stop, with callgrind_control: instrumentation on at
// start; off, then a dump, at stop. Each dump holds what was counted since
// the one before, and callgrind counts nothing while instrumentation is
// off, so the dump holds the phase alone. What the server does idle while
// callgrind_control starts (under a second each time) is counted too; the
// idle row shows how little that is.
type callgrindMeter struct {
	control string
	pid     int
	out     string
	dumps   int
}

func (m *callgrindMeter) start() error { return m.do("--instr=on") }

func (m *callgrindMeter) stop() (float64, error) {
	if err := m.do("--instr=off"); err != nil {
		return 0, err
	}
	if err := m.do("--dump"); err != nil {
		return 0, err
	}
	m.dumps++
	// With --callgrind-out-file=F, callgrind writes its Nth dump to F.N.
	f, err := os.Open(m.out + "." + strconv.Itoa(m.dumps))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, err := dumpTotal(f)
	return float64(n), err
}

// do sends one command to the process with callgrind_control.
func (m *callgrindMeter) do(arg string) error {
	out, err := exec.Command(m.control, arg, strconv.Itoa(m.pid)).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("OK")) {
		return fmt.Errorf("callgrind_control %s %d: %v\n%s", arg, m.pid, err, out)
	}
	return nil
}

// dumpTotal reads the total of the first event (Ir, the instructions
// executed) from a callgrind dump's "totals:" line.
func dumpTotal(r io.Reader) (uint64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "totals:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return 0, errors.New("callgrind dump: empty totals line")
		}
		return strconv.ParseUint(fields[0], 10, 64)
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("callgrind dump: no totals line")
}
