package rest

import (
	"strings"
	"testing"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/engine/enginetest"
)

// TestCatalogueWording proves the API words every entry of the engine's
// catalogue in its own terms: an API code and a sentence without SQS's
// phrasing.
func TestCatalogueWording(t *testing.T) {
	for _, e := range enginetest.Catalogue() {
		ae := toAPIError(e)
		if ae.Message == "" || ae.Status == 0 || e.Kind != engine.KindInternal && (ae.Code == codeInternal || ae.Message == "Internal error.") {
			t.Errorf("%v: %d %s %q", e, ae.Status, ae.Code, ae.Message)
		}
		for _, sqsWords := range []string{"for parameter", "Reason:", "The request must contain", "Invalid value for the parameter"} {
			if strings.Contains(ae.Message, sqsWords) {
				t.Errorf("%v: %q is SQS's wording", e, ae.Message)
			}
		}
	}
}

// TestCatalogueFields proves the engine's ranges come back in the API's
// field names, which is why the API does not check them itself.
func TestCatalogueFields(t *testing.T) {
	for _, c := range []struct {
		err  *engine.Error
		want string
	}{
		{engine.ErrAttributeRange("VisibilityTimeout", -1, 0, 43200), "visibilityTimeoutSeconds must be from 0 to 43200."},
		{engine.ErrAttributeRange("MessageRetentionPeriod", 1, 60, 1209600), "retentionSeconds must be from 60 to 1209600."},
		{engine.ErrParameterRange("MaxNumberOfMessages", 0, 1, 10, true), "maxMessages must be from 1 to 10."},
		{engine.ErrParameterRange("WaitTimeSeconds", 21, 0, 20, true), "waitSeconds must be from 0 to 20."},
		{engine.ErrRedrivePolicy(0, engine.ReasonMaxReceiveCount, "0"), "redrive.maxReceiveCount must be from 1 to 1000."},
		{engine.ErrFifoOnly("ContentBasedDeduplication"), "contentBasedDedup applies to FIFO queues only."},
		{engine.ErrMissing("MessageGroupId"), "groupId is required on a FIFO queue."},
	} {
		if got := toAPIError(c.err).Message; got != c.want {
			t.Errorf("%v: %q, want %q", c.err, got, c.want)
		}
	}
}
