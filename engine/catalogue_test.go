package engine_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/engine/enginetest"
)

// TestCatalogueSamples proves enginetest.Catalogue, which the front ends'
// tests word, holds every constructor, kind and reason of the catalogue.
func TestCatalogueSamples(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "catalogue.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	samples, err := os.ReadFile("enginetest/catalogue.go")
	if err != nil {
		t.Fatal(err)
	}
	kinds, reasons := map[string]bool{}, map[string]bool{}
	for _, e := range enginetest.Catalogue() {
		kinds[string(e.Kind)] = true
		reasons[string(e.Reason)] = true
		if e.Cause != nil {
			kinds[string(e.Cause.Kind)] = true
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && strings.HasPrefix(d.Name.Name, "Err") && !strings.Contains(string(samples), "engine."+d.Name.Name+"(") {
				t.Errorf("enginetest.Catalogue builds no error of %s", d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				vs, ok := s.(*ast.ValueSpec)
				if !ok || len(vs.Values) != 1 {
					continue
				}
				lit, ok := vs.Values[0].(*ast.BasicLit)
				if !ok {
					continue
				}
				v := strings.Trim(lit.Value, `"`)
				switch typ := vs.Type.(*ast.Ident).Name; {
				case typ == "Kind" && !kinds[v]:
					t.Errorf("enginetest.Catalogue has no error of kind %s", vs.Names[0].Name)
				case typ == "Reason" && !reasons[v]:
					t.Errorf("enginetest.Catalogue has no error of reason %s", vs.Names[0].Name)
				}
			}
		}
	}
}

// The SQS wire's own framing errors, worded where they are made, are
// built in these files only.
var framingFiles = map[string]bool{
	"protocol/sqs/codec.go": true, // engine.Errorf until the codec moves to wireErrorf
}

// TestNoInlineEngineErrors proves no code outside the catalogue builds an
// engine error with its own text: the engine's rules are worded by the
// front ends from the catalogue's facts.
func TestNoInlineEngineErrors(t *testing.T) {
	inline := regexp.MustCompile(`\bengine\.Errorf\(|&engine\.Error\{`)
	inEngine := regexp.MustCompile(`\bErrorf\(Err|&Error\{`)
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			switch {
			case rel == "engine/catalogue.go" || rel == "engine/errors.go":
			case rel == "protocol/sqs/errors.go" && strings.Contains(line, "&engine.Error{Code: code, Detail:"):
				// wireErrorf, the SQS wire's own framing errors.
			case framingFiles[rel] && strings.Contains(line, "engine.Errorf("):
			case strings.HasPrefix(rel, "engine/") && inEngine.MatchString(line),
				inline.MatchString(line):
				t.Errorf("%s:%d builds an engine error outside the catalogue: %s", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestErrorsAreFacts proves a constructor records what front ends word.
func TestErrorsAreFacts(t *testing.T) {
	e := engine.ErrParameterRange("VisibilityTimeout", 50000, 0, engine.MaxVisibilityTimeout, true)
	if e.Code != engine.ErrInvalidParameterValue || e.Param != "VisibilityTimeout" || e.Value != 50000 ||
		e.Reason != engine.ReasonRangeIfGiven || e.Min != 0 || e.Max != engine.MaxVisibilityTimeout {
		t.Errorf("ErrParameterRange: %+v", e)
	}
	if got := engine.CodeOf(e); got != engine.ErrInvalidParameterValue {
		t.Errorf("CodeOf = %s", got)
	}
}
