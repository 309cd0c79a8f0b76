package sqs

import (
	"context"
	"errors"
	"time"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/dispatch"
	"github.com/minisqs/minisqs/sigv4"
)

// Codes of signature failures, as SQS answers them (the SQS API
// Reference's "Common Errors"; the query-protocol answers recorded in
// aws/aws-sdk-php#642, boto/boto#1573 and ex-aws/ex_aws#220).
const (
	errMissingAuthToken      engine.Code = "MissingAuthenticationToken"
	errSignatureDoesNotMatch engine.Code = "SignatureDoesNotMatch"
)

// Identity configures the identity step of the SQS protocols.
type Identity struct {
	// Verify makes every SQS request carry a valid Signature Version 4 of
	// a key in Keys; off, signatures are read for their Credential but
	// not checked, nor is their signing time read.
	Verify bool
	// Keys are the access keys the server knows; an access key id they
	// name acts in its key's account. May be nil when Verify is off.
	Keys sigv4.Keys
	// Now is the time signatures are checked against: the wall clock, as
	// clients sign with theirs, whatever the engine's clock says.
	Now func() time.Time
}

// Step is the chain step that finds in whose namespace an SQS request acts,
// from its signature's credential (the access key id's account, the
// scope's region), and, when Verify is on, refuses a request whose
// signature is missing or wrong before anything else sees it. An access
// key id of 12 digits names that account, as LocalStack's convention has
// it. Requests of the REST API pass untouched: bearer tokens guard it.
func (id Identity) Step() dispatch.Step {
	return func(next dispatch.Handler) dispatch.Handler {
		return func(ctx context.Context, r *dispatch.Request) (any, error) {
			if r.HTTP == nil || (r.Protocol != dispatch.Query && r.Protocol != dispatch.JSON) {
				return next(ctx, r)
			}
			var sig sigv4.Signature
			var cred sigv4.Credential
			if id.Verify {
				var err error
				if sig, cred, err = sigv4.Verify(r.HTTP, r.Body, id.Keys, id.Now()); err != nil {
					return nil, signatureError(err)
				}
			} else {
				var ok bool
				if sig, ok, _ = sigv4.Parse(r.HTTP); !ok {
					return next(ctx, r)
				}
				if id.Keys != nil {
					cred, _ = id.Keys.Lookup(sig.AccessKeyID)
				}
			}
			r.Region = sig.Region
			switch {
			case cred.Account != "":
				r.Account = cred.Account
			case sigv4.IsAccountID(sig.AccessKeyID):
				r.Account = sig.AccessKeyID
			}
			return next(ctx, r)
		}
	}
}

// signatureError is a failed check in SQS's words.
func signatureError(err error) error {
	var se *sigv4.Error
	if !errors.As(err, &se) {
		return wireErrorf(engine.ErrInternal, "We encountered an internal error. Please try again.")
	}
	switch se.Kind {
	case sigv4.Missing:
		return wireErrorf(errMissingAuthToken, "The request must contain either a valid (registered) AWS access key ID or X.509 certificate.")
	case sigv4.Malformed:
		return wireErrorf(errIncompleteSignature, "The request signature does not conform to AWS standards.")
	case sigv4.UnknownKey:
		return wireErrorf(errInvalidClientTokenID, "The security token included in the request is invalid.")
	case sigv4.Expired:
		const form = "20060102T150405Z"
		if se.SignedAt.After(se.Now) {
			return wireErrorf(errSignatureDoesNotMatch, "Signature not yet current: %s is still later than %s (%s + 15 min.)",
				se.SignedAt.UTC().Format(form), se.Now.Add(sigv4.MaxSkew).UTC().Format(form), se.Now.UTC().Format(form))
		}
		return wireErrorf(errSignatureDoesNotMatch, "Signature expired: %s is now earlier than %s (%s - 15 min.)",
			se.SignedAt.UTC().Format(form), se.Now.Add(-sigv4.MaxSkew).UTC().Format(form), se.Now.UTC().Format(form))
	}
	return wireErrorf(errSignatureDoesNotMatch, "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.")
}
