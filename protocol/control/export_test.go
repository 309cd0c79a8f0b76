package control

// Routes lists the registered operations, for the external tests.
func Routes() map[string]string {
	out := map[string]string{}
	for _, r := range routes {
		out[r.op] = r.method + " " + r.path
	}
	return out
}
