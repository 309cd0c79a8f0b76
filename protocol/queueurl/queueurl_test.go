package queueurl

import (
	"crypto/tls"
	"net/http/httptest"
	"testing"
)

func TestBase(t *testing.T) {
	for _, tc := range []struct {
		name, host, proto, configured, want string
		tls                                 bool
	}{
		{name: "request host", host: "localhost:32768", want: "http://localhost:32768"},
		{name: "tls", host: "sqs.local", tls: true, want: "https://sqs.local"},
		{name: "forwarded proto", host: "sqs.local", proto: "https", want: "https://sqs.local"},
		{name: "bad forwarded proto ignored", host: "sqs.local", proto: "gopher", want: "http://sqs.local"},
		{name: "configured wins", host: "localhost:1", configured: "http://sqs:9324/", want: "http://sqs:9324"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/", nil)
			r.Host = tc.host
			if tc.proto != "" {
				r.Header.Set("X-Forwarded-Proto", tc.proto)
			}
			if tc.tls {
				r.TLS = &tls.ConnectionState{}
			}
			if got := Base(r, tc.configured); got != tc.want {
				t.Errorf("Base = %q, want %q", got, tc.want)
			}
		})
	}
	if got := For("http://localhost:9324", "000000000000", "orders.fifo"); got != "http://localhost:9324/000000000000/orders.fifo" {
		t.Errorf("For = %q", got)
	}
}
