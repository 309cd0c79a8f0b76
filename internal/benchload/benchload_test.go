package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/minisqs/minisqs/internal/testenv"
)

func TestParseFlags(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	base := []string{"-minisqs", "m", "-floor", "f"}

	cfg, err := parseFlags(base, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.mode != "memory" || cfg.msgs != 4000 || cfg.cpuMsgs != 50000 || cfg.cpuRounds != 5 || cfg.idle != 10*time.Second || cfg.deep != 1_000_000 || !cfg.table {
		t.Errorf("defaults: %+v", cfg)
	}

	env[msgsEnv], env[cpuMsgsEnv] = "300", "4000"
	if cfg, err = parseFlags(append(base, "--mode", "db"), getenv); err != nil {
		t.Fatal(err)
	}
	if cfg.mode != "db" || cfg.msgs != 300 || cfg.cpuMsgs != 4000 {
		t.Errorf("from the environment and --mode db: %+v", cfg)
	}
	if cfg, err = parseFlags(append(base, "-msgs", "50"), getenv); err != nil || cfg.msgs != 50 {
		t.Errorf("a flag over the environment: msgs %d, %v; want 50", cfg.msgs, err)
	}
	if cfg, err = parseFlags(append(base, "-cpu-rounds", "4"), getenv); err != nil || cfg.cpuRounds != 4 || cfg.cpuRoundMsgs() != 1000 {
		t.Errorf("-cpu-rounds 4 of -cpu-msgs 4000: rounds %d of %d messages, %v; want 4 of 1000", cfg.cpuRounds, cfg.cpuRoundMsgs(), err)
	}
	if cfg, err = parseFlags(append(base, "-deep", "0"), getenv); err != nil || cfg.deep != 0 {
		t.Errorf("-deep 0: deep %d, %v; want 0, the deep queue skipped", cfg.deep, err)
	}
	if cfg, err = parseFlags(append(base, "-table=false", "-deep", "60000"), getenv); err != nil || cfg.table || cfg.deep != 60000 {
		t.Errorf("-table=false -deep 60000: table %v, deep %d, %v", cfg.table, cfg.deep, err)
	}

	for _, bad := range [][]string{
		{"-floor", "f"},
		append(base, "-mode", "disk"),
		append(base, "-msgs", "15"),
		append(base, "-cpu-msgs", "0"),
		append(base, "-cpu-rounds", "0"),
		append(base, "-cpu-rounds", "3"),                      // 4,000 in 3 rounds: no whole batches
		append(base, "-cpu-msgs", "4020", "-cpu-rounds", "4"), // rounds of 1,005
		append(base, "-cpu-msgs", "100", "-cpu-rounds", "20"), // rounds of 5
		append(base, "-deep", "15"),
		append(base, "-deep", "1000"), // fewer than -cpu-msgs
		append(base, "-table=false", "-deep", "0", "-pollers", "0", "-wall", "off"),
		append(base, "extra"),
	} {
		if _, err := parseFlags(bad, getenv); err == nil {
			t.Errorf("parseFlags(%q): no error", bad)
		}
	}
}

func TestDumpTotal(t *testing.T) {
	dump := "version: 1\ncreator: callgrind-3.19.0\nevents: Ir\nsummary: 18446744073709493249\nfn=(1) main\n3 5\ntotals: 58367\n"
	n, err := dumpTotal(strings.NewReader(dump))
	if err != nil || n != 58367 {
		t.Errorf("dumpTotal = %d, %v; want 58367 from the totals line", n, err)
	}
	if _, err := dumpTotal(strings.NewReader("events: Ir\n")); err == nil {
		t.Error("a dump with no totals: no error")
	}
}

func TestFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{count(0), "0"},
		{count(999.6), "1,000"},
		{count(1234567), "1,234,567"},
		{ratio(3, 2), "1.50x"},
		{ratio(3, 0), "-"},
		{micros(12.345), "12.35"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestWriteTable(t *testing.T) {
	cfg := config{mode: "memory", msgs: 2000, cpuMsgs: 50000, cpuRounds: 5, idle: 10 * time.Second}
	res := results{
		instr: map[string]figures{
			floorName: {"send": 10_000, "receive": 20_000, "cycle": 30_000, "idle": 100},
			mainName:  {"send": 15_000, "receive": 50_000, "cycle": 90_000, "idle": 60_000},
			otherName: {"cycle": 99_000},
		},
		cpu: map[string]figures{
			floorName: {"send": 2, "receive": 4, "cycle": 6, "idle": 0},
			mainName:  {"send": 4, "receive": 8, "cycle": 12, "idle": 10_000},
			otherName: {"cycle": 15},
		},
		cpuRounds: map[string]samples{
			mainName:  {"cycle": {12, 10, 14}},
			otherName: {"cycle": {15, 11, 21}},
		},
	}
	var out bytes.Buffer
	writeTable(&out, cfg, res)
	rows := tableRows(t, out.String())
	want := map[string][]string{
		"send, per msg":                {"15,000", "10,000", "1.50x", "<= 20k", "yes", "4.00", "2.00", "2.00x"},
		"receive + delete, per msg":    {"50,000", "20,000", "2.50x", "<= 40k", "no", "8.00", "4.00", "2.00x"},
		"cycle, per msg":               {"90,000", "30,000", "3.00x", "<= 60k", "no", "12.00", "6.00", "2.00x"},
		"idle 10s, in total":           {"60,000", "100", "600.00x", "<= 50k", "no", "10,000", "0", "-"},
		"cycle --db everysec, per msg": {"99,000", "30,000", "3.30x", "-", "-", "15.00", "6.00", "2.50x"},
	}
	if !maps.EqualFunc(rows, want, slices.Equal) {
		t.Errorf("rows %q, want %q:\n%s", rows, want, out.String())
	}
	if !strings.Contains(out.String(), "/ in memory: instructions 1.10x, CPU 1.25x (target <= 1.2x), the ratio of the medians; round by round 1.10x to 1.50x\n") {
		t.Errorf("no ratio of db to memory:\n%s", out.String())
	}
	for _, want := range []string{"CPU: median of 5 interleaved rounds of 10000 messages a phase", "in 5 rounds of 10,000 messages", "a tick is 1.00 µs a message", "sum of 5 windows of 2s"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no word of how the CPU column is measured, %q:\n%s", want, out.String())
		}
	}

	res.instr = nil
	out.Reset()
	writeTable(&out, cfg, res)
	if got := tableRows(t, out.String())["send, per msg"]; !slices.Equal(got, []string{"-", "-", "-", "<= 20k", "-", "4.00", "2.00", "2.00x"}) {
		t.Errorf("send without valgrind: %q\n%s", got, out.String())
	}
	if !strings.Contains(out.String(), "instructions: skipped") {
		t.Errorf("no word of the skipped instructions:\n%s", out.String())
	}
}

// TestInterleave runs three fake servers through two phases and the
// cycle only for the last, in four rounds: the order of the turns, and the
// samples each gets.
func TestInterleave(t *testing.T) {
	ph := func(name string) phase { return phase{name: name} }
	jobs := []job{
		{server{name: "a"}, []phase{ph("send"), ph("cycle")}},
		{server{name: "b"}, []phase{ph("send"), ph("cycle")}},
		{server{name: "c"}, []phase{ph("cycle")}},
	}
	var turns []string
	got, err := interleave(4, jobs, func(round, i int, p phase) (float64, error) {
		turns = append(turns, fmt.Sprintf("%d%s%s", round, jobs[i].srv.name, p.name))
		return float64(100*round + 10*i + len(p.name)), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"0asend", "0bsend", "0acycle", "0bcycle", "0ccycle",
		"1bsend", "1asend", "1ccycle", "1bcycle", "1acycle",
		"2asend", "2bsend", "2acycle", "2bcycle", "2ccycle",
		"3bsend", "3asend", "3ccycle", "3bcycle", "3acycle",
	}
	if !slices.Equal(turns, want) {
		t.Errorf("turns\n%q, want\n%q", turns, want)
	}
	wantSamples := []samples{
		{"send": {4, 104, 204, 304}, "cycle": {5, 105, 205, 305}},
		{"send": {14, 114, 214, 314}, "cycle": {15, 115, 215, 315}},
		{"cycle": {25, 125, 225, 325}},
	}
	for i := range jobs {
		if !maps.EqualFunc(got[i], wantSamples[i], slices.Equal) {
			t.Errorf("job %d: samples %v, want %v", i, got[i], wantSamples[i])
		}
	}

	boom := errors.New("boom")
	calls := 0
	if _, err := interleave(3, jobs, func(round, i int, p phase) (float64, error) {
		calls++
		if round == 1 {
			return 0, boom
		}
		return 1, nil
	}); !errors.Is(err, boom) || calls != 6 {
		t.Errorf("a failing turn: %v after %d turns; want boom after 6, the first of round 1", err, calls)
	}
}

// TestSummarize checks the figures from the rounds: the median of a phase
// per message, which one slow round does not move, and the sum of idle.
func TestSummarize(t *testing.T) {
	got := summarize(samples{
		"send":    {5, 4, 90, 6, 5},
		"cycle":   {10, 12, 30, 11},
		idlePhase: {10_000, 0, 0, 20_000, 0},
	})
	want := figures{"send": 5, "cycle": 11.5, idlePhase: 30_000}
	if !maps.Equal(got, want) {
		t.Errorf("summarize = %v, want %v", got, want)
	}
	if lo, hi, ok := roundRatios([]float64{12, 10, 9}, []float64{10, 0, 10}); !ok || lo != 0.9 || hi != 1.2 {
		t.Errorf("roundRatios = %v, %v, %v; want 0.9, 1.2, skipping the round of 0", lo, hi, ok)
	}
	if _, _, ok := roundRatios(nil, nil); ok {
		t.Error("roundRatios of no rounds: ok")
	}
}

// tableRows reads the table's rows by label, checking that every line of
// it, headings too, is as wide as the others: the columns are aligned.
func tableRows(t *testing.T, text string) map[string][]string {
	t.Helper()
	return rowsUnder(t, text, "phase ")
}

// rowsUnder is tableRows for the table whose header starts with heading.
func rowsUnder(t *testing.T, text, heading string) map[string][]string {
	t.Helper()
	lines := strings.Split(text, "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, heading) })
	if start < 1 {
		t.Fatalf("no table:\n%s", text)
	}
	rows := map[string][]string{}
	width := utf8.RuneCountInString(lines[start])
	for _, l := range lines[start+1:] {
		if l == "" {
			break
		}
		if n := utf8.RuneCountInString(l); n != width {
			t.Errorf("line %q is %d wide, the header %d", l, n, width)
		}
		cells := regexp.MustCompile(` {3,}`).Split(l, -1)
		rows[cells[0]] = cells[1:]
	}
	return rows
}

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds minisqs and the floor once per test run.
func binaries(t *testing.T) (minisqs, floor string) {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "benchload-bin"); buildErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", binDir+"/", "github.com/minisqs/minisqs/cmd/minisqs", "github.com/minisqs/minisqs/internal/benchfloor").CombinedOutput()
		if err != nil {
			buildErr = &buildError{err, out}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, "minisqs"), filepath.Join(binDir, "benchfloor")
}

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + string(e.out) }

// TestRunWithoutValgrind drives both servers in both modes through every
// phase, with few messages, and checks that each figure was measured.
func TestRunWithoutValgrind(t *testing.T) {
	minisqs, floor := binaries(t)
	for _, mode := range []string{"memory", "db"} {
		b, err := newBench(config{minisqs: minisqs, floor: floor, mode: mode, msgs: 10, cpuMsgs: 200, cpuRounds: 2, idle: 2 * time.Millisecond}, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		defer b.close()
		res, err := b.measureAll(context.Background())
		if err != nil {
			t.Fatalf("mode %s: %v", mode, err)
		}
		if res.instr != nil {
			t.Errorf("mode %s: instruction counts without valgrind: %v", mode, res.instr)
		}
		for name, phases := range map[string][]string{floorName: {"send", "receive", "cycle", "idle"}, mainName: {"send", "receive", "cycle", "idle"}, otherName: {"cycle"}} {
			f := res.cpu[name]
			if len(f) != len(phases) {
				t.Errorf("mode %s, %s: figures %v, want %v", mode, name, f, phases)
			}
			for _, ph := range phases {
				if v, ok := f[ph]; !ok || v < 0 {
					t.Errorf("mode %s, %s, %s: CPU %v (measured: %v)", mode, name, ph, v, ok)
				}
				if got := res.cpuRounds[name][ph]; len(got) != 2 {
					t.Errorf("mode %s, %s, %s: rounds %v, want 2", mode, name, ph, got)
				}
			}
		}
	}
}

// TestCallgrindMeter counts the floor's instructions for one phase under
// callgrind: a count of instructions, per message, that no idle server
// reaches.
func TestCallgrindMeter(t *testing.T) {
	tool := callgrindTool{lookPath("valgrind"), lookPath("callgrind_control")}
	if tool.valgrind == "" || tool.control == "" {
		testenv.Missing(t, "valgrind (Debian's valgrind package) is not installed")
	}
	minisqs, floor := binaries(t)
	b, err := newBench(config{minisqs: minisqs, floor: floor, mode: "memory"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	floorSrv, mainSrv, _ := b.servers()
	if err := b.record(context.Background(), mainSrv); err != nil {
		t.Fatal(err)
	}
	f, err := b.measure(context.Background(), floorSrv, phases(0)[:1], 20, tool)
	if err != nil {
		t.Fatal(err)
	}
	// A SendMessageBatch of 10 through net/http takes some thousands of
	// instructions a message; the instructions of an idle Go server over the
	// phase would be tens a message.
	if got := f["send"]; got < 1000 || got > 10_000_000 {
		t.Errorf("floor's send: %v instructions a message, want thousands", got)
	}
}

func TestPollersFlags(t *testing.T) {
	base := []string{"-minisqs", "m", "-floor", "f"}
	cfg, err := parseFlags(base, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.table || cfg.pollers != (pollersConfig{n: 1000, sends: 200, idle: 10 * time.Second}) {
		t.Errorf("defaults: table %v, pollers %+v", cfg.table, cfg.pollers)
	}
	if cfg, err = parseFlags(append(base, "-table=false", "-pollers", "0"), func(string) string { return "" }); err != nil || cfg.table || cfg.pollers.n != 0 {
		t.Errorf("-table=false -pollers 0: %+v, %v", cfg, err)
	}
	for _, bad := range [][]string{
		append(base, "-pollers", "-1"),
		append(base, "-poller-sends", "0"),
		append(base, "-poller-idle", "0s"),
		append(base, "-poller-idle", "18s"), // with the settling, past the polls' first wait
	} {
		if _, err := parseFlags(bad, func(string) string { return "" }); err == nil {
			t.Errorf("parseFlags(%q): no error", bad)
		}
	}
}

func TestPercentile(t *testing.T) {
	r := pollersResult{}
	for i := 1; i <= 200; i++ {
		r.latency = append(r.latency, time.Duration(i)*time.Millisecond)
	}
	for p, want := range map[float64]time.Duration{50: 100 * time.Millisecond, 99: 198 * time.Millisecond, 100: 200 * time.Millisecond, 0.1: time.Millisecond} {
		if got := r.percentile(p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	if got := (pollersResult{}).percentile(50); got != 0 {
		t.Errorf("p50 of none = %v", got)
	}
}

// TestPollers runs the pollers phase with a few polls and sends: every send
// is received, each once, and the figures are measured.
func TestPollers(t *testing.T) {
	minisqs, floor := binaries(t)
	b, err := newBench(config{minisqs: minisqs, floor: floor, mode: "memory"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	r, err := b.measurePollers(context.Background(), pollersConfig{n: 20, sends: 10, idle: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.n != 20 || len(r.latency) != 10 || r.threads < 1 || r.idleCPU.ticks < 0 || r.sendCPU.sched <= 0 {
		t.Errorf("result %+v: want 20 polls, 10 latencies, the server's threads and its CPU over the sends", r)
	}
	if !slices.IsSorted(r.latency) || r.latency[0] <= 0 {
		t.Errorf("latencies %v: want positive, sorted", r.latency)
	}
	var out bytes.Buffer
	writePollers(&out, r)
	for _, want := range []string{"pollers: 20 long polls", "idle 10ms: server CPU", "10 sends one at a time", "p99", "µs a send"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestWriteDeep(t *testing.T) {
	cfg := config{deep: 1_000_000, cpuMsgs: 50000}
	memory := deepFigures{fill: 40 * time.Second, rss: 300 << 20, receive: 39, shallow: 30}
	db := deepFigures{fill: 50 * time.Second, rss: 400 << 20, fileSize: 420 << 20, open: 1500 * time.Millisecond, openCPU: 1250 * time.Millisecond, openRSS: 500 << 20, receive: 50, shallow: 40}
	var out bytes.Buffer
	writeDeep(&out, cfg, memory, db)
	rows := rowsUnder(t, out.String(), "measure ")
	want := map[string][]string{
		"fill, messages/s":                          {"25,000", "20,000", "-", "-"},
		"RSS after the fill, MB":                    {"300", "400", "<= 350 in memory", "yes"},
		"file, MB":                                  {"-", "420", "-", "-"},
		"restart to first answer, s":                {"-", "1.50", "<= 1", "no"},
		"restart to first answer, CPU s":            {"-", "1.25", "-", "-"},
		"RSS after the restart, MB":                 {"-", "500", "-", "-"},
		"receive + delete at the depth, CPU µs/msg": {"39.00", "50.00", "-", "-"},
		"receive + delete at 1,000, CPU µs/msg":     {"30.00", "40.00", "-", "-"},
		"ratio":                                     {"1.30x", "1.25x", "<= 1.3x", "yes"},
	}
	if !maps.EqualFunc(rows, want, slices.Equal) {
		t.Errorf("rows %q, want %q:\n%s", rows, want, out.String())
	}

	// The RSS's and the restart's targets are for a million messages.
	cfg.deep = 20000
	out.Reset()
	writeDeep(&out, cfg, memory, db)
	rows = rowsUnder(t, out.String(), "measure ")
	for label, cells := range map[string][]string{"RSS after the fill, MB": {"300", "400", "-", "-"}, "restart to first answer, s": {"-", "1.50", "-", "-"}} {
		if !slices.Equal(rows[label], cells) {
			t.Errorf("%d messages, %s: %q, want %q", cfg.deep, label, rows[label], cells)
		}
	}
}

// TestDeepWithoutValgrind fills a small deep queue in both modes and
// checks that each figure was measured: the restarts on the --db file
// found every message.
func TestDeepWithoutValgrind(t *testing.T) {
	minisqs, floor := binaries(t)
	b, err := newBench(config{minisqs: minisqs, floor: floor, mode: "memory", cpuMsgs: 1200, deep: 2000}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	memory, db, err := b.measureDeep(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []deepFigures{memory, db} {
		if f.fill <= 0 || f.rss <= 0 || f.receive < 0 || f.shallow < 0 {
			t.Errorf("figures %+v: a fill, an RSS and receives measured", f)
		}
	}
	if memory.fileSize != 0 || memory.open != 0 {
		t.Errorf("in memory: file %d, open %v; want neither", memory.fileSize, memory.open)
	}
	// 2,000 messages of 200 bytes take more than 400 kB of file.
	if db.fileSize < 2000*200 || db.open <= 0 || db.openCPU < 0 || db.openRSS <= 0 {
		t.Errorf("with --db: file %d bytes, open %v, CPU %v, RSS %d; want all measured", db.fileSize, db.open, db.openCPU, db.openRSS)
	}
}
