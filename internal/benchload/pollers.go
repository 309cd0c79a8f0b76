package main

// The pollers phase: many idle long polls on one queue, what they cost the
// server while nothing happens, and how soon one of them answers after a
// send.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/minisqs/minisqs/internal/serverproc"
	"github.com/minisqs/minisqs/internal/sqsload"
)

// The targets for the pollers phase.
const (
	pollersIdleTarget = 0.2                  // % of a core while idle
	pollersP99Target  = 5 * time.Millisecond // from a send to the answer of the receive that gets it
)

// pollWait is each poll's WaitTimeSeconds, SQS's most.
const pollWait = 20

// pollersQueue is the queue of the pollers phase.
const pollersQueue = "pollers"

// pollerVisibility keeps every received message in flight for the whole
// phase, so that none comes back to be received twice and nothing but the
// sends wakes the polls.
const pollerVisibility = 12 * 60 * 60

// pollersConfig is what the pollers phase measures.
type pollersConfig struct {
	n     int           // concurrent long polls; 0 skips the phase
	sends int           // messages sent one at a time
	idle  time.Duration // the idle window, within each poll's first wait
}

// pollersResult is what the pollers phase measured.
type pollersResult struct {
	n, sends int
	idle     time.Duration
	idleCPU  cpuTime         // the server's CPU time over the idle window
	latency  []time.Duration // from just before each send to the answer of the receive that got it, sorted
	sendCPU  cpuTime         // the server's CPU time over the sends, in all
	threads  int             // the server's threads while the polls wait
}

// cpuTime is a process's CPU time, user and system, as /proc/PID/stat
// counts it, in ticks of 10 ms, and as the scheduler counts it for each of
// its threads in /proc/PID/task/*/schedstat, in nanoseconds.
type cpuTime struct{ ticks, sched time.Duration }

func (a cpuTime) sub(b cpuTime) cpuTime { return cpuTime{a.ticks - b.ticks, a.sched - b.sched} }

// readCPUTime reads the CPU time of p both ways. The schedstat sum misses
// the time of threads that have exited, which the Go runtime seldom does.
func readCPUTime(p *serverproc.Process) (cpuTime, error) {
	user, system, err := p.CPUTime()
	if err != nil {
		return cpuTime{}, err
	}
	t := cpuTime{ticks: user + system}
	files, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", p.Pid()))
	if err != nil {
		return cpuTime{}, err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // the thread has just exited
		}
		fields := strings.Fields(string(data))
		if len(fields) == 0 {
			return cpuTime{}, fmt.Errorf("%s: empty", f)
		}
		ns, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return cpuTime{}, fmt.Errorf("%s: %v", f, err)
		}
		t.sched += time.Duration(ns)
	}
	return t, nil
}

// percentOfCore is d over the window w as a percentage of one core.
func percentOfCore(d, w time.Duration) string {
	return strconv.FormatFloat(100*d.Seconds()/w.Seconds(), 'f', 3, 64) + "%"
}

// percentile is the p-th percentile (0 < p <= 100) of the sorted latencies,
// by the nearest rank.
func (r pollersResult) percentile(p float64) time.Duration {
	if len(r.latency) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(r.latency))+0.999999) - 1
	return r.latency[min(max(rank, 0), len(r.latency)-1)]
}

// settleTime lets the last polls reach their wait in the server before the
// idle window opens.
const settleTime = 2 * time.Second

// answerTimeout bounds the wait for the receive of one message.
const answerTimeout = 10 * time.Second

// measurePollers starts minisqs in memory, opens cfg.n long polls on one
// queue, meters the server's CPU over an idle window, then sends messages
// one at a time and times each until a poll answers with it.
func (b *bench) measurePollers(ctx context.Context, cfg pollersConfig) (pollersResult, error) {
	fmt.Fprintf(b.log, "bench: minisqs in memory with %d long polls, %d sends\n", cfg.n, cfg.sends)
	_, main, other := b.servers()
	srv := main
	if b.cfg.mode == "db" {
		srv = other
	}
	p, dir, err := b.start(srv, cpuTool{})
	if err != nil {
		return pollersResult{}, err
	}
	defer os.RemoveAll(dir)
	defer p.Kill()
	fail := func(err error) (pollersResult, error) {
		return pollersResult{}, fmt.Errorf("pollers: %w%s", err, logTail(dir))
	}

	sender := sqsload.LoopbackClient(p.URL)
	q, err := sender.CreateQueue(ctx, &sqs.CreateQueueInput{
		QueueName:  aws.String(pollersQueue),
		Attributes: map[string]string{"VisibilityTimeout": strconv.Itoa(pollerVisibility)},
	})
	if err != nil {
		return fail(err)
	}
	pollCtx, stopPolls := context.WithCancel(ctx)
	pool := newPollers(pollCtx, pollersClient(p.URL, cfg.n), q.QueueUrl, cfg.n)
	defer pool.stop(stopPolls)

	// The idle window opens once every poll has been sent and the server
	// has had time to park the last.
	if err := pool.awaitStarted(ctx); err != nil {
		return fail(err)
	}
	if err := sleep(ctx, settleTime); err != nil {
		return fail(err)
	}
	res := pollersResult{n: cfg.n, sends: cfg.sends, idle: cfg.idle}
	before, err := readCPUTime(p)
	if err != nil {
		return fail(err)
	}
	if err := sleep(ctx, cfg.idle); err != nil {
		return fail(err)
	}
	after, err := readCPUTime(p)
	if err != nil {
		return fail(err)
	}
	res.idleCPU = after.sub(before)
	if res.threads, err = threads(p.Pid()); err != nil {
		return fail(err)
	}
	if err := pool.failed(); err != nil {
		return fail(err)
	}

	if before, err = readCPUTime(p); err != nil {
		return fail(err)
	}
	for i := range cfg.sends {
		body := strconv.Itoa(i)
		start := time.Now()
		if _, err := sender.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(body)}); err != nil {
			return fail(err)
		}
		at, err := pool.await(ctx, body)
		if err != nil {
			return fail(err)
		}
		res.latency = append(res.latency, at.Sub(start))
	}
	if after, err = readCPUTime(p); err != nil {
		return fail(err)
	}
	res.sendCPU = after.sub(before)
	slices.Sort(res.latency)
	pool.stop(stopPolls)
	if err := p.Stop(os.Interrupt, time.Minute); err != nil {
		return fail(err)
	}
	return res, nil
}

