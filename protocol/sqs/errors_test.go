package sqs

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"testing"

	sqsschemas "github.com/aws/aws-sdk-go-v2/service/sqs/schemas"
	smithy "github.com/aws/smithy-go"
	smithytraits "github.com/aws/smithy-go/traits"
	"github.com/minisqs/minisqs/engine"
)

// errTestXMLResponse is the query protocol's error document as a client
// reads it, namespace included, so that a missing or wrong xmlns fails.
type errTestXMLResponse struct {
	XMLName xml.Name
	Error   struct {
		Type    string    `xml:"Type"`
		Code    string    `xml:"Code"`
		Message string    `xml:"Message"`
		Detail  *struct{} `xml:"Detail"`
	} `xml:"Error"`
	RequestID string `xml:"RequestId"`
}

// errTestJSONResponse is the JSON protocol's error body.
type errTestJSONResponse struct {
	Type    *string `json:"__type"`
	Message *string `json:"message"`
}

func errTestSortedCodes() []engine.Code {
	codes := make([]engine.Code, 0, len(wireErrors))
	for c := range wireErrors {
		codes = append(codes, c)
	}
	sort.Slice(codes, func(i, j int) bool { return codes[i] < codes[j] })
	return codes
}

// TestWireErrorsRenderInBothProtocols puts every entry of the error table on
// the wire through both real writers and reads it back as a client would.
func TestWireErrorsRenderInBothProtocols(t *testing.T) {
	for _, code := range errTestSortedCodes() {
		we := wireErrors[code]
		t.Run(string(code), func(t *testing.T) {
			// Characters that must be escaped in XML and JSON, and a
			// non-ASCII one, so the writers are shown to escape, not paste.
			msg := `Detail for ` + string(code) + `: <a & "b"> é`
			fault := "Sender"
			if !we.sender {
				fault = "Receiver"
			}
			wantQueryMsg := msg
			if code == engine.ErrQueueDoesNotExist {
				wantQueryMsg = "The specified queue does not exist for this wsdl version."
			}

			// Query protocol.
			rec := httptest.NewRecorder()
			writeXMLError(rec, "req-"+string(code), engine.Errorf(code, "%s", msg))
			if rec.Code != we.status {
				t.Errorf("query status = %d, want %d", rec.Code, we.status)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "text/xml" {
				t.Errorf("query Content-Type = %q, want text/xml", ct)
			}
			body := rec.Body.String()
			if !strings.HasPrefix(body, `<?xml version="1.0"?>`) {
				t.Errorf("query body lacks the XML declaration: %q", body)
			}
			var xr errTestXMLResponse
			if err := xml.Unmarshal(rec.Body.Bytes(), &xr); err != nil {
				t.Fatalf("query body does not parse: %v\n%s", err, body)
			}
			if xr.XMLName.Local != "ErrorResponse" || xr.XMLName.Space != "http://queue.amazonaws.com/doc/2012-11-05/" {
				t.Errorf("query root = {%s}%s, want {http://queue.amazonaws.com/doc/2012-11-05/}ErrorResponse", xr.XMLName.Space, xr.XMLName.Local)
			}
			if xr.Error.Type != fault {
				t.Errorf("query Error/Type = %q, want %q", xr.Error.Type, fault)
			}
			if xr.Error.Code != we.queryCode {
				t.Errorf("query Error/Code = %q, want %q", xr.Error.Code, we.queryCode)
			}
			if xr.Error.Message != wantQueryMsg {
				t.Errorf("query Error/Message = %q, want %q", xr.Error.Message, wantQueryMsg)
			}
			if xr.Error.Detail == nil {
				t.Errorf("query Error has no <Detail/> element: %s", body)
			}
			if xr.RequestID != "req-"+string(code) {
				t.Errorf("query RequestId = %q, want %q", xr.RequestID, "req-"+string(code))
			}

			// JSON protocol.
			rec = httptest.NewRecorder()
			writeJSONError(rec, engine.Errorf(code, "%s", msg))
			if rec.Code != we.status {
				t.Errorf("json status = %d, want %d", rec.Code, we.status)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/x-amz-json-1.0" {
				t.Errorf("json Content-Type = %q, want application/x-amz-json-1.0", ct)
			}
			if h, want := rec.Header().Get("x-amzn-query-error"), we.queryCode+";"+fault; h != want {
				t.Errorf("x-amzn-query-error = %q, want %q", h, want)
			}
			var jr errTestJSONResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &jr); err != nil {
				t.Fatalf("json body does not parse: %v\n%s", err, rec.Body)
			}
			if jr.Type == nil || *jr.Type != jsonType(we.shape) {
				t.Errorf("json __type = %v, want %q", jr.Type, jsonType(we.shape))
			}
			if jr.Message == nil || *jr.Message != msg {
				t.Errorf("json message = %v, want %q", jr.Message, msg)
			}

			// A failed batch entry carries the same identity.
			fe := failedEntry("e1", engine.Errorf(code, "%s", msg))
			if fe.Id != "e1" || fe.Code != we.queryCode || fe.SenderFault != we.sender || fe.Message != msg {
				t.Errorf("failedEntry = %+v, want code %q sender %v message %q", fe, we.queryCode, we.sender, msg)
			}
		})
	}
}

