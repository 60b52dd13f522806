package configcheck

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

type rule int

const (
	ruleA rule = iota + 1
	ruleB
)

// TestListScopesAndFields: Add puts the field first among the fields read, a problem in a
// repeated part names it in its text, and Join keeps every problem and its cause.
func TestListScopesAndFields(t *testing.T) {
	cause := errors.New("bad port")
	var l List[rule]
	l.Add(ruleA, "", nil, "no login", "User", "Password")
	l.In("jump", 2)
	l.Add(ruleB, "Address", cause, "address: bad port")
	a, b := l.Problems[0], l.Problems[1]
	if a.Field != "" || !slices.Equal(a.Fields, []string{"User", "Password"}) || a.Scope != 0 || a.Error() != "no login" {
		t.Errorf("first = %+v (%q)", *a, a.Error())
	}
	if b.Field != "Address" || !slices.Equal(b.Fields, []string{"Address"}) || b.Scope != 2 || b.Error() != "jump 2: address: bad port" {
		t.Errorf("second = %+v (%q)", *b, b.Error())
	}
	err := Join(l.Problems)
	if !errors.Is(err, cause) || err.Error() != "no login\njump 2: address: bad port" {
		t.Errorf("Join = %q, want both problems and the cause", err)
	}
	if Join[rule](nil) != nil {
		t.Error("Join of no problems is not nil")
	}
}

func ExampleList() {
	var l List[rule]
	l.Add(ruleA, "Username", nil, "username and password must be set together", "Password")
	for _, p := range l.Problems {
		fmt.Println(p.Rule, p.Field, p.Fields, p)
	}
	// Output: 1 Username [Username Password] username and password must be set together
}
