package provider

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLoginAttrsMatchModels keeps the shared login attributes and the models they are read
// into the same, in the models' order.
func TestLoginAttrsMatchModels(t *testing.T) {
	for _, tt := range []struct {
		model any
		attrs []loginAttr
	}{
		{gnmiLoginModel{}, gnmiLoginAttrs},
		{nvueLoginModel{}, nvueLoginAttrs},
	} {
		typ := reflect.TypeOf(tt.model)
		var tags, names []string
		for i := range typ.NumField() {
			tags = append(tags, typ.Field(i).Tag.Get("tfsdk"))
		}
		for _, a := range tt.attrs {
			names = append(names, a.name)
		}
		if diff := cmp.Diff(tags, names); diff != "" {
			t.Errorf("%s attributes mismatch (-model +attrs):\n%s", typ.Name(), diff)
		}
	}
}