// TestWireErrorsMatchSQSModel checks the table against the SQS Smithy model
// as the AWS SDK for Go v2 ships it (service/sqs/schemas): for every modelled
// error shape the table uses, the awsQueryError code, the HTTP status and the
// fault must be the model's. A shape without awsQueryError is answered under
// its own name; without httpError, a client error is 400.
func TestWireErrorsMatchSQSModel(t *testing.T) {
	model := map[string]*smithy.Schema{}
	for _, s := range []*smithy.Schema{
		sqsschemas.BatchEntryIdsNotDistinct, sqsschemas.BatchRequestTooLong,
		sqsschemas.EmptyBatchRequest, sqsschemas.InvalidAddress,
		sqsschemas.InvalidAttributeName, sqsschemas.InvalidAttributeValue,
		sqsschemas.InvalidBatchEntryId, sqsschemas.InvalidIdFormat,
		sqsschemas.InvalidMessageContents, sqsschemas.InvalidSecurity,
		sqsschemas.KmsAccessDenied, sqsschemas.KmsDisabled,
		sqsschemas.KmsInvalidKeyUsage, sqsschemas.KmsInvalidState,
		sqsschemas.KmsNotFound, sqsschemas.KmsOptInRequired,
		sqsschemas.KmsThrottled,
		sqsschemas.MessageNotInflight, sqsschemas.OverLimit,
		sqsschemas.PurgeQueueInProgress, sqsschemas.QueueDeletedRecently,
		sqsschemas.QueueDoesNotExist, sqsschemas.QueueNameExists,
		sqsschemas.ReceiptHandleIsInvalid, sqsschemas.RequestThrottled,
		sqsschemas.ResourceNotFoundException, sqsschemas.TooManyEntriesInBatchRequest,
		sqsschemas.UnsupportedOperation,
	} {
		model[s.ID().Name] = s
	}

	// Shapes the model leaves out, answered as SQS does (docs/sqs-notes.md,
	// "Errors"; the AWS Common Errors page for the protocol-level ones).
	unmodelled := map[string]struct {
		queryCode string
		status    int
		sender    bool
	}{
		"InvalidParameterValueException":    {"InvalidParameterValue", 400, true},
		"MissingRequiredParameterException": {"MissingParameter", 400, true},
		"InternalError":                     {"InternalError", 500, false},
		"MissingAction":                     {"MissingAction", 400, true},
		"InvalidAction":                     {"InvalidAction", 400, true},
		"UnknownOperationException":         {"UnknownOperationException", 400, true},
		"SerializationException":            {"SerializationException", 400, true},
		// The Common Errors page gives MalformedQueryString 404; the table
		// answers 400 like every other malformed request.
		"MalformedQueryString":  {"MalformedQueryString", 400, true},
		"RequestEntityTooLarge": {"RequestEntityTooLarge", 413, true},
		"UnsupportedProtocol":   {"UnsupportedProtocol", 400, true},
		// AWS's common errors, which only fault rules answer with, with
		// the statuses of the SQS API Reference's Common Errors page.
		"AccessDeniedException": {"AccessDeniedException", 400, true},
		"IncompleteSignature":   {"IncompleteSignature", 400, true},
		"InternalFailure":       {"InternalFailure", 500, false},
		"InvalidClientTokenId":  {"InvalidClientTokenId", 403, true},
		"NotAuthorized":         {"NotAuthorized", 400, true},
		"OptInRequired":         {"OptInRequired", 403, true},
		"RequestExpired":        {"RequestExpired", 400, true},
		"ServiceUnavailable":    {"ServiceUnavailable", 503, false},
		"ThrottlingException":   {"ThrottlingException", 400, true},
		"ValidationError":       {"ValidationError", 400, true},
		// Signature failures (Common Errors; SignatureDoesNotMatch's 403
		// as recorded in aws/aws-sdk-php#642 and boto/boto#1573).
		"MissingAuthenticationToken": {"MissingAuthenticationToken", 403, true},
		"SignatureDoesNotMatch":      {"SignatureDoesNotMatch", 403, true},
	}

	modelled := 0
	for _, code := range errTestSortedCodes() {
		we := wireErrors[code]
		s, ok := model[we.shape]
		if !ok {
			u, ok := unmodelled[we.shape]
			if !ok {
				t.Errorf("%s: shape %q is neither in the SQS model nor in the known unmodelled shapes", code, we.shape)
				continue
			}
			if we.queryCode != u.queryCode || we.status != u.status || we.sender != u.sender {
				t.Errorf("%s: table has %q/%d/sender=%v, want %q/%d/sender=%v", code, we.queryCode, we.status, we.sender, u.queryCode, u.status, u.sender)
			}
			continue
		}
		modelled++
		wantCode, wantStatus := we.shape, 400
		if q, ok := smithy.SchemaTrait[*smithytraits.AWSQueryError](s); ok {
			wantCode = q.ErrorCode
		}
		if h, ok := smithy.SchemaTrait[*smithytraits.HTTPError](s); ok {
			wantStatus = h.Code
		}
		wantSender := true
		if e, ok := smithy.SchemaTrait[*smithytraits.Error](s); !ok {
			t.Errorf("%s: model shape %s has no error trait", code, we.shape)
		} else {
			wantSender = e.Type == "client"
		}
		if we.queryCode != wantCode {
			t.Errorf("%s: query code %q, model says %q", code, we.queryCode, wantCode)
		}
		if we.status != wantStatus {
			t.Errorf("%s: status %d, model says %d", code, we.status, wantStatus)
		}
		if we.sender != wantSender {
			t.Errorf("%s: sender fault %v, model says %v", code, we.sender, wantSender)
		}
	}
	if modelled < 15 {
		t.Errorf("only %d table entries matched model shapes; the cross-check is not biting", modelled)
	}
}

