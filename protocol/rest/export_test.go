package rest

// Test hooks for the external test package, which cannot be package rest
// itself: it drives the full protocol handler, which imports this package.

// RouteInfo is one registered operation.
type RouteInfo struct{ Method, Path, Op string }

// Routes lists the registered operations with httprouter paths.
func Routes() []RouteInfo {
	out := make([]RouteInfo, 0, len(routes))
	for _, r := range routes {
		out = append(out, RouteInfo{r.method, r.path, r.op})
	}
	return out
}

// ErrorCodes lists every error code with its status.
func ErrorCodes() map[string]int { return statuses }
