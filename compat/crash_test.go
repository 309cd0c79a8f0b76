package compat

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
)

// The crash test's load and its bounds: about 25 s of load in all, then one
// lease's wait before the queues are drained, well under two minutes on two
// cores.
const (
	crashRounds = 12
	// crashLease is every receive's visibility timeout, in seconds: longer
	// than a round, so a lease taken before a kill must hold through the
	// round after the restart.
	crashLease     = 30
	crashMinRun    = 300 * time.Millisecond
	crashMaxRun    = 3 * time.Second
	crashStdProds  = 3
	crashFIFOProds = 2
	// Each FIFO producer sends to its groups in turn, so that a group held
	// up by a lease leaves others to consume.
	crashGroupsPerProd = 6
	crashStdConsumers  = 2
	crashFIFOConsumers = 2
	// A standard consumer leaves every crashHoldEvery-th message in flight
	// on its first delivery, so that leases are open whenever the kill comes.
	crashHoldEvery = 10
)

// TestCrashRecovery drives a standard queue and two FIFO queues, one busy
// and one kept nearly empty, with producers and consumers (aws-sdk-go-v2
// against the binary, --fsync always), kills the server with SIGKILL at
// random moments, restarts it on the same file and checks what an
// acknowledged call promises:
//
//   - no send that got an answer is lost: after each restart the queue holds
//     at least the acknowledged messages not yet deleted, and at the end,
//     once drained, every one of them was deleted;
//   - no delete that got an answer is undone: the message never comes back;
//   - leases hold to their deadline: a message is never delivered twice
//     within one visibility timeout, kills or not;
//   - FIFO order holds within each group, and SequenceNumbers keep rising
//     across restarts and are never given twice.
//
// A call the kill cut off has an unknown outcome: a send may have been
// stored (the producer sends the message again, and the queue may then hold
// it twice), a delete may have been done. Neither counts as a failure; a
// duplicate is a message more, never one less. Only the kill timing is
// random; MINISQS_CRASH_SEED repeats a run's timing.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts the server for a minute")
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("MINISQS_CRASH_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("MINISQS_CRASH_SEED: %v", err)
		}
	}
	t.Logf("kill timing seed %d (MINISQS_CRASH_SEED=%d repeats it)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 0))

	ctx, cancelAll := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancelAll()
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	args := []string{"--db", filepath.Join(t.TempDir(), "minisqs.db"), "--fsync", "always"}
	p := startProcessOn(t, addr, args...)
	admin := processClient(t, p.URL)

	std := &crashQueue{name: "crash-std"}
	fifo := &crashQueue{name: "crash.fifo", fifo: true}
	lockstep := &crashQueue{name: "crash-lockstep.fifo", fifo: true}
	queues := []*crashQueue{std, fifo, lockstep}
	for _, q := range queues {
		attrs := map[string]string{"VisibilityTimeout": strconv.Itoa(crashLease)}
		if q.fifo {
			attrs["FifoQueue"] = "true"
		}
		out, err := admin.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: &q.name, Attributes: attrs})
		if err != nil {
			t.Fatal(err)
		}
		q.url = *out.QueueUrl
	}

	l := &crashLedger{attempted: map[string]crashMeta{}, seen: map[string]bool{}, spanned: map[*crashDelivery]bool{}}
	var workers []func(context.Context, *crashLedger)
	for n := range crashStdProds {
		pr := &crashProducer{q: std, name: fmt.Sprintf("p%d", n)}
		c := processClient(t, p.URL)
		workers = append(workers, func(ctx context.Context, l *crashLedger) {
			for ctx.Err() == nil {
				pr.sendOnce(ctx, c, l)
			}
		})
	}
	for n := range crashFIFOProds {
		pr := &crashProducer{q: fifo, name: fmt.Sprintf("p%d", n), groups: crashGroups(fmt.Sprintf("p%dg", n), crashGroupsPerProd)}
		c := processClient(t, p.URL)
		workers = append(workers, func(ctx context.Context, l *crashLedger) {
			for ctx.Err() == nil {
				pr.sendOnce(ctx, c, l)
			}
		})
	}
	for n := range crashStdConsumers + crashFIFOConsumers {
		cs := &crashConsumer{q: std, hold: true}
		if n >= crashStdConsumers {
			cs = &crashConsumer{q: fifo}
		}
		c := processClient(t, p.URL)
		workers = append(workers, func(ctx context.Context, l *crashLedger) { cs.run(ctx, c, l) })
	}
	{
		// The lockstep client sends a message and then receives it, each in
		// a group of its own so that a lease a kill leaves open holds up no
		// other: its queue is empty at most kills, or holds only messages
		// older than the last one sent.
		pr := &crashProducer{q: lockstep, name: "l", groupEach: true}
		cs := &crashConsumer{q: lockstep}
		c := processClient(t, p.URL)
		workers = append(workers, func(ctx context.Context, l *crashLedger) {
			for ctx.Err() == nil {
				if pr.sendOnce(ctx, c, l) {
					cs.receiveOnce(ctx, c, l, 0)
				}
			}
		})
	}

	for round := 1; round <= crashRounds; round++ {
		roundCtx, stopRound := context.WithCancel(ctx)
		var wg sync.WaitGroup
		for _, w := range workers {
			wg.Go(func() { w(roundCtx, l) })
		}
		run := crashMinRun + time.Duration(rng.Int64N(int64(crashMaxRun-crashMinRun)))
		time.Sleep(run)

		// From here on an answer may or may not have come from the process
		// about to die; only answers recorded before count as its own.
		l.mu.Lock()
		l.epoch++
		l.mu.Unlock()
		p.kill9(t)
		killed := time.Now()
		stopRound()
		wg.Wait()
		p = startProcessOn(t, addr, args...)
		l.mu.Lock()
		l.epoch++
		l.mu.Unlock()
		crashCheckRestart(t, ctx, admin, l, queues, round, run, time.Since(killed))
		if ctx.Err() != nil {
			t.Fatalf("out of time after round %d", round)
		}
	}

	// Wait out every lease a receive may have taken, then drain the queues:
	// whatever an acknowledged send stored is then deleted by an
	// acknowledged delete, or was deleted before.
	l.mu.Lock()
	leasesEnd := l.lastReceiveEnd.Add(crashLease * time.Second)
	l.mu.Unlock()
	time.Sleep(time.Until(leasesEnd))
	drainer := processClient(t, p.URL)
	drained := true
	for _, q := range queues {
		if !crashDrain(t, ctx, drainer, admin, l, q) {
			drained = false
		}
	}
	p.stop(t, syscall.SIGTERM)

	f := crashAnalyze(t, l, queues, drained)
	t.Logf("%d rounds (seed %d): %d acknowledged sends (%d standard, %d FIFO), %d deliveries, "+
		"%d acknowledged deletes, %d deletes cut off by a kill, %d duplicates from sends sent again, "+
		"%d leases open across a kill; lost %d, undone %d, leases broken %d, FIFO order broken %d, "+
		"sequence numbers given twice %d, not rising %d, unknown or altered messages %d, errors from a live server %d",
		crashRounds, seed, f.stdSends+f.fifoSends, f.stdSends, f.fifoSends, f.deliveries,
		f.deletes, f.cutDeletes, f.duplicates, len(l.spanned), f.lost, f.undone, f.leaseBroken, f.orderBroken,
		f.seqTwice, f.seqFell, f.phantoms, len(l.apiErrors))
	for i, e := range l.apiErrors {
		if i == 10 {
			t.Errorf("and %d more errors from a live server", len(l.apiErrors)-i)
			break
		}
		t.Errorf("error from a live server: %s", e)
	}
}

