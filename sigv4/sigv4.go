// Package sigv4 checks AWS Signature Version 4 on requests to minisqs, in
// either form AWS accepts: an Authorization header, or a presigned query
// string. It does not compute signatures itself: it rebuilds the request as
// the client signed it and signs that again with aws-sdk-go-v2's signer,
// then compares, so the algorithm is the SDK's own.
package sigv4

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/minisqs/minisqs/internal/httpheader"
)

// Service is the signing name of SQS.
const Service = "sqs"

// MaxSkew is how far a signed request's time may be from the server's, as
// AWS allows ("Signature expired ... (15 min.)").
const MaxSkew = 15 * time.Minute

const (
	algorithm   = "AWS4-HMAC-SHA256"
	amzDate     = "X-Amz-Date"
	amzDateForm = "20060102T150405Z"
	// unsignedPayload is the payload hash of a presigned URL, which signs no
	// body.
	unsignedPayload = "UNSIGNED-PAYLOAD"
)

// Kind is a class of signature failure; each front end answers it in its
// own protocol's words.
type Kind int

// Kinds of failure.
const (
	// Missing: the request carries no signature at all.
	Missing Kind = iota + 1
	// Malformed: a signature whose parts cannot be read.
	Malformed
	// UnknownKey: the access key id is not one the server knows.
	UnknownKey
	// Mismatch: the signature is not the one the key makes for this
	// request (a changed body, header or URL, or a wrong secret).
	Mismatch
	// Expired: the signing time is more than MaxSkew from now, or a
	// presigned URL's lifetime has ended.
	Expired
)

// Error is a failed check.
type Error struct {
	Kind Kind
	// Detail names what was wrong, for the answer's message.
	Detail string
	// SignedAt and Now are set for Expired.
	SignedAt, Now time.Time
}

func (e *Error) Error() string { return "sigv4: " + e.Detail }

// Credential is one access key the server accepts.
type Credential struct {
	AccessKeyID string
	Secret      string
	// Account is the account the key acts in; empty for the default.
	Account string
}

// Keys finds the credential of an access key id.
type Keys interface {
	Lookup(accessKeyID string) (Credential, bool)
}

// Signature is what a request says of its signer: its access key id and
// the region of its credential scope.
type Signature struct {
	AccessKeyID string
	Region      string
	Date        string // of the scope, YYYYMMDD
	Service     string
	presigned   bool
	// signed is SignedHeaders, lower-case names between semicolons, split
	// only by Verify: most requests are only parsed.
	signed    string
	signature string
	// date and expiresIn are a presigned URL's X-Amz-Date and
	// X-Amz-Expires as they came, read by Verify into signedAt and expires.
	date, expiresIn string
	signedAt        time.Time
	expires         time.Duration // presigned URLs only
}

// Parse reads a request's signature without checking it. ok is false when
// the request carries none. It reads what names the signer (the
// Credential) and checks the signature's form, but leaves the signing time
// and a presigned URL's lifetime to Verify: a server that does not verify
// reads every request's signature, and needs only its Credential.
func Parse(r *http.Request) (sig Signature, ok bool, err error) {
	if h := httpheader.Get(r.Header, "Authorization"); h != "" {
		sig, err := parseHeader(h)
		return sig, true, err
	}
	// Most requests have no query string, and a presigned URL's parameters
	// all start X-Amz- (unless escaped): the query is parsed only when it
	// may hold them.
	if raw := r.URL.RawQuery; !strings.Contains(raw, "X-Amz-") && !strings.Contains(raw, "%") {
		return Signature{}, false, nil
	}
	q := r.URL.Query()
	if q.Get("X-Amz-Algorithm") != "" || q.Get("X-Amz-Signature") != "" {
		sig, err := parseQuery(q)
		return sig, true, err
	}
	return Signature{}, false, nil
}

func malformed(detail string) error { return &Error{Kind: Malformed, Detail: detail} }

// parseHeader reads "AWS4-HMAC-SHA256 Credential=AKID/DATE/REGION/SERVICE/aws4_request,
// SignedHeaders=a;b, Signature=hex".
func parseHeader(h string) (Signature, error) {
	rest, ok := cutName(h, algorithm, ' ')
	if !ok {
		return Signature{}, malformed("Authorization header does not use " + algorithm)
	}
	var sig Signature
	cred, signed, signature, ok := sdkForm(rest)
	if ok {
		sig.signed, sig.signature = signed, signature
		if err := sig.parseCredential(cred); err != nil {
			return Signature{}, err
		}
		return sig, nil
	}
	hasSigned := false
	for more := true; more; {
		var part string
		part, rest, more = strings.Cut(rest, ",")
		name, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch name {
		case "Credential":
			cred = v
		case "SignedHeaders":
			sig.signed, hasSigned = v, true
		case "Signature":
			sig.signature = v
		}
	}
	if cred == "" || !hasSigned || sig.signature == "" {
		return Signature{}, malformed("Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters")
	}
	if err := sig.parseCredential(cred); err != nil {
		return Signature{}, err
	}
	return sig, nil
}

