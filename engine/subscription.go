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
	defer q.mu.Unlock()
	if q.deleted {
		return Subscription{}, errNoQueue()
	}
	s := &Subscription{Slug: slug, Endpoint: endpoint, BatchSize: batchSize, MaxWaitSeconds: maxWait, Created: q.e.clock.Now()}
	old := q.sub
	q.sub = s
	if err := q.saveLocked(); err != nil {
		q.sub = old
		return Subscription{}, err
	}
	return *s, nil
}

func validateSubscription(endpoint string, batchSize, maxWait int) error {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Errorf(ErrInvalidParameterValue, "endpoint must be an http or https URL")
	}
	if batchSize < MinSubscriptionBatch || batchSize > MaxSubscriptionBatch {
		return Errorf(ErrInvalidParameterValue, "batchSize must be between %d and %d", MinSubscriptionBatch, MaxSubscriptionBatch)
	}
	if maxWait < 0 || maxWait > MaxSubscriptionWait {
		return Errorf(ErrInvalidParameterValue, "maxWaitSeconds must be between 0 and %d", MaxSubscriptionWait)
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

// Subscription returns the queue's subscription, if it has one.
func (q *Queue) Subscription() (Subscription, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.sub == nil {
		return Subscription{}, false
	}
	return *q.sub, true
}

// DeleteSubscription removes the queue's subscription; it reports whether
// there was one.
func (q *Queue) DeleteSubscription() (bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.deleted {
		return false, errNoQueue()
	}
	if q.sub == nil {
		return false, nil
	}
	old := q.sub
	q.sub = nil
	if err := q.saveLocked(); err != nil {
		q.sub = old
		return false, err
	}
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
