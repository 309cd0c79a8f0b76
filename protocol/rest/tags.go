package rest

// Tags: GetQueueTags and PutQueueTags, the REST form of SQS's
// ListQueueTags, TagQueue and UntagQueue. A put replaces the whole set, with
// SQS's limits (at most 50 tags, keys of 1 to 128 characters, values of at
// most 256).

import "net/http"

type tagsJSON struct {
	Tags map[string]string `json:"tags"`
}

func (a *API) getQueueTags(c *call) (int, any, error) {
	q, err := a.queue(c)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, tagsJSON{Tags: nonNil(q.Tags())}, nil
}

// putQueueTags makes the body's tags the queue's only tags.
func (a *API) putQueueTags(c *call) (int, any, error) {
	q, err := a.queue(c)
	if err != nil {
		return 0, nil, err
	}
	var in tagsJSON
	if err := c.decode(&in, false); err != nil {
		return 0, nil, err
	}
	if in.Tags == nil {
		return 0, nil, apiErrorf(codeInvalidRequest, "tags is required: an object of keys and values, {} for none.")
	}
	if err := q.ReplaceTags(in.Tags); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, tagsJSON{Tags: nonNil(q.Tags())}, nil
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
