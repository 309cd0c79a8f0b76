package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/minisqs/minisqs/internal/sqsload"
)

// The targets for a deep queue: the RSS and the restart's for
// deepTargetMsgs messages, the receive's for any depth.
const (
	deepTargetMsgs    = 1_000_000
	deepRSSTarget     = 350 << 20 // bytes of RSS with the queue full, in memory
	deepOpenTarget    = time.Second
	deepReceiveTarget = 1.3 // receive + delete at the depth, against at shallowDepth
)

const (
	// fillClients send the deep queue's messages concurrently, so that the
	// fill takes seconds rather than minutes.
	fillClients = 4
	// shallowDepth is the depth the deep queue's receives are compared with.
	shallowDepth = 1000
	// opens is how many times the --db server is restarted on its file;
	// the table gives the median.
	opens = 3
)

// deepFigures are what the deep-queue bench measures in one storage mode.
type deepFigures struct {
	fill     time.Duration // to send the messages
	rss      int64         // bytes, once they are all sent
	fileSize int64         // of the --db file once the server has stopped; 0 in memory
	// open is the median time from a restart on the file to the first
	// answer that counts every message, and openCPU the median CPU time
	// the server had used by then, which a busy machine changes less;
	// openRSS is the RSS then. All are 0 in memory.
	open, openCPU time.Duration
	openRSS       int64
	// receive and shallow are µs of CPU a message to receive and delete
	// at the full depth and at shallowDepth.
	receive, shallow float64
}

// measureDeep fills a queue with cfg.deep messages in each storage mode and
// measures the server with them, as deepFigures describes.
func (b *bench) measureDeep(ctx context.Context) (memory, db deepFigures, err error) {
	_, main, other := b.servers()
	if b.cfg.mode == "db" {
		main, other = other, main
	}
	if memory, err = b.deep(ctx, main, false); err != nil {
		return memory, db, fmt.Errorf("%s: %w", main.desc, err)
	}
	if db, err = b.deep(ctx, other, true); err != nil {
		return memory, db, fmt.Errorf("%s: %w", other.desc, err)
	}
	return memory, db, nil
}

// deep measures srv, whose store is a file when durable, with cfg.deep
// messages queued.
func (b *bench) deep(ctx context.Context, srv server, durable bool) (deepFigures, error) {
	var f deepFigures
	fmt.Fprintf(b.log, "bench: %s, filling a queue with %d messages\n", srv.desc, b.cfg.deep)
	p, dir, err := b.start(srv, cpuTool{})
	if err != nil {
		return f, err
	}
	defer os.RemoveAll(dir)
	defer func() { p.Kill() }()
	fail := func(err error) (deepFigures, error) { return f, fmt.Errorf("%w%s", err, logTail(dir)) }

	begin := time.Now()
	if err := fillQueue(ctx, p.URL, b.cfg.deep); err != nil {
		return fail(fmt.Errorf("fill: %w", err))
	}
	f.fill = time.Since(begin)
	if f.rss, err = rss(p.Pid()); err != nil {
		return fail(err)
	}
	if durable {
		var times, cpu []time.Duration
		for range opens {
			if err := p.Stop(syscall.SIGTERM, 2*time.Minute); err != nil {
				return fail(err)
			}
			fi, err := os.Stat(filepath.Join(dir, dbFile))
			if err != nil {
				return fail(err)
			}
			f.fileSize = fi.Size()
			fmt.Fprintf(b.log, "bench: %s, restarting on its file of %d MB\n", srv.desc, f.fileSize>>20)
			begin := time.Now()
			if p, err = b.startIn(dir, srv, cpuTool{}); err != nil {
				return fail(err)
			}
			if err := awaitDepth(ctx, p.URL, b.cfg.deep); err != nil {
				return fail(err)
			}
			times = append(times, time.Since(begin))
			user, system, err := p.CPUTime()
			if err != nil {
				return fail(err)
			}
			cpu = append(cpu, user+system)
			if f.openRSS, err = rss(p.Pid()); err != nil {
				return fail(err)
			}
			fmt.Fprintf(b.log, "bench: %s, answered %.2f s after the restart, CPU %.2f s (user %.2f s)\n",
				srv.desc, times[len(times)-1].Seconds(), (user + system).Seconds(), user.Seconds())
		}
		f.open, f.openCPU = median(times), median(cpu)
	}
	q, err := warmQueue(ctx, p.URL) // the queue stays at its depth
	if err != nil {
		return fail(err)
	}
	m := &cpuMeter{p: p}
	if err := m.start(); err != nil {
		return fail(err)
	}
	if err := q.Drain(ctx, b.cfg.cpuMsgs); err != nil {
		return fail(err)
	}
	if f.receive, err = m.stop(); err != nil {
		return fail(err)
	}
	f.receive /= float64(b.cfg.cpuMsgs)
	if err := p.Stop(os.Interrupt, 2*time.Minute); err != nil {
		return fail(err)
	}
	if f.shallow, err = b.shallowReceive(ctx, srv); err != nil {
		return f, err
	}
	return f, nil
}

// shallowReceive is the CPU time, in µs a message, that srv takes to
// receive and delete cfg.cpuMsgs messages from a queue that holds
// shallowDepth at most: it is filled to that depth and drained, over and
// over, and only the drains are measured.
func (b *bench) shallowReceive(ctx context.Context, srv server) (float64, error) {
	fmt.Fprintf(b.log, "bench: %s, receiving at a depth of %d\n", srv.desc, shallowDepth)
	p, dir, err := b.start(srv, cpuTool{})
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	defer p.Kill()
	q, err := warmQueue(ctx, p.URL)
	if err != nil {
		return 0, err
	}
	var total float64
	for done := 0; done < b.cfg.cpuMsgs; done += shallowDepth {
		n := min(shallowDepth, b.cfg.cpuMsgs-done)
		if _, err := sendPhase(ctx, q, n); err != nil {
			return 0, err
		}
		m := &cpuMeter{p: p}
		if err := m.start(); err != nil {
			return 0, err
		}
		if err := q.Drain(ctx, n); err != nil {
			return 0, err
		}
		us, err := m.stop()
		if err != nil {
			return 0, err
		}
		total += us
	}
	if err := p.Stop(os.Interrupt, 2*time.Minute); err != nil {
		return 0, fmt.Errorf("%w%s", err, logTail(dir))
	}
	return total / float64(b.cfg.cpuMsgs), nil
}

