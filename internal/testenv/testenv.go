// Package testenv lets a test that needs something this machine may lack
// (an aws CLI, valgrind, root for a tmpfs) skip where it is missing under
// plain go test, but fail under the README's test command (scripts/test),
// which sets RequireVar: CI cannot pass on a machine that ran less.
package testenv

import (
	"fmt"
	"os"
	"testing"
)

// RequireVar, when set, makes Missing fail the test instead of skipping it.
const RequireVar = "MINISQS_REQUIRE_ENV"

// Missing stops a test that cannot run here: a skip that names what is
// missing, or a failure when RequireVar is set.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv(RequireVar) != "" {
		t.Fatalf("%s (%s is set, so this test must run)", msg, RequireVar)
	}
	t.Skipf("%s; skipped (set %s=1 to require it)", msg, RequireVar)
}
