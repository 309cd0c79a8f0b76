package rest

// Inspection, documented in docs/rest-api.md: PeekMessages in every state (in messages.go)
// and DeleteMessage, which deletes one message by the id a peek gives,
// whatever its state, as a person looking into a queue would.

import (
	"net/http"

	"github.com/minisqs/minisqs/engine"
)

// deleteMessage deletes the message the path names: 204, or
// message_not_found 404.
func (a *API) deleteMessage(c *call) (int, any, error) {
	q, err := a.queue(c)
	if err != nil {
		return 0, nil, err
	}
	id := c.params.ByName("message")
	if err := q.DeleteMessage(id); err != nil {
		if engine.CodeOf(err) == engine.ErrResourceNotFound {
			return 0, nil, apiErrorf(codeMessageNotFound, "Queue %s has no message %q.", q.Name(), id)
		}
		return 0, nil, err
	}
	return http.StatusNoContent, nil, nil
}
