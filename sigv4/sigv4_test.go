package sigv4

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

type keyMap map[string]Credential

func (k keyMap) Lookup(id string) (Credential, bool) { c, ok := k[id]; return c, ok }

var (
	testKeys = keyMap{"AKIDEXAMPLE": {AccessKeyID: "AKIDEXAMPLE", Secret: "s3cret", Account: "111111111111"}}
	signedAt = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
)

func hashOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// signed is a JSON-protocol request signed by the SDK's signer, as the
// server receives it.
func signed(t testing.TB, secret, body string, at time.Time) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:9324/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "AmazonSQS.ListQueues")
	req.Header.Set("User-Agent", "test")
	creds := aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: secret}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hashOf([]byte(body)), "sqs", "eu-west-1", at); err != nil {
		t.Fatal(err)
	}
	return received(req)
}

// received turns a client's request into what a server handler sees.
func received(req *http.Request) *http.Request {
	r := req.Clone(context.Background())
	r.Host = req.URL.Host
	r.URL = &url.URL{Path: req.URL.Path, RawPath: req.URL.RawPath, RawQuery: req.URL.RawQuery}
	r.RequestURI = req.URL.RequestURI()
	if req.ContentLength > 0 {
		r.Header.Set("Content-Length", strconv.FormatInt(req.ContentLength, 10))
	}
	return r
}

func wantKind(t *testing.T, err error, want Kind) {
	t.Helper()
	var e *Error
	switch {
	case want == 0 && err != nil:
		t.Fatalf("Verify: %v, want success", err)
	case want == 0:
	case !errors.As(err, &e) || e.Kind != want:
		t.Fatalf("Verify: %v, want kind %d", err, want)
	}
}

func TestVerifyHeader(t *testing.T) {
	const body = `{"QueueNamePrefix":"a"}`
	tests := []struct {
		name string
		req  func() (*http.Request, []byte)
		now  time.Time
		want Kind
	}{
		{"valid", func() (*http.Request, []byte) { return signed(t, "s3cret", body, signedAt), []byte(body) }, signedAt.Add(time.Minute), 0},
		{"a changed body", func() (*http.Request, []byte) {
			return signed(t, "s3cret", body, signedAt), []byte(`{"QueueNamePrefix":"b"}`)
		}, signedAt, Mismatch},
		{"a changed signed header", func() (*http.Request, []byte) {
			r := signed(t, "s3cret", body, signedAt)
			r.Header.Set("X-Amz-Target", "AmazonSQS.DeleteQueue")
			return r, []byte(body)
		}, signedAt, Mismatch},
		{"an unsigned header may change", func() (*http.Request, []byte) {
			r := signed(t, "s3cret", body, signedAt)
			r.Header.Set("User-Agent", "proxy")
			return r, []byte(body)
		}, signedAt, 0},
		{"a wrong secret", func() (*http.Request, []byte) { return signed(t, "guess", body, signedAt), []byte(body) }, signedAt, Mismatch},
		{"an unknown key", func() (*http.Request, []byte) {
			r := signed(t, "s3cret", body, signedAt)
			r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), "AKIDEXAMPLE", "AKIDOTHER", 1))
			return r, []byte(body)
		}, signedAt, UnknownKey},
		{"signed 16 minutes ago", func() (*http.Request, []byte) { return signed(t, "s3cret", body, signedAt), []byte(body) }, signedAt.Add(16 * time.Minute), Expired},
		{"signed 16 minutes ahead", func() (*http.Request, []byte) { return signed(t, "s3cret", body, signedAt), []byte(body) }, signedAt.Add(-16 * time.Minute), Expired},
		{"no signature", func() (*http.Request, []byte) {
			r := signed(t, "s3cret", body, signedAt)
			r.Header.Del("Authorization")
			return r, []byte(body)
		}, signedAt, Missing},
		{"a header without Signature", func() (*http.Request, []byte) {
			r := signed(t, "s3cret", body, signedAt)
			h, _, _ := strings.Cut(r.Header.Get("Authorization"), ", Signature=")
			r.Header.Set("Authorization", h)
			return r, []byte(body)
		}, signedAt, Malformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, b := tt.req()
			sig, cred, err := Verify(r, b, testKeys, tt.now)
			wantKind(t, err, tt.want)
			if tt.want == 0 && (sig.Region != "eu-west-1" || cred.Account != "111111111111") {
				t.Errorf("signature %+v credential %+v", sig, cred)
			}
		})
	}
}

// presigned is a query-protocol GET presigned by the SDK's signer.
func presigned(t *testing.T, query string, expires int, payload string) *http.Request {
	t.Helper()
	u := "http://localhost:9324/000000000000/q?" + query + "&X-Amz-Expires=" + strconv.Itoa(expires)
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	creds := aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "s3cret"}
	signedURL, _, err := v4.NewSigner().PresignHTTP(context.Background(), creds, req, payload, "sqs", "us-east-1", signedAt)
	if err != nil {
		t.Fatal(err)
	}
	out, err := http.NewRequest(http.MethodGet, signedURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	return received(out)
}

