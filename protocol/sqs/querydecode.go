package sqs

import (
	"encoding"
	"fmt"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/minisqs/minisqs/engine"
)

// decodeQuery fills the struct v points to from query-protocol parameters,
// following the fields' `query` tags (see types.go).
func decodeQuery(params url.Values, v any) error {
	return decodeStruct(params, "", reflect.ValueOf(v).Elem())
}

func decodeStruct(params url.Values, prefix string, v reflect.Value) error {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("query")
		if tag == "" {
			continue
		}
		parts := strings.Split(tag, ",")
		name := prefix + parts[0]
		fv := v.Field(i)
		var err error
		switch {
		case len(parts) >= 2 && parts[1] == "list":
			err = decodeList(params, name, fv)
		case len(parts) == 4 && parts[1] == "map":
			err = decodeMap(params, name, parts[2], parts[3], fv)
		default:
			vals, ok := params[name]
			if !ok {
				continue
			}
			err = decodeScalar(name, vals[0], fv)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

func decodeScalar(name, s string, v reflect.Value) error {
	if v.Kind() == reflect.Pointer {
		p := reflect.New(v.Type().Elem())
		if err := decodeScalar(name, s, p.Elem()); err != nil {
			return err
		}
		v.Set(p)
		return nil
	}
	if v.Addr().Type().Implements(textUnmarshaler) {
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			return engine.ErrInvalidParameter(name, s, engine.ReasonNotBase64)
		}
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Int:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
		if err != nil {
			return engine.ErrInvalidParameter(name, s, engine.ReasonNotInteger)
		}
		v.SetInt(n)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return engine.ErrInvalidParameter(name, s, engine.ReasonNotBool)
		}
		v.SetBool(b)
	default:
		return engine.ErrInternalFailure(fmt.Sprintf("cannot decode %s into %s", name, v.Type()))
	}
	return nil
}

// indexes returns the list positions N present as "name.N" or "name.N.*",
// in ascending order.
func indexes(params url.Values, name string) []int {
	seen := map[int]bool{}
	p := name + "."
	for k := range params {
		if !strings.HasPrefix(k, p) {
			continue
		}
		rest := k[len(p):]
		if i := strings.IndexByte(rest, '.'); i >= 0 {
			rest = rest[:i]
		}
		if n, err := strconv.Atoi(rest); err == nil && n > 0 {
			seen[n] = true
		}
	}
	out := make([]int, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

func decodeList(params url.Values, name string, v reflect.Value) error {
	idx := indexes(params, name)
	if len(idx) == 0 {
		return nil
	}
	elem := v.Type().Elem()
	list := reflect.MakeSlice(v.Type(), 0, len(idx))
	for _, n := range idx {
		item := reflect.New(elem).Elem()
		key := name + "." + strconv.Itoa(n)
		if elem.Kind() == reflect.Struct {
			if err := decodeStruct(params, key+".", item); err != nil {
				return err
			}
		} else if vals, ok := params[key]; ok {
			if err := decodeScalar(key, vals[0], item); err != nil {
				return err
			}
		} else {
			continue
		}
		list = reflect.Append(list, item)
	}
	v.Set(list)
	return nil
}

func decodeMap(params url.Values, name, keyName, valueName string, v reflect.Value) error {
	idx := indexes(params, name)
	if len(idx) == 0 {
		return nil
	}
	m := reflect.MakeMapWithSize(v.Type(), len(idx))
	elem := v.Type().Elem()
	for _, n := range idx {
		base := name + "." + strconv.Itoa(n) + "."
		key := params.Get(base + keyName)
		if key == "" {
			return engine.ErrMissing(base + keyName)
		}
		val := reflect.New(elem).Elem()
		if elem.Kind() == reflect.Struct {
			if err := decodeStruct(params, base+valueName+".", val); err != nil {
				return err
			}
		} else if err := decodeScalar(base+valueName, params.Get(base+valueName), val); err != nil {
			return err
		}
		m.SetMapIndex(reflect.ValueOf(key), val)
	}
	v.Set(m)
	return nil
}