type crashQueue struct {
	name, url string
	fifo      bool
}

// crashMeta is what a message's body stands for.
type crashMeta struct {
	q     *crashQueue
	group string
	index int // the message's place in its group, or its producer's sends
}

// crashLedger records every call's outcome, with its times, for the checks.
// Its lock also orders the records: a consumer records a delivery before it
// deletes the message, so a delivery that the delete made possible is
// recorded after it.
type crashLedger struct {
	mu sync.Mutex
	// epoch is 2n while process n serves, and odd from just before a kill
	// until the next process answers.
	epoch      int
	sends      []*crashSend
	deliveries []*crashDelivery
	attempted  map[string]crashMeta    // by body: every message a producer tried to send
	seen       map[string]bool         // bodies delivered at least once
	spanned    map[*crashDelivery]bool // deliveries whose lease was open across a kill
	batches    int                     // receive answers recorded
	// lastReceiveEnd is when the last receive call returned, answered or
	// not: no lease taken by a receive lasts beyond it plus crashLease.
	lastReceiveEnd time.Time
	apiErrors      []string
}

// crashSend is an acknowledged send.
type crashSend struct {
	q                    *crashQueue
	producer             *crashProducer
	body                 string
	id, seq              string
	epochStart, epochEnd int
}

// crashDelivery is a message as one receive answered it, and the delete
// that followed, if any.
type crashDelivery struct {
	q                   *crashQueue
	id, body, handle    string
	group, seq          string // system attributes, on a FIFO queue
	start, end          time.Time
	batch               int       // the receive answer's place in the ledger
	deleteStart         time.Time // zero if no delete was tried
	deleteEnd           time.Time
	deleteOK            bool
	epoch               int  // the ledger's epoch when the receive began
	deletedByAnswer     bool // the delete was answered while the lease held
	deleteCutOffByAKill bool
}