func TestVerifyPresigned(t *testing.T) {
	const q = "Action=GetQueueAttributes&AttributeName.1=All"
	for _, payload := range []string{hashOf(nil), "UNSIGNED-PAYLOAD"} {
		r := presigned(t, q, 300, payload)
		_, _, err := Verify(r, nil, testKeys, signedAt.Add(time.Minute))
		wantKind(t, err, 0)
		_, _, err = Verify(r, nil, testKeys, signedAt.Add(301*time.Second))
		wantKind(t, err, Expired)
	}
	r := presigned(t, q, 300, hashOf(nil))
	r.URL.RawQuery = strings.Replace(r.URL.RawQuery, "AttributeName.1=All", "AttributeName.1=Policy", 1)
	_, _, err := Verify(r, nil, testKeys, signedAt)
	wantKind(t, err, Mismatch)
	r = presigned(t, q, 300, hashOf(nil))
	_, _, err = Verify(r, []byte("Action=DeleteQueue"), testKeys, signedAt)
	wantKind(t, err, Mismatch) // a body the URL did not sign
}

// Parse reads the Credential of a signature whose time it leaves to Verify,
// which refuses a missing or unreadable one as before.
func TestParseLeavesTimeToVerify(t *testing.T) {
	const body = `{}`
	undated := func() *http.Request {
		r := signed(t, "s3cret", body, signedAt)
		r.Header.Set("X-Amz-Date", "yesterday")
		return r
	}
	sig, ok, err := Parse(undated())
	if !ok || err != nil || sig.AccessKeyID != "AKIDEXAMPLE" || sig.Region != "eu-west-1" {
		t.Fatalf("Parse: %+v, %v, %v", sig, ok, err)
	}
	_, _, err = Verify(undated(), []byte(body), testKeys, signedAt)
	wantKind(t, err, Malformed)

	const q = "Action=GetQueueAttributes&AttributeName.1=All"
	r := presigned(t, q, 300, hashOf(nil))
	r.URL.RawQuery = strings.Replace(r.URL.RawQuery, "X-Amz-Expires=300", "X-Amz-Expires=0", 1)
	if sig, ok, err := Parse(r); !ok || err != nil || sig.Region != "us-east-1" {
		t.Fatalf("Parse of a presigned URL: %+v, %v, %v", sig, ok, err)
	}
	_, _, err = Verify(r, nil, testKeys, signedAt)
	wantKind(t, err, Malformed)
}

// Parse finds a presigned URL's parameters under escaped names too, and
// no signature in a query without them.
func TestParseQueryNames(t *testing.T) {
	r := presigned(t, "Action=ListQueues", 300, hashOf(nil))
	r.URL.RawQuery = strings.ReplaceAll(r.URL.RawQuery, "X-Amz-", "X%2DAmz-")
	if sig, ok, err := Parse(r); !ok || err != nil || sig.AccessKeyID != "AKIDEXAMPLE" {
		t.Fatalf("Parse with escaped names: %+v, %v, %v", sig, ok, err)
	}
	_, _, err := Verify(r, nil, testKeys, signedAt)
	wantKind(t, err, 0)
	for _, raw := range []string{"", "Action=ListQueues", "Action=ListQueues&QueueNamePrefix=a%20b"} {
		r.URL.RawQuery = raw
		if _, ok, err := Parse(r); ok || err != nil {
			t.Errorf("Parse of %q: %v, %v, want no signature", raw, ok, err)
		}
	}
}

// parseHeaderBySplit is parseHeader written plainly, with strings.Cut and
// strings.Split, to hold the fast one to.
func parseHeaderBySplit(h string) (Signature, error) {
	alg, rest, _ := strings.Cut(h, " ")
	if alg != algorithm {
		return Signature{}, malformed("algorithm")
	}
	var sig Signature
	var cred string
	hasSigned := false
	for _, part := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "Credential":
			cred = v
		case "SignedHeaders":
			sig.signed, hasSigned = v, true
		case "Signature":
			sig.signature = v
		}
	}
	if cred == "" || !hasSigned || sig.signature == "" {
		return Signature{}, malformed("parts")
	}
	parts := strings.SplitN(cred, "/", 5)
	if len(parts) != 5 || parts[0] == "" || parts[4] != "aws4_request" {
		return Signature{}, malformed("credential")
	}
	sig.AccessKeyID, sig.Date, sig.Region, sig.Service = parts[0], parts[1], parts[2], parts[3]
	return sig, nil
}

