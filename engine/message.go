package engine

import (
	"bytes"
	"math"
	"time"
	"unsafe"
)

// MessageAttribute is a typed attribute carried with a message. DataType is
// String, Number or Binary, optionally followed by a custom ".label".
type MessageAttribute struct {
	Name        string
	DataType    string
	StringValue string
	BinaryValue []byte
}

// IsBinary reports whether the attribute's value is in BinaryValue.
func (a MessageAttribute) IsBinary() bool {
	return a.DataType == "Binary" || len(a.DataType) > 7 && a.DataType[:7] == "Binary."
}

// SameAttributes reports whether a and b hold the same attributes in the
// same order, an empty binary value differing from none, so that a caller
// may put either list in place of the other. The lists of a batch's
// messages are often one list, which is the same without a look at its
// attributes.
func SameAttributes(a, b []MessageAttribute) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Name != y.Name || x.DataType != y.DataType || x.StringValue != y.StringValue || !bytes.Equal(x.BinaryValue, y.BinaryValue) || (x.BinaryValue == nil) != (y.BinaryValue == nil) {
			return false
		}
	}
	return true
}

// NewMessage is one message to send.
type NewMessage struct {
	Body             string
	Attributes       []MessageAttribute
	SystemAttributes []MessageAttribute
	// DelaySeconds overrides the queue's delay when not nil.
	DelaySeconds    *int
	GroupID         string
	DeduplicationID string
	// GroupIDGiven and DeduplicationIDGiven say that the sender named the
	// id, be it "": SQS refuses a group id given as "" on a standard queue
	// and a deduplication id given as "" on a FIFO one, where it would take
	// none.
	GroupIDGiven, DeduplicationIDGiven bool
	SenderID                           string
	// BodyChecked says that the caller has found every byte of Body
	// printable ASCII (0x20 to 0x7f), which SQS allows, so Send need not
	// look at the body's characters again: a decoder that has read them
	// knows. Callers that have not leave it false and Send checks.
	BodyChecked bool
}

// SendResult is the outcome of sending one message: either the stored
// message's identity or Err.
type SendResult struct {
	MessageID      string
	MD5OfBody      string
	SequenceNumber string
	Err            error
}

// Message is a stored message as a receive or peek returns it.
type Message struct {
	ID                  string
	Body                string
	MD5OfBody           string
	Attributes          []MessageAttribute
	SystemAttributes    []MessageAttribute
	SenderID            string
	GroupID             string
	DeduplicationID     string
	SequenceNumber      string
	SentAt              time.Time
	DeadLetterSourceArn string
}

// Delivery is a received message: the message plus this delivery's lease.
type Delivery struct {
	Message
	ReceiptHandle   string
	ReceiveCount    int
	FirstReceivedAt time.Time
}

// Message states. A ready message is in the ready list; a delayed or
// in-flight one has a live entry in the timers heap at its visibleAt.
const (
	stateReady    uint8 = iota // visible
	stateDelayed               // waiting out its delay
	stateInFlight              // leased
)

// message is the in-memory index entry of a stored message, one per
// message, held in a slot of its queue's index (seqIndex): keep it small,
// at 80 bytes (see TestMessageSize). Its body and attributes are in its record, the encoded
// immutable record (appendMessage's form), read on delivery; a file store
// holds the same string, not a copy. What receives leave is in recv, which
// a message never received, most of a deep queue, has not.
type message struct {
	seq uint64
	// recData and recLen are the record, record(): a string's pointer and
	// a length of 32 bits, which every record's fits, so that state and
	// gone share the word a string's length would take.
	recData   *byte
	recLen    uint32
	state     uint8
	gone      bool  // deleted, expired, purged or moved: its heap entries are stale
	inOrder   bool  // expires in send order, found by sequence number (Queue.firstInOrderLocked), with no expiry entry
	sentAt    int64 // unix nanoseconds, like every instant below
	visibleAt int64
	expireAt  int64
	// recv is nil until m's first receive, unless m came with a receive
	// count: dead-lettered, or from a state fixture or a stored record.
	recv       *receipt
	group      *group // its message group, if it has one
	prev, next uint64 // neighbours in the queue's or its group's readyList
}

// record returns m's record.
func (m *message) record() string { return unsafe.String(m.recData, m.recLen) }

// setRecord makes rec m's record. A record holds one message, megabytes at
// most, far below the 4 GiB that recLen cannot tell.
func (m *message) setRecord(rec string) {
	if uint64(len(rec)) > math.MaxUint32 {
		panic("engine: a message record of 4 GiB or more")
	}
	m.recData, m.recLen = unsafe.StringData(rec), uint32(len(rec))
}

// receipt is what a message's receives leave in it.
type receipt struct {
	receivedAt     int64 // start of the current lease, for the 12-hour cap
	firstReceiveAt int64
	receiveCount   int32
	token          [tokenLen]byte // current delivery's receipt token; zero when none is
}

// receipt returns what m's receives left, the zero receipt if it has never
// been received.
func (m *message) receipt() receipt {
	if m.recv == nil {
		return receipt{}
	}
	return *m.recv
}

// receiveCount is the number of times m has been received, 0 if never,
// read without copying its receipt.
func (m *message) receiveCount() int32 {
	if m.recv == nil {
		return 0
	}
	return m.recv.receiveCount
}

// received returns m's receipt to change, giving m one if it has none.
func (m *message) received() *receipt {
	if m.recv == nil {
		m.recv = new(receipt)
	}
	return m.recv
}
