package journal

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/minisqs/minisqs/protocol/dispatch"
)

var at = time.Date(2026, 1, 2, 3, 4, 5, 678_000_000, time.UTC)

func record(j *Journal, req *dispatch.Request, out any, err error) {
	j.Step()(func(context.Context, *dispatch.Request) (any, error) { return out, err })(context.Background(), req)
}

func TestRingKeepsTheNewest(t *testing.T) {
	j := New(func() time.Time { return at })
	if got := j.Recent(10); len(got) != 0 {
		t.Fatalf("empty journal lists %d", len(got))
	}
	for i := range Size + 5 {
		record(j, &dispatch.Request{Protocol: dispatch.JSON, Action: strconv.Itoa(i)}, nil, nil)
	}
	got := j.Recent(Size + 100)
	if len(got) != Size {
		t.Fatalf("%d entries, want %d", len(got), Size)
	}
	for i, e := range got {
		if want := strconv.Itoa(Size + 4 - i); e.Action != want {
			t.Fatalf("entry %d is %s, want %s", i, e.Action, want)
		}
	}
	if got := j.Recent(3); len(got) != 3 || got[0].Action != strconv.Itoa(Size+4) {
		t.Errorf("Recent(3) = %+v", got)
	}
	j.Clear()
	if got := j.Recent(10); len(got) != 0 {
		t.Errorf("after Clear: %d", len(got))
	}
}

func TestEntryOutcome(t *testing.T) {
	j := New(func() time.Time { return at })
	classify := func(_ any, err error) (int, string) {
		if err != nil {
			return 503, "ServiceUnavailable"
		}
		return 200, ""
	}
	record(j, &dispatch.Request{Protocol: dispatch.Query, Action: "SendMessage", Queue: "q", Classify: classify, FaultID: "f1"}, nil, errors.New("x"))
	record(j, &dispatch.Request{Protocol: dispatch.JSON, Action: "ReceiveMessage", Classify: classify, FaultID: "f2"}, nil, dispatch.ErrDropped)
	record(j, &dispatch.Request{Protocol: dispatch.REST, Action: "GetQueue", Classify: classify}, "v", nil)

	rec := httptest.NewRecorder()
	j.ServeHTTP(rec, httptest.NewRequest("GET", Path, nil))
	var body struct {
		Requests []map[string]any `json:"requests"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != 200 {
		t.Fatalf("%d %s: %v", rec.Code, rec.Body, err)
	}
	want := []map[string]any{
		{"time": "2026-01-02T03:04:05.678Z", "protocol": "rest", "action": "GetQueue", "status": 200.0},
		{"time": "2026-01-02T03:04:05.678Z", "protocol": "json", "action": "ReceiveMessage", "status": 0.0, "faultId": "f2"},
		{"time": "2026-01-02T03:04:05.678Z", "protocol": "query", "action": "SendMessage", "queue": "q", "status": 503.0, "errorCode": "ServiceUnavailable", "faultId": "f1"},
	}
	if len(body.Requests) != len(want) {
		t.Fatalf("%d requests: %s", len(body.Requests), rec.Body)
	}
	for i, w := range want {
		got := body.Requests[i]
		if d, ok := got["durationMs"].(float64); !ok || d < 0 {
			t.Errorf("request %d: durationMs %v", i, got["durationMs"])
		}
		delete(got, "durationMs")
		if len(got) != len(w) {
			t.Errorf("request %d: %v, want %v", i, got, w)
			continue
		}
		for k, v := range w {
			if got[k] != v {
				t.Errorf("request %d: %s = %v, want %v", i, k, got[k], v)
			}
		}
	}
}

func TestLimit(t *testing.T) {
	j := New(func() time.Time { return at })
	for range 150 {
		record(j, &dispatch.Request{Protocol: dispatch.JSON, Action: "SendMessage"}, nil, nil)
	}
	for _, tc := range []struct {
		query  string
		status int
		n      int
	}{
		{"", 200, DefaultLimit},
		{"?limit=7", 200, 7},
		{"?limit=1000", 200, 150},
		{"?limit=5000", 200, 150},
		{"?limit=0", 400, 0},
		{"?limit=-1", 400, 0},
		{"?limit=ten", 400, 0},
	} {
		rec := httptest.NewRecorder()
		j.ServeHTTP(rec, httptest.NewRequest("GET", Path+tc.query, nil))
		if rec.Code != tc.status {
			t.Errorf("%s: %d %s", tc.query, rec.Code, rec.Body)
			continue
		}
		if tc.status != 200 {
			var e struct {
				Error struct{ Code, Message string }
			}
			if json.Unmarshal(rec.Body.Bytes(), &e); e.Error.Code != "invalid_request" || e.Error.Message == "" {
				t.Errorf("%s: %s", tc.query, rec.Body)
			}
			continue
		}
		var body struct{ Requests []json.RawMessage }
		json.Unmarshal(rec.Body.Bytes(), &body)
		if len(body.Requests) != tc.n {
			t.Errorf("%s: %d requests, want %d", tc.query, len(body.Requests), tc.n)
		}
	}
}