// sdkForm splits rest as the SDKs write it, "Credential=C,
// SignedHeaders=H, Signature=S", as the general loop of parseHeader would,
// without its trimming: ok is false for any other form (other spaces, other
// order, more parts, an empty value), which that loop reads instead.
func sdkForm(rest string) (cred, signed, signature string, ok bool) {
	const credName, signedName, signatureName = "Credential=", ", SignedHeaders=", ", Signature="
	if !strings.HasPrefix(rest, credName) {
		return "", "", "", false
	}
	rest = rest[len(credName):]
	i := strings.IndexByte(rest, ',')
	if i < 0 || !strings.HasPrefix(rest[i:], signedName) {
		return "", "", "", false
	}
	cred, rest = rest[:i], rest[i+len(signedName):]
	i = strings.IndexByte(rest, ',')
	if i < 0 || !strings.HasPrefix(rest[i:], signatureName) {
		return "", "", "", false
	}
	signed, signature = rest[:i], rest[i+len(signatureName):]
	if strings.IndexByte(signature, ',') >= 0 || !endsKept(cred) || !endsKept(signed) || !endsKept(signature) {
		return "", "", "", false
	}
	return cred, signed, signature, true
}

// endsKept reports whether s ends in a byte that strings.TrimSpace keeps:
// ASCII, and not white space.
func endsKept(s string) bool {
	if s == "" {
		return false
	}
	c := s[len(s)-1]
	return c < utf8.RuneSelf && c != ' ' && (c < '\t' || c > '\r')
}

// cutName reports whether name is what strings.Cut(s, string(sep)) would
// give first, and returns what it would give second; name holds no sep.
// It compares rather than searches: every signed request passes here.
func cutName(s, name string, sep byte) (string, bool) {
	rest, ok := strings.CutPrefix(s, name)
	switch {
	case !ok:
		return "", false
	case rest == "":
		return "", true
	case rest[0] == sep:
		return rest[1:], true
	}
	return "", false
}

func parseQuery(q url.Values) (Signature, error) {
	if q.Get("X-Amz-Algorithm") != algorithm {
		return Signature{}, malformed("X-Amz-Algorithm must be " + algorithm)
	}
	sig := Signature{presigned: true, signature: q.Get("X-Amz-Signature"), signed: q.Get("X-Amz-SignedHeaders")}
	if sig.signature == "" || sig.signed == "" {
		return Signature{}, malformed("a presigned URL requires X-Amz-Credential, X-Amz-SignedHeaders and X-Amz-Signature")
	}
	if err := sig.parseCredential(q.Get("X-Amz-Credential")); err != nil {
		return Signature{}, err
	}
	sig.date, sig.expiresIn = q.Get(amzDate), q.Get("X-Amz-Expires")
	return sig, nil
}

// readTime reads the signing time, from the X-Amz-Date header or, for a
// presigned URL, its parameters with its lifetime.
func (s *Signature) readTime(r *http.Request) error {
	if !s.presigned {
		t, err := time.Parse(amzDateForm, httpheader.Get(r.Header, amzDate))
		if err != nil {
			return malformed("the request has no valid X-Amz-Date header")
		}
		s.signedAt = t
		return nil
	}
	t, err := time.Parse(amzDateForm, s.date)
	if err != nil {
		return malformed("X-Amz-Date is missing or not in the form YYYYMMDDTHHMMSSZ")
	}
	s.signedAt = t
	secs, err := strconv.Atoi(s.expiresIn)
	if err != nil || secs < 1 || secs > 7*24*3600 {
		return malformed("X-Amz-Expires must be 1 to 604800 seconds")
	}
	s.expires = time.Duration(secs) * time.Second
	return nil
}

func credentialMalformed() error {
	return malformed("Credential must have the form ACCESS_KEY/DATE/REGION/SERVICE/aws4_request")
}

func (s *Signature) parseCredential(cred string) error {
	if c := lastScope.Load(); c != nil && c.credential == cred {
		s.AccessKeyID, s.Date, s.Region, s.Service = c.accessKeyID, c.date, c.region, c.service
		return nil
	}
	// Five parts: up to each of the first four slashes, then the rest.
	var parts [5]string
	rest := cred
	for n := range 4 {
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			return credentialMalformed()
		}
		parts[n], rest = rest[:i], rest[i+1:]
	}
	parts[4] = rest
	if parts[0] == "" || parts[4] != "aws4_request" {
		return credentialMalformed()
	}
	s.AccessKeyID, s.Date, s.Region, s.Service = parts[0], parts[1], parts[2], parts[3]
	// The parts of a copy, so that the cache holds on to no request.
	c := &scope{credential: strings.Clone(cred)}
	rest = c.credential
	c.accessKeyID, rest = rest[:len(parts[0])], rest[len(parts[0])+1:]
	c.date, rest = rest[:len(parts[1])], rest[len(parts[1])+1:]
	c.region, rest = rest[:len(parts[2])], rest[len(parts[2])+1:]
	c.service = rest[:len(parts[3])]
	lastScope.Store(c)
	return nil
}

