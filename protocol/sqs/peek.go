package sqs

// Answers in ReceiveMessage's shape for handlers beside the SQS API that
// list a queue's messages without receiving them, such as LocalStack's
// /_aws/sqs/messages (package localstack).

import (
	"maps"
	"net/http"

	"github.com/minisqs/minisqs/engine"
)

// PeekedMessage renders a message read without receiving it as
// ReceiveMessage renders a delivery when every system and message
// attribute is asked for, under the given receipt handle. A message never
// received has an ApproximateFirstReceiveTimestamp of 0. extra adds
// system attributes of the caller's own.
func PeekedMessage(m engine.MessageState, receiptHandle string, extra map[string]string) Message {
	d := engine.Delivery{Message: m.Message, ReceiptHandle: receiptHandle, ReceiveCount: m.ReceiveCount, FirstReceivedAt: m.FirstReceivedAt}
	out := deliveredMessage(&d, []string{sysAll}, []string{"All"}, nil)
	if m.FirstReceivedAt.IsZero() {
		out.Attributes[sysFirstReceiveTimestamp] = "0"
	}
	maps.Copy(out.Attributes, extra)
	return out
}

// WriteReceiveResult answers msgs as a ReceiveMessage result: in the JSON
// protocol when jsonProtocol is set, else in the query protocol's XML.
func WriteReceiveResult(w http.ResponseWriter, msgs []Message, jsonProtocol bool) {
	id := newRequestID(w)
	out := &ReceiveMessageOutput{Messages: msgs}
	if jsonProtocol {
		writeJSONResult(w, out)
		return
	}
	writeXMLResult(w, id, "ReceiveMessage", out)
}

// WriteError answers err in the JSON protocol when jsonProtocol is set,
// else in the query protocol, as the SQS API answers its own errors.
func WriteError(w http.ResponseWriter, err error, jsonProtocol bool) {
	id := newRequestID(w)
	if jsonProtocol {
		writeJSONError(w, err)
		return
	}
	writeXMLError(w, id, err)
}

// ErrOnlyReceive is the failure of a request to a ReceiveMessage-only
// endpoint that names another action.
func ErrOnlyReceive() error {
	return wireErrorf(errInvalidAction, "This endpoint only accepts ReceiveMessage calls")
}
