package compat

// The query protocol on the wire, in hand-made requests: its routing
// (GET and POST, the queue's own path), XML answers and error documents.
// What an SDK sees of an action is in the per-action tables
// (actions_*_test.go).

import (
	"bytes"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/minisqs/minisqs/server"
)

type xmlError struct {
	XMLName xml.Name `xml:"ErrorResponse"`
	Error   struct {
		Type    string `xml:"Type"`
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	} `xml:"Error"`
	RequestID string `xml:"RequestId"`
}

// postQuery sends a query-protocol request and returns status, header and body.
func postQuery(t *testing.T, method, target string, form url.Values) (*http.Response, []byte) {
	t.Helper()
	var req *http.Request
	var err error
	if method == http.MethodGet {
		if form != nil {
			target += "?" + form.Encode()
		}
		req, err = http.NewRequest(method, target, nil)
	} else {
		req, err = http.NewRequest(method, target, strings.NewReader(form.Encode()))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("x-amzn-RequestId") == "" {
		t.Fatalf("%s %s: no x-amzn-RequestId header (status %d)", method, target, resp.StatusCode)
	}
	return resp, body
}

// wantXMLError checks an XML error document.
func wantXMLError(t *testing.T, resp *http.Response, body []byte, status int, code string) xmlError {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d: %s", resp.StatusCode, status, body)
	}
	var e xmlError
	if err := xml.Unmarshal(body, &e); err != nil {
		t.Fatalf("error body is not an ErrorResponse: %v\n%s", err, body)
	}
	if e.Error.Code != code || e.Error.Type != "Sender" || e.Error.Message == "" {
		t.Fatalf("error = %+v, want code %s, type Sender, a message\n%s", e, code, body)
	}
	if e.RequestID == "" || e.RequestID != resp.Header.Get("x-amzn-RequestId") {
		t.Fatalf("RequestId %q, header %q", e.RequestID, resp.Header.Get("x-amzn-RequestId"))
	}
	if e.XMLName.Space != "http://queue.amazonaws.com/doc/2012-11-05/" || !bytes.Contains(body, []byte("<Detail")) {
		t.Fatalf("ErrorResponse namespace %q or Detail element missing:\n%s", e.XMLName.Space, body)
	}
	if !strings.Contains(resp.Header.Get("Content-Type"), "xml") {
		t.Fatalf("Content-Type %q", resp.Header.Get("Content-Type"))
	}
	return e
}

