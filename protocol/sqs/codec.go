package sqs

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"
	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/internal/httpheader"
	"github.com/minisqs/minisqs/protocol/dispatch"
)

// MaxRequestBytes caps a request body. A batch carries at most 1 MiB of
// message data, which form or JSON encoding can grow about threefold; 8 MiB
// leaves room for that. A request that announces a longer body is refused
// before any of it is read; one sent without a length is cut at the cap.
const MaxRequestBytes = 8 << 20

// xmlNamespace is the query protocol's namespace (API version 2012-11-05).
const xmlNamespace = "http://queue.amazonaws.com/doc/2012-11-05/"

// JSON protocol identifiers (AWS JSON 1.0, target prefix "AmazonSQS").
const (
	targetPrefix    = "AmazonSQS."
	jsonContentType = "application/x-amz-json-1.0"
	shapePrefix     = "com.amazonaws.sqs#"
	// coralPrefix is the namespace of errors AWS answers from its service
	// framework rather than the SQS model.
	coralPrefix = "com.amazon.coral.service#"
)

// jsonType is the JSON protocol's "__type" of an error shape. The SQS
// model's shapes are under com.amazonaws.sqs#; InvalidParameterValue is
// not, as go-cloud's AWS replays record:
// {"__type":"com.amazon.coral.service#InvalidParameterValueException",...}
// (pubsub/awssnssqs/testdata/TestFIFO/TestSQSTopic/
// TestSendReceiveInvalidNoDeduplicationID.replay, 2024) beside
// {"__type":"com.amazonaws.sqs#QueueDoesNotExist",...} (2026). Other shapes
// are not recorded and keep the SQS namespace.
func jsonType(shape string) string {
	if shape == "InvalidParameterValueException" {
		return coralPrefix + shape
	}
	return shapePrefix + shape
}

// newRequestID gives the request its id and sets it on the answer.
func newRequestID(w http.ResponseWriter) string {
	id := requestIDs.next()
	w.Header()["X-Amzn-Requestid"] = id // as Set("x-amzn-RequestId") would key it
	return id[0]
}

// requestIDs makes the ids of requests.
var requestIDs = newIDSource(rand.Reader)

// idSource makes ids in the form of random (version 4) UUIDs without
// reading randomness for each: a prefix drawn once and a 48-bit counter
// that starts at a random value. Request ids need only be unique. It makes
// them idBatch at a time, in one string and one slice of header values,
// which spares two allocations for each request.
type idSource struct {
	prefix string // the first 24 characters, through the fourth hyphen
	mu     sync.Mutex
	count  uint64
	ids    []string // made, not yet handed out
}

// idBatch is how many ids an idSource makes at once.
const idBatch = 32

func newIDSource(random io.Reader) *idSource {
	u, err := uuid.NewRandomFromReader(random)
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	s := u.String()
	src := &idSource{prefix: s[:24]}
	src.count, _ = strconv.ParseUint(s[24:], 16, 64)
	return src
}

// next returns a fresh id as a header's values: a slice of one, whose
// capacity is one, so that adding a value copies it.
func (s *idSource) next() []string {
	s.mu.Lock()
	if len(s.ids) == 0 {
		s.ids = s.make()
	}
	id := s.ids[:1:1]
	s.ids = s.ids[1:]
	s.mu.Unlock()
	return id
}

// make makes the next idBatch ids; s.mu is held.
func (s *idSource) make() []string {
	const idLen = 36
	b := make([]byte, idBatch*idLen)
	for k := range idBatch {
		s.count++
		id := b[k*idLen : (k+1)*idLen]
		copy(id, s.prefix)
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], s.count)
		hex.Encode(id[len(s.prefix):], n[2:]) // the counter's low 48 bits
	}
	all := string(b)
	ids := make([]string, idBatch)
	for k := range ids {
		ids[k] = all[k*idLen : (k+1)*idLen]
	}
	return ids
}

// buffer is a byte slice lent, through buffers, for the life of one
// request: its body or its answer.
type buffer struct{ b []byte }

var buffers = sync.Pool{New: func() any { return new(buffer) }}

// maxPooledBytes caps the buffers kept for reuse: a rare large request's
// buffer goes back to the garbage collector.
const maxPooledBytes = 64 << 10

func getBuffer() *buffer { return buffers.Get().(*buffer) }

func (b *buffer) release() {
	if cap(b.b) <= maxPooledBytes {
		b.b = b.b[:0]
		buffers.Put(b)
	}
}

