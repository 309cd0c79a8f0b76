package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// release is minisqs's version; CHANGELOG.md says what each one changed.
// scripts/docker-test.sh reads it from here for the image's labels.
const release = "0.3.0"

// commit is the revision the binary was built from, set at link time
// (-ldflags "-X main.commit=..."), as the Dockerfile does, where the build
// has no .git; a go build in a checkout records it in the build info.
var commit string

// versionLine is what `minisqs version` prints.
func versionLine() string {
	rev, dirty := commit, false
	if info, ok := debug.ReadBuildInfo(); ok && rev == "" {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	switch {
	case rev == "":
		rev = "unknown"
	case dirty:
		rev += " (modified)"
	}
	return fmt.Sprintf("minisqs %s, commit %s, %s %s/%s", release, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