func TestQueryRawHTTP(t *testing.T) {
	t.Parallel()
	e := protocolEnv(t, "query", server.Config{})
	u := e.createQueue("raw", nil)
	base := e.srv.URL()

	// GET with the parameters in the query string.
	resp, body := postQuery(t, http.MethodGet, base+"/", url.Values{"Action": {"ListQueues"}, "Version": {"2012-11-05"}})
	if resp.StatusCode != 200 {
		t.Fatalf("GET ListQueues: %d %s", resp.StatusCode, body)
	}
	var list struct {
		XMLName   xml.Name `xml:"http://queue.amazonaws.com/doc/2012-11-05/ ListQueuesResponse"`
		QueueUrls []string `xml:"ListQueuesResult>QueueUrl"`
		RequestID string   `xml:"ResponseMetadata>RequestId"`
	}
	if err := xml.Unmarshal(body, &list); err != nil {
		t.Fatalf("ListQueues response: %v\n%s", err, body)
	}
	if len(list.QueueUrls) != 1 || list.QueueUrls[0] != u {
		t.Fatalf("ListQueues = %v, want [%s]", list.QueueUrls, u)
	}
	if list.RequestID == "" || list.RequestID != resp.Header.Get("x-amzn-RequestId") {
		t.Fatalf("RequestId %q, header %q", list.RequestID, resp.Header.Get("x-amzn-RequestId"))
	}

	// POST to the queue's own path without QueueUrl.
	resp, body = postQuery(t, http.MethodPost, base+"/000000000000/raw", url.Values{"Action": {"SendMessage"}, "MessageBody": {"x"}})
	if resp.StatusCode != 200 {
		t.Fatalf("SendMessage to the queue path: %d %s", resp.StatusCode, body)
	}
	var sent struct {
		MessageID string `xml:"SendMessageResult>MessageId"`
		MD5       string `xml:"SendMessageResult>MD5OfMessageBody"`
	}
	if err := xml.Unmarshal(body, &sent); err != nil || sent.MessageID == "" || sent.MD5 != refMD5("x") {
		t.Fatalf("SendMessage response %+v (%v):\n%s", sent, err, body)
	}
	// GET to the queue path works too.
	resp, body = postQuery(t, http.MethodGet, base+"/000000000000/raw", url.Values{"Action": {"GetQueueAttributes"}, "AttributeName.1": {"ApproximateNumberOfMessages"}})
	if resp.StatusCode != 200 || !strings.Contains(string(body), "<Name>ApproximateNumberOfMessages</Name><Value>1</Value>") {
		t.Fatalf("GetQueueAttributes on the queue path: %d %s", resp.StatusCode, body)
	}
	if m := e.receiveOne(u); m.Body != "x" || m.MessageID != sent.MessageID {
		t.Fatalf("received %v", m)
	}

	// A receive answer in XML escapes what needs escaping, in the forms SQS
	// uses: entities for quotes, newlines and tabs as they are, &#xD; for a
	// carriage return (a parser would read a raw one as a newline).
	const special = "a\"b'c<d>e&f\rg\nh\ti&#34;j"
	e.send(u, special)
	resp, body = postQuery(t, http.MethodPost, base+"/", url.Values{"Action": {"ReceiveMessage"}, "QueueUrl": {u}})
	if resp.StatusCode != 200 {
		t.Fatalf("ReceiveMessage: %d %s", resp.StatusCode, body)
	}
	var recv struct {
		Body string `xml:"ReceiveMessageResult>Message>Body"`
	}
	if err := xml.Unmarshal(body, &recv); err != nil || recv.Body != special {
		t.Fatalf("raw receive body %q (%v):\n%s", recv.Body, err, body)
	}
	if want := "<Body>a&quot;b&apos;c&lt;d&gt;e&amp;f&#xD;g\nh\ti&amp;#34;j</Body>"; !bytes.Contains(body, []byte(want)) {
		t.Fatalf("receive answer does not hold %q:\n%q", want, body)
	}
	e.send(u, special)
	if m := e.receiveOne(u); m.Body != special {
		t.Fatalf("aws-sdk-go read the body as %q", m.Body)
	}

	// An empty receive is an empty result.
	resp, body = postQuery(t, http.MethodPost, base+"/", url.Values{"Action": {"ReceiveMessage"}, "QueueUrl": {u}})
	if resp.StatusCode != 200 || strings.Contains(string(body), "<Message>") {
		t.Fatalf("empty receive: %d %s", resp.StatusCode, body)
	}

	// Missing and unknown actions.
	resp, body = postQuery(t, http.MethodPost, base+"/", url.Values{"QueueName": {"q"}})
	wantXMLError(t, resp, body, 400, "MissingAction")
	resp, body = postQuery(t, http.MethodGet, base+"/", nil)
	wantXMLError(t, resp, body, 400, "MissingAction")
	resp, body = postQuery(t, http.MethodPost, base+"/", url.Values{"Action": {"LaunchRocket"}})
	wantXMLError(t, resp, body, 400, "InvalidAction")

	// A missing queue, in the query protocol's words.
	resp, body = postQuery(t, http.MethodPost, base+"/", url.Values{"Action": {"GetQueueAttributes"}, "QueueUrl": {base + "/000000000000/ghost"}})
	xe := wantXMLError(t, resp, body, 400, "AWS.SimpleQueueService.NonExistentQueue")
	if xe.Error.Message != "The specified queue does not exist for this wsdl version." {
		t.Fatalf("message = %q", xe.Error.Message)
	}
	resp, body = postQuery(t, http.MethodPost, base+"/000000000000/ghost", url.Values{"Action": {"SendMessage"}, "MessageBody": {"x"}})
	wantXMLError(t, resp, body, 400, "AWS.SimpleQueueService.NonExistentQueue")

	// Missing parameters.
	resp, body = postQuery(t, http.MethodPost, base+"/", url.Values{"Action": {"CreateQueue"}})
	wantXMLError(t, resp, body, 400, "MissingParameter")
	resp, body = postQuery(t, http.MethodPost, base+"/", url.Values{"Action": {"SendMessage"}, "MessageBody": {"x"}})
	wantXMLError(t, resp, body, 400, "MissingParameter")
	resp, body = postQuery(t, http.MethodPost, base+"/", url.Values{"Action": {"SendMessage"}, "QueueUrl": {u}})
	wantXMLError(t, resp, body, 400, "MissingParameter")
	resp, body = postQuery(t, http.MethodPost, base+"/", url.Values{"Action": {"ChangeMessageVisibility"}, "QueueUrl": {u}, "ReceiptHandle": {"h"}})
	wantXMLError(t, resp, body, 400, "MissingParameter")
	// A malformed number.
	resp, body = postQuery(t, http.MethodPost, base+"/", url.Values{"Action": {"ReceiveMessage"}, "QueueUrl": {u}, "MaxNumberOfMessages": {"many"}})
	wantXMLError(t, resp, body, 400, "InvalidParameterValue")

	// A success also carries the request id header and the namespace.
	resp, body = postQuery(t, http.MethodPost, base+"/", url.Values{"Action": {"GetQueueUrl"}, "QueueName": {"raw"}})
	if resp.StatusCode != 200 || !strings.Contains(string(body), `xmlns="http://queue.amazonaws.com/doc/2012-11-05/"`) ||
		!strings.Contains(string(body), "<QueueUrl>"+u+"</QueueUrl>") {
		t.Fatalf("GetQueueUrl: %d %s", resp.StatusCode, body)
	}
}
