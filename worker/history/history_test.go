package history

import (
	"testing"
	"time"

	"github.com/minisqs/minisqs/engine"
)

func TestSamples(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := engine.NewManualClock(start)
	e, err := engine.Open(engine.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	q, err := e.CreateQueue("q", engine.AttributeUpdate{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Three samples kept: a window of 15 s at 5 s.
	s := New(e, 5*time.Second, 15*time.Second)
	if got := s.Queue(q.ID()); len(got) != 0 {
		t.Fatalf("before any sample: %+v", got)
	}
	for i := range 4 {
		q.Send([]engine.NewMessage{{Body: "m"}})
		s.Sample()
		clock.Advance(5 * time.Second)
		if i == 0 {
			got := s.Queue(q.ID())
			if len(got) != 1 || got[0].Visible != 1 || !got[0].At.Equal(start) {
				t.Fatalf("first sample: %+v", got)
			}
		}
	}
	got := s.Queue(q.ID())
	if len(got) != 3 {
		t.Fatalf("%d samples, want the last 3", len(got))
	}
	for i, x := range got {
		// The engine's time and counts, oldest first.
		if want := start.Add(time.Duration(i+1) * 5 * time.Second); !x.At.Equal(want) || x.Visible != i+2 {
			t.Errorf("sample %d: %+v, want %d visible at %v", i, x, i+2, want)
		}
	}

	// A deleted queue is forgotten; a queue made under its name starts afresh.
	if err := e.DeleteQueue(q); err != nil {
		t.Fatal(err)
	}
	s.Sample()
	if got := s.Queue(q.ID()); len(got) != 0 {
		t.Errorf("deleted queue: %+v", got)
	}
}

func TestStartStop(t *testing.T) {
	e, err := engine.Open(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	q, _ := e.CreateQueue("q", engine.AttributeUpdate{}, nil)
	s := New(e, time.Hour, 0)
	s.Start()
	// Start samples at once, so a fresh server has a first point.
	if got := s.Queue(q.ID()); len(got) != 1 {
		t.Errorf("after Start: %+v", got)
	}
	s.Stop()
	s.Stop() // twice is harmless
	if s.Interval() != time.Hour {
		t.Errorf("interval %v", s.Interval())
	}
}

// The ticks a sampler sleeps through while nothing changes get the sample
// that held at them, with the engine's time of each tick.
func TestHeldSampleFillsTheTicksSlept(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	e, err := engine.Open(engine.Options{Clock: engine.NewManualClock(start)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	q, err := e.CreateQueue("q", engine.AttributeUpdate{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	q.Send([]engine.NewMessage{{Body: "m"}})
	s := New(e, 5*time.Second, 15*time.Second)
	real := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	now := real
	s.now = func() time.Time { return now }
	s.sampleTick(real)

	check := func(first time.Time) {
		t.Helper()
		got := s.Queue(q.ID())
		if len(got) != 3 {
			t.Fatalf("%d samples, want 3: %+v", len(got), got)
		}
		for i, x := range got {
			if want := first.Add(time.Duration(i) * 5 * time.Second); !x.At.Equal(want) || x.Visible != 1 {
				t.Errorf("sample %d: %+v, want 1 visible at %v", i, x, want)
			}
		}
	}
	now = real.Add(12 * time.Second)
	check(start)
	now = real.Add(time.Hour)
	check(start.Add(time.Hour - 10*time.Second))
}

// awaitWoken waits until a started sampler has left its hold.
func awaitWoken(t *testing.T, s *Sampler) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.mu.Lock()
		held := s.held
		s.mu.Unlock()
		if !held {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the sampler still holds its last sample")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestSamplerWakesOnChange(t *testing.T) {
	e, err := engine.Open(engine.Options{Clock: engine.NewManualClock(time.Now())})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	q, _ := e.CreateQueue("q", engine.AttributeUpdate{}, nil)
	s := New(e, time.Hour, 0)
	s.Start()
	defer s.Stop()
	q.Send([]engine.NewMessage{{Body: "m"}})
	awaitWoken(t, s)
}

func TestSamplerWakesWhenAMessageBecomesVisible(t *testing.T) {
	clock := engine.NewManualClock(time.Now())
	e, err := engine.Open(engine.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	q, _ := e.CreateQueue("q", engine.AttributeUpdate{}, nil)
	q.Send([]engine.NewMessage{{Body: "m", DelaySeconds: new(5)}})
	s := New(e, time.Hour, 0)
	s.Start()
	defer s.Stop()
	clock.Advance(5 * time.Second)
	awaitWoken(t, s)
}
