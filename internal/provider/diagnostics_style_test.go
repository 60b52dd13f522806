package provider

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// smallWords stay lower case inside a Title Case summary.
var smallWords = []string{"a", "an", "and", "as", "at", "but", "by", "for", "from", "in", "into", "is", "not", "of", "on", "or", "than", "the", "to", "with"}

// titleCaseProblem returns the first word of s that breaks Title Case, or "". Words that carry
// an upper-case letter (gNMI, mTLS) or a program's own name (sshd's) are names, kept as spelled.
func titleCaseProblem(s string) string {
	for i, w := range strings.Fields(s) {
		r := []rune(w)
		if unicode.IsUpper(r[0]) || !unicode.IsLetter(r[0]) {
			continue
		}
		if strings.IndexFunc(w, unicode.IsUpper) >= 0 || strings.HasPrefix(w, "sshd") {
			continue
		}
		if i > 0 && (slices.Contains(smallWords, w) || w == "m") { // "0 m": a unit

			continue
		}
		return w
	}
	return ""
}

// TestDiagnosticSummariesAreTitleCase walks every diagnostic the provider and the rules it
// words raise (the summaries of AddError, AddWarning and their attribute forms, of the
// problems and violations made at a field, and what rules' Words return) and requires the
// house style's Title Case.
func TestDiagnosticSummariesAreTitleCase(t *testing.T) {
	var files []string
	for _, dir := range []string{".", "../switchcfg", "../switchcfg/sonic", "../switchcfg/cumulus", "../fabric", "../ncclprofile"} {
		more, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, more...)
	}
	fset := token.NewFileSet()
	checked := 0
	check := func(e ast.Expr) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return
		}
		s, _ := strconv.Unquote(lit.Value)
		checked++
		if w := titleCaseProblem(s); w != "" {
			t.Errorf("%s: summary %q: %q is not Title Case", fset.Position(lit.Pos()), s, w)
		}
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				fn := ""
				switch f := n.Fun.(type) {
				case *ast.SelectorExpr:
					fn = f.Sel.Name
				case *ast.Ident:
					fn = f.Name
				}
				switch {
				case (fn == "AddError" || fn == "AddWarning") && len(n.Args) == 2:
					check(n.Args[0])
				case (fn == "AddAttributeError" || fn == "AddAttributeWarning") && len(n.Args) == 3:
					check(n.Args[1])
				case slices.Contains([]string{"errorAt", "warningAt", "ErrorAt", "WarningAt"}, fn) && len(n.Args) >= 2:
					check(n.Args[1])
				}
			case *ast.FuncDecl: // a rule's Words returns its summary first
				if n.Name.Name != "Words" || n.Recv == nil || n.Body == nil {
					return true
				}
				ast.Inspect(n.Body, func(m ast.Node) bool {
					if r, ok := m.(*ast.ReturnStmt); ok && len(r.Results) == 2 {
						check(r.Results[0])
					}
					return true
				})
			case *ast.CompositeLit: // violation.Worded{Summary: ...}; function definitions' summaries are sentences
				typ := ""
				switch t := n.Type.(type) {
				case *ast.SelectorExpr:
					typ = t.Sel.Name
				case *ast.Ident:
					typ = t.Name
				}
				if typ != "Worded" {
					return true
				}
				for _, el := range n.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Summary" {
							check(kv.Value)
						}
					}
				}
			}
			return true
		})
	}
	if checked < 50 {
		t.Fatalf("found only %d summaries: the walk is broken", checked)
	}
}

func TestTitleCaseProblem(t *testing.T) {
	for s, want := range map[string]string{
		"Unable to Apply Switch QoS":        "",
		"gNMI Without TLS":                  "",
		"SSH Sessions Above sshd's Default": "",
		"Invalid ssh settings":              "ssh",
		"unable to Read":                    "unable",
	} {
		if got := titleCaseProblem(s); got != want {
			t.Errorf("titleCaseProblem(%q) = %q, want %q", s, got, want)
		}
	}
}
