package main

import (
	"os/exec"
	"strings"
	"testing"
)

// `minisqs version` and `--version` name the release and, when set at link
// time, the commit.
func TestVersion(t *testing.T) {
	bin := t.TempDir() + "/minisqs"
	if out, err := exec.Command("go", "build", "-ldflags", "-X main.commit=abc123", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, arg := range []string{"version", "--version"} {
		out, err := exec.Command(bin, arg).Output()
		if err != nil {
			t.Fatalf("minisqs %s: %v", arg, err)
		}
		if want := "minisqs " + release + ", commit abc123, go"; !strings.HasPrefix(string(out), want) {
			t.Errorf("minisqs %s printed %q, want it to start with %q", arg, out, want)
		}
	}
}