// TestEveryEngineCodeHasAWireError reads the Code constants out of
// engine/errors.go, so a code added there without a wire form fails here.
func TestEveryEngineCodeHasAWireError(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "../../engine/errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found []engine.Code
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Code" {
				continue
			}
			for i, name := range vs.Names {
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Errorf("engine.%s is not a string literal; extend this test", name.Name)
					continue
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				found = append(found, engine.Code(v))
				if _, ok := wireErrors[engine.Code(v)]; !ok {
					t.Errorf("engine.%s (%q) has no entry in wireErrors", name.Name, v)
				}
			}
		}
	}
	// Guard against a parse that silently finds nothing.
	if len(found) < 20 {
		t.Fatalf("found only %d engine.Code constants in engine/errors.go: %v", len(found), found)
	}
	for _, must := range []engine.Code{engine.ErrQueueDoesNotExist, engine.ErrInternal, engine.ErrInvalidBatchEntryID} {
		if !errTestContainsCode(found, must) {
			t.Errorf("parse of engine/errors.go missed %s", must)
		}
	}
}

func errTestContainsCode(codes []engine.Code, c engine.Code) bool {
	for _, x := range codes {
		if x == c {
			return true
		}
	}
	return false
}

// TestNonEngineErrorIsInternal: anything that is not an *engine.Error (or an
// unknown code) is a server fault, and its text stays off the wire.
func TestNonEngineErrorIsInternal(t *testing.T) {
	for name, err := range map[string]error{
		"plain":        errors.New("disk on fire: /secret/path"),
		"unknown code": engine.Errorf(engine.Code("NoSuchCode"), "disk on fire: /secret/path"),
	} {
		t.Run(name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			writeXMLError(rec, "rid", err)
			if rec.Code != http.StatusInternalServerError {
				t.Errorf("query status = %d, want 500", rec.Code)
			}
			var xr errTestXMLResponse
			if err := xml.Unmarshal(rec.Body.Bytes(), &xr); err != nil {
				t.Fatal(err)
			}
			if xr.Error.Code != "InternalError" || xr.Error.Type != "Receiver" {
				t.Errorf("query error = %s/%s, want InternalError/Receiver", xr.Error.Code, xr.Error.Type)
			}
			if strings.Contains(rec.Body.String(), "secret") {
				t.Errorf("internal detail leaked: %s", rec.Body)
			}

			rec = httptest.NewRecorder()
			writeJSONError(rec, err)
			if rec.Code != http.StatusInternalServerError {
				t.Errorf("json status = %d, want 500", rec.Code)
			}
			if h := rec.Header().Get("x-amzn-query-error"); h != "InternalError;Receiver" {
				t.Errorf("x-amzn-query-error = %q, want InternalError;Receiver", h)
			}
			var jr errTestJSONResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &jr); err != nil {
				t.Fatal(err)
			}
			if jr.Type == nil || *jr.Type != "com.amazonaws.sqs#InternalError" {
				t.Errorf("json __type = %v, want com.amazonaws.sqs#InternalError", jr.Type)
			}
			if strings.Contains(rec.Body.String(), "secret") {
				t.Errorf("internal detail leaked: %s", rec.Body)
			}
		})
	}
}

