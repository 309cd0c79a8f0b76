package sqs

// Queue actions, after the SQS API reference:
// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_Operations.html

import (
	"encoding/base64"
	"strings"

	"github.com/minisqs/minisqs/engine"
)

// actionTable lists every SQS action minisqs serves.
func actionTable() map[string]action {
	t := map[string]action{}
	register(t, "CreateQueue", createQueue)
	register(t, "GetQueueUrl", getQueueURL)
	register(t, "ListQueues", listQueues)
	register(t, "GetQueueAttributes", getQueueAttributes)
	register(t, "SetQueueAttributes", setQueueAttributes)
	register(t, "DeleteQueue", deleteQueue)
	register(t, "PurgeQueue", purgeQueue)
	register(t, "TagQueue", tagQueue)
	register(t, "UntagQueue", untagQueue)
	register(t, "ListQueueTags", listQueueTags)
	register(t, "ListDeadLetterSourceQueues", listDeadLetterSourceQueues)
	register(t, "AddPermission", addPermission)
	register(t, "RemovePermission", removePermission)
	register(t, "SendMessage", sendMessage)
	register(t, "SendMessageBatch", sendMessageBatch)
	register(t, "ReceiveMessage", receiveMessage)
	register(t, "DeleteMessage", deleteMessage)
	register(t, "DeleteMessageBatch", deleteMessageBatch)
	register(t, "ChangeMessageVisibility", changeMessageVisibility)
	register(t, "ChangeMessageVisibilityBatch", changeMessageVisibilityBatch)
	register(t, "StartMessageMoveTask", startMessageMoveTask)
	register(t, "CancelMessageMoveTask", cancelMessageMoveTask)
	register(t, "ListMessageMoveTasks", listMessageMoveTasks)
	return t
}

func missing(name string) error {
	return engine.ErrMissing(name)
}

func createQueue(c *call, in *CreateQueueInput) (*QueueURLOutput, error) {
	if in.QueueName == "" {
		return nil, missing("QueueName")
	}
	u, err := ParseAttributes(in.Attributes)
	if err != nil {
		return nil, err
	}
	// SQS names FIFO queues, and only them, with ".fifo".
	if u.FifoQueue != nil && *u.FifoQueue && !strings.HasSuffix(in.QueueName, ".fifo") {
		return nil, engine.ErrFIFOQueueName(in.QueueName)
	}
	q, err := c.svc.engine.CreateQueueIn(c.namespace(), in.QueueName, u, in.Tags)
	if err != nil {
		return nil, err
	}
	return &QueueURLOutput{QueueUrl: c.queueURL(q)}, nil
}

func getQueueURL(c *call, in *GetQueueUrlInput) (*QueueURLOutput, error) {
	if in.QueueName == "" {
		return nil, missing("QueueName")
	}
	// QueueOwnerAWSAccountId finds a queue of another account, in the
	// request's region.
	ns := c.namespace()
	if in.QueueOwnerAWSAccountId != "" {
		ns.Account = in.QueueOwnerAWSAccountId
	}
	q, err := c.svc.engine.QueueIn(ns, in.QueueName)
	if err != nil {
		return nil, err
	}
	return &QueueURLOutput{QueueUrl: c.queueURL(q)}, nil
}

// Listing limits (API_ListQueues): at most 1,000 results; NextToken only
// when MaxResults was given.
const maxListResults = 1000

// page cuts a sorted list of queues after the token's name, to at most
// MaxResults, and returns their URLs and the next token.
func (c *call) page(queues []*engine.Queue, maxResults *int, token string) ([]string, string, error) {
	limit := maxListResults
	if maxResults != nil {
		if *maxResults < 1 || *maxResults > maxListResults {
			return nil, "", engine.ErrParameterRange("MaxResults", *maxResults, 1, 1000, true)
		}
		limit = *maxResults
	}
	if token != "" {
		after, err := base64.RawURLEncoding.DecodeString(token)
		if err != nil {
			return nil, "", engine.ErrInvalidParameter("NextToken", nil, engine.ReasonMalformed)
		}
		i := 0
		for i < len(queues) && queues[i].Name() <= string(after) {
			i++
		}
		queues = queues[i:]
	}
	next := ""
	if len(queues) > limit {
		queues = queues[:limit]
		if maxResults != nil {
			next = base64.RawURLEncoding.EncodeToString([]byte(queues[limit-1].Name()))
		}
	}
	urls := make([]string, len(queues))
	for i, q := range queues {
		urls[i] = c.queueURL(q)
	}
	return urls, next, nil
}

