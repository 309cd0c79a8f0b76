package sqs

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strings"

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
// attributes, which answers leave out. It keeps the last digest with its
// input, for one request: the messages of a batch often carry the same
// attributes, and then one digest serves them all. A nil *attributeDigests
// keeps nothing.
type attributeDigests struct {
	in  []byte // the input of sum, in buf when it fits
	sum string
	buf [128]byte
}

func (d *attributeDigests) of(attrs []engine.MessageAttribute) string {
	if len(attrs) == 0 {
		return ""
	}
	byName := func(a, b engine.MessageAttribute) int { return strings.Compare(a.Name, b.Name) }
	if !slices.IsSortedFunc(attrs, byName) {
		attrs = slices.SortedFunc(slices.Values(attrs), byName)
	}
	// Attributes are small: the whole digest input usually fits on the stack.
	var stack [1024]byte
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
	if d != nil && d.sum != "" && bytes.Equal(in, d.in) {
		return d.sum
	}
	sum := md5.Sum(in)
	var digest [2 * md5.Size]byte
	hex.Encode(digest[:], sum[:])
	if d == nil {
		return string(digest[:])
	}
	if d.in == nil {
		d.in = d.buf[:0]
	}
	d.in, d.sum = append(d.in[:0], in...), string(digest[:])
	return d.sum
}

// appendValue appends v after its length, 4 bytes big-endian.
func appendValue[V string | []byte](b []byte, v V) []byte {
	return append(binary.BigEndian.AppendUint32(b, uint32(len(v))), v...)
}
