package rest

// Push subscriptions: PutSubscription, GetSubscription and
// DeleteSubscription (docs/rest-api.md, "Push subscriptions"). The engine keeps
// the settings and the last delivery, and announces their changes; the push
// package delivers.

import (
	"net/http"

	"github.com/minisqs/minisqs/engine"
)

// Defaults of a subscription's settings when PutSubscription leaves them
// out, chosen within the ranges. A full batch and the longest poll keep
// requests to the endpoint few.
const (
	defaultSubscriptionBatch = engine.MaxSubscriptionBatch
	defaultSubscriptionWait  = engine.MaxSubscriptionWait
)

type subscriptionInput struct {
	Endpoint       string `json:"endpoint"`
	BatchSize      *int   `json:"batchSize"`
	MaxWaitSeconds *int   `json:"maxWaitSeconds"`
}

type subscriptionJSON struct {
	Slug           string            `json:"slug"`
	Queue          string            `json:"queue"`
	Endpoint       string            `json:"endpoint"`
	BatchSize      int               `json:"batchSize"`
	MaxWaitSeconds int               `json:"maxWaitSeconds"`
	CreatedAt      string            `json:"createdAt"`
	LastDelivery   *lastDeliveryJSON `json:"lastDelivery"`
}

// lastDeliveryJSON is the outcome of the latest delivery: the endpoint's
// HTTP status (0 when it did not answer) and the error, if any.
type lastDeliveryJSON struct {
	At       string `json:"at"`
	Status   int    `json:"status"`
	Error    string `json:"error"`
	Messages int    `json:"messages"`
}

func subscriptionOut(q *engine.Queue, s engine.Subscription) subscriptionJSON {
	out := subscriptionJSON{
		Slug: s.Slug, Queue: q.ID(), Endpoint: s.Endpoint, BatchSize: s.BatchSize,
		MaxWaitSeconds: s.MaxWaitSeconds, CreatedAt: formatTime(s.Created),
	}
	if d := s.LastDelivery; d != nil {
		out.LastDelivery = &lastDeliveryJSON{At: formatTime(d.At), Status: d.Status, Error: d.Error, Messages: d.Messages}
	}
	return out
}

// putSubscription sets the queue's subscription, replacing any other (with
// a new slug): 201 when the queue had none, 200 when one was replaced.
func (a *API) putSubscription(c *call) (int, any, error) {
	q, err := a.queue(c)
	if err != nil {
		return 0, nil, err
	}
	var in subscriptionInput
	if err := c.decode(&in, false); err != nil {
		return 0, nil, err
	}
	if in.Endpoint == "" {
		return 0, nil, apiErrorf(codeInvalidRequest, "endpoint is required.")
	}
	batch, wait := defaultSubscriptionBatch, defaultSubscriptionWait
	if in.BatchSize != nil {
		batch = *in.BatchSize
	}
	if in.MaxWaitSeconds != nil {
		wait = *in.MaxWaitSeconds
	}
	_, had := q.Subscription()
	s, err := q.PutSubscription(in.Endpoint, batch, wait)
	if err != nil {
		return 0, nil, err
	}
	status := http.StatusCreated
	if had {
		status = http.StatusOK
	}
	return status, subscriptionOut(q, s), nil
}

func (a *API) getSubscription(c *call) (int, any, error) {
	q, err := a.queue(c)
	if err != nil {
		return 0, nil, err
	}
	s, ok := q.Subscription()
	if !ok {
		return 0, nil, apiErrorf(codeNoSubscription, "Queue %s has no subscription.", q.Name())
	}
	return http.StatusOK, subscriptionOut(q, s), nil
}

// deleteSubscription removes the queue's subscription: 204, or
// subscription_not_found 404 when it has none.
func (a *API) deleteSubscription(c *call) (int, any, error) {
	q, err := a.queue(c)
	if err != nil {
		return 0, nil, err
	}
	had, err := q.DeleteSubscription()
	if err != nil {
		return 0, nil, err
	}
	if !had {
		return 0, nil, apiErrorf(codeNoSubscription, "Queue %s has no subscription.", q.Name())
	}
	return http.StatusNoContent, nil, nil
}

type subscriptionsOutput struct {
	Subscriptions []subscriptionJSON `json:"subscriptions"`
}

// listSubscriptions answers every queue's subscription, in queue name order,
// with its last delivery.
func (a *API) listSubscriptions(c *call) (int, any, error) {
	out := subscriptionsOutput{Subscriptions: []subscriptionJSON{}}
	for _, q := range a.e.QueuesIn(c.ns, "") {
		if s, ok := q.Subscription(); ok {
			out.Subscriptions = append(out.Subscriptions, subscriptionOut(q, s))
		}
	}
	return http.StatusOK, out, nil
}