// fillQueue sends n messages, a multiple of the batch size, to the bench's
// queue at url, from fillClients clients at once.
func fillQueue(ctx context.Context, url string, n int) error {
	batches := n / batchSize
	errs := make([]error, fillClients)
	var wg sync.WaitGroup
	for i := range fillClients {
		mine := batches / fillClients
		if i < batches%fillClients {
			mine++
		}
		wg.Go(func() {
			q, err := sqsload.NewQueue(ctx, sqsload.LoopbackClient(url), queueName)
			if err == nil {
				_, err = sendPhase(ctx, q, mine*batchSize)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// awaitDepthTimeout bounds how long a restarted server may take to count
// its messages.
const awaitDepthTimeout = 2 * time.Minute

// awaitDepth asks the server at url for its queue's depth until it answers
// n, or until awaitDepthTimeout.
func awaitDepth(ctx context.Context, url string, n int) error {
	c := sqsload.LoopbackClient(url)
	want := strconv.Itoa(n)
	in := &sqs.GetQueueUrlInput{QueueName: aws.String(queueName)}
	deadline := time.Now().Add(awaitDepthTimeout)
	for {
		got, err := depth(ctx, c, in)
		if err == nil && got == want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("after %v the queue holds %s messages (%v), want %s", awaitDepthTimeout, got, err, want)
		}
		time.Sleep(time.Millisecond)
	}
}

// depth is the queue's ApproximateNumberOfMessages.
func depth(ctx context.Context, c *sqs.Client, in *sqs.GetQueueUrlInput) (string, error) {
	u, err := c.GetQueueUrl(ctx, in)
	if err != nil {
		return "", err
	}
	a, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: u.QueueUrl, AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages}})
	if err != nil {
		return "", err
	}
	return a.Attributes[string(types.QueueAttributeNameApproximateNumberOfMessages)], nil
}

// rss is the resident set of process pid, in bytes, from /proc.
func rss(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(data)) {
		rest, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("VmRSS in /proc/%d/status: %v", pid, err)
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// target ends row with its target and whether it is met, or with "-" for
// both when the target is not for this run.
func target(applies bool, row []string, limit string, met bool) []string {
	if !applies {
		return append(row, "-", "-")
	}
	return append(row, limit, yesNo(met))
}

// writeDeep prints the deep queue's figures in both modes, against the
// issue's targets.
func writeDeep(w io.Writer, cfg config, memory, db deepFigures) {
	fmt.Fprintf(w, "\n%s messages of %d B queued, sent with SendMessageBatch by %d clients at once; median of %d restarts\n\n",
		count(float64(cfg.deep)), sqsload.BodySize, fillClients, opens)
	mb := func(n int64) string { return count(float64(n) / (1 << 20)) }
	rows := [][]string{
		{"measure", "in memory", "--db FILE --fsync everysec", "target", "met"},
		{"fill, messages/s", count(float64(cfg.deep) / memory.fill.Seconds()), count(float64(cfg.deep) / db.fill.Seconds()), "-", "-"},
		target(cfg.deep == deepTargetMsgs, []string{"RSS after the fill, MB", mb(memory.rss), mb(db.rss)}, "<= "+mb(deepRSSTarget)+" in memory", memory.rss <= deepRSSTarget),
		{"file, MB", "-", mb(db.fileSize), "-", "-"},
		target(cfg.deep == deepTargetMsgs, []string{"restart to first answer, s", "-", strconv.FormatFloat(db.open.Seconds(), 'f', 2, 64)}, "<= "+strconv.FormatFloat(deepOpenTarget.Seconds(), 'f', 0, 64), db.open <= deepOpenTarget),
		{"restart to first answer, CPU s", "-", strconv.FormatFloat(db.openCPU.Seconds(), 'f', 2, 64), "-", "-"},
		{"RSS after the restart, MB", "-", mb(db.openRSS), "-", "-"},
		{"receive + delete at the depth, CPU µs/msg", micros(memory.receive), micros(db.receive), "-", "-"},
		{"receive + delete at " + count(shallowDepth) + ", CPU µs/msg", micros(memory.shallow), micros(db.shallow), "-", "-"},
		{"ratio", ratio(memory.receive, memory.shallow), ratio(db.receive, db.shallow), "<= " + strconv.FormatFloat(deepReceiveTarget, 'f', 1, 64) + "x", yesNo(memory.receive <= deepReceiveTarget*memory.shallow && db.receive <= deepReceiveTarget*db.shallow)},
	}
	widths := columnWidths(rows)
	for _, row := range rows {
		fmt.Fprintln(w, alignedLine(row, widths))
	}
	fmt.Fprintf(w, `
RSS: VmRSS of /proc/PID/status. Restart: SIGTERM, then from starting the process on the file
to its first GetQueueAttributes that counts every message, and its CPU time, user + system,
by then. Receive + delete: %s messages, ReceiveMessage of 10 then DeleteMessageBatch, on the
full queue; at %s, on a queue filled to %s and drained, over and over, with only the drains
measured.
`, count(float64(cfg.cpuMsgs)), count(shallowDepth), count(shallowDepth))
}
