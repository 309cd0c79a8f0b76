package sqs

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/metrics"
	"github.com/minisqs/minisqs/protocol/dispatch"
	"github.com/minisqs/minisqs/protocol/faults"
	"github.com/minisqs/minisqs/protocol/journal"
)

// BenchmarkJSONCycle serves, in process, the JSON-protocol requests of one
// full cycle as aws-sdk-go-v2 sends them: SendMessageBatch of ten messages
// with an attribute each, ReceiveMessage of ten with all attributes, and
// DeleteMessageBatch of the ten handles. It reports the handler's cost per
// message, without the network; BenchmarkHTTPCycle in compat measures the
// whole server.
func BenchmarkJSONCycle(b *testing.B) {
	benchmarkJSONCycle(b, func(*engine.Engine) dispatch.Chain { return nil })
}

// BenchmarkJSONCycleChained is BenchmarkJSONCycle through the steps the
// server puts in the dispatch chain (the journal, request metrics and
// fault rules, with no rule set), to show what they cost.
func BenchmarkJSONCycleChained(b *testing.B) {
	benchmarkJSONCycle(b, func(e *engine.Engine) dispatch.Chain {
		rules := faults.New(Actions(), ErrorCodes())
		return dispatch.Chain{journal.New(e.Now).Step(), metrics.NewRequests().Step(), rules.Step()}
	})
}

func benchmarkJSONCycle(b *testing.B, chain func(*engine.Engine) dispatch.Chain) {
	e, err := engine.Open(engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	if _, err := e.CreateQueue("bench", engine.AttributeUpdate{}, nil); err != nil {
		b.Fatal(err)
	}
	s := New(e, Options{Chain: chain(e)})
	queueURL := fzHost + "/" + fzAccount + "/bench"

	type entry struct {
		ID                string                    `json:"Id"`
		MessageAttributes map[string]map[string]any `json:"MessageAttributes,omitempty"`
		MessageBody       string                    `json:"MessageBody,omitempty"`
		ReceiptHandle     string                    `json:"ReceiptHandle,omitempty"`
	}
	sends := make([]entry, 10)
	for i := range sends {
		sends[i] = entry{
			ID:                strconv.Itoa(i),
			MessageAttributes: map[string]map[string]any{"kind": {"DataType": "String", "StringValue": "order"}},
			MessageBody:       "a message body of a typical small size, about a hundred bytes long......................",
		}
	}
	sendBody, _ := json.Marshal(map[string]any{"Entries": sends, "QueueUrl": queueURL})
	receiveBody, _ := json.Marshal(map[string]any{"MaxNumberOfMessages": 10, "MessageAttributeNames": []string{"All"}, "QueueUrl": queueURL})

	serve := func(action string, body []byte) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		r.Header.Set("X-Amz-Target", targetPrefix+action)
		r.Header.Set("Content-Type", jsonContentType)
		w := httptest.NewRecorder()
		s.ServeJSON(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", action, w.Code, w.Body)
		}
		return w
	}
	deletes := make([]entry, 10)
	b.ReportAllocs()
	for b.Loop() {
		serve("SendMessageBatch", sendBody)
		got := serve("ReceiveMessage", receiveBody).Body.String()
		// The handles are pulled out by hand so that decoding the answer
		// does not weigh on the figure.
		for i := range deletes {
			const key = `"ReceiptHandle":"`
			at := strings.Index(got, key)
			if at < 0 {
				b.Fatalf("answer %d has no handle: %s", i, got)
			}
			got = got[at+len(key):]
			deletes[i] = entry{ID: strconv.Itoa(i), ReceiptHandle: got[:strings.IndexByte(got, '"')]}
		}
		deleteBody, _ := json.Marshal(map[string]any{"Entries": deletes, "QueueUrl": queueURL})
		serve("DeleteMessageBatch", deleteBody)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10/1000, "µs/msg")
}
