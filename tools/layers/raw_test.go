package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// constantText reports whether e is text fixed in the code: string literals, names (constants
// by this code base's convention for Raw fragments), an integer rendered by strconv.Itoa, and
// concatenations of those. A call such as shell.Quote(x) or fmt.Sprintf is not.
func constantText(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Kind == token.STRING
	case *ast.Ident:
		return true
	case *ast.ParenExpr:
		return constantText(e.X)
	case *ast.BinaryExpr:
		return e.Op == token.ADD && constantText(e.X) && constantText(e.Y)
	case *ast.CallExpr:
		return isCall(e, "strconv", "Itoa")
	}
	return false
}

// isCall reports whether call is pkg.name(...).
func isCall(call *ast.CallExpr, pkg, name string) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg && sel.Sel.Name == name
}

// TestRawTakesOnlyConstants keeps shell.Raw for constant fragments, as its documentation
// says: anything built from values goes through shell's builders (Command, Let, ForIn, Quote
// inside package shell).
func TestRawTakesOnlyConstants(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == ".git" || name == "bin" || name == "dist" || name == "shell" {
				return filepath.SkipDir // package shell may build its own Raw text
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			if !isCall(call, "shell", "Raw") {
				return true
			}
			checked++
			if !constantText(call.Args[0]) {
				t.Errorf("%s: shell.Raw of text built from values; use shell.New, shell.Let or shell.ForIn", fset.Position(call.Pos()))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 5 {
		t.Fatalf("found %d shell.Raw calls: the walk is broken", checked)
	}
}

func TestConstantText(t *testing.T) {
	for src, want := range map[string]bool{
		`"for x in a; do :; done"`:     true,
		`loop + "; done"`:              true,
		`"mark_ " + strconv.Itoa(i)`:   true,
		`"for g in " + shell.Quote(r)`: false,
		`fmt.Sprintf("x %s", v)`:       false,
	} {
		e, err := parser.ParseExpr(src)
		if err != nil {
			t.Fatal(err)
		}
		if got := constantText(e); got != want {
			t.Errorf("constantText(%s) = %v, want %v", src, got, want)
		}
	}
}
