package sqs

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// untouched is a body the test requires nobody to read.
type untouched struct{ t *testing.T }

func (u untouched) Read([]byte) (int, error) {
	u.t.Error("the body was read")
	return 0, io.EOF
}

// The body cap holds whether or not a request gives its length, and a body
// shorter than the length it gave is refused, in the protocol's own format.
func TestRequestBodies(t *testing.T) {
	s := fzService(t)
	sendJSON := `{"QueueUrl":"` + fzStd + `","MessageBody":"hello"}`
	tooBig := `{"QueueUrl":"` + fzStd + `","MessageBody":"` + strings.Repeat("x", MaxRequestBytes) + `"}`
	tests := []struct {
		name      string
		body      io.Reader
		length    int64 // -1: unknown, sent chunked
		status    int
		errorType string // __type of a JSON error
	}{
		{"sized", strings.NewReader(sendJSON), int64(len(sendJSON)), http.StatusOK, ""},
		{"chunked", strings.NewReader(sendJSON), -1, http.StatusOK, ""},
		{"empty", strings.NewReader(""), 0, http.StatusBadRequest, shapePrefix + "MissingRequiredParameterException"},
		{"over the cap", strings.NewReader(tooBig), int64(len(tooBig)), http.StatusRequestEntityTooLarge, shapePrefix + "RequestEntityTooLarge"},
		{"over the cap, chunked", strings.NewReader(tooBig), -1, http.StatusRequestEntityTooLarge, shapePrefix + "RequestEntityTooLarge"},
		{"announced over the cap", untouched{t}, MaxRequestBytes + 1, http.StatusRequestEntityTooLarge, shapePrefix + "RequestEntityTooLarge"},
		{"shorter than its length", strings.NewReader(sendJSON), int64(len(sendJSON)) + 10, http.StatusBadRequest, shapePrefix + "MalformedQueryString"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", tc.body)
			r.ContentLength = tc.length
			r.Header.Set("X-Amz-Target", targetPrefix+"SendMessage")
			r.Header.Set("Content-Type", jsonContentType)
			w := httptest.NewRecorder()
			s.ServeJSON(w, r)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			if tc.errorType != "" && !strings.Contains(w.Body.String(), `"__type":"`+tc.errorType+`"`) {
				t.Errorf("body %s, want __type %s", w.Body, tc.errorType)
			}
		})
	}
}

// A query request announcing a body over the cap gets the XML error
// without its body being read.
func TestQueryBodyAnnouncedOverCap(t *testing.T) {
	s := fzService(t)
	r := httptest.NewRequest(http.MethodPost, "/", untouched{t})
	r.ContentLength = MaxRequestBytes + 1
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	s.ServeQuery(w, r)
	if w.Code != http.StatusRequestEntityTooLarge || !strings.Contains(w.Body.String(), "<Code>RequestEntityTooLarge</Code>") {
		t.Errorf("got %d %s, want 413 RequestEntityTooLarge", w.Code, w.Body)
	}
}

// A large body that arrives in pieces is read whole, into a buffer of
// exactly its size.
func TestReadAnnounced(t *testing.T) {
	want := bytes.Repeat([]byte("0123456789abcdef"), 3<<20/16+1)
	got, err := readAnnounced(iotest.HalfReader(bytes.NewReader(want)), len(want), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, not the %d sent", len(got), len(want))
	}
	if cap(got) != len(want) {
		t.Errorf("buffer of %d bytes for a body of %d", cap(got), len(want))
	}
	if _, err := readAnnounced(strings.NewReader("short"), 6, nil); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("short body: %v, want %v", err, io.ErrUnexpectedEOF)
	}
}

