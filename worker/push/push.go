// Package push runs queues' push subscriptions: for each, it receives from
// the queue and POSTs each batch to the subscription's endpoint. A 2xx answer
// acknowledges the batch; any other answer, a refused connection or no
// answer within the visibility timeout leaves the messages to come back when
// their visibility ends, so redrive and dead-lettering apply as for any
// consumer.
//
// A running server has one Deliverer: server.Start starts it with Start once
// the engine is open, and Server.Shutdown closes it before the engine.
package push

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/minisqs/minisqs/engine"
)

// longPoll is how long a deliverer waits for a first message, at most.
const longPoll = engine.MaxReceiveWaitSeconds

// Deliverer runs one delivery loop per subscribed queue.
type Deliverer struct {
	e      *engine.Engine
	client *http.Client
	log    *slog.Logger
	ctx    context.Context
	stop   context.CancelFunc

	mu      sync.Mutex       // guards loops
	loops   map[string]*loop // by queue id
	running sync.WaitGroup
}

type loop struct {
	slug string
	stop context.CancelFunc
}

// Start runs the subscriptions of every queue of e, and follows the
// engine's word of every change to them, however it was made.
func Start(e *engine.Engine, log *slog.Logger) *Deliverer {
	ctx, stop := context.WithCancel(context.Background())
	d := &Deliverer{e: e, client: &http.Client{}, log: log, ctx: ctx, stop: stop, loops: map[string]*loop{}}
	e.WatchSubscriptions(d.Sync)
	for _, q := range e.AllQueues() {
		d.Sync(q)
	}
	return d
}

// Message is a delivered message as a push POSTs it, in a batch
// {"messages": [...]}; the REST API's receive answers the same shape.
type Message struct {
	MessageID       string            `json:"messageId"`
	Body            string            `json:"body"`
	Attributes      map[string]string `json:"attributes"`
	ReceiptHandle   string            `json:"receiptHandle"`
	ReceiveCount    int               `json:"receiveCount"`
	SentAt          string            `json:"sentAt"`
	FirstReceivedAt string            `json:"firstReceivedAt"`
	GroupID         string            `json:"groupId,omitempty"`
	SequenceNumber  string            `json:"sequenceNumber,omitempty"`
}

// NewMessage renders a delivery: times in RFC 3339 with milliseconds in
// UTC, binary attributes in base64.
func NewMessage(d engine.Delivery) Message {
	attrs := make(map[string]string, len(d.Attributes))
	for _, at := range d.Attributes {
		if at.IsBinary() {
			attrs[at.Name] = base64.StdEncoding.EncodeToString(at.BinaryValue)
		} else {
			attrs[at.Name] = at.StringValue
		}
	}
	return Message{
		MessageID: d.ID, Body: d.Body, Attributes: attrs, ReceiptHandle: d.ReceiptHandle,
		ReceiveCount: d.ReceiveCount, SentAt: formatTime(d.SentAt), FirstReceivedAt: formatTime(d.FirstReceivedAt),
		GroupID: d.GroupID, SequenceNumber: d.SequenceNumber,
	}
}

func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// Sync starts, restarts or stops q's delivery loop to match its
// subscription now.
func (d *Deliverer) Sync(q *engine.Queue) {
	sub, ok := q.Subscription()
	d.mu.Lock()
	defer d.mu.Unlock()
	if l := d.loops[q.ID()]; l != nil {
		if ok && l.slug == sub.Slug {
			return
		}
		l.stop()
		delete(d.loops, q.ID())
	}
	if !ok || d.ctx.Err() != nil {
		return
	}
	ctx, stop := context.WithCancel(d.ctx)
	d.loops[q.ID()] = &loop{slug: sub.Slug, stop: stop}
	d.running.Add(1)
	go func() {
		defer d.running.Done()
		d.run(ctx, q, sub)
	}()
}

// Close stops every loop and waits for them.
func (d *Deliverer) Close() {
	d.stop()
	d.running.Wait()
}

// run delivers batches until ctx ends, the subscription changes or the
// queue is deleted. It holds at most one batch in flight: after a failed
// delivery it waits for the batch's visibility to end before receiving
// again.
func (d *Deliverer) run(ctx context.Context, q *engine.Queue, sub engine.Subscription) {
	wait := longPoll
	for ctx.Err() == nil {
		if cur, ok := q.Subscription(); !ok || cur.Slug != sub.Slug {
			return
		}
		batch, err := d.gather(ctx, q, sub, wait)
		if engine.CodeOf(err) == engine.ErrQueueDoesNotExist {
			return
		}
		if err != nil {
			d.log.Warn("push receive", "queue", q.Name(), "err", err)
			d.sleep(ctx, time.Second)
			continue
		}
		if len(batch) == 0 {
			continue
		}
		vis := time.Duration(q.Attributes().VisibilityTimeout) * time.Second
		res := d.deliver(ctx, sub.Endpoint, batch, vis)
		q.RecordDelivery(sub.Slug, res)
		if res.Status >= 200 && res.Status < 300 {
			handles := make([]string, len(batch))
			for i, m := range batch {
				handles[i] = m.ReceiptHandle
			}
			q.Acknowledge(handles)
			continue
		}
		d.sleep(ctx, vis)
	}
}

// gather receives up to the batch size: it long-polls for a first message,
// then keeps receiving for up to the subscription's maxWaitSeconds to fill
// the batch.
func (d *Deliverer) gather(ctx context.Context, q *engine.Queue, sub engine.Subscription, wait int) ([]engine.Delivery, error) {
	batch, err := q.Receive(ctx, engine.ReceiveOptions{MaxMessages: sub.BatchSize, WaitSeconds: &wait})
	if err != nil || len(batch) == 0 || len(batch) == sub.BatchSize || sub.MaxWaitSeconds == 0 {
		return batch, err
	}
	deadline := d.e.Now().Add(time.Duration(sub.MaxWaitSeconds) * time.Second)
	for len(batch) < sub.BatchSize {
		left := int(deadline.Sub(d.e.Now()) / time.Second)
		if left <= 0 {
			break
		}
		more, err := q.Receive(ctx, engine.ReceiveOptions{MaxMessages: sub.BatchSize - len(batch), WaitSeconds: &left})
		if err != nil || len(more) == 0 {
			break
		}
		batch = append(batch, more...)
	}
	return batch, nil
}

// deliver POSTs the batch and reports the outcome.
func (d *Deliverer) deliver(ctx context.Context, endpoint string, batch []engine.Delivery, timeout time.Duration) engine.DeliveryResult {
	res := engine.DeliveryResult{At: d.e.Now(), Messages: len(batch)}
	msgs := make([]Message, len(batch))
	for i, m := range batch {
		msgs[i] = NewMessage(m)
	}
	body, err := json.Marshal(struct {
		Messages []Message `json:"messages"`
	}{msgs})
	if err != nil {
		res.Error = err.Error()
		return res
	}
	if timeout <= 0 {
		timeout = time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		res.Error = err.Error()
		return res
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "minisqs-push")
	resp, err := d.client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			res.Error = "no answer within the visibility timeout"
		} else {
			res.Error = err.Error()
		}
		return res
	}
	resp.Body.Close()
	res.Status = resp.StatusCode
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		res.Error = resp.Status
	}
	return res
}

func (d *Deliverer) sleep(ctx context.Context, dur time.Duration) {
	tick, stop := d.e.Clock().After(dur)
	defer stop()
	select {
	case <-tick:
	case <-ctx.Done():
	}
}