// scope is a well-formed Credential and its parts.
type scope struct {
	credential                         string
	accessKeyID, date, region, service string
}

// lastScope is the Credential last read: a client signs request after
// request with the same one, until the day changes.
var lastScope atomic.Pointer[scope]

// Verify checks that r, whose body is body, is signed by a key of keys,
// within MaxSkew of now (or within its lifetime, for a presigned URL). It
// returns the signature and the key's credential.
func Verify(r *http.Request, body []byte, keys Keys, now time.Time) (Signature, Credential, error) {
	sig, ok, err := Parse(r)
	if err == nil && ok {
		err = sig.readTime(r)
	}
	if err != nil {
		return Signature{}, Credential{}, err
	}
	if !ok {
		return sig, Credential{}, &Error{Kind: Missing, Detail: "the request carries no signature"}
	}
	if sig.Service != Service {
		return sig, Credential{}, &Error{Kind: Mismatch, Detail: "the credential is scoped to service " + sig.Service + ", not " + Service}
	}
	cred, ok := keys.Lookup(sig.AccessKeyID)
	if !ok {
		return sig, Credential{}, &Error{Kind: UnknownKey, Detail: "unknown access key " + sig.AccessKeyID}
	}
	if sig.Date != sig.signedAt.Format("20060102") {
		return sig, cred, &Error{Kind: Mismatch, Detail: "the credential's date is not the signing date"}
	}
	if sig.presigned {
		if now.After(sig.signedAt.Add(sig.expires)) {
			return sig, cred, &Error{Kind: Expired, Detail: "the presigned URL has expired", SignedAt: sig.signedAt.Add(sig.expires), Now: now}
		}
	} else if d := now.Sub(sig.signedAt); d > MaxSkew || d < -MaxSkew {
		return sig, cred, &Error{Kind: Expired, Detail: "the signing time is more than 15 minutes from the server's", SignedAt: sig.signedAt, Now: now}
	}
	for _, hash := range payloadHashes(body, sig.presigned) {
		want, err := resign(r, hash, sig, cred)
		if err != nil {
			return sig, cred, err
		}
		if hmac.Equal([]byte(want), []byte(sig.signature)) {
			return sig, cred, nil
		}
	}
	return sig, cred, &Error{Kind: Mismatch, Detail: "the request signature we calculated does not match the signature you provided"}
}

// payloadHashes are the payload hashes a client may have signed: the
// body's, and for a presigned URL without a body, also UNSIGNED-PAYLOAD.
func payloadHashes(body []byte, presigned bool) []string {
	sum := sha256.Sum256(body)
	hashes := []string{hex.EncodeToString(sum[:])}
	if presigned && len(body) == 0 {
		hashes = append(hashes, unsignedPayload)
	}
	return hashes
}

// resign signs, with the SDK's signer, the request as the client signed
// it: its method, URL and exactly the headers it names as signed, and
// returns the signature.
func resign(r *http.Request, payloadHash string, sig Signature, cred Credential) (string, error) {
	u := *r.URL
	u.Scheme, u.Host = "http", r.Host
	if sig.presigned {
		q := u.Query()
		q.Del("X-Amz-Signature")
		u.RawQuery = q.Encode()
	}
	req, err := http.NewRequestWithContext(context.Background(), r.Method, u.String(), nil)
	if err != nil {
		return "", malformed("the request URL cannot be read")
	}
	req.Host = r.Host
	for name := range strings.SplitSeq(sig.signed, ";") {
		switch name {
		case "host":
		case "content-length":
			// The signer signs the length itself, from ContentLength.
			n, err := strconv.ParseInt(r.Header.Get("Content-Length"), 10, 64)
			if err != nil {
				n = r.ContentLength
			}
			req.ContentLength = n
		default:
			if vs, ok := r.Header[http.CanonicalHeaderKey(name)]; ok {
				req.Header[http.CanonicalHeaderKey(name)] = vs
			}
		}
	}
	creds := aws.Credentials{AccessKeyID: cred.AccessKeyID, SecretAccessKey: cred.Secret}
	signer := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableHeaderHoisting = true })
	if sig.presigned {
		signed, _, err := signer.PresignHTTP(context.Background(), creds, req, payloadHash, sig.Service, sig.Region, sig.signedAt)
		if err != nil {
			return "", err
		}
		su, err := url.Parse(signed)
		if err != nil {
			return "", err
		}
		return su.Query().Get("X-Amz-Signature"), nil
	}
	if err := signer.SignHTTP(context.Background(), creds, req, payloadHash, sig.Service, sig.Region, sig.signedAt); err != nil {
		return "", err
	}
	_, after, _ := strings.Cut(req.Header.Get("Authorization"), "Signature=")
	return after, nil
}
