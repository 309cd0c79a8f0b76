package sqs

import (
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"slices"

	"github.com/minisqs/minisqs/engine"
)

// Transport types in the attribute digest.
const (
	transportString byte = 1 // String and Number
	transportBinary byte = 2
)

// attributeDigests digests message attributes as SQS does, and as the SDKs
// check it: sorted by name, each as length-prefixed name, length-prefixed
// data type, a transport byte and the length-prefixed value, lengths 4-byte
// big-endian (aws-sdk-java-v2 MessageMD5ChecksumInterceptor); "" for no
// attributes, which answers leave out. It keeps the last digest with the
// attributes it was made of, for one request: the messages of a batch often
// carry the same attributes, and then one digest serves them all, found by
// comparing the attributes rather than encoding them again. A nil
// *attributeDigests keeps nothing.
type attributeDigests struct {
	last []engine.MessageAttribute // the attributes of sum, as given
	sum  string
}

// of returns the digest of attrs, which must not change while d keeps them.
func (d *attributeDigests) of(attrs []engine.MessageAttribute) string {
	if len(attrs) == 0 {
		return ""
	}
	if d == nil {
		return digestAttributes(attrs)
	}
	if d.sum == "" || !engine.SameAttributes(attrs, d.last) {
		d.last, d.sum = attrs, digestAttributes(attrs)
	}
	return d.sum
}

// digestAttributes is the digest of attrs, at least one.
func digestAttributes(attrs []engine.MessageAttribute) string {
	if !slices.IsSortedFunc(attrs, byAttributeName) {
		attrs = slices.SortedFunc(slices.Values(attrs), byAttributeName)
	}
	// Attributes are small: the digest's input usually fits on the stack.
	var stack [256]byte
	in := stack[:0]
	for _, a := range attrs {
		in = appendValue(in, a.Name)
		in = appendValue(in, a.DataType)
		if a.IsBinary() {
			in = appendValue(append(in, transportBinary), a.BinaryValue)
		} else {
			in = appendValue(append(in, transportString), a.StringValue)
		}
	}
	sum := md5.Sum(in)
	var digest [2 * md5.Size]byte
	hex.Encode(digest[:], sum[:])
	return string(digest[:])
}

// appendValue appends v after its length, 4 bytes big-endian.
func appendValue[V string | []byte](b []byte, v V) []byte {
	return append(binary.BigEndian.AppendUint32(b, uint32(len(v))), v...)
}