// noteAPIError keeps an error answer of a server that was alive all through
// the call: none is expected.
func (l *crashLedger) noteAPIError(what string, epochStart int, err error) {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.epoch == epochStart {
		l.apiErrors = append(l.apiErrors, fmt.Sprintf("%s: %v", what, err))
	}
}

func (l *crashLedger) currentEpoch() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.epoch
}

type crashProducer struct {
	q      *crashQueue
	name   string
	groups []string // FIFO: the groups it sends to in turn
	// groupEach puts each FIFO message in a group of its own instead.
	groupEach bool
	sent      int // acknowledged sends
}

func crashGroups(prefix string, n int) []string {
	gs := make([]string, n)
	for i := range gs {
		gs[i] = prefix + strconv.Itoa(i)
	}
	return gs
}

// message is the producer's next message, the same until a send of it is
// acknowledged. Bodies name the producer, group and place: a body never
// repeats, so a message seen twice is the same send.
func (p *crashProducer) message() (body string, m crashMeta) {
	if !p.q.fifo {
		return fmt.Sprintf("std-%s-%d", p.name, p.sent), crashMeta{q: p.q, index: p.sent}
	}
	if p.groupEach {
		g := p.name + strconv.Itoa(p.sent)
		return "fifo-" + g, crashMeta{q: p.q, group: g}
	}
	g := p.groups[p.sent%len(p.groups)]
	i := p.sent / len(p.groups)
	return fmt.Sprintf("fifo-%s-%d", g, i), crashMeta{q: p.q, group: g, index: i}
}

// sendOnce sends the producer's next message and reports whether the send
// was acknowledged.
func (p *crashProducer) sendOnce(ctx context.Context, c *sqsv2.Client, l *crashLedger) bool {
	body, meta := p.message()
	in := &sqsv2.SendMessageInput{QueueUrl: &p.q.url, MessageBody: &body}
	if p.q.fifo {
		in.MessageGroupId = &meta.group
		in.MessageDeduplicationId = &body
	}
	l.mu.Lock()
	l.attempted[body] = meta
	e0 := l.epoch
	l.mu.Unlock()
	out, err := c.SendMessage(ctx, in)
	if err != nil {
		l.noteAPIError("SendMessage "+body, e0, err)
		crashPause(ctx)
		return false
	}
	l.mu.Lock()
	l.sends = append(l.sends, &crashSend{
		q: p.q, producer: p, body: body, id: awsv2.ToString(out.MessageId),
		seq: awsv2.ToString(out.SequenceNumber), epochStart: e0, epochEnd: l.epoch,
	})
	l.mu.Unlock()
	p.sent++
	return true
}

// crashRound names the part of the test a ledger epoch falls in.
func crashRound(epoch int) string {
	if r := epoch/2 + 1; r <= crashRounds {
		return "round " + strconv.Itoa(r)
	}
	return "the drain"
}

