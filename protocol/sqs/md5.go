package sqs

import (
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"sort"

	"github.com/minisqs/minisqs/engine"
)

// Transport types in the attribute digest.
const (
	transportString byte = 1 // String and Number
	transportBinary byte = 2
)

// md5OfAttributes digests message attributes as SQS does, and as the SDKs
// check it: sorted by name, each as length-prefixed name, length-prefixed
// data type, a transport byte and the length-prefixed value, lengths 4-byte
// big-endian (aws-sdk-java-v2 MessageMD5ChecksumInterceptor). It is "" for
// no attributes, which answers leave out.
func md5OfAttributes(attrs []engine.MessageAttribute) string {
	if len(attrs) == 0 {
		return ""
	}
	sorted := make([]engine.MessageAttribute, len(attrs))
	copy(sorted, attrs)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	h := md5.New()
	var n [4]byte
	put := func(b []byte) {
		binary.BigEndian.PutUint32(n[:], uint32(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	for _, a := range sorted {
		put([]byte(a.Name))
		put([]byte(a.DataType))
		if a.IsBinary() {
			h.Write([]byte{transportBinary})
			put(a.BinaryValue)
		} else {
			h.Write([]byte{transportString})
			put([]byte(a.StringValue))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
