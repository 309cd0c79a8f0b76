package engine

import "time"

// Limits and defaults of Amazon SQS. Unless noted, the source is the SQS
// Developer Guide, "Amazon SQS quotas" and the API reference for
// CreateQueue and SetQueueAttributes:
// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-quotas.html
// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SetQueueAttributes.html
const (
	DefaultDelaySeconds = 0
	MaxDelaySeconds     = 900

	// Maximum message size was raised from 256 KiB to 1 MiB on 2025-08-04
	// (AWS What's New, "Amazon SQS increases maximum message payload size
	// to 1 MiB"); the API reference now gives 1,048,576 as the default.
	MinMaximumMessageSize     = 1024
	MaxMaximumMessageSize     = 1048576
	DefaultMaximumMessageSize = 1048576

	MinRetentionSeconds     = 60
	MaxRetentionSeconds     = 1209600 // 14 days
	DefaultRetentionSeconds = 345600  // 4 days

	MaxReceiveWaitSeconds     = 20
	DefaultReceiveWaitSeconds = 0

	MaxVisibilityTimeout     = 43200 // 12 hours
	DefaultVisibilityTimeout = 30

	// A message may stay in flight at most 12 hours from its receive,
	// however often its visibility is extended.
	MaxInFlightDuration = 12 * time.Hour

	MinKmsDataKeyReusePeriod     = 60
	MaxKmsDataKeyReusePeriod     = 86400
	DefaultKmsDataKeyReusePeriod = 300

	MinMaxReceiveCount = 1
	MaxMaxReceiveCount = 1000

	// In-flight quotas per queue ("Message quotas").
	MaxInFlightStandard = 120000
	MaxInFlightFIFO     = 20000

	MaxMessagesPerReceive = 10
	MaxMessageAttributes  = 10
	MaxAttributeNameLen   = 256
	MaxQueueNameLen       = 80
	MaxTagsPerQueue       = 50
	MaxTagKeyLen          = 128
	MaxTagValueLen        = 256

	// RedriveAllowPolicy byQueue names at most 10 source queues.
	MaxRedriveSourceQueues = 10

	// PurgeQueue may run once per 60 seconds, and a deleted queue's name
	// can be reused only after 60 seconds (API_PurgeQueue, API_DeleteQueue).
	PurgeCooldown       = 60 * time.Second
	DeleteQueueCooldown = 60 * time.Second

	// FIFO deduplication and receive-attempt windows (API_SendMessage,
	// API_ReceiveMessage).
	DeduplicationWindow  = 5 * time.Minute
	ReceiveAttemptWindow = 5 * time.Minute
)