// crashPause keeps a worker from spinning on a dead server.
func crashPause(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(20 * time.Millisecond):
	}
}

type crashConsumer struct {
	q    *crashQueue
	hold bool // leave every crashHoldEvery-th message in flight on its first delivery
}

func (cs *crashConsumer) run(ctx context.Context, c *sqsv2.Client, l *crashLedger) {
	for ctx.Err() == nil {
		if _, err := cs.receiveOnce(ctx, c, l, 1); err != nil {
			crashPause(ctx)
		}
	}
}

// receiveOnce receives up to ten messages and deletes them in order, but
// those it holds; after a failed delete it leaves the rest to come back.
func (cs *crashConsumer) receiveOnce(ctx context.Context, c *sqsv2.Client, l *crashLedger, wait int32) (int, error) {
	e0 := l.currentEpoch()
	start := time.Now()
	out, err := c.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{
		QueueUrl: &cs.q.url, MaxNumberOfMessages: 10, VisibilityTimeout: crashLease, WaitTimeSeconds: wait,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{
			types.MessageSystemAttributeNameSequenceNumber, types.MessageSystemAttributeNameMessageGroupId,
		},
	})
	end := time.Now()
	l.mu.Lock()
	l.lastReceiveEnd = end
	l.mu.Unlock()
	if err != nil {
		l.noteAPIError("ReceiveMessage", e0, err)
		return 0, err
	}

	l.mu.Lock()
	l.batches++
	ds := make([]*crashDelivery, len(out.Messages))
	hold := make([]bool, len(out.Messages))
	for i, m := range out.Messages {
		d := &crashDelivery{
			q: cs.q, id: awsv2.ToString(m.MessageId), body: awsv2.ToString(m.Body), handle: awsv2.ToString(m.ReceiptHandle),
			group: m.Attributes[string(types.MessageSystemAttributeNameMessageGroupId)],
			seq:   m.Attributes[string(types.MessageSystemAttributeNameSequenceNumber)],
			start: start, end: end, batch: l.batches, epoch: e0,
		}
		meta, known := l.attempted[d.body]
		hold[i] = cs.hold && known && meta.index%crashHoldEvery == 0 && !l.seen[d.body]
		l.seen[d.body] = true
		l.deliveries = append(l.deliveries, d)
		ds[i] = d
	}
	l.mu.Unlock()

	for i, d := range ds {
		if hold[i] {
			continue
		}
		l.mu.Lock()
		d.deleteStart = time.Now()
		e0 := l.epoch
		l.mu.Unlock()
		_, err := c.DeleteMessage(ctx, &sqsv2.DeleteMessageInput{QueueUrl: &cs.q.url, ReceiptHandle: &d.handle})
		l.mu.Lock()
		d.deleteEnd = time.Now()
		d.deleteOK = err == nil
		// A standard queue answers success to a handle whose lease has
		// ended and whose message was received again, without deleting:
		// only a delete answered within the lease surely deleted.
		d.deletedByAnswer = err == nil && d.deleteEnd.Before(d.start.Add(crashLease*time.Second))
		d.deleteCutOffByAKill = err != nil && l.epoch != e0
		l.mu.Unlock()
		if err != nil {
			l.noteAPIError("DeleteMessage "+d.body, e0, err)
			break
		}
	}
	return len(ds), nil
}

