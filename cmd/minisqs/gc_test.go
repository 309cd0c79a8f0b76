package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/server"
)

// heapGoal is the runtime's goal for the next collection at GOGC p (see
// gcControllerState.commit).
func heapGoal(live, roots uint64, p int) uint64 {
	return max(live+(live+roots)*uint64(p)/100, gcHeapMinimum*uint64(p)/100)
}

func TestGCPercent(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live, roots uint64
		want        int
	}{
		{0, 0, 600},                  // before any collection: the heap minimum gives 24 MiB
		{0, 200 << 10, 600},          // roots alone do not lift it
		{1 * mib, 0, 625},            // held by the heap minimum: a goal of 25 MiB, not 4 MiB*24
		{16 * mib, 0, 150},           // 24 MiB past 16
		{16 * mib, 16 * mib, 75},     // roots count as the runtime counts them
		{100 * mib, 0, 24},           // still the 24 MiB
		{290 * mib, 4 * mib, 8},      // a million queued messages: 24 MiB, less for the roots
		{300 * mib, 0, 8},            // where 8% of live is 24 MiB
		{1 << 40, 0, 7},              // 8% however large, rounded down
		{1 << 40, 1 << 44, 1},        // never 0, which would collect all the time
		{3 * mib / 2, 10 << 10, 637}, // (1.5+24)*100/4
	} {
		if got := gcPercent(c.live, c.roots); got != c.want {
			t.Errorf("gcPercent(%d, %d) = %d, want %d", c.live, c.roots, got, c.want)
		}
	}
	// Whatever the live heap, the runtime's goal is the headroom past it,
	// less gcPercent's rounding down.
	for live := uint64(0); live < 2<<30; live += live/8 + 97*1024 {
		const roots = 300 << 10
		headroom := max(gcMinHeadroom, live*gcLivePercent/100)
		goal := heapGoal(live, roots, gcPercent(live, roots))
		if goal > live+headroom || goal+max(live+roots, gcHeapMinimum)/100 < live+headroom {
			t.Errorf("live %d: goal %d, want %d past it", live, goal, headroom)
		}
	}
}

// gogc reads GOGC without changing it.
func gogc() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

// policyPercent is what the policy sets GOGC to after the last collection.
func policyPercent() int {
	s := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/scan/stack:bytes"},
		{Name: "/gc/scan/globals:bytes"},
	}
	metrics.Read(s)
	return gcPercent(s[0].Value.Uint64(), s[1].Value.Uint64()+s[2].Value.Uint64())
}

// The policy applies unless the environment sets GOGC, and after each
// collection; a store file loads with the collector off, then the policy
// or the user's GOGC applies. The policy stays armed for the life of the
// process, so each case runs in a process of its own: the test binary again,
// with MINISQS_GC_CHILD set to the case.
func TestGCPolicyEnv(t *testing.T) {
	if c, ok := os.LookupEnv("MINISQS_GC_CHILD"); ok {
		gcPolicyChild(t, c)
		return
	}
	for _, c := range []struct{ name, gogc string }{
		{"policy", ""},
		{"user", "250"},
		{"policy-with-memlimit", ""},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestGCPolicyEnv$", "-test.v")
		env := []string{"MINISQS_GC_CHILD=" + c.name}
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "GOGC=") && !strings.HasPrefix(kv, "GOMEMLIMIT=") {
				env = append(env, kv)
			}
		}
		if c.gogc != "" {
			env = append(env, "GOGC="+c.gogc)
		}
		if c.name == "policy-with-memlimit" {
			env = append(env, "GOMEMLIMIT=1GiB")
		}
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestGCPolicyEnv") {
			t.Errorf("%s: %v\n%s", c.name, err, out)
		}
	}
}

func gcPolicyChild(t *testing.T, name string) {
	gc := newGCPolicy(os.Getenv)
	user := name == "user"
	if (gc == nil) != user {
		t.Fatalf("%s: newGCPolicy = %v", name, gc)
	}
	want := func() int {
		if user {
			return 250
		}
		return policyPercent()
	}
	if got := gogc(); got != want() {
		t.Errorf("GOGC %d at start, want %d", got, want())
	}

	loading := 0
	init := func(*engine.Engine) error { loading = gogc(); return nil }
	srv, err := startServer(server.Config{Addr: "127.0.0.1:0", DB: filepath.Join(t.TempDir(), "db"), Init: init}, gc)
	if err != nil {
		t.Fatal(err)
	}
	if loading != -1 {
		t.Errorf("GOGC %d while loading, want -1", loading)
	}
	if got := gogc(); got != want() {
		t.Errorf("GOGC %d once started, want %d", got, want())
	}
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	// After each of two collections, over live heaps of different sizes,
	// the policy sets GOGC again (or leaves the user's). A marker value
	// shows that it did.
	for _, size := range []int{16 << 20, 4 << 20} {
		live := make([]byte, size)
		if !user {
			debug.SetGCPercent(777)
		}
		runtime.GC()
		w := want()
		if !user && (w == 777 || w < 100) {
			t.Fatalf("live %d: the policy's percent %d cannot tell", size, w)
		}
		// The cleanup runs in a goroutine of the runtime's, once the
		// collection has swept.
		got := gogc()
		for i := 0; i < 1_000_000 && got != w; i++ {
			runtime.Gosched()
			got = gogc()
		}
		if got != w {
			t.Errorf("live %d: GOGC %d after a collection, want %d", size, got, w)
		}
		runtime.KeepAlive(live)
	}
}
