//go:build linux || darwin

package engine

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// lockStore takes the lock of the store at path, or says which process
// holds it. The lock lasts while the lock file is open, so it ends with
// the process however that ends.
func lockStore(path string) (*storeLock, error) {
	f, err := os.OpenFile(lockFile(path), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, inUse(path, f)
		}
		return nil, fmt.Errorf("open store %s: lock %s: %w", path, lockFile(path), err)
	}
	l := &storeLock{f}
	if err := f.Truncate(0); err != nil {
		l.release()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if _, err := f.WriteString(strconv.Itoa(os.Getpid()) + "\n"); err != nil {
		l.release()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return l, nil
}

// lockFile names the lock file of the store at path.
func lockFile(path string) string { return path + ".lock" }

// inUse is the error for a store whose lock another holds: the holder's
// process id as its lock file gives it.
func inUse(path string, f *os.File) error {
	b, _ := io.ReadAll(io.LimitReader(f, 32))
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
		return fmt.Errorf("open store %s: in use by process %d (it holds %s)", path, pid, lockFile(path))
	}
	return fmt.Errorf("open store %s: in use by another process (it holds %s)", path, lockFile(path))
}