// TestQueueDoesNotExistMessages: the query protocol names the WSDL version,
// the JSON protocol keeps the engine's text; a wrapped engine error keeps
// its identity.
func TestQueueDoesNotExistMessages(t *testing.T) {
	err := errTestWrap{engine.Errorf(engine.ErrQueueDoesNotExist, "The specified queue does not exist.")}

	rec := httptest.NewRecorder()
	writeXMLError(rec, "rid", err)
	var xr errTestXMLResponse
	if e := xml.Unmarshal(rec.Body.Bytes(), &xr); e != nil {
		t.Fatal(e)
	}
	if xr.Error.Message != "The specified queue does not exist for this wsdl version." {
		t.Errorf("query message = %q", xr.Error.Message)
	}
	if xr.Error.Code != "AWS.SimpleQueueService.NonExistentQueue" || rec.Code != 400 {
		t.Errorf("query = %d %s, want 400 AWS.SimpleQueueService.NonExistentQueue", rec.Code, xr.Error.Code)
	}

	rec = httptest.NewRecorder()
	writeJSONError(rec, err)
	var jr errTestJSONResponse
	if e := json.Unmarshal(rec.Body.Bytes(), &jr); e != nil {
		t.Fatal(e)
	}
	if jr.Message == nil || *jr.Message != "The specified queue does not exist." {
		t.Errorf("json message = %v", jr.Message)
	}
	if h := rec.Header().Get("x-amzn-query-error"); h != "AWS.SimpleQueueService.NonExistentQueue;Sender" {
		t.Errorf("x-amzn-query-error = %q", h)
	}
}

type errTestWrap struct{ err error }

func (w errTestWrap) Error() string { return "wrapped: " + w.err.Error() }
func (w errTestWrap) Unwrap() error { return w.err }

// TestServedErrorsCarryRequestID drives the served handlers, so the request
// id in the body is the one in the x-amzn-RequestId header.
func TestServedErrorsCarryRequestID(t *testing.T) {
	e, err := engine.Open(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	svc := New(e, Options{})

	t.Run("query missing queue", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("Action=GetQueueUrl&QueueName=nope&Version=2012-11-05"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		svc.ServeQuery(rec, req)
		var xr errTestXMLResponse
		if err := xml.Unmarshal(rec.Body.Bytes(), &xr); err != nil {
			t.Fatal(err)
		}
		id := rec.Header().Get("x-amzn-RequestId")
		if id == "" || xr.RequestID != id {
			t.Errorf("RequestId %q, header %q", xr.RequestID, id)
		}
		if rec.Code != 400 || xr.Error.Code != "AWS.SimpleQueueService.NonExistentQueue" ||
			xr.Error.Message != "The specified queue does not exist for this wsdl version." {
			t.Errorf("got %d %+v", rec.Code, xr.Error)
		}
	})
	t.Run("query missing action", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodGet, "/?Version=2012-11-05", nil)
		rec := httptest.NewRecorder()
		svc.ServeQuery(rec, req)
		var xr errTestXMLResponse
		if err := xml.Unmarshal(rec.Body.Bytes(), &xr); err != nil {
			t.Fatal(err)
		}
		if rec.Code != 400 || xr.Error.Code != "MissingAction" {
			t.Errorf("got %d %s", rec.Code, xr.Error.Code)
		}
	})
	t.Run("query invalid action", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodGet, "/?Action=Frobnicate", nil)
		rec := httptest.NewRecorder()
		svc.ServeQuery(rec, req)
		var xr errTestXMLResponse
		if err := xml.Unmarshal(rec.Body.Bytes(), &xr); err != nil {
			t.Fatal(err)
		}
		if rec.Code != 400 || xr.Error.Code != "InvalidAction" || !strings.Contains(xr.Error.Message, "Frobnicate") {
			t.Errorf("got %d %+v", rec.Code, xr.Error)
		}
	})
	t.Run("json unknown operation", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("X-Amz-Target", "AmazonSQS.Frobnicate")
		rec := httptest.NewRecorder()
		svc.ServeJSON(rec, req)
		if rec.Code != 400 || rec.Header().Get("x-amzn-RequestId") == "" {
			t.Errorf("status %d, request id %q", rec.Code, rec.Header().Get("x-amzn-RequestId"))
		}
		var jr errTestJSONResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &jr); err != nil {
			t.Fatal(err)
		}
		if jr.Type == nil || *jr.Type != "com.amazonaws.sqs#UnknownOperationException" {
			t.Errorf("__type = %v", jr.Type)
		}
	})
	t.Run("json malformed body", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"QueueName": 7`))
		req.Header.Set("X-Amz-Target", "AmazonSQS.CreateQueue")
		rec := httptest.NewRecorder()
		svc.ServeJSON(rec, req)
		if rec.Code != 400 || rec.Header().Get("x-amzn-query-error") != "SerializationException;Sender" {
			t.Errorf("status %d, header %q", rec.Code, rec.Header().Get("x-amzn-query-error"))
		}
	})
}
