// Package httpheader reads request headers on the hot path without
// net/http's canonicalization of the name, which costs more than the
// lookup itself and is needless for a name written in canonical form.
package httpheader

import "net/http"

// Get is h.Get(key) for a key already in canonical form ("X-Amz-Target",
// not "x-amz-target"): net/http stores the headers it reads under their
// canonical names.
func Get(h http.Header, key string) string {
	if vs := h[key]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}