// parseForm reads a query request's parameters as net/http's ParseForm
// would, from the body already read: a form-encoded body's first, then the
// URL's. The body is read once, for the signature check too.
func parseForm(r *http.Request, body []byte) (url.Values, error) {
	form := url.Values{}
	if r.Method == http.MethodPost || r.Method == http.MethodPut {
		ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if ct == "application/x-www-form-urlencoded" {
			var err error
			if form, err = url.ParseQuery(string(body)); err != nil {
				return nil, engine.Errorf(errMalformedQuery, "Could not read the request: %v", err)
			}
		}
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, engine.Errorf(errMalformedQuery, "Could not read the request: %v", err)
	}
	for k, vs := range q {
		form[k] = append(form[k], vs...)
	}
	return form, nil
}

// readBody reads a request's body within MaxRequestBytes, into buf when
// it announces its length.
func readBody(w http.ResponseWriter, r *http.Request, buf *buffer) ([]byte, error) {
	if err := announcedTooLarge(r); err != nil {
		return nil, err
	}
	if r.ContentLength < 0 {
		return io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
	}
	// An announced length is within the cap, and no more than it is read.
	b, err := readAnnounced(r.Body, int(r.ContentLength), buf.b)
	buf.b = b[:0]
	return b, err
}

// announcedTooLarge refuses a request whose Content-Length is over
// MaxRequestBytes, before anything is read: net/http then closes the
// connection rather than drain the body.
func announcedTooLarge(r *http.Request) error {
	if r.ContentLength > MaxRequestBytes {
		return &http.MaxBytesError{Limit: MaxRequestBytes}
	}
	return nil
}

// readAnnounced reads the n bytes a body announced, into buf if it is
// large enough to start with. A buffer it makes starts at most
// firstBufferBytes and doubles only when the bytes that arrived fill it,
// never past n: a client that announces more than it sends holds no more
// than firstBufferBytes or twice what it sent, and an honest large body
// ends in a buffer of exactly its size.
func readAnnounced(body io.Reader, n int, buf []byte) ([]byte, error) {
	buf = buf[:0]
	if cap(buf) < min(n, firstBufferBytes) {
		buf = make([]byte, 0, min(n, firstBufferBytes))
	}
	for len(buf) < n {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(2*cap(buf), n))
			copy(grown, buf)
			buf = grown
		}
		m, err := body.Read(buf[len(buf):min(cap(buf), n)])
		buf = buf[:len(buf)+m]
		if err == io.EOF && len(buf) < n {
			return buf, io.ErrUnexpectedEOF
		}
		if err != nil && err != io.EOF {
			return buf, err
		}
	}
	return buf, nil
}

// firstBufferBytes holds nearly every request but batches of large
// messages in one allocation.
const firstBufferBytes = 16 << 10

// readError turns a failure to read the body into the protocol's error.
func readError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return engine.Errorf(errRequestTooLarge, "Request body exceeds %d bytes.", MaxRequestBytes)
	}
	return engine.Errorf(errMalformedQuery, "Could not read the request: %v", err)
}

// ServeQuery answers a query-protocol request: Action and its parameters in
// a form body or the URL's query string.
func (s *Service) ServeQuery(w http.ResponseWriter, r *http.Request) {
	id := newRequestID(w)
	buf := getBuffer()
	defer buf.release()
	body, err := readBody(w, r, buf)
	if err != nil {
		writeXMLError(w, id, readError(err))
		return
	}
	form, err := parseForm(r, body)
	if err != nil {
		writeXMLError(w, id, err)
		return
	}
	name := form.Get("Action")
	if name == "" && len(form) == 0 && r.Method == http.MethodGet && lastOfQueuePath(r.URL.Path) != "" {
		// A bare GET of a queue's URL, as a browser makes: SQS answers 404
		// with only this element (LocalStack's AWS-validated
		// test_get_without_query_returns_unknown_operation).
		writeBody(w, http.StatusNotFound, "text/xml", []byte("<UnknownOperationException/>"))
		return
	}
	if name == "" {
		writeXMLError(w, id, engine.Errorf(errMissingAction, "The request must contain the parameter Action."))
		return
	}
	a, ok := s.actions[name]
	// Actions that name no queue are not served at a queue's URL
	// (LocalStack's TestSqsQueryApi test_get_create_queue_fails and
	// test_get_list_queues_fails, validated against AWS).
	if !ok || (name == "CreateQueue" || name == "ListQueues") && lastOfQueuePath(r.URL.Path) != "" {
		writeXMLError(w, id, engine.Errorf(errInvalidAction, "The action %s is not valid for this endpoint.", name))
		return
	}
	in := a.newInput()
	if err := decodeQuery(form, in); err != nil {
		writeXMLError(w, id, err)
		return
	}
	settleAttributes(in)
	c := newCall()
	defer c.release()
	out, err := s.serve(c, r, body, dispatch.Query, name, a, in)
	if err != nil {
		if !dispatch.Hangup(w, err) {
			writeXMLError(w, id, err)
		}
		return
	}
	writeXMLResult(w, id, name, out)
}

