package engine

import (
	"net/url"
	"time"

	"github.com/google/uuid"
)

// Push subscriptions: a queue's managed consumer, which minisqs runs by
// receiving from the queue and posting batches to an endpoint. The engine
// keeps the settings and the last delivery's outcome; the delivering itself
// is the push package's.

// Subscription limits (docs/rest-api.md, "Push subscriptions").
const (
	MinSubscriptionBatch   = 1
	MaxSubscriptionBatch   = 10
	MaxSubscriptionWait    = 20
	subscriptionSlugPrefix = "qsb_"
)

// Subscription is a queue's push subscription.
type Subscription struct {
	Slug           string          `json:"slug"`
	Endpoint       string          `json:"endpoint"`
	BatchSize      int             `json:"batchSize"`
	MaxWaitSeconds int             `json:"maxWaitSeconds"`
	Created        time.Time       `json:"created"`
	LastDelivery   *DeliveryResult `json:"lastDelivery,omitempty"`
}

// DeliveryResult is the outcome of one delivery.
type DeliveryResult struct {
	At       time.Time `json:"at"`
	Messages int       `json:"messages"`
	Status   int       `json:"status,omitempty"` // the endpoint's HTTP status, 0 if it did not answer
	Error    string    `json:"error,omitempty"`
}

// PutSubscription sets the queue's subscription, replacing any other.
func (q *Queue) PutSubscription(endpoint string, batchSize, maxWait int) (Subscription, error) {
	if err := validateSubscription(endpoint, batchSize, maxWait); err != nil {
		return Subscription{}, err
	}
	slug, err := q.e.newSubscriptionSlug()
	if err != nil {
		return Subscription{}, err
	}
	q.mu.Lock()
	if q.deleted {
		q.mu.Unlock()
		return Subscription{}, errNoQueue()
	}
	s := &Subscription{Slug: slug, Endpoint: endpoint, BatchSize: batchSize, MaxWaitSeconds: maxWait, Created: q.e.clock.Now()}
	old := q.sub
	q.sub = s
	if err := q.saveLocked(); err != nil {
		q.sub = old
		q.mu.Unlock()
		return Subscription{}, err
	}
	q.mu.Unlock()
	q.e.subscriptionsChanged(q)
	return *s, nil
}

// WatchSubscriptions has fn told of every queue whose push subscription may
// have changed: put, deleted, gone with its queue, reset or loaded, however
// the change was made. fn runs outside the engine's locks, and should read
// the queue's subscription rather than assume what changed.
func (e *Engine) WatchSubscriptions(fn func(*Queue)) {
	e.watchMu.Lock()
	defer e.watchMu.Unlock()
	e.watchers = append(e.watchers, fn)
}

// subscriptionsChanged tells the watchers of qs.
func (e *Engine) subscriptionsChanged(qs ...*Queue) {
	e.watchMu.Lock()
	watchers := e.watchers
	e.watchMu.Unlock()
	for _, fn := range watchers {
		for _, q := range qs {
			fn(q)
		}
	}
}

func validateSubscription(endpoint string, batchSize, maxWait int) error {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ErrInvalidParameter("endpoint", endpoint, ReasonNotHTTPURL)
	}
	if batchSize < MinSubscriptionBatch || batchSize > MaxSubscriptionBatch {
		return ErrParameterRange("batchSize", batchSize, MinSubscriptionBatch, MaxSubscriptionBatch, false)
	}
	if maxWait < 0 || maxWait > MaxSubscriptionWait {
		return ErrParameterRange("maxWaitSeconds", maxWait, 0, MaxSubscriptionWait, false)
	}
	return nil
}

func (e *Engine) newSubscriptionSlug() (string, error) {
	id, err := e.newID()
	if err != nil {
		return "", err
	}
	sid, err := uuid.Parse(id)
	if err != nil {
		return "", err
	}
	return subscriptionSlugPrefix + slugEncoding.EncodeToString(sid[:]), nil
}

// Subscription returns the queue's subscription, if it has one; a deleted
// queue has none.
func (q *Queue) Subscription() (Subscription, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.sub == nil || q.deleted {
		return Subscription{}, false
	}
	return *q.sub, true
}

// DeleteSubscription removes the queue's subscription; it reports whether
// there was one.
func (q *Queue) DeleteSubscription() (bool, error) {
	q.mu.Lock()
	if q.deleted {
		q.mu.Unlock()
		return false, errNoQueue()
	}
	if q.sub == nil {
		q.mu.Unlock()
		return false, nil
	}
	old := q.sub
	q.sub = nil
	if err := q.saveLocked(); err != nil {
		q.sub = old
		q.mu.Unlock()
		return false, err
	}
	q.mu.Unlock()
	q.e.subscriptionsChanged(q)
	return true, nil
}

// RecordDelivery keeps the outcome of a delivery for the subscription with
// the given slug, if it is still the queue's.
func (q *Queue) RecordDelivery(slug string, r DeliveryResult) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.deleted || q.sub == nil || q.sub.Slug != slug {
		return
	}
	q.sub.LastDelivery = &r
	if err := q.saveLocked(); err != nil {
		q.e.log.Error("recording delivery", "queue", q.name, "err", err)
	}
}