// pollersClient is an SDK client whose transport keeps a connection for
// each of n concurrent calls, so that every poll after the first of each
// goes over a kept-alive connection.
func pollersClient(endpoint string, n int) *sqs.Client {
	tr := awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
		t.MaxIdleConns = n
		t.MaxIdleConnsPerHost = n
		t.MaxConnsPerHost = 0
	}).GetTransport()
	return sqsload.NewClient(endpoint, sqsload.BufferedTransport{Next: tr})
}

// received is one message a poll got, and when its call answered.
type received struct {
	body string
	at   time.Time
}

// pollers are the goroutines that each poll the queue again and again.
type pollers struct {
	started sync.WaitGroup // done once each has sent its first poll
	wg      sync.WaitGroup
	got     chan received
	errMu   sync.Mutex
	err     error
}

func newPollers(ctx context.Context, c *sqs.Client, url *string, n int) *pollers {
	ps := &pollers{got: make(chan received, n)}
	ps.started.Add(n)
	ps.wg.Add(n)
	for range n {
		go ps.poll(ctx, c, url)
	}
	return ps
}

// poll is one poller: long polls for one message at a time until ctx ends.
func (ps *pollers) poll(ctx context.Context, c *sqs.Client, url *string) {
	defer ps.wg.Done()
	first := true
	for ctx.Err() == nil {
		if first {
			first = false
			ps.started.Done()
		}
		r, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 1, WaitTimeSeconds: pollWait})
		at := time.Now()
		if err != nil {
			if ctx.Err() == nil {
				ps.fail(err)
			}
			return
		}
		for _, m := range r.Messages {
			select {
			case ps.got <- received{aws.ToString(m.Body), at}:
			case <-ctx.Done():
				return
			}
		}
	}
}

func (ps *pollers) fail(err error) {
	ps.errMu.Lock()
	defer ps.errMu.Unlock()
	if ps.err == nil {
		ps.err = err
	}
}

// failed is the first error a poll met, if any.
func (ps *pollers) failed() error {
	ps.errMu.Lock()
	defer ps.errMu.Unlock()
	return ps.err
}

// awaitStarted returns once every poller has sent its first poll.
func (ps *pollers) awaitStarted(ctx context.Context) error {
	done := make(chan struct{})
	go func() { ps.started.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// await returns when a poll answered with body.
func (ps *pollers) await(ctx context.Context, body string) (time.Time, error) {
	timeout := time.NewTimer(answerTimeout)
	defer timeout.Stop()
	for {
		select {
		case r := <-ps.got:
			if r.body == body {
				return r.at, nil
			}
			return time.Time{}, fmt.Errorf("a poll got message %q while %q was awaited", r.body, body)
		case <-timeout.C:
			if err := ps.failed(); err != nil {
				return time.Time{}, err
			}
			return time.Time{}, fmt.Errorf("no poll got message %q within %v", body, answerTimeout)
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		}
	}
}

// stop ends the polls and waits for the pollers; it may be called again.
func (ps *pollers) stop(cancel context.CancelFunc) {
	cancel()
	ps.wg.Wait()
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// writePollers prints the pollers phase's figures, a line each.
func writePollers(w io.Writer, r pollersResult) {
	fmt.Fprintf(w, "\npollers: %d long polls (WaitTimeSeconds %d, MaxNumberOfMessages 1) on one queue, minisqs in memory; server threads %d\n", r.n, pollWait, r.threads)
	// The target is judged on the scheduler's count: a tick of /proc/PID/stat
	// over 10 s is 0.1% of a core.
	met := 100*r.idleCPU.sched.Seconds()/r.idle.Seconds() <= pollersIdleTarget
	fmt.Fprintf(w, "pollers: idle %v: server CPU %s of a core by schedstat, %s by /proc/PID/stat's 10 ms ticks (target <= %.1f%%, met %s)\n",
		r.idle, percentOfCore(r.idleCPU.sched, r.idle), percentOfCore(r.idleCPU.ticks, r.idle), pollersIdleTarget, yesNo(met))
	p99 := r.percentile(99)
	fmt.Fprintf(w, "pollers: %d sends one at a time, from just before SendMessage to the answer of the receive that got it: p50 %s, p90 %s, p99 %s, max %s (target p99 < %v, met %s)\n",
		len(r.latency), millis(r.percentile(50)), millis(r.percentile(90)), millis(p99), millis(r.percentile(100)),
		pollersP99Target, yesNo(p99 < pollersP99Target))
	perSend := func(d time.Duration) string { return micros(float64(d.Nanoseconds()) / 1e3 / float64(max(r.sends, 1))) }
	fmt.Fprintf(w, "pollers: server CPU over the sends, µs a send (the send, the answer of the receive that got it, that poller's next poll): %s by schedstat, %s by ticks\n",
		perSend(r.sendCPU.sched), perSend(r.sendCPU.ticks))
}

func millis(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 2, 64) + " ms"
}

// threads is how many threads the process pid has, from /proc/PID/status.
func threads(pid int) (int, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, fmt.Errorf("no Threads line in /proc/%d/status", pid)
}
