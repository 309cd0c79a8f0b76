package engine

import (
	"flag"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

var openMsgs = flag.Int("open-msgs", 100_000, "messages in the store BenchmarkOpen opens")

// BenchmarkOpen opens a store file holding -open-msgs messages of 200
// bytes on one queue, as SendMessageBatch leaves them, and closes it.
func BenchmarkOpen(b *testing.B) {
	path := filepath.Join(b.TempDir(), "open.db")
	e, err := Open(Options{Path: path, Clock: NewManualClock(testStart), Fsync: FsyncNever})
	if err != nil {
		b.Fatal(err)
	}
	q, err := e.CreateQueue("open", AttributeUpdate{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	batch := make([]NewMessage, 10)
	for i := range batch {
		batch[i] = NewMessage{
			Body:       strings.Repeat("a message body of a typical small size. ", 5),
			Attributes: []MessageAttribute{{Name: "kind", DataType: "String", StringValue: "order"}},
		}
	}
	for sent := 0; sent < *openMsgs; sent += len(batch) {
		for _, r := range q.Send(batch[:min(len(batch), *openMsgs-sent)]) {
			if r.Err != nil {
				b.Fatal(r.Err)
			}
		}
	}
	if err := e.Close(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var cpu time.Duration // of the process, which does nothing else meanwhile
	for range b.N {
		before := cpuTime(b)
		e, err := Open(Options{Path: path, Clock: NewManualClock(testStart), Fsync: FsyncNever})
		if err != nil {
			b.Fatal(err)
		}
		if got := e.queues[queueRef{e.DefaultNamespace(), "open"}].msgs.len(); got != *openMsgs {
			b.Fatalf("opened %d messages, want %d", got, *openMsgs)
		}
		cpu += cpuTime(b) - before
		b.StopTimer()
		e.Close()
		b.StartTimer()
	}
	// The machine may be busy with other work: CPU time says more than the
	// time on the clock.
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// cpuTime is the CPU time, user and system, the process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