// writeXMLResult answers out, the result of the action name (nil for an
// empty one), in the query protocol's envelope.
func writeXMLResult(w http.ResponseWriter, id, name string, out any) {
	buf := getBuffer()
	defer buf.release()
	x := sqsXML{b: append(buf.b, `<?xml version="1.0"?>`+"\n<"+name+`Response xmlns="`+xmlNamespace+`">`...)}
	if out != nil {
		if err := xml.NewEncoder(&x).EncodeElement(out, xml.StartElement{Name: xml.Name{Local: name + "Result"}}); err != nil {
			writeXMLError(w, id, engine.Errorf(engine.ErrInternal, "encoding result: %v", err))
			return
		}
	}
	x.b = append(x.flush(), "<ResponseMetadata><RequestId>"+id+"</RequestId></ResponseMetadata></"+name+"Response>"...)
	buf.b = x.b
	writeBody(w, http.StatusOK, "text/xml", x.b)
}

// sqsXML collects encoding/xml's output, rewriting the character
// references it writes into the forms SQS's own answers use: quotes as
// entities, newlines and tabs as they are. Carriage returns stay &#xD;, as
// in SQS's answers, since a parser reads a raw one as a newline. Older XML
// parsers in some SDKs know the entities but not numeric references, and
// fail the body's MD5 check on what they cannot decode. A reference in the
// data itself reaches this as "&amp;#34;", which the rewrite leaves alone.
type sqsXML struct {
	b    []byte
	tail []byte // the start of a reference that the last write cut off
}

// sqsReferences are the rewrites, of references all five bytes long.
var sqsReferences = [...]struct{ ref, as string }{
	{"&#34;", "&quot;"}, {"&#39;", "&apos;"}, {"&#xA;", "\n"}, {"&#x9;", "\t"},
}

const sqsReferenceLen = 5

func (x *sqsXML) Write(p []byte) (int, error) {
	n := len(p)
	if len(x.tail) > 0 {
		// The last write ended in what may be a reference: complete it.
		k := min(sqsReferenceLen-len(x.tail), len(p))
		joined := append(x.tail, p[:k]...)
		switch as, ok := sqsReference(joined); {
		case ok:
			x.b = append(x.b, as...)
			p = p[k:]
		case len(joined) < sqsReferenceLen && referenceStart(joined):
			x.tail = joined
			return n, nil
		default: // it was not one; p is read afresh
			x.b = append(x.b, x.tail...)
		}
		x.tail = x.tail[:0]
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '&')
		if i < 0 {
			x.b = append(x.b, p...)
			break
		}
		x.b = append(x.b, p[:i]...)
		p = p[i:]
		if len(p) < sqsReferenceLen && referenceStart(p) {
			x.tail = append(x.tail, p...)
			break
		}
		if as, ok := sqsReference(p[:min(len(p), sqsReferenceLen)]); ok {
			x.b = append(x.b, as...)
			p = p[sqsReferenceLen:]
		} else {
			x.b = append(x.b, '&')
			p = p[1:]
		}
	}
	return n, nil
}

// sqsReference returns what ref is rewritten as, if it is one of ours.
func sqsReference(ref []byte) (string, bool) {
	for _, r := range sqsReferences {
		if string(ref) == r.ref {
			return r.as, true
		}
	}
	return "", false
}

// referenceStart reports whether p could be the start of one of ours.
func referenceStart(p []byte) bool {
	for _, r := range sqsReferences {
		if len(p) <= len(r.ref) && r.ref[:len(p)] == string(p) {
			return true
		}
	}
	return false
}

// flush returns what was written, the start of a reference at the end
// included.
func (x *sqsXML) flush() []byte {
	x.b = append(x.b, x.tail...)
	x.tail = x.tail[:0]
	return x.b
}

// writeBody answers with a complete body and its Content-Length, as SQS
// does; without the length, net/http would send larger answers chunked.
func writeBody(w http.ResponseWriter, status int, contentType string, body []byte) {
	h := w.Header()
	// As Set sets them.
	values := headerValuesOf(contentType, len(body))
	h["Content-Type"], h["Content-Length"] = values[0:1:1], values[1:2:2]
	w.WriteHeader(status)
	w.Write(body)
}

// headerValues are the values of an answer's Content-Type and
// Content-Length headers, which answers of one type and length share:
// net/http only reads them, and each is a slice of one, whose capacity is
// one, so that adding a value copies it.
type headerValues struct {
	contentType string
	length      int
	values      [2]string
}

// recentHeaderValues keeps, by length, the last headerValues made: a
// client's answers often come in a few lengths over and over, a batch of
// ten answered as the last was, and finding their values saves two
// allocations an answer.
var recentHeaderValues [64]atomic.Pointer[headerValues]