// Requests that announce 1 MiB and send one byte cost memory for what they
// sent, not for what they announced.
func TestAnnouncedLengthIsNotAllocated(t *testing.T) {
	const requests, announced = 100, 1 << 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range requests {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{"))
		r.ContentLength = announced
		if _, err := readBody(httptest.NewRecorder(), r, &buffer{}); err == nil {
			t.Fatal("a body shorter than its length was accepted")
		}
	}
	runtime.ReadMemStats(&after)
	perRequest := (after.TotalAlloc - before.TotalAlloc) / requests
	if perRequest > 2*firstBufferBytes {
		t.Errorf("%d bytes allocated per request announcing %d and sending 1", perRequest, announced)
	}
	t.Logf("%d bytes allocated per request", perRequest)
}

// A bare GET of a queue's URL is SQS's 404 with an empty
// UnknownOperationException element (LocalStack's AWS-validated
// test_get_without_query_returns_unknown_operation); with an Action it is
// served, and without one anywhere else it is MissingAction.
func TestBareGetOfQueueURL(t *testing.T) {
	s := fzService(t)
	for _, tc := range []struct {
		path, body string
		status     int
	}{
		{"/" + fzAccount + "/fz-std", "<UnknownOperationException/>", http.StatusNotFound},
		{"/" + fzAccount + "/fz-std?Action=GetQueueAttributes&AttributeName.1=QueueArn", "<GetQueueAttributesResponse", http.StatusOK},
		{"/", "<Code>MissingAction</Code>", http.StatusBadRequest},
	} {
		w := httptest.NewRecorder()
		s.ServeQuery(w, httptest.NewRequest(http.MethodGet, tc.path, nil))
		if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.body) {
			t.Errorf("GET %s: %d %s, want %d with %s", tc.path, w.Code, w.Body, tc.status, tc.body)
		}
	}
}

// sqsXMLReplacer is the rewrite sqsXML makes, over a whole document.
var sqsXMLReplacer = strings.NewReplacer("&#34;", "&quot;", "&#39;", "&apos;", "&#xA;", "\n", "&#x9;", "\t")

// writeSQSXML writes doc to an sqsXML in pieces, cut where cuts say.
func writeSQSXML(doc string, cuts []byte) string {
	var x sqsXML
	for _, c := range cuts {
		n := min(int(c)%8, len(doc))
		x.Write([]byte(doc[:n]))
		doc = doc[n:]
	}
	x.Write([]byte(doc))
	return string(x.flush())
}

func TestSQSXMLRewritesReferencesCutAnywhere(t *testing.T) {
	doc := `<a>&#34;q&#34; &#39;a&#39; &#xA;&#x9;&#xD; &amp;#34; &&#34; &#3 &#x &amp;&lt;</a>&#34`
	want := sqsXMLReplacer.Replace(doc)
	for n := 1; n <= len(doc); n++ {
		for start := range n {
			cuts := []byte{byte(start)}
			for range len(doc) / n {
				cuts = append(cuts, byte(n))
			}
			if got := writeSQSXML(doc, cuts); got != want {
				t.Fatalf("cut %d then every %d: %q, want %q", start, n, got, want)
			}
		}
	}
}

func FuzzSQSXMLRewrite(f *testing.F) {
	f.Add(`&#34;&#39;&#xA;&#x9;&#xD;&amp;#34;`, []byte{1, 2, 3})
	f.Add(`&&&#34&#34;;&#`, []byte{4, 4, 7})
	f.Fuzz(func(t *testing.T, doc string, cuts []byte) {
		if got, want := writeSQSXML(doc, cuts), sqsXMLReplacer.Replace(doc); got != want {
			t.Fatalf("%q cut at %v: %q, want %q", doc, cuts, got, want)
		}
	})
}

// Only JSON's white space makes a body empty: a body of other white space
// is not JSON, and gets the error encoding/json gives it.
func TestJSONBodyOfOtherWhiteSpace(t *testing.T) {
	s := fzService(t)
	for _, body := range []string{"", " \t\r\n", "\f", "\v", "\u0085", "\u00a0", " \u00a0{}", "{}\f"} {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		r.Header.Set("X-Amz-Target", targetPrefix+"ListQueues")
		r.Header.Set("Content-Type", jsonContentType)
		w := httptest.NewRecorder()
		s.ServeJSON(w, r)
		want := http.StatusOK
		if strings.Trim(body, " \t\r\n") != "" && body != "{}" {
			want = http.StatusBadRequest
		}
		if w.Code != want {
			t.Errorf("%q: status %d, want %d: %s", body, w.Code, want, w.Body)
		}
		if want != http.StatusOK && !strings.Contains(w.Body.String(), `"__type":"`+shapePrefix+`SerializationException"`) {
			t.Errorf("%q: body %s, want a SerializationException", body, w.Body)
		}
	}
}
