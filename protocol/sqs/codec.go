package sqs

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/minisqs/minisqs/engine"
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

func newRequestID(w http.ResponseWriter) string {
	id := uuid.NewString()
	w.Header().Set("x-amzn-RequestId", id)
	return id
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

// readBody reads a request's body within MaxRequestBytes.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if err := announcedTooLarge(r); err != nil {
		return nil, err
	}
	body := http.MaxBytesReader(w, r.Body, MaxRequestBytes)
	if r.ContentLength < 0 {
		return io.ReadAll(body)
	}
	return readAnnounced(body, int(r.ContentLength))
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

// readAnnounced reads the n bytes a body announced. Its buffer starts at
// most firstBufferBytes and doubles only when the bytes that arrived fill
// it, never past n: a client that announces more than it sends holds no
// more than firstBufferBytes or twice what it sent, and an honest large
// body ends in a buffer of exactly its size.
func readAnnounced(body io.Reader, n int) ([]byte, error) {
	buf := make([]byte, 0, min(n, firstBufferBytes))
	for len(buf) < n {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(2*cap(buf), n))
			copy(grown, buf)
			buf = grown
		}
		m, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF && len(buf) < n {
			return nil, io.ErrUnexpectedEOF
		}
		if err != nil && err != io.EOF {
			return nil, err
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
	body, err := readBody(w, r)
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
	out, err := s.serve(r, body, dispatch.Query, name, in)
	if err != nil {
		if !dispatch.Hangup(w, err) {
			writeXMLError(w, id, err)
		}
		return
	}
	var buf bytes.Buffer
	buf.WriteString(`<?xml version="1.0"?>` + "\n<" + name + `Response xmlns="` + xmlNamespace + `">`)
	if out != nil {
		if err := xml.NewEncoder(&buf).EncodeElement(out, xml.StartElement{Name: xml.Name{Local: name + "Result"}}); err != nil {
			writeXMLError(w, id, engine.Errorf(engine.ErrInternal, "encoding result: %v", err))
			return
		}
	}
	buf.WriteString("<ResponseMetadata><RequestId>" + id + "</RequestId></ResponseMetadata></" + name + "Response>")
	writeXML(w, http.StatusOK, buf.String())
}

// sqsEscapes rewrites the character references encoding/xml writes into the
// forms SQS's own answers use: quotes as entities, newlines and tabs as
// they are. Carriage returns stay &#xD;, as in SQS's answers, since a parser
// reads a raw one as a newline. Older XML parsers in some SDKs know the
// entities but not numeric references, and fail the body's MD5 check on
// what they cannot decode. A reference in the data itself reaches this as
// "&amp;#34;", which the rewrite leaves alone.
var sqsEscapes = strings.NewReplacer("&#34;", "&quot;", "&#39;", "&apos;", "&#xA;", "\n", "&#x9;", "\t")

func writeXML(w http.ResponseWriter, status int, doc string) {
	writeBody(w, status, "text/xml", []byte(sqsEscapes.Replace(doc)))
}

// writeBody answers with a complete body and its Content-Length, as SQS
// does; without the length, net/http would send larger answers chunked.
func writeBody(w http.ResponseWriter, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
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
	b, _ := xml.Marshal(resp)
	writeXML(w, we.status, `<?xml version="1.0"?>`+"\n"+string(b))
}

// ServeJSON answers a JSON-protocol request: X-Amz-Target names the action
// and the body holds its input.
func (s *Service) ServeJSON(w http.ResponseWriter, r *http.Request) {
	newRequestID(w)
	target := r.Header.Get("X-Amz-Target")
	name, ok := strings.CutPrefix(target, targetPrefix)
	a, known := s.actions[name]
	if !ok || !known {
		writeJSONError(w, engine.Errorf(errUnknownOperation, "Operation %s is not supported by this service.", target))
		return
	}
	body, err := readBody(w, r)
	if err != nil {
		writeJSONError(w, readError(err))
		return
	}
	in := a.newInput()
	if len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, in); err != nil {
			writeJSONError(w, engine.Errorf(errSerialization, "Could not read the request body: %v", err))
			return
		}
	}
	out, err := s.serve(r, body, dispatch.JSON, name, in)
	if err != nil {
		if !dispatch.Hangup(w, err) {
			writeJSONError(w, err)
		}
		return
	}
	b := []byte("{}")
	if out != nil {
		if b, err = json.Marshal(out); err != nil {
			writeJSONError(w, engine.Errorf(engine.ErrInternal, "encoding result: %v", err))
			return
		}
	}
	writeBody(w, http.StatusOK, jsonContentType, b)
}

func writeJSONError(w http.ResponseWriter, err error) {
	we, msg := toWire(err)
	b, _ := json.Marshal(struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
	}{jsonType(we.shape), msg})
	w.Header().Set("x-amzn-query-error", we.queryCode+";"+we.faultType())
	writeBody(w, we.status, jsonContentType, b)
}

// IsJSONRequest reports whether r uses the JSON protocol.
func IsJSONRequest(r *http.Request) bool {
	return r.Header.Get("X-Amz-Target") != "" ||
		strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-amz-json-1.0")
}
