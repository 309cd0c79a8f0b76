package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// dbTarget is the target for the cycle with a --db file, as a
// ratio to memory.
const dbTarget = 1.2

// writeTable prints the figures as an aligned table, with the ratio of
// each of minisqs's figures to the floor's, then the ratio of the cycle
// with a --db file to the cycle in memory.
func writeTable(w io.Writer, cfg config, res results) {
	mainMode := "in memory"
	if cfg.mode == "db" {
		mainMode = "with --db FILE --fsync everysec"
	}
	fmt.Fprintf(w, "minisqs %s against the floor; one aws-sdk-go-v2 client on 127.0.0.1; GOMAXPROCS=2\n", mainMode)
	if res.instr != nil {
		fmt.Fprintf(w, "instructions: %d messages a phase under callgrind; ", cfg.msgs)
	} else {
		fmt.Fprint(w, "instructions: skipped, no valgrind with callgrind_control; ")
	}
	fmt.Fprintf(w, "CPU: median of %d interleaved rounds of %d messages a phase without valgrind\n\n", cfg.cpuRounds, cfg.cpuRoundMsgs())

	rows := [][]string{{"phase", "minisqs", "floor", "ratio", "target", "met", "minisqs", "floor", "ratio"}}
	add := func(label, server string, ph phase) {
		perMsg := ph.name != idlePhase
		instr, floorInstr := res.instr[server][ph.name], res.instr[floorName][ph.name]
		cpu, floorCPU := res.cpu[server][ph.name], res.cpu[floorName][ph.name]
		row := []string{label, "-", "-", "-", "-", "-"}
		if ph.limit > 0 && server == mainName {
			row[4] = "<= " + strconv.Itoa(int(ph.limit/1000)) + "k"
		}
		if res.instr != nil {
			row[1], row[2], row[3] = count(instr), count(floorInstr), ratio(instr, floorInstr)
			if ph.limit > 0 && server == mainName {
				row[5] = yesNo(instr <= ph.limit)
			}
		}
		if perMsg {
			row = append(row, micros(cpu), micros(floorCPU))
		} else {
			row = append(row, count(cpu), count(floorCPU))
		}
		rows = append(rows, append(row, ratio(cpu, floorCPU)))
	}
	all := phases(cfg.idle)
	for _, ph := range all {
		add(ph.label, mainName, ph)
	}
	// The other mode runs the cycle only.
	otherLabel := "cycle --db everysec, per msg"
	if cfg.mode == "db" {
		otherLabel = "cycle in memory, per msg"
	}
	add(otherLabel, otherName, all[2])

	widths := columnWidths(rows)
	// Headings over the two groups of columns: instructions (1 to 5) and
	// CPU time (6 to 8).
	instrAt := widths[0]
	cpuAt := instrAt
	for _, wd := range widths[1:6] {
		cpuAt += len(gap) + wd
	}
	heading := fmt.Sprintf("%-*s%s", instrAt+len(gap), "", "user-space instructions (callgrind)")
	heading = fmt.Sprintf("%-*s%s", cpuAt+len(gap), heading, "server CPU µs, user+system (/proc)")
	fmt.Fprintln(w, heading)
	for _, row := range rows {
		fmt.Fprintln(w, alignedLine(row, widths))
	}

	memory, db := mainName, otherName
	if cfg.mode == "db" {
		memory, db = db, memory
	}
	fmt.Fprintf(w, "\ncycle with --db FILE --fsync everysec / in memory:")
	if res.instr != nil {
		fmt.Fprintf(w, " instructions %s,", ratio(res.instr[db]["cycle"], res.instr[memory]["cycle"]))
	}
	fmt.Fprintf(w, " CPU %s (target <= %.1fx), the ratio of the medians", ratio(res.cpu[db]["cycle"], res.cpu[memory]["cycle"]), dbTarget)
	if lo, hi, ok := roundRatios(res.cpuRounds[db]["cycle"], res.cpuRounds[memory]["cycle"]); ok {
		fmt.Fprintf(w, "; round by round %s to %s", ratio(lo, 1), ratio(hi, 1))
	}
	fmt.Fprintln(w)

	fmt.Fprintf(w, `
ratio: minisqs / floor. The floor (internal/benchfloor) answers each request with minisqs's
recorded answer and does nothing else: the cost of the Go runtime, net/http and the kernel.
send: SendMessageBatch of 10 messages of 200 B; receive + delete: ReceiveMessage of 10, then
DeleteMessageBatch of 10; cycle: both on one batch; idle: no requests, figures in total.
Instructions count user space only, in one run of each server. CPU time comes from
/proc/PID/stat in 10 ms ticks: each server is started once and warmed up, then each phase runs
in %d rounds of %s messages, every server in turn in each round, in an order that reverses
from round to round, so that a burst of other load falls on all alike; a figure is the median
of the rounds (a tick is %s µs a message in a round), and idle is the sum of %d windows of %v.
`, cfg.cpuRounds, count(float64(cfg.cpuRoundMsgs())), micros(1e4/float64(cfg.cpuRoundMsgs())), cfg.cpuRounds, cfg.cpuRoundIdle())
}

// roundRatios are the least and the greatest of a[i]/b[i], one ratio a
// round; ok is false without rounds to compare.
func roundRatios(a, b []float64) (lo, hi float64, ok bool) {
	for i := range min(len(a), len(b)) {
		if b[i] == 0 {
			continue
		}
		r := a[i] / b[i]
		if !ok || r < lo {
			lo = r
		}
		if !ok || r > hi {
			hi = r
		}
		ok = true
	}
	return lo, hi, ok
}

// gap is the space between a table's columns.
const gap = "   "

// columnWidths is the width of each column of rows, in runes.
func columnWidths(rows [][]string) []int {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], len([]rune(cell)))
		}
	}
	return widths
}

// alignedLine is row in columns of widths: the first to the left, the
// others to the right.
func alignedLine(row []string, widths []int) string {
	var b strings.Builder
	for i, cell := range row {
		pad := strings.Repeat(" ", widths[i]-len([]rune(cell)))
		if i == 0 {
			b.WriteString(cell + pad)
		} else {
			b.WriteString(gap + pad + cell)
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// count is n rounded, with thousands separated.
func count(n float64) string {
	s := strconv.FormatInt(int64(math.Round(n)), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func micros(us float64) string { return strconv.FormatFloat(us, 'f', 2, 64) }

// ratio is a/b, or "-" when b is 0.
func ratio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return strconv.FormatFloat(a/b, 'f', 2, 64) + "x"
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}
