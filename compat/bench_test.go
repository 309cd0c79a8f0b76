package compat

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"

	"github.com/minisqs/minisqs/internal/sqsload"
)

// BenchmarkHTTPCycle drives a server with aws-sdk-go-v2 through full cycles
// of SendMessageBatch, ReceiveMessage and DeleteMessageBatch, ten messages
// each (sqsload's workload), from 1, 4 and 16 clients at once, and reports
// the server process's CPU time per message (from /proc) as server-µs/msg,
// and the part of it spent in user space as server-user-µs/msg; the rest
// is the kernel's. The clients run in the benchmark's process, so their
// cost is not counted.
//
// The minisqs runs drive the real binary. The floor runs drive
// internal/benchfloor, a server that does no work: it reads each request
// and answers with what minisqs answered to the same request, recorded
// beforehand. Its figure is the cost of net/http and the kernel alone on
// this machine, the floor under any figure minisqs can reach. scripts/bench
// measures the same with callgrind too.
func BenchmarkHTTPCycle(b *testing.B) {
	servers := []struct {
		name  string
		start func(testing.TB) *process
	}{
		{"minisqs", func(tb testing.TB) *process { return startProcess(tb) }},
		{"floor", startFloorProcess},
	}
	for _, srv := range servers {
		for _, clients := range []int{1, 4, 16} {
			b.Run(fmt.Sprintf("%s/clients=%d", srv.name, clients), func(b *testing.B) {
				benchmarkHTTPCycle(b, srv.start(b), clients)
			})
		}
	}
}

func benchmarkHTTPCycle(b *testing.B, p *process, clients int) {
	ctx := context.Background()
	queues := make([]*sqsload.Queue, clients)
	for i := range queues {
		q, err := sqsload.NewQueue(ctx, processClient(b, p.URL), fmt.Sprintf("bench-%d", i))
		if err != nil {
			b.Fatal(err)
		}
		queues[i] = q
	}
	run := func(n int) {
		var wg sync.WaitGroup
		for _, q := range queues {
			wg.Go(func() {
				for range n {
					if err := q.Cycle(ctx); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
	}
	run(20) // warm up connections and the server's heap
	startUser, startSys := p.cpuTime(b)
	b.ResetTimer()
	run(max(1, b.N/clients))
	b.StopTimer()
	user, sys := p.cpuTime(b)
	user, sys = user-startUser, sys-startSys
	msgs := float64(max(1, b.N/clients) * clients * sqsload.BatchSize)
	b.ReportMetric(float64((user+sys).Microseconds())/msgs, "server-µs/msg")
	b.ReportMetric(float64(user.Microseconds())/msgs, "server-user-µs/msg")
	b.ReportMetric(0, "ns/op")
}

// startFloorProcess records minisqs's answers to one cycle and starts
// internal/benchfloor to give those answers.
func startFloorProcess(tb testing.TB) *process {
	dir := tb.TempDir()
	live := startProcess(tb)
	if err := sqsload.Record(context.Background(), live.URL, dir, "recorded"); err != nil {
		tb.Fatal(err)
	}
	live.stop(tb, os.Interrupt)

	addr := "127.0.0.1:" + strconv.Itoa(freePort(tb))
	cmd := exec.Command(goBinary(tb, "github.com/minisqs/minisqs/internal/benchfloor"), "-dir", dir, "-addr", addr)
	cmd.Stderr = os.Stderr
	return startAndAwait(tb, cmd, "http://"+addr)
}
