//go:build !linux && !darwin

package engine

// lockStore does nothing where minisqs has no file lock: keeping a store to
// one process is then its user's care.
func lockStore(path string) (*storeLock, error) { return nil, nil }
