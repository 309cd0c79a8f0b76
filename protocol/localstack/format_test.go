package localstack

import (
	"encoding/json"
	"testing"
)

func TestParseQueueURL(t *testing.T) {
	for _, c := range []struct{ url, region, account, name string }{
		{"http://sqs.us-east-1.localhost.localstack.cloud:4566/000000000000/orders", "us-east-1", "000000000000", "orders"},
		{"http://eu-west-1.queue.localhost.localstack.cloud:4566/111111111111/a.fifo", "eu-west-1", "111111111111", "a.fifo"},
		{"http://localhost:4566/queue/us-west-2/000000000000/orders", "us-west-2", "000000000000", "orders"},
		{"http://localhost.localstack.cloud:4566/000000000000/orders", "", "000000000000", "orders"},
		{"http://sqs.localhost.localstack.cloud:4566/000000000000/orders", "", "000000000000", "orders"},
		{"http://127.0.0.1:9324/000000000000/orders/", "", "000000000000", "orders"},
		{"https://sqs.ap-south-1.amazonaws.com/000000000000/orders", "ap-south-1", "000000000000", "orders"},
	} {
		region, account, name, ok := parseQueueURL(c.url)
		if !ok || region != c.region || account != c.account || name != c.name {
			t.Errorf("%s: %q %q %q %v", c.url, region, account, name, ok)
		}
	}
	for _, bad := range []string{"http://localhost:4566/nonsense", "http://localhost:4566/a/b/c", "http://localhost:4566/", "%zz"} {
		if _, _, _, ok := parseQueueURL(bad); ok {
			t.Errorf("%s parsed", bad)
		}
	}
}

func TestNegotiate(t *testing.T) {
	for accept, want := range map[string]string{
		"":                                      "text/xml",
		"*/*":                                   "text/xml",
		"application/json":                      "application/json",
		"application/xml":                       "application/xml",
		"application/*":                         "application/xml",
		"text/html, application/json;q=0.9":     "application/json",
		"application/json;q=0.5, text/xml":      "text/xml",
		"*/*;q=0.8, application/json":           "application/json",
		"image/png":                             "text/xml",
		"application/json;q=0, application/xml": "application/xml",
	} {
		if got := negotiate(accept); got != want {
			t.Errorf("Accept %q: %s, want %s", accept, got, want)
		}
	}
}

func TestXMLToJSON(t *testing.T) {
	got, err := xmlToJSON([]byte(`<?xml version="1.0"?>
<R xmlns="http://queue.amazonaws.com/doc/2012-11-05/" id="7"><A>1</A><A>2</A><E/><B><C>é "q" ☃ 𝄞</C></B><M>text<N>n</N></M></R>`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"R": {"@id": "7", "A": ["1", "2"], "E": null, "B": {"C": "\u00e9 \"q\" \u2603 \ud834\udd1e"}, "M": {"N": "n", "#text": "text"}}}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if _, err := xmlToJSON([]byte("<a><b></a>")); err == nil {
		t.Fatal("broken XML converted")
	}
}

func FuzzParseQueueURL(f *testing.F) {
	for _, s := range []string{
		"http://sqs.us-east-1.localhost.localstack.cloud:4566/000000000000/orders",
		"http://localhost:4566/queue/us-west-2/000000000000/orders",
		"http://localhost:4566/nonsense",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if _, account, name, ok := parseQueueURL(raw); ok && (account == "" || name == "") {
			t.Fatalf("%q parsed with an empty account or name", raw)
		}
	})
}

func FuzzXMLToJSON(f *testing.F) {
	f.Add([]byte(`<R xmlns="x"><A>1</A><A>2</A><E/></R>`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		out, err := xmlToJSON(doc)
		if err == nil && !json.Valid(out) {
			t.Fatalf("%q became invalid JSON %s", doc, out)
		}
	})
}
