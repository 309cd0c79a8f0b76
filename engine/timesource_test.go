package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realTime is every function of package time that reads the wall clock or
// waits on it. Only clock.go may call them: everything else in the engine
// (move tasks included) and in the push deliverer takes time from the
// engine's Clock, so that moving the clock moves all of it.
var realTime = map[string]bool{
	"Now": true, "Since": true, "Until": true, "After": true, "AfterFunc": true,
	"Sleep": true, "Tick": true, "NewTimer": true, "NewTicker": true,
}

func TestOnlyTheClockReadsRealTime(t *testing.T) {
	checked := 0
	for _, dir := range []string{".", "../worker/push"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") || filepath.Base(path) == "clock.go" && dir == "." {
				continue
			}
			checked++
			for _, call := range realTimeCalls(t, path) {
				t.Errorf("%s reads real time with time.%s; take time from the engine's Clock", call.pos, call.name)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("checked only %d files: the test no longer finds the sources", checked)
	}
}

type timeCall struct {
	pos  token.Position
	name string
}

// realTimeCalls finds the uses of realTime's functions in a file, under
// whatever name it imports package time.
func realTimeCalls(t *testing.T, path string) []timeCall {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkgName := ""
	for _, imp := range f.Imports {
		if imp.Path.Value == `"time"` {
			pkgName = "time"
			if imp.Name != nil {
				pkgName = imp.Name.Name
			}
		}
	}
	if pkgName == "" {
		return nil
	}
	var out []timeCall
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == pkgName && realTime[sel.Sel.Name] {
			out = append(out, timeCall{fset.Position(sel.Pos()), sel.Sel.Name})
		}
		return true
	})
	return out
}

// The check must see a call where there is one.
func TestRealTimeCallsFindsCalls(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.go")
	src := "package x\nimport clock \"time\"\nfunc f() { _ = clock.Now(); clock.Sleep(1); _ = clock.Duration(1) }\n"
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	calls := realTimeCalls(t, path)
	if len(calls) != 2 || calls[0].name != "Now" || calls[1].name != "Sleep" {
		t.Fatalf("found %+v, want Now and Sleep", calls)
	}
}