// FuzzParseHeader holds parseHeader to parseHeaderBySplit, on these forms
// in every test run and on more under go test -fuzz.
func FuzzParseHeader(f *testing.F) {
	const good = "Credential=AKID/20261201/eu-west-1/sqs/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc"
	headers := []string{
		"AWS4-HMAC-SHA256 " + good,
		"AWS4-HMAC-SHA256  " + good,
		"AWS4-HMAC-SHA256",
		"AWS4-HMAC-SHA256x " + good,
		"AWS4-HMAC-SHA25 " + good,
		"aws4-hmac-sha256 " + good,
		"AWS4-HMAC-SHA256 Credential=AKID/20261201/eu-west-1/sqs/aws4_request,SignedHeaders=,Signature=abc",
		"AWS4-HMAC-SHA256 Credential=AKID/20261201/eu-west-1/sqs/aws4_request, SignedHeaders, Signature=abc",
		"AWS4-HMAC-SHA256 Credential=AKID/20261201/eu-west-1/sqs/aws4_request, Signature=abc",
		"AWS4-HMAC-SHA256 " + good + ", Credential",
		"AWS4-HMAC-SHA256 " + good + ", Credentials=x/y/z/w/aws4_request",
		"AWS4-HMAC-SHA256 " + good + ", Signature=",
		"AWS4-HMAC-SHA256 " + good + ", Signature=def",
		"AWS4-HMAC-SHA256 \tCredential=AKID/d/r/s/aws4_request ,\tSignedHeaders=host , Signature=abc\t",
		"AWS4-HMAC-SHA256 Credential=a=b/d/r/s/aws4_request, SignedHeaders=host, Signature=a=b",
		"AWS4-HMAC-SHA256 Credential=/d/r/s/aws4_request, SignedHeaders=host, Signature=abc",
		"AWS4-HMAC-SHA256 Credential=AKID/d/r/s, SignedHeaders=host, Signature=abc",
		"AWS4-HMAC-SHA256 Credential=AKID/d/r/s/aws4_request/, SignedHeaders=host, Signature=abc",
		"AWS4-HMAC-SHA256 Credential=AKID/d/r/s/x/aws4_request, SignedHeaders=host, Signature=abc",
		"AWS4-HMAC-SHA256 Credential=AKID////aws4_request, SignedHeaders=host, Signature=abc",
		"AWS4-HMAC-SHA256 Credential=AKID/d/r/s/aws4_request",
		"AWS4-HMAC-SHA256 ,,,",
	}
	for _, h := range headers {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, h string) {
		got, gotErr := parseHeader(h)
		want, wantErr := parseHeaderBySplit(h)
		if (gotErr != nil) != (wantErr != nil) || got != want {
			t.Errorf("parseHeader(%q) = %+v, %v; want %+v, %v", h, got, gotErr, want, wantErr)
		}
	})
}

func TestKeyFile(t *testing.T) {
	path := t.TempDir() + "/credentials"
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("# keys\nAKID1 secret1\nAKID2 secret2 222222222222\n")
	f, err := LoadKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := f.Lookup("AKID2"); !ok || c.Secret != "secret2" || c.Account != "222222222222" {
		t.Fatalf("Lookup(AKID2) = %+v, %v", c, ok)
	}
	write("AKID3 secret3\n")
	if err := f.Reload(); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Lookup("AKID1"); ok {
		t.Error("AKID1 still known after a reload without it")
	}
	for _, bad := range []string{"", "# only comments\n", "AKID1\n", "AKID1 s 123\n", "AKID1 a\nAKID1 b\n"} {
		write(bad)
		if err := f.Reload(); err == nil {
			t.Errorf("Reload accepted %q", bad)
		}
		if _, ok := f.Lookup("AKID3"); !ok {
			t.Errorf("a failed reload of %q dropped the keys in force", bad)
		}
	}
}

// BenchmarkVerify is the cost of checking one signed JSON request.
func BenchmarkVerify(b *testing.B) {
	body := []byte(`{"QueueUrl":"http://127.0.0.1:9324/000000000000/q","MaxNumberOfMessages":10}`)
	r := signed(b, "s3cret", string(body), signedAt)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Verify(r, body, testKeys, signedAt); err != nil {
			b.Fatal(err)
		}
	}
}

// Credentials read in turn each give their own parts, though the last one
// read is kept.
func TestParseCredentialsInTurn(t *testing.T) {
	for i := range 6 {
		want := Signature{AccessKeyID: "111111111111", Date: "20261201", Region: "eu-west-1", Service: "sqs"}
		if i%2 == 1 {
			want = Signature{AccessKeyID: "AKID2", Date: "20261202", Region: "us-east-2", Service: "sqs"}
		}
		var got Signature
		if err := got.parseCredential(want.AccessKeyID + "/" + want.Date + "/" + want.Region + "/" + want.Service + "/aws4_request"); err != nil || got != want {
			t.Fatalf("read %d: %+v, %v; want %+v", i, got, err, want)
		}
		if err := got.parseCredential(want.AccessKeyID + "/" + want.Date + "/" + want.Region + "/" + want.Service); err == nil {
			t.Fatalf("read %d: a credential without aws4_request taken", i)
		}
	}
}
