package sigv4

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
)

// KeyFile is the access keys of a credentials file, one
// "ACCESS_KEY SECRET [ACCOUNT]" a line; blank lines and lines starting with
// # are skipped. Reload reads the file again, for SIGHUP: lookups in
// progress keep the keys they started with.
type KeyFile struct {
	path string
	keys atomic.Pointer[map[string]Credential]
}

// LoadKeyFile reads path.
func LoadKeyFile(path string) (*KeyFile, error) {
	f := &KeyFile{path: path}
	if err := f.Reload(); err != nil {
		return nil, err
	}
	return f, nil
}

// Reload reads the file again; on an error the keys stay as they were.
func (f *KeyFile) Reload() error {
	b, err := os.ReadFile(f.path)
	if err != nil {
		return fmt.Errorf("credentials: %w", err)
	}
	keys, err := parseKeys(f.path, string(b))
	if err != nil {
		return err
	}
	f.keys.Store(&keys)
	return nil
}

// Len is how many keys the file holds.
func (f *KeyFile) Len() int { return len(*f.keys.Load()) }

// Lookup finds an access key id's credential.
func (f *KeyFile) Lookup(id string) (Credential, bool) {
	c, ok := (*f.keys.Load())[id]
	return c, ok
}

func parseKeys(path, text string) (map[string]Credential, error) {
	keys := map[string]Credential{}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 || len(f) > 3 {
			return nil, fmt.Errorf("%s:%d: want \"ACCESS_KEY SECRET [ACCOUNT]\"", path, n+1)
		}
		c := Credential{AccessKeyID: f[0], Secret: f[1]}
		if len(f) == 3 {
			if !IsAccountID(f[2]) {
				return nil, fmt.Errorf("%s:%d: account %q: want 12 digits", path, n+1, f[2])
			}
			c.Account = f[2]
		}
		if _, dup := keys[c.AccessKeyID]; dup {
			return nil, fmt.Errorf("%s:%d: access key %s given twice", path, n+1, c.AccessKeyID)
		}
		keys[c.AccessKeyID] = c
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: no access keys (want \"ACCESS_KEY SECRET [ACCOUNT]\" lines)", path)
	}
	return keys, nil
}

// IsAccountID reports whether s is an AWS account id: 12 digits. An access
// key id of this form names its account, as LocalStack does.
func IsAccountID(s string) bool {
	if len(s) != 12 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