func listQueues(c *call, in *ListQueuesInput) (*ListQueuesOutput, error) {
	urls, next, err := c.page(c.svc.engine.QueuesIn(c.namespace(), in.QueueNamePrefix), in.MaxResults, in.NextToken)
	if err != nil {
		return nil, err
	}
	return &ListQueuesOutput{QueueUrls: urls, NextToken: next}, nil
}

func getQueueAttributes(c *call, in *GetQueueAttributesInput) (*GetQueueAttributesOutput, error) {
	q, err := c.queue(in.QueueUrl)
	if err != nil {
		return nil, err
	}
	attrs, err := renderAttributes(q, in.AttributeNames)
	if err != nil {
		return nil, err
	}
	return &GetQueueAttributesOutput{Attributes: attrs}, nil
}

func setQueueAttributes(c *call, in *SetQueueAttributesInput) (*struct{}, error) {
	q, err := c.queue(in.QueueUrl)
	if err != nil {
		return nil, err
	}
	u, err := ParseAttributes(in.Attributes)
	if err != nil {
		return nil, err
	}
	return nil, q.SetAttributes(u)
}

func deleteQueue(c *call, in *QueueInput) (*struct{}, error) {
	q, err := c.queue(in.QueueUrl)
	if err != nil {
		return nil, err
	}
	return nil, c.svc.engine.DeleteQueue(q)
}

func purgeQueue(c *call, in *QueueInput) (*struct{}, error) {
	q, err := c.queue(in.QueueUrl)
	if err != nil {
		return nil, err
	}
	return nil, q.Purge()
}

func tagQueue(c *call, in *TagQueueInput) (*struct{}, error) {
	q, err := c.queue(in.QueueUrl)
	if err != nil {
		return nil, err
	}
	if len(in.Tags) == 0 {
		return nil, missing("Tags")
	}
	return nil, q.Tag(in.Tags)
}

func untagQueue(c *call, in *UntagQueueInput) (*struct{}, error) {
	q, err := c.queue(in.QueueUrl)
	if err != nil {
		return nil, err
	}
	if len(in.TagKeys) == 0 {
		return nil, missing("TagKeys")
	}
	return nil, q.Untag(in.TagKeys)
}

func listQueueTags(c *call, in *QueueInput) (*ListQueueTagsOutput, error) {
	q, err := c.queue(in.QueueUrl)
	if err != nil {
		return nil, err
	}
	return &ListQueueTagsOutput{Tags: q.Tags()}, nil
}

func listDeadLetterSourceQueues(c *call, in *ListDeadLetterSourceQueuesInput) (*ListDeadLetterSourceQueuesOutput, error) {
	q, err := c.queue(in.QueueUrl)
	if err != nil {
		return nil, err
	}
	urls, next, err := c.page(c.svc.engine.DeadLetterSourceQueues(q), in.MaxResults, in.NextToken)
	if err != nil {
		return nil, err
	}
	if urls == nil {
		urls = []string{}
	}
	return &ListDeadLetterSourceQueuesOutput{QueueUrls: urls, NextToken: next}, nil
}

// sqsActionNames are the actions AddPermission may grant
// (API_AddPermission); "*" grants all.
var sqsActionNames = map[string]bool{
	"*": true, "SendMessage": true, "ReceiveMessage": true, "DeleteMessage": true,
	"ChangeMessageVisibility": true, "GetQueueAttributes": true, "GetQueueUrl": true,
	"ListDeadLetterSourceQueues": true, "PurgeQueue": true, "ListQueueTags": true,
}

func addPermission(c *call, in *AddPermissionInput) (*struct{}, error) {
	q, err := c.queue(in.QueueUrl)
	if err != nil {
		return nil, err
	}
	for _, a := range in.Actions {
		if !sqsActionNames[a] {
			return nil, engine.ErrInvalidParameter("ActionName", "SQS:"+a, engine.ReasonUnknownAction)
		}
	}
	// Labels follow the batch entry id rule: up to 80 of [A-Za-z0-9_-].
	if in.Label != "" && !batchEntryID.MatchString(in.Label) {
		return nil, engine.ErrInvalidParameter("Label", in.Label, engine.ReasonCharacters)
	}
	return nil, q.AddPermission(in.Label, in.AWSAccountIds, in.Actions)
}

func removePermission(c *call, in *RemovePermissionInput) (*struct{}, error) {
	q, err := c.queue(in.QueueUrl)
	if err != nil {
		return nil, err
	}
	return nil, q.RemovePermission(in.Label)
}
