package engine_test

import (
	"reflect"
	"testing"

	"github.com/minisqs/minisqs/engine"
)

// TestAttributeTableRanges pins each ranged setting's range and default
// under both profiles to the figures their documents give (limits.go), so
// a slip in the table cannot pass as the table agreeing with itself.
func TestAttributeTableRanges(t *testing.T) {
	type want struct{ lo, hi, def int }
	for _, tc := range []struct {
		l    engine.Limits
		want map[string]want
	}{
		{engine.AWSLimits, map[string]want{
			"DelaySeconds":                  {0, 900, 0},
			"MaximumMessageSize":            {1024, 1048576, 1048576},
			"MessageRetentionPeriod":        {60, 1209600, 345600},
			"ReceiveMessageWaitTimeSeconds": {0, 20, 0},
			"VisibilityTimeout":             {0, 43200, 30},
			"KmsDataKeyReusePeriodSeconds":  {60, 86400, 300},
		}},
		{engine.SMQLimits, map[string]want{
			"DelaySeconds":                  {0, 604800, 0},
			"MaximumMessageSize":            {1024, 65536, 65536},
			"MessageRetentionPeriod":        {60, 604800, 345600},
			"ReceiveMessageWaitTimeSeconds": {0, 30, 0},
			"VisibilityTimeout":             {1, 43200, 30},
			"KmsDataKeyReusePeriodSeconds":  {60, 86400, 300},
		}},
	} {
		def := tc.l.DefaultAttributes(false)
		got := map[string]want{}
		for _, s := range engine.QueueAttributeTable() {
			if lo, hi, ok := s.Range(tc.l); ok {
				got[s.Name] = want{lo, hi, s.Int(def)}
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: ranges and defaults %v, want %v", tc.l.Name, got, tc.want)
		}
	}
}

// TestAttributeTableDefaults pins the settings of a new queue.
func TestAttributeTableDefaults(t *testing.T) {
	std := engine.QueueAttributes{
		MaximumMessageSize: 1048576, MessageRetentionPeriod: 345600, VisibilityTimeout: 30,
		KmsDataKeyReusePeriodSeconds: 300, SqsManagedSseEnabled: true,
	}
	if got := engine.DefaultAttributes(false); !reflect.DeepEqual(got, std) {
		t.Errorf("standard defaults %+v, want %+v", got, std)
	}
	fifo := std
	fifo.FifoQueue = true
	fifo.DeduplicationScope = engine.DeduplicationScopeQueue
	fifo.FifoThroughputLimit = engine.FifoThroughputPerQueue
	if got := engine.DefaultAttributes(true); !reflect.DeepEqual(got, fifo) {
		t.Errorf("FIFO defaults %+v, want %+v", got, fifo)
	}
}

// TestAttributeTableCoversSettings proves every field of QueueAttributes
// and AttributeUpdate has its row, so no setting escapes the table's checks
// and comparisons: each row's update names it alone.
func TestAttributeTableCoversSettings(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range engine.QueueAttributeTable() {
		if seen[s.Name] {
			t.Errorf("%s: two rows", s.Name)
		}
		seen[s.Name] = true
		if s.ReadOnly {
			continue
		}
		var u engine.AttributeUpdate
		switch s.Kind {
		case engine.AttrInt:
			s.SetInt(&u, 1)
		case engine.AttrBool:
			s.SetBool(&u, true)
		case engine.AttrText, engine.AttrJSON:
			s.SetText(&u, "x")
		case engine.AttrRedrivePolicy:
			u.RedrivePolicy = &engine.RedrivePolicy{}
		case engine.AttrRedriveAllowPolicy:
			u.RedriveAllowPolicy = &engine.RedriveAllowPolicy{}
		}
		for _, o := range engine.QueueAttributeTable() {
			if named := o.Named(u); named != (o.Name == s.Name) {
				t.Errorf("an update of %s: %s named %v", s.Name, o.Name, named)
			}
		}
	}
	settings := 0
	for _, s := range engine.QueueAttributeTable() {
		if !s.ReadOnly {
			settings++
		}
	}
	if n := reflect.TypeFor[engine.QueueAttributes]().NumField(); settings != n {
		t.Errorf("%d settings in the table, %d fields in QueueAttributes", settings, n)
	}
}
