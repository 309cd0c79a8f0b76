package control

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/minisqs/minisqs/engine"
)

// FuzzStateDocument feeds PUT /_minisqs/state's decoding and the engine's
// Load arbitrary documents: each is refused with an error or loaded, and a
// loaded one reads back.
func FuzzStateDocument(f *testing.F) {
	fixture, err := os.ReadFile("testdata/state.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(fixture)
	f.Add([]byte(`{"version":1,"queues":[{"name":"q","attributes":{},"messages":[{"body":"b","receiveCount":0}]}]}`))
	f.Add([]byte(`{"version":1,"queues":[{"name":"f.fifo","attributes":{"contentBasedDeduplication":true},"messages":[{"body":"b","groupId":"g","state":"inFlight","visibleAt":"2026-01-02T03:04:05Z","receiveCount":1,"firstReceivedAt":"2026-01-02T03:04:00Z"}]}]}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		var d stateDoc
		if json.Unmarshal(doc, &d) != nil {
			return
		}
		s, err := d.state(engine.AWSLimits)
		if err != nil {
			return
		}
		e, err := engine.Open(engine.Options{Clock: engine.NewManualClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if e.Load(s) != nil {
			return
		}
		if _, err := e.State(); err != nil {
			t.Fatalf("a loaded state does not read back: %v", err)
		}
	})
}