// headerValuesOf returns the Content-Type and Content-Length values of an
// answer.
func headerValuesOf(contentType string, length int) *[2]string {
	slot := &recentHeaderValues[length%len(recentHeaderValues)]
	if v := slot.Load(); v != nil && v.length == length && v.contentType == contentType {
		return &v.values
	}
	v := &headerValues{contentType: contentType, length: length, values: [2]string{contentType, strconv.Itoa(length)}}
	slot.Store(v)
	return &v.values
}

type xmlErrorResponse struct {
	XMLName xml.Name `xml:"ErrorResponse"`
	Xmlns   string   `xml:"xmlns,attr"`
	Error   struct {
		Type    string   `xml:"Type"`
		Code    string   `xml:"Code"`
		Message string   `xml:"Message"`
		Detail  struct{} `xml:"Detail"`
	} `xml:"Error"`
	RequestID string `xml:"RequestId"`
}

func writeXMLError(w http.ResponseWriter, id string, err error) {
	we, msg := toWire(err)
	var resp xmlErrorResponse
	resp.Xmlns = xmlNamespace
	resp.Error.Type = we.faultType()
	resp.Error.Code = we.queryCode
	resp.Error.Message = we.queryMessage(msg)
	resp.RequestID = id
	buf := getBuffer()
	defer buf.release()
	x := sqsXML{b: append(buf.b, `<?xml version="1.0"?>`+"\n"...)}
	xml.NewEncoder(&x).Encode(resp)
	buf.b = x.flush()
	writeBody(w, we.status, "text/xml", buf.b)
}

// ServeJSON answers a JSON-protocol request: X-Amz-Target names the action
// and the body holds its input.
func (s *Service) ServeJSON(w http.ResponseWriter, r *http.Request) {
	newRequestID(w)
	target := httpheader.Get(r.Header, "X-Amz-Target")
	name, ok := strings.CutPrefix(target, targetPrefix)
	a, known := s.actions[name]
	if !ok || !known {
		writeJSONError(w, engine.Errorf(errUnknownOperation, "Operation %s is not supported by this service.", target))
		return
	}
	buf := getBuffer()
	defer buf.release()
	body, err := readBody(w, r, buf)
	if err != nil {
		writeJSONError(w, readError(err))
		return
	}
	in := a.newInput()
	// A body of nothing but JSON's white space is an empty input; Unicode's
	// other white space is no JSON, and goes to encoding/json for its error.
	if len(bytes.Trim(body, " \t\r\n")) > 0 && !decodeJSONFast(string(body), in) {
		in = a.newInput()
		if err := json.Unmarshal(body, in); err != nil {
			writeJSONError(w, engine.Errorf(errSerialization, "Could not read the request body: %v", err))
			return
		}
		settleAttributes(in)
	}
	c := newCall()
	defer c.release()
	out, err := s.serve(c, r, body, dispatch.JSON, name, a, in)
	if err != nil {
		if !dispatch.Hangup(w, err) {
			writeJSONError(w, err)
		}
		return
	}
	// The input's strings are a copy of the body, which the answer may
	// overwrite.
	writeJSONResultIn(w, buf, out)
}

// writeJSONResult answers out, an action's result (nil for an empty one),
// in the JSON protocol.
func writeJSONResult(w http.ResponseWriter, out any) {
	buf := getBuffer()
	defer buf.release()
	writeJSONResultIn(w, buf, out)
}

// writeJSONResultIn is writeJSONResult, writing the answer in buf.b, which
// it takes over: the body's buffer, which the request no longer needs.
func writeJSONResultIn(w http.ResponseWriter, buf *buffer, out any) {
	b, ok := appendJSONResult(buf.b[:0], out)
	switch {
	case out == nil:
		b = append(b, "{}"...)
	case !ok:
		var err error
		if b, err = json.Marshal(out); err != nil {
			writeJSONError(w, engine.Errorf(engine.ErrInternal, "encoding result: %v", err))
			return
		}
	}
	buf.b = b
	writeBody(w, http.StatusOK, jsonContentType, b)
}

func writeJSONError(w http.ResponseWriter, err error) {
	we, msg := toWire(err)
	buf := getBuffer()
	defer buf.release()
	b := appendJSONString(append(buf.b, `{"__type":`...), jsonType(we.shape))
	b = append(appendJSONString(append(b, `,"message":`...), msg), '}')
	buf.b = b
	w.Header().Set("x-amzn-query-error", we.queryCode+";"+we.faultType())
	writeBody(w, we.status, jsonContentType, b)
}

// IsJSONRequest reports whether r uses the JSON protocol.
func IsJSONRequest(r *http.Request) bool {
	return httpheader.Get(r.Header, "X-Amz-Target") != "" ||
		strings.HasPrefix(httpheader.Get(r.Header, "Content-Type"), "application/x-amz-json-1.0")
}
