package sqs

import (
	"net/url"
	"sync"
	"testing"
)

// urlPathByParse is what urlPath answers, by url.Parse alone.
func urlPathByParse(s string) string {
	if u, err := url.Parse(s); err == nil && u.Path != "" {
		return u.Path
	}
	return s
}

var urlPathCases = []string{
	"http://localhost:9324/000000000000/q",
	"https://sqs.us-east-1.amazonaws.com/123456789012/orders.fifo",
	"http://127.0.0.1:4566/000000000000/my-queue_1",
	"http://h:/a/b", "http://h", "http://h/", "http:///a/b", "http://:80/a/b",
	"http://h:8x/a/b", "http://h:80:90/a/b", "http://[::1]:80/a/b", "http://u@h/a/b",
	"http://h/a%2Fb/c", "http://h/a b/c", "http://h/a?b/c", "http://h/a#b", "http://h/a/b\x7f",
	"http://h\x00/a/b", "http://h/ü/b", "HTTP://h/a/b", "http:/h/a/b", "ftp://h/a/b",
	"queue-name", "/000000000000/q", "", "http://h/a:b/c", "http://h/~a/./../b",
}

// urlPath reads every URL as url.Parse does.
func TestURLPathAgreesWithParse(t *testing.T) {
	for _, s := range urlPathCases {
		if got, want := urlPath(s), urlPathByParse(s); got != want {
			t.Errorf("urlPath(%q) = %q, url.Parse has %q", s, got, want)
		}
	}
}

func FuzzURLPath(f *testing.F) {
	for _, s := range urlPathCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := urlPath(s), urlPathByParse(s); got != want {
			t.Errorf("urlPath(%q) = %q, url.Parse has %q", s, got, want)
		}
	})
}

// Queue paths split without allocating, as strings.Split would split them.
func TestSplitQueuePath(t *testing.T) {
	for _, c := range []struct {
		path, account, name string
		ok                  bool
	}{
		{"/123/q", "123", "q", true},
		{"123/q/", "123", "q", true},
		{"//123/q//", "123", "q", true},
		{"/123//q", "", "", false},
		{"/123/q/x", "", "", false},
		{"/123", "", "", false},
		{"/", "", "", false},
		{"", "", "", false},
	} {
		a, n, ok := splitQueuePath(c.path)
		if a != c.account || n != c.name || ok != c.ok {
			t.Errorf("splitQueuePath(%q) = %q, %q, %v; want %q, %q, %v", c.path, a, n, ok, c.account, c.name, c.ok)
		}
	}
	if n := testing.AllocsPerRun(100, func() { splitQueuePath("/123456789012/orders") }); n != 0 {
		t.Errorf("splitQueuePath allocates %v times", n)
	}
}

// queuePaths reads each URL as splitQueuePath(urlPath(u)) and nameInURL
// do, however
// URLs of one length, sharing a slot, follow one another, from many
// goroutines.
func TestQueuePathsRead(t *testing.T) {
	var paths queuePaths
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 3 * len(urlPathCases) {
				u := urlPathCases[(i*7+g)%len(urlPathCases)]
				account, name, ok := paths.of(u)
				wantAccount, wantName, wantOK := splitQueuePath(urlPath(u))
				if account != wantAccount || name != wantName || ok != wantOK {
					t.Errorf("of(%q) = %q, %q, %v; want %q, %q, %v", u, account, name, ok, wantAccount, wantName, wantOK)
				}
				if got, want := paths.get(u).chainName, nameInURL(u); got != want {
					t.Errorf("get(%q).chainName = %q, want %q", u, got, want)
				}
			}
		}()
	}
	wg.Wait()
}
