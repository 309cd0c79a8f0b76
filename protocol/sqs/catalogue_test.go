package sqs

import (
	"encoding/json"
	"encoding/xml"
	"net/http/httptest"
	"testing"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/engine/enginetest"
)

// TestCatalogueWording proves both SQS protocols word every entry of the
// engine's catalogue: with the error's own shape and code, and a text of
// its own rather than the internal-error fallback.
func TestCatalogueWording(t *testing.T) {
	for _, e := range enginetest.Catalogue() {
		want := errorText(e)
		if want == "" || e.Kind != engine.KindInternal && want == internalText {
			t.Errorf("%v: SQS text %q", e, want)
			continue
		}
		w := wireErrors[e.Code]

		rec := httptest.NewRecorder()
		writeJSONError(rec, e)
		var jr struct {
			Type    string `json:"__type"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &jr); err != nil || jr.Type != jsonType(w.shape) || jr.Message != want || rec.Code != w.status {
			t.Errorf("%v: JSON %d %s, want %d %s %q", e, rec.Code, rec.Body, w.status, w.shape, want)
		}

		rec = httptest.NewRecorder()
		writeXMLError(rec, "req", e)
		var xr struct {
			Error struct {
				Code    string `xml:"Code"`
				Message string `xml:"Message"`
			} `xml:"Error"`
		}
		if err := xml.Unmarshal(rec.Body.Bytes(), &xr); err != nil || xr.Error.Code != w.queryCode || xr.Error.Message != w.queryMessage(want) || rec.Code != w.status {
			t.Errorf("%v: query %d %s, want %d %s %q", e, rec.Code, rec.Body, w.status, w.queryCode, w.queryMessage(want))
		}
	}
}

// TestCatalogueTexts pins texts AWS gives that no other test names.
func TestCatalogueTexts(t *testing.T) {
	for _, c := range []struct {
		err  *engine.Error
		want string
	}{
		{engine.ErrParameterRange("VisibilityTimeout", 50000, 0, engine.MaxVisibilityTimeout, true), "Value 50000 for parameter VisibilityTimeout is invalid. Reason: Must be >= 0 and <= 43200, if provided."},
		{engine.ErrParameterRange("VisibilityTimeout", 50000, 0, engine.MaxVisibilityTimeout, false), "Value 50000 for parameter VisibilityTimeout is invalid. Reason: Must be between 0 and 43200."},
		{engine.ErrParameterRange("MaxNumberOfMessages", 0, 1, 10, true), "Value 0 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided."},
		{engine.ErrParameterRange("MaxResults", 0, 1, 1000, true), "Value 0 for parameter MaxResults is invalid. Reason: MaxResults must be an integer between 1 and 1000."},
		{engine.ErrParameterRange("DelaySeconds", 901, 0, 900, false), "Value 901 for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900."},
		{engine.ErrInvalidParameter("TaskHandle", nil, engine.ReasonMalformed), "Value for parameter TaskHandle is invalid."},
		{engine.ErrInvalidParameter("MessageGroupId", "", engine.ReasonCharacters), "Value  for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length."},
		{engine.ErrAttributeRange("DelaySeconds", 901, 0, 900), "Invalid value for the parameter DelaySeconds."},
		{engine.ErrQueueName("a_b", engine.SMQLimits), "Must start with a letter or digit. Can contain letters, digits, and hyphens (-). Up to 120 characters."},
		{engine.ErrQueueName("a b", engine.AWSLimits), "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"},
		{engine.ErrRedrivePolicy(5000, engine.ReasonMaxReceiveCount, "5000"), "Value 5000 for parameter RedrivePolicy is invalid. Reason: Invalid value for maxReceiveCount: 5000, valid values are from 1 to 1000 both inclusive."},
		{engine.ErrInvalidAttribute("RedriveAllowPolicy", nil, engine.ReasonSourcesCount), "Value for parameter RedriveAllowPolicy is invalid. Reason: byQueue needs 1 to 10 sourceQueueArns."},
		{engine.ErrFifoOnly("ContentBasedDeduplication"), "Unknown Attribute ContentBasedDeduplication."},
		{engine.ErrFifoOnly("FifoThroughputLimit"), "You can specify the FifoThroughputLimit only when FifoQueue is set to true."},
		{engine.ErrHandleStale("AQEB", engine.ReasonExpired), "Value AQEB for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired."},
		{engine.ErrInternalFailure("receipt token: no entropy"), internalText},
	} {
		if got := errorText(c.err); got != c.want {
			t.Errorf("%v:\n got %q\nwant %q", c.err, got, c.want)
		}
	}
}