// crashCheckRestart checks a restarted server's queues against the ledger:
// each holds at least the messages whose send was acknowledged and which no
// delete was tried on, and has at least those of its messages in flight
// whose lease is still open and which no delete was tried on. Calls the
// kill cut off can only add to either. It notes the leases open across the
// kill.
func crashCheckRestart(t *testing.T, ctx context.Context, c *sqsv2.Client, l *crashLedger, queues []*crashQueue, round int, run, down time.Duration) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	tried := map[string]bool{}
	latest := map[string]*crashDelivery{}
	for _, d := range l.deliveries {
		if !d.deleteStart.IsZero() {
			tried[d.id] = true
		}
		latest[d.id] = d
	}
	line := fmt.Sprintf("round %d: killed after %v, back in %v", round, run.Round(time.Millisecond), down.Round(time.Millisecond))
	for _, q := range queues {
		out, err := c.GetQueueAttributes(ctx, &sqsv2.GetQueueAttributesInput{QueueUrl: &q.url, AttributeNames: []types.QueueAttributeName{
			types.QueueAttributeNameApproximateNumberOfMessages,
			types.QueueAttributeNameApproximateNumberOfMessagesNotVisible,
			types.QueueAttributeNameApproximateNumberOfMessagesDelayed,
		}})
		if err != nil {
			t.Errorf("round %d: %s: %v", round, q.name, err)
			continue
		}
		asked := time.Now() // the server counted before this
		held := 0
		for _, v := range out.Attributes {
			n, _ := strconv.Atoi(v)
			held += n
		}
		inFlight, _ := strconv.Atoi(out.Attributes[string(types.QueueAttributeNameApproximateNumberOfMessagesNotVisible)])
		live := 0
		for _, s := range l.sends {
			if s.q == q && !tried[s.id] {
				live++
			}
		}
		leased := 0
		for _, d := range latest {
			if d.q == q && !tried[d.id] && asked.Before(d.start.Add(crashLease*time.Second)) {
				leased++
				l.spanned[d] = true
			}
		}
		line += fmt.Sprintf("; %s holds %d (%d acknowledged and not deleted), %d in flight (%d leases open)", q.name, held, live, inFlight, leased)
		if held < live {
			t.Errorf("round %d: %s holds %d messages after the restart, fewer than the %d acknowledged sends no delete was tried on",
				round, q.name, held, live)
		}
		if inFlight < leased {
			t.Errorf("round %d: %s has %d messages in flight after the restart, fewer than the %d leases open on messages no delete was tried on",
				round, q.name, inFlight, leased)
		}
	}
	t.Log(line)
}

// crashDrain receives and deletes until the queue is empty, and reports
// whether it got there. Every lease has ended when it starts, so a queue
// that has messages and gives none for a few seconds keeps them hidden
// beyond their visibility timeout.
func crashDrain(t *testing.T, ctx context.Context, c, admin *sqsv2.Client, l *crashLedger, q *crashQueue) bool {
	t.Helper()
	cs := &crashConsumer{q: q}
	start, lastGot, total := time.Now(), time.Now(), 0
	for ctx.Err() == nil {
		n, err := cs.receiveOnce(ctx, c, l, 0)
		if err != nil {
			t.Errorf("drain %s: %v", q.name, err)
			return false
		}
		if n > 0 {
			total += n
			lastGot = time.Now()
			continue
		}
		out, err := admin.GetQueueAttributes(ctx, &sqsv2.GetQueueAttributesInput{QueueUrl: &q.url, AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll}})
		if err != nil {
			t.Errorf("drain %s: %v", q.name, err)
			return false
		}
		a := out.Attributes
		if a["ApproximateNumberOfMessages"] == "0" && a["ApproximateNumberOfMessagesNotVisible"] == "0" && a["ApproximateNumberOfMessagesDelayed"] == "0" {
			t.Logf("drained %s: %d messages in %v", q.name, total, time.Since(start).Round(time.Millisecond))
			return true
		}
		if time.Since(lastGot) > 5*time.Second {
			t.Errorf("drain %s: nothing to receive for 5 s, with every lease over, while it counts %s visible, %s in flight, %s delayed",
				q.name, a["ApproximateNumberOfMessages"], a["ApproximateNumberOfMessagesNotVisible"], a["ApproximateNumberOfMessagesDelayed"])
			return false
		}
		crashPause(ctx)
	}
	t.Errorf("drain %s: out of time", q.name)
	return false
}

type crashFigures struct {
	stdSends, fifoSends                         int
	deliveries, deletes, cutDeletes, duplicates int
	lost, undone, leaseBroken, orderBroken      int
	seqTwice, seqFell                           int
	phantoms                                    int
}

