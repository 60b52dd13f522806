package switchtwin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// decodeValue decodes a JSON_IETF value for the level dp points at: a
// table (object of objects), an entry (object of strings) or a field (a
// string). Every CONFIG_DB value must be a JSON string.
func decodeValue(dp dbPath, raw []byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: value is not valid JSON: %w", dp, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: value has trailing data after the JSON value", dp)
	}
	switch {
	case dp.key == "":
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: a table value must be a JSON object of entries, got %s", dp, jsonKind(v))
		}
		t := sonic.Table{}
		for key, ev := range obj {
			e, err := decodeEntry(dbPath{table: dp.table, key: key}, ev)
			if err != nil {
				return nil, err
			}
			t[key] = e
		}
		return t, nil
	case dp.field == "":
		return decodeEntry(dp, v)
	}
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("%s|%s: field %s: value is a JSON %s; every CONFIG_DB value must be a JSON string", dp.table, dp.key, dp.field, jsonKind(v))
	}
	return s, nil
}

func decodeEntry(dp dbPath, v any) (sonic.Entry, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s|%s: an entry value must be a JSON object of fields, got %s", dp.table, dp.key, jsonKind(v))
	}
	if len(obj) == 0 {
		return nil, errors.New(dp.table + "|" + dp.key + ": an entry needs at least one field")
	}
	e := sonic.Entry{}
	for field, fv := range obj {
		s, ok := fv.(string)
		if !ok {
			return nil, fmt.Errorf("%s|%s: field %s: value is a JSON %s; every CONFIG_DB value must be a JSON string", dp.table, dp.key, field, jsonKind(fv))
		}
		e[field] = s
	}
	return e, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}
