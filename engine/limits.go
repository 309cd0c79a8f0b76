package engine

import (
	"strings"
	"time"
)

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

// Alibaba Cloud Simple Message Queue (SMQ, formerly MNS), from its queue
// overview ("Features", "Queue properties" and "Limitations"): "Send,
// receive, and delete up to 16 messages in a single API call"; long polling
// "waits up to 30 seconds"; maximum message size "1--64" KB, and "Message
// size 64 KB"; queue names "Must start with a letter or digit. Can contain
// letters, digits, and hyphens (-)", "Up to 120 characters"; message
// visibility timeout "1--43,200"; retention "60--604,800 (1 minute to 7
// days)"; delay "0--604,800 (0 seconds to 7 days)"; "Queues per region
// 1,000". The page gives no defaults, so AWS's stand where they fit.
const (
	SMQMaxBatchEntries        = 16
	SMQMaxReceiveWaitSeconds  = 30
	SMQMaxMaximumMessageSize  = 64 << 10
	SMQMaxQueueNameLen        = 120
	SMQMinVisibilityTimeout   = 1
	SMQMaxRetentionSeconds    = 604800 // 7 days
	SMQMaxDelaySeconds        = 604800 // 7 days
	SMQMaxQueues              = 1000
	maxBatchEntriesAnyProfile = SMQMaxBatchEntries
)

// Limits is a profile of the limits minisqs enforces: AWS's by default, or
// another queue service's for code that will run against it. Every front
// end, and the engine, reads them from Engine.Limits.
type Limits struct {
	// Name is the profile's name, as --limits gives it.
	Name string
	// MaxBatchEntries caps the entries of a batch request and the messages
	// one receive returns.
	MaxBatchEntries       int
	MaxReceiveWaitSeconds int
	// The range of the MaximumMessageSize setting, and its default.
	MinMaximumMessageSize, MaxMaximumMessageSize, DefaultMaximumMessageSize int
	// The ranges of the other queue settings.
	MinVisibilityTimeout, MaxVisibilityTimeout int
	MinRetentionSeconds, MaxRetentionSeconds   int
	MaxDelaySeconds                            int
	// MaxQueueNameLen counts a ".fifo" suffix. QueueNameUnderscores lets a
	// name hold underscores; QueueNameStartsAlphanumeric wants its first
	// character a letter or digit.
	MaxQueueNameLen             int
	QueueNameUnderscores        bool
	QueueNameStartsAlphanumeric bool
	// MaxQueues caps the queues of an engine; 0 is no cap.
	MaxQueues int
}

// AWSLimits are Amazon SQS's limits, the constants above.
var AWSLimits = Limits{
	Name:                      "aws",
	MaxBatchEntries:           MaxMessagesPerReceive,
	MaxReceiveWaitSeconds:     MaxReceiveWaitSeconds,
	MinMaximumMessageSize:     MinMaximumMessageSize,
	MaxMaximumMessageSize:     MaxMaximumMessageSize,
	DefaultMaximumMessageSize: DefaultMaximumMessageSize,
	MaxVisibilityTimeout:      MaxVisibilityTimeout,
	MinRetentionSeconds:       MinRetentionSeconds,
	MaxRetentionSeconds:       MaxRetentionSeconds,
	MaxDelaySeconds:           MaxDelaySeconds,
	MaxQueueNameLen:           MaxQueueNameLen,
	QueueNameUnderscores:      true,
}

// SMQLimits are Alibaba Cloud SMQ's limits, the SMQ constants above, with
// AWS's where SMQ documents none.
var SMQLimits = Limits{
	Name:                        "smq",
	MaxBatchEntries:             SMQMaxBatchEntries,
	MaxReceiveWaitSeconds:       SMQMaxReceiveWaitSeconds,
	MinMaximumMessageSize:       MinMaximumMessageSize,
	MaxMaximumMessageSize:       SMQMaxMaximumMessageSize,
	DefaultMaximumMessageSize:   SMQMaxMaximumMessageSize,
	MinVisibilityTimeout:        SMQMinVisibilityTimeout,
	MaxVisibilityTimeout:        MaxVisibilityTimeout,
	MinRetentionSeconds:         MinRetentionSeconds,
	MaxRetentionSeconds:         SMQMaxRetentionSeconds,
	MaxDelaySeconds:             SMQMaxDelaySeconds,
	MaxQueueNameLen:             SMQMaxQueueNameLen,
	QueueNameStartsAlphanumeric: true,
	MaxQueues:                   SMQMaxQueues,
}

// LimitsNamed returns the profile called name: "aws" or "smq".
func LimitsNamed(name string) (Limits, bool) {
	for _, l := range []Limits{AWSLimits, SMQLimits} {
		if l.Name == name {
			return l, true
		}
	}
	return Limits{}, false
}

// ValidQueueName reports whether name is a queue name under l: 1 to
// MaxQueueNameLen letters, digits and hyphens (and underscores where l
// allows them), with an optional ".fifo" suffix counted in the length.
func (l Limits) ValidQueueName(name string) bool {
	if len(name) == 0 || len(name) > l.MaxQueueNameLen {
		return false
	}
	base := strings.TrimSuffix(name, ".fifo")
	if base == "" {
		return false
	}
	for i, c := range base {
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		switch {
		case alnum:
		case i == 0 && l.QueueNameStartsAlphanumeric:
			return false
		case c == '-', c == '_' && l.QueueNameUnderscores:
		default:
			return false
		}
	}
	return true
}

// DefaultAttributes returns the settings a new queue gets under l when a
// request leaves them out. FIFO-only settings are set for FIFO queues only.
func (l Limits) DefaultAttributes(fifo bool) QueueAttributes {
	var a QueueAttributes
	for _, s := range attributeTable {
		if s.field != nil && (fifo || !s.FifoOnly) {
			s.field.setDefault(&a, l)
		}
	}
	return a
}
