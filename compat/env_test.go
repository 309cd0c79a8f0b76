package compat

import (
	"fmt"
	"os"
	"testing"
)

// requireEnvVar, when set, makes a test that needs something this machine
// lacks (an aws CLI, root for a tmpfs) fail instead of skip: the README's
// test command sets it, so CI cannot pass on a machine that ran less.
const requireEnvVar = "MINISQS_REQUIRE_ENV"

// missingEnv stops a test that cannot run here: a skip that names what is
// missing under plain go test, a failure under the README's test command.
func missingEnv(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv(requireEnvVar) != "" {
		t.Fatalf("%s (%s is set, so this test must run)", msg, requireEnvVar)
	}
	t.Skipf("%s; skipped (set %s=1 to require it)", msg, requireEnvVar)
}
