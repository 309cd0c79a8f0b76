package engine

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Engine-level benchmarks on an in-memory store and a ManualClock, so the
// sweeper never runs and leases never end on their own.

const benchBody = `{"order":12345,"customer":"c-6789","items":[{"sku":"A1","qty":2}]}`

func benchQueue(b *testing.B) *Queue {
	b.Helper()
	e, _ := newTestEngine(b, Options{})
	q, err := e.CreateQueue("bench", AttributeUpdate{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return q
}

// fill sends n messages in batches of 10.
func fill(b *testing.B, q *Queue, n int) {
	b.Helper()
	batch := make([]NewMessage, 10)
	for i := range batch {
		batch[i] = NewMessage{Body: benchBody}
	}
	for sent := 0; sent < n; sent += len(batch) {
		msgs := batch[:min(len(batch), n-sent)]
		for _, r := range q.Send(msgs) {
			if r.Err != nil {
				b.Fatal(r.Err)
			}
		}
	}
}

func BenchmarkSend(b *testing.B) {
	q := benchQueue(b)
	msg := []NewMessage{{Body: benchBody}}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if r := q.Send(msg); r[0].Err != nil {
			b.Fatal(r[0].Err)
		}
	}
}

// receiveAck receives one message and acknowledges it.
func receiveAck(b *testing.B, q *Queue, ctx context.Context, opts ReceiveOptions) {
	ds, err := q.Receive(ctx, opts)
	if err != nil || len(ds) != 1 {
		b.Fatalf("Receive: %d messages, %v", len(ds), err)
	}
	if err := q.Acknowledge([]string{ds[0].ReceiptHandle})[0]; err != nil {
		b.Fatal(err)
	}
}

func BenchmarkReceiveDelete(b *testing.B) {
	q := benchQueue(b)
	fill(b, q, b.N)
	ctx, opts := context.Background(), ReceiveOptions{MaxMessages: 1, WaitSeconds: ptr(0)}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		receiveAck(b, q, ctx, opts)
	}
}

// BenchmarkReceiveDeleteDepth receives, acknowledges and sends one message
// per op on a queue kept at a constant depth, to show that the cost of a
// receive does not grow with the number of messages queued.
func BenchmarkReceiveDeleteDepth(b *testing.B) {
	for _, depth := range []int{1000, 1000000} {
		b.Run("depth="+strconv.Itoa(depth), func(b *testing.B) {
			// b.Loop runs this function once per -count, so the queue is
			// filled once rather than for every b.N the framework tries;
			// the timer starts at the first b.Loop call.
			q := benchQueue(b)
			fill(b, q, depth)
			if c := q.Counts(); c.Visible != depth {
				b.Fatalf("filled %+v, want %d visible", c, depth)
			}
			ctx, opts := context.Background(), ReceiveOptions{MaxMessages: 1, WaitSeconds: ptr(0)}
			msg := []NewMessage{{Body: benchBody}}
			// Measure the steady state, not the collection of the fill's garbage.
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				receiveAck(b, q, ctx, opts)
				if r := q.Send(msg); r[0].Err != nil {
					b.Fatal(r[0].Err)
				}
			}
			b.StopTimer()
			if c := q.Counts(); c.Visible != depth || c.InFlight != 0 {
				b.Fatalf("depth drifted: %+v", c)
			}
		})
	}
}

// BenchmarkQueuedMessageMemory reports the live heap that each message on a
// queue of a million costs, its 66-byte body included, as heap-B/msg.
func BenchmarkQueuedMessageMemory(b *testing.B) {
	const depth = 1000000
	var perMessage float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		q := benchQueue(b)
		fill(b, q, depth)
		runtime.GC()
		runtime.ReadMemStats(&after)
		perMessage = float64(after.HeapAlloc-before.HeapAlloc) / depth
		runtime.KeepAlive(q)
	}
	b.ReportMetric(perMessage, "heap-B/msg")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkFIFOReceiveDeleteGroups receives, acknowledges and sends one
// message per op on a FIFO queue whose messages are spread over many
// groups, to show that the cost of finding the next group does not grow
// with their number.
func BenchmarkFIFOReceiveDeleteGroups(b *testing.B) {
	for _, groups := range []int{10, 100000} {
		b.Run("groups="+strconv.Itoa(groups), func(b *testing.B) {
			e, _ := newTestEngine(b, Options{})
			q, err := e.CreateQueue("bench.fifo", AttributeUpdate{FifoQueue: ptr(true), ContentBasedDeduplication: ptr(true)}, nil)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			next := func() []NewMessage {
				n++
				return []NewMessage{{Body: benchBody + strconv.Itoa(n), GroupID: strconv.Itoa(n % groups)}}
			}
			for range 2 * groups {
				if r := q.Send(next()); r[0].Err != nil {
					b.Fatal(r[0].Err)
				}
			}
			ctx, opts := context.Background(), ReceiveOptions{MaxMessages: 1, WaitSeconds: ptr(0)}
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				receiveAck(b, q, ctx, opts)
				if r := q.Send(next()); r[0].Err != nil {
					b.Fatal(r[0].Err)
				}
			}
		})
	}
}

// BenchmarkCycleBatch sends, receives and acknowledges ten messages per op,
// each of 200 bytes with one attribute, as scripts/bench's cycle does, in
// each store mode; allocs/op divided by ten is the engine's allocations
// per message.
func BenchmarkCycleBatch(b *testing.B) {
	for _, mode := range []string{"memory", "file"} {
		b.Run(mode, func(b *testing.B) {
			opts := Options{Fsync: FsyncNever}
			if mode == "file" {
				opts.Path = b.TempDir() + "/store.db"
			}
			e, _ := newTestEngine(b, opts)
			q, err := e.CreateQueue("cycle", AttributeUpdate{}, nil)
			if err != nil {
				b.Fatal(err)
			}
			batch := make([]NewMessage, 10)
			for i := range batch {
				batch[i] = NewMessage{
					Body:       strings.Repeat("x", 200),
					Attributes: []MessageAttribute{{Name: "kind", DataType: "String", StringValue: "order"}},
				}
			}
			ctx, opts10 := context.Background(), ReceiveOptions{MaxMessages: 10, WaitSeconds: ptr(0)}
			handles := make([]string, 0, 10)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				for _, r := range q.Send(batch) {
					if r.Err != nil {
						b.Fatal(r.Err)
					}
				}
				ds, err := q.Receive(ctx, opts10)
				if err != nil || len(ds) != 10 {
					b.Fatalf("Receive: %d messages, %v", len(ds), err)
				}
				handles = handles[:0]
				for _, d := range ds {
					handles = append(handles, d.ReceiptHandle)
				}
				for _, err := range q.Acknowledge(handles) {
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