// crashAnalyze checks the whole ledger once the queues are drained, and
// reports each kind of failure (the first few of each in full).
func crashAnalyze(t *testing.T, l *crashLedger, queues []*crashQueue, drained bool) crashFigures {
	t.Helper()
	var f crashFigures
	shown := map[*int]int{}
	fail := func(kind *int, format string, args ...any) {
		*kind++
		if shown[kind]++; shown[kind] <= 10 {
			t.Errorf(format, args...)
		}
	}

	// Acknowledged sends, and the sequence numbers they were given.
	acked := map[string]*crashSend{}
	type queueSeq struct {
		q   *crashQueue
		seq string
	}
	seqOwner := map[queueSeq]string{} // FIFO sequence number → message id
	own := func(q *crashQueue, seq, id, body string) {
		if seq == "" {
			fail(&f.seqTwice, "%s (%s) has no SequenceNumber", id, body)
			return
		}
		k := queueSeq{q, seq}
		if o, ok := seqOwner[k]; ok && o != id {
			fail(&f.seqTwice, "%s: SequenceNumber %s given to %s and to %s (%s)", q.name, seq, o, id, body)
			return
		}
		seqOwner[k] = id
	}
	type producerLast struct {
		n  uint64
		id string
	}
	lastOfProducer := map[*crashProducer]producerLast{}
	// The highest sequence number each process answered on each queue, and
	// the lowest.
	type queueProc struct {
		q    *crashQueue
		proc int
	}
	procMax, procMin := map[queueProc]uint64{}, map[queueProc]uint64{}
	for _, s := range l.sends {
		if prev, ok := acked[s.id]; ok && (prev.body != s.body || prev.seq != s.seq) {
			fail(&f.phantoms, "message id %s answered for %s (%s) and %s (%s)", s.id, prev.body, prev.seq, s.body, s.seq)
		}
		if _, ok := acked[s.id]; !ok {
			if s.q.fifo {
				f.fifoSends++
			} else {
				f.stdSends++
			}
		}
		acked[s.id] = s
		if !s.q.fifo {
			continue
		}
		own(s.q, s.seq, s.id, s.body)
		n, err := strconv.ParseUint(s.seq, 10, 64)
		if err != nil {
			fail(&f.seqFell, "SequenceNumber %q of %s is not a number", s.seq, s.body)
			continue
		}
		// A producer sends one message at a time, so its numbers rise but
		// where a send again was answered as the message it repeated.
		if last, ok := lastOfProducer[s.producer]; ok && n <= last.n && s.id != last.id {
			fail(&f.seqFell, "%s: producer %s got SequenceNumber %s for %s after %020d", s.q.name, s.producer.name, s.seq, s.body, last.n)
		}
		lastOfProducer[s.producer] = producerLast{n, s.id}
		if s.epochStart == s.epochEnd {
			k := queueProc{s.q, s.epochStart / 2}
			if m, ok := procMax[k]; !ok || n > m {
				procMax[k] = n
			}
			if m, ok := procMin[k]; !ok || n < m {
				procMin[k] = n
			}
		}
	}
	for _, q := range queues {
		var before uint64
		for proc := range crashRounds + 1 {
			k := queueProc{q, proc}
			if lo, ok := procMin[k]; ok && proc > 0 && lo <= before {
				fail(&f.seqFell, "%s: after restart %d the server gave SequenceNumber %020d, not above %020d given before",
					q.name, proc, lo, before)
			}
			before = max(before, procMax[k])
		}
	}

	// Deliveries: each pair of one message's deliveries, then order.
	byID := map[string][]*crashDelivery{}
	deletedAt := map[string]time.Time{} // first delete answered within its lease
	firstDeleteTry := map[string]time.Time{}
	for _, d := range l.deliveries {
		byID[d.id] = append(byID[d.id], d)
		if d.deletedByAnswer {
			if at, ok := deletedAt[d.id]; !ok || d.deleteEnd.Before(at) {
				deletedAt[d.id] = d.deleteEnd
			}
		}
		if !d.deleteStart.IsZero() {
			if at, ok := firstDeleteTry[d.id]; !ok || d.deleteStart.Before(at) {
				firstDeleteTry[d.id] = d.deleteStart
			}
		}
		if d.deletedByAnswer {
			f.deletes++
		}
		if d.deleteCutOffByAKill {
			f.cutDeletes++
		}
	}
	f.deliveries = len(l.deliveries)
	for id, ds := range byID {
		for i, a := range ds {
			for _, b := range ds[i+1:] {
				first, second := a, b
				if b.start.Before(a.start) {
					first, second = b, a
				}
				if at, ok := deletedAt[id]; ok && second.start.After(at) {
					fail(&f.undone, "%s (%s) delivered in %s, after its delete was answered in %s",
						id, second.body, crashRound(second.epoch), crashRound(first.epoch))
					continue
				}
				// Both deliveries fell within a span shorter than the
				// visibility timeout: the second broke the first's lease.
				end := first.end
				if second.end.After(end) {
					end = second.end
				}
				if span := end.Sub(first.start); span < crashLease*time.Second {
					fail(&f.leaseBroken, "%s (%s) delivered in %s and again in %s, within %v of a %d s visibility timeout",
						id, first.body, crashRound(first.epoch), crashRound(second.epoch), span.Round(time.Millisecond), crashLease)
				}
			}
		}
	}

	type groupMsg struct {
		id    string
		index int
	}
	delivered := map[string][]groupMsg{} // by FIFO group, in delivery order
	maxFirst := map[string]int{}
	firstSeen := map[string]bool{}
	lastInBatch := map[string]int{} // by group, within the current batch
	inBatch := map[string]bool{}    // message ids of the current batch
	batch := 0
	for _, d := range l.deliveries {
		meta, ok := l.attempted[d.body]
		if !ok || meta.q != d.q {
			fail(&f.phantoms, "%s delivered %q, which no producer sent it", d.q.name, d.body)
			continue
		}
		if s, ok := acked[d.id]; ok && (s.body != d.body || s.seq != d.seq) {
			fail(&f.phantoms, "%s delivered as %s (%s), sent as %s (%s)", d.id, d.body, d.seq, s.body, s.seq)
		}
		if !d.q.fifo {
			continue
		}
		own(d.q, d.seq, d.id, d.body)
		if d.group != meta.group {
			fail(&f.phantoms, "%s delivered with MessageGroupId %q", d.body, d.group)
		}
		g := meta.group
		if d.batch != batch {
			batch = d.batch
			clear(lastInBatch)
			clear(inBatch)
		}
		if last, ok := lastInBatch[g]; ok && meta.index < last {
			fail(&f.orderBroken, "group %s: one receive answered #%d after #%d", g, meta.index, last)
		}
		lastInBatch[g] = meta.index
		if !firstSeen[d.body] {
			firstSeen[d.body] = true
			want := 0
			if m, ok := maxFirst[g]; ok {
				want = m + 1
			}
			if meta.index != want {
				fail(&f.orderBroken, "group %s: #%d first delivered in %s when #%d was next", g, meta.index, crashRound(d.epoch), want)
			}
			maxFirst[g] = max(maxFirst[g], meta.index)
		}
		// Nothing more of a group is delivered while an earlier message of
		// it is out: each one delivered before had its delete under way
		// when this answer came, or comes again earlier in this answer.
		for _, e := range delivered[g] {
			if e.index >= meta.index || inBatch[e.id] {
				continue
			}
			if at, ok := firstDeleteTry[e.id]; !ok || !at.Before(d.end) {
				fail(&f.orderBroken, "group %s: #%d delivered in %s while #%d, delivered before, was not deleted",
					g, meta.index, crashRound(d.epoch), e.index)
				break
			}
		}
		inBatch[d.id] = true
		delivered[g] = append(delivered[g], groupMsg{d.id, meta.index})
	}

	// Lost: an acknowledged send never deleted, once the queue is empty.
	if drained {
		for id, s := range acked {
			if _, ok := firstDeleteTry[id]; !ok {
				fail(&f.lost, "%s (%s), acknowledged in %s, is gone and was never deleted", id, s.body, crashRound(s.epochStart))
			}
		}
	}

	ids := map[string]map[string]bool{}
	note := func(body, id string) {
		if ids[body] == nil {
			ids[body] = map[string]bool{}
		}
		ids[body][id] = true
	}
	for _, s := range l.sends {
		note(s.body, s.id)
	}
	for _, d := range l.deliveries {
		note(d.body, d.id)
	}
	for _, set := range ids {
		f.duplicates += len(set) - 1
	}
	return f
}
