package host

import (
	"reflect"
	"strings"
)

// detach gives every string that f holds its own memory. The parsers cut their values out of
// the gather's raw output, so a few bytes kept from each section kept that whole output alive
// for as long as the provider's cache keeps the facts (about 106 KiB per cx7 gather, against
// what the values themselves take). One walk here spares every parser its own copies.
func detach(f *Facts) { detachValue(reflect.ValueOf(f).Elem()) }

func detachValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() && v.Len() > 0 {
			v.SetString(strings.Clone(v.String()))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			detachValue(v.Field(i))
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return // []byte is a copy already: a string converted to bytes
		}
		for i := range v.Len() {
			detachValue(v.Index(i))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			detachValue(v.Elem())
		}
	case reflect.Map:
		if v.IsNil() || !v.CanSet() {
			return
		}
		// Map entries cannot be changed in place: build the map again from detached copies.
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			k.Set(it.Key())
			e.Set(it.Value())
			detachValue(k)
			detachValue(e)
			out.SetMapIndex(k, e)
		}
		v.Set(out)
	}
}
