package compat

// The one protocol adapter of the compat tests: sqsClient is what a test
// asks of SQS, in small protocol-neutral structs, implemented over
// aws-sdk-go-v2 (JSON protocol) and aws-sdk-go v1.46.7 (query protocol).
// Errors come back as *apiError, read from each SDK's typed error, so a
// table row checks a code, status and text once for every protocol.
//
// A test written once runs everywhere:
//
//	for _, p := range protocols(t) {
//		t.Run(p.name, func(t *testing.T) { e := p.env(t, server.Config{}); ... })
//	}
//
// or, the same in short, eachProtocol(t, cfg, func(e *env) { ... }).

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	awsv1 "github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/awserr"
	sqsv1 "github.com/aws/aws-sdk-go/service/sqs"
	"github.com/aws/smithy-go"

	"github.com/minisqs/minisqs/server"
)

// defaultAccount is the account minisqs uses when none is configured.
const defaultAccount = "000000000000"

// arn is the ARN of the queue called name in the default namespace.
func arn(name string) string { return "arn:aws:sqs:us-east-1:" + defaultAccount + ":" + name }

// apiError is an SQS error answer as either SDK read it.
type apiError struct {
	Code, Message, RequestID string
	Status                   int
	// Sender is the client's fault (Sender in the query protocol).
	Sender bool
	// Modeled: aws-sdk-go-v2 decoded it into its own type (such as
	// *types.QueueDoesNotExist), not a generic API error. Never set for
	// aws-sdk-go v1, which has no typed errors.
	Modeled bool
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%s (HTTP %d): %s", e.Code, e.Status, e.Message)
}

// asAPIError reads err as an API error of either SDK; nil when it is none
// (a refusal by the SDK itself, a transport failure).
func asAPIError(err error) *apiError {
	if ae := asRESTError(err); ae != nil {
		return ae
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		out := &apiError{Code: api.ErrorCode(), Message: api.ErrorMessage(), Sender: api.ErrorFault() == smithy.FaultClient}
		var generic *smithy.GenericAPIError
		out.Modeled = !errors.As(err, &generic)
		var re *awshttp.ResponseError
		if errors.As(err, &re) {
			out.Status, out.RequestID = re.HTTPStatusCode(), re.ServiceRequestID()
		}
		return out
	}
	var rf awserr.RequestFailure
	if errors.As(err, &rf) {
		return &apiError{Code: rf.Code(), Message: rf.Message(), RequestID: rf.RequestID(), Status: rf.StatusCode(), Sender: rf.StatusCode() < 500}
	}
	return nil
}

// mustAPIError is asAPIError failing the test when err is nil, no API
// error, or one without a message.
func mustAPIError(t testing.TB, err error) *apiError {
	t.Helper()
	if err == nil {
		t.Fatal("want an error, got success")
	}
	ae := asAPIError(err)
	if ae == nil {
		t.Fatalf("not an API error: %T %v", err, err)
	}
	if ae.Message == "" {
		t.Errorf("%s has no message", ae.Code)
	}
	return ae
}

// wantCode wants err to be an API error of code, whatever else it says.
func wantCode(t testing.TB, err error, code string) {
	t.Helper()
	if ae := asAPIError(err); ae == nil || ae.Code != code {
		t.Fatalf("got %v, want %s", err, code)
	}
}

// modeled lists the codes aws-sdk-go-v2 has a type for; the others reach
// it as generic API errors.
var modeled = map[string]bool{
	"AWS.SimpleQueueService.NonExistentQueue":             true,
	"QueueAlreadyExists":                                  true,
	"AWS.SimpleQueueService.QueueDeletedRecently":         true,
	"AWS.SimpleQueueService.PurgeQueueInProgress":         true,
	"InvalidAttributeName":                                true,
	"InvalidAttributeValue":                               true,
	"InvalidMessageContents":                              true,
	"ReceiptHandleIsInvalid":                              true,
	"AWS.SimpleQueueService.EmptyBatchRequest":            true,
	"AWS.SimpleQueueService.TooManyEntriesInBatchRequest": true,
	"AWS.SimpleQueueService.BatchEntryIdsNotDistinct":     true,
	"AWS.SimpleQueueService.InvalidBatchEntryId":          true,
	"AWS.SimpleQueueService.BatchRequestTooLong":          true,
	"ResourceNotFoundException":                           true,
}

// wantErr wants err to be code at status, the sender's fault, with a
// message and a request id; under the JSON protocol the SDK must have
// decoded it into its own type exactly when it models the code.
func wantErr(t testing.TB, err error, code string, status int) *apiError {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s (HTTP %d), got success", code, status)
	}
	ae := asAPIError(err)
	if ae == nil {
		t.Fatalf("want %s (HTTP %d), got %T: %v", code, status, err, err)
	}
	if ae.Code != code || ae.Status != status {
		t.Fatalf("error %s (HTTP %d), want %s (HTTP %d): %v", ae.Code, ae.Status, code, status, err)
	}
	if !ae.Sender {
		t.Fatalf("%s is not the sender's fault: %v", code, err)
	}
	if ae.Message == "" {
		t.Fatalf("%s has no message", code)
	}
	if ae.RequestID == "" {
		t.Fatalf("%s: no request id", code)
	}
	var api smithy.APIError
	if errors.As(err, &api) && ae.Modeled != modeled[code] {
		t.Fatalf("%s: aws-sdk-go-v2 decoded it as %T, modeled %v, want %v", code, err, ae.Modeled, modeled[code])
	}
	return ae
}

// msgAttr is a message (or system) attribute in no SDK's types.
type msgAttr struct {
	DataType, StringValue string
	BinaryValue           []byte
}

func strAttr(dataType, v string) msgAttr        { return msgAttr{DataType: dataType, StringValue: v} }
func binAttr(dataType string, v []byte) msgAttr { return msgAttr{DataType: dataType, BinaryValue: v} }

// sendIn is one message to send, alone or as a batch entry (ID).
type sendIn struct {
	ID, Body        string
	Group, Dedup    *string // nil leaves them out
	Delay           *int
	Attrs, SysAttrs map[string]msgAttr
}

// sendOut is a send's answer; ID is the batch entry's id. A digest absent
// from the answer is "".
type sendOut struct {
	ID, MessageID, SequenceNumber, MD5Body, MD5Attrs, MD5SysAttrs string
}

// batchFailure is one failed entry of a batch.
type batchFailure struct {
	ID, Code, Message string
	SenderFault       bool
}

// handleEntry is one entry of DeleteMessageBatch or, with Visibility,
// ChangeMessageVisibilityBatch.
type handleEntry struct {
	ID, Handle string
	Visibility int
}

// receiveIn is a receive's parameters; nil and "" leave them out.
type receiveIn struct {
	Max, Visibility, Wait *int
	// SysNames go in MessageSystemAttributeNames, or in the deprecated
	// AttributeNames with Legacy (the query protocol has only those).
	SysNames     []string
	Legacy       bool
	MsgAttrNames []string
	AttemptID    string
}

// message is a received message.
type message struct {
	MessageID, Body, MD5Body, Handle, MD5Attrs string
	Attrs                                      map[string]string // system attributes
	MsgAttrs                                   map[string]msgAttr
}

// moveTask is one ListMessageMoveTasks entry.
type moveTask struct {
	Handle, Status, Source, Destination, Failure string
	Moved, ToMove, Started                       int64
	Rate                                         int64 // 0 when not reported
}

// sqsClient is SQS as a test asks it, whatever the protocol. Errors are
// the SDK's own; asAPIError and wantErr read them.
type sqsClient interface {
	CreateQueue(name string, attrs, tags map[string]string) (string, error)
	GetQueueURL(name, owner string) (string, error)
	ListQueues(prefix string, max *int, token string) (urls []string, next string, err error)
	DeleteQueue(url string) error
	GetQueueAttributes(url string, names ...string) (map[string]string, error)
	SetQueueAttributes(url string, attrs map[string]string) error
	PurgeQueue(url string) error
	TagQueue(url string, tags map[string]string) error
	UntagQueue(url string, keys ...string) error
	ListQueueTags(url string) (map[string]string, error)
	ListDeadLetterSourceQueues(url string, max *int, token string) (urls []string, next string, err error)
	AddPermission(url, label string, accounts, actions []string) error
	RemovePermission(url, label string) error
	SendMessage(url string, m sendIn) (sendOut, error)
	SendMessageBatch(url string, ms []sendIn) ([]sendOut, []batchFailure, error)
	ReceiveMessage(url string, r receiveIn) ([]message, error)
	DeleteMessage(url, handle string) error
	DeleteMessageBatch(url string, es []handleEntry) (ok []string, failed []batchFailure, err error)
	ChangeMessageVisibility(url, handle string, secs int) error
	ChangeMessageVisibilityBatch(url string, es []handleEntry) (ok []string, failed []batchFailure, err error)
	StartMessageMoveTask(source, destination string, rate *int) (string, error)
	CancelMessageMoveTask(handle string) (int64, error)
	ListMessageMoveTasks(source string, max *int) ([]moveTask, error)
}

// protocol is one SQS protocol with its client.
type protocol struct {
	name string
	// explicitZero: the SDK can send a zero DelaySeconds, VisibilityTimeout,
	// WaitTimeSeconds or MaxNumberOfMessages; aws-sdk-go-v2 leaves zeros
	// out, so the JSON protocol's tests of them post raw requests.
	explicitZero bool
	// client is a client of the server at endpoint.
	client func(t testing.TB, endpoint string, o clientOpts) sqsClient
}

// clientOpts change a protocol's client from the tests' usual one.
type clientOpts struct {
	region string       // "" is us-east-1
	http   *http.Client // nil is the SDK's usual client
}

// protocols are the SQS protocols every per-action case runs under.
func protocols(testing.TB) []protocol {
	return []protocol{
		{name: "json", client: func(t testing.TB, endpoint string, co clientOpts) sqsClient {
			c := jsonClient(t, endpoint, func(o *sqsv2.Options) {
				if co.region != "" {
					o.Region = co.region
				}
				if co.http != nil {
					o.HTTPClient = co.http
				}
			})
			return v2Client{c: c, ctx: context.Background()}
		}},
		{name: "query", explicitZero: true, client: func(t testing.TB, endpoint string, co clientOpts) sqsClient {
			cfg := &awsv1.Config{}
			if co.region != "" {
				cfg.Region = awsv1.String(co.region)
			}
			if co.http != nil {
				cfg.HTTPClient = co.http
			}
			return v1Client{c: queryClient(t, endpoint, cfg)}
		}},
	}
}

// env is one test's server on a manual clock with one protocol's client.
type env struct {
	t     *testing.T
	srv   *testServer
	c     sqsClient
	proto protocol
}

// env starts a server of its own for t, with p's client.
func (p protocol) env(t *testing.T, cfg server.Config) *env {
	t.Helper()
	srv := startServer(t, cfg)
	return &env{t: t, srv: srv, c: p.client(t, srv.URL(), clientOpts{}), proto: p}
}

// clientWith is another client of e's server, changed by o.
func (e *env) clientWith(o clientOpts) sqsClient { return e.proto.client(e.t, e.srv.URL(), o) }

// protocolEnv is an env of the protocol called name, for the tests of
// that protocol's wire format.
func protocolEnv(t *testing.T, name string, cfg server.Config) *env {
	t.Helper()
	for _, p := range protocols(t) {
		if p.name == name {
			return p.env(t, cfg)
		}
	}
	t.Fatalf("no protocol %q", name)
	return nil
}

// eachProtocol runs body in a parallel subtest per protocol, each on a
// server of its own started with cfg.
func eachProtocol(t *testing.T, cfg server.Config, body func(e *env)) {
	t.Helper()
	eachOf(t, protocols(t), cfg, body)
}

// eachOf is eachProtocol over the protocols ps.
func eachOf(t *testing.T, ps []protocol, cfg server.Config, body func(e *env)) {
	t.Helper()
	for _, p := range ps {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			body(p.env(t, cfg))
		})
	}
}

// is names the protocol; tests say so where answers legitimately differ.
func (e *env) is(name string) bool { return e.proto.name == name }

func (e *env) advance(d time.Duration) { e.srv.Clock.Advance(d) }

// url is the URL minisqs hands out for the queue called name.
func (e *env) url(name string) string { return e.srv.URL() + "/" + defaultAccount + "/" + name }

// createQueue creates a queue and checks the URL it is given: the
// request's own host and port, the account and the name.
func (e *env) createQueue(name string, attrs map[string]string) string {
	e.t.Helper()
	url, err := e.c.CreateQueue(name, attrs, nil)
	if err != nil {
		e.t.Fatalf("CreateQueue %s: %v", name, err)
	}
	if want := e.url(name); url != want {
		e.t.Fatalf("CreateQueue %s: QueueUrl = %q, want %q", name, url, want)
	}
	return url
}

// createFIFO creates a FIFO queue; attrs add to FifoQueue.
func (e *env) createFIFO(name string, attrs map[string]string) string {
	e.t.Helper()
	all := map[string]string{"FifoQueue": "true"}
	for k, v := range attrs {
		all[k] = v
	}
	return e.createQueue(name, all)
}

// send sends body and wants a MessageId.
func (e *env) send(url, body string) sendOut {
	e.t.Helper()
	return e.sendMsg(url, sendIn{Body: body})
}

func (e *env) sendMsg(url string, m sendIn) sendOut {
	e.t.Helper()
	out, err := e.c.SendMessage(url, m)
	if err != nil {
		e.t.Fatalf("SendMessage %.40q: %v", m.Body, err)
	}
	if out.MessageID == "" {
		e.t.Fatal("SendMessage returned no MessageId")
	}
	return out
}

func (e *env) receive(url string, r receiveIn) []message {
	e.t.Helper()
	got, err := e.c.ReceiveMessage(url, r)
	if err != nil {
		e.t.Fatalf("ReceiveMessage: %v", err)
	}
	return got
}

// receiveOne receives with the queue's settings, no wait and every system
// attribute, and wants one message.
func (e *env) receiveOne(url string) message {
	e.t.Helper()
	got := e.receive(url, receiveIn{Wait: ptr(0), SysNames: []string{"All"}})
	if len(got) != 1 {
		e.t.Fatalf("ReceiveMessage: got %d messages, want 1", len(got))
	}
	return got[0]
}

// receiveNone wants an immediate receive of up to 10 to find nothing.
func (e *env) receiveNone(url string) {
	e.t.Helper()
	if got := e.receive(url, receiveIn{Max: ptr(10), Wait: ptr(0)}); len(got) != 0 {
		e.t.Fatalf("ReceiveMessage: got %d messages (first %q), want none", len(got), got[0].Body)
	}
}

func (e *env) del(url, handle string) {
	e.t.Helper()
	if err := e.c.DeleteMessage(url, handle); err != nil {
		e.t.Fatalf("DeleteMessage: %v", err)
	}
}

// attrs reads queue attributes; no names means All.
func (e *env) attrs(url string, names ...string) map[string]string {
	e.t.Helper()
	if len(names) == 0 {
		names = []string{"All"}
	}
	a, err := e.c.GetQueueAttributes(url, names...)
	if err != nil {
		e.t.Fatalf("GetQueueAttributes %v: %v", names, err)
	}
	return a
}

func (e *env) setAttrs(url string, attrs map[string]string) error {
	return e.c.SetQueueAttributes(url, attrs)
}

// counts returns ApproximateNumberOfMessages, ...NotVisible and ...Delayed.
func (e *env) counts(url string) [3]int {
	e.t.Helper()
	names := []string{"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed"}
	a := e.attrs(url, names...)
	var out [3]int
	for i, k := range names {
		n, err := strconv.Atoi(a[k])
		if err != nil {
			e.t.Fatalf("%s = %q: %v", k, a[k], err)
		}
		out[i] = n
	}
	return out
}

func (e *env) wantCounts(url string, visible, notVisible, delayed int) {
	e.t.Helper()
	if got, want := e.counts(url), [3]int{visible, notVisible, delayed}; got != want {
		e.t.Fatalf("counts (visible, not visible, delayed) = %v, want %v", got, want)
	}
}

// visible returns ApproximateNumberOfMessages.
func (e *env) visible(url string) int {
	e.t.Helper()
	return e.counts(url)[0]
}

// isBinary: a Binary data type, custom or not, carries BinaryValue.
func isBinary(dataType string) bool { return strings.HasPrefix(dataType, "Binary") }

func ptr[T any](v T) *T { return &v }

func bodies(ms []message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Body
	}
	return out
}

func handles(ms []message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Handle
	}
	return out
}

// ---------------------------------------------------------------------------
// aws-sdk-go-v2, JSON protocol.

type v2Client struct {
	c   *sqsv2.Client
	ctx context.Context
}

func v2Opt(s string) *string {
	if s == "" {
		return nil
	}
	return awsv2.String(s)
}

func v2Int32(p *int) int32 {
	if p == nil {
		return 0
	}
	return int32(*p)
}

func v2Int32p(p *int) *int32 {
	if p == nil {
		return nil
	}
	return awsv2.Int32(int32(*p))
}

func v2Attrs(in map[string]msgAttr) map[string]types.MessageAttributeValue {
	if in == nil {
		return nil
	}
	out := make(map[string]types.MessageAttributeValue, len(in))
	for k, a := range in {
		v := types.MessageAttributeValue{DataType: v2Opt(a.DataType), BinaryValue: a.BinaryValue}
		if !isBinary(a.DataType) {
			v.StringValue = awsv2.String(a.StringValue)
		}
		out[k] = v
	}
	return out
}

func v2SysAttrs(in map[string]msgAttr) map[string]types.MessageSystemAttributeValue {
	if in == nil {
		return nil
	}
	out := make(map[string]types.MessageSystemAttributeValue, len(in))
	for k, a := range in {
		out[k] = types.MessageSystemAttributeValue{DataType: v2Opt(a.DataType), StringValue: awsv2.String(a.StringValue), BinaryValue: a.BinaryValue}
	}
	return out
}

func (c v2Client) CreateQueue(name string, attrs, tags map[string]string) (string, error) {
	out, err := c.c.CreateQueue(c.ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String(name), Attributes: attrs, Tags: tags})
	if err != nil {
		return "", err
	}
	return awsv2.ToString(out.QueueUrl), nil
}

func (c v2Client) GetQueueURL(name, owner string) (string, error) {
	out, err := c.c.GetQueueUrl(c.ctx, &sqsv2.GetQueueUrlInput{QueueName: awsv2.String(name), QueueOwnerAWSAccountId: v2Opt(owner)})
	if err != nil {
		return "", err
	}
	return awsv2.ToString(out.QueueUrl), nil
}

func (c v2Client) ListQueues(prefix string, max *int, token string) ([]string, string, error) {
	out, err := c.c.ListQueues(c.ctx, &sqsv2.ListQueuesInput{QueueNamePrefix: v2Opt(prefix), MaxResults: v2Int32p(max), NextToken: v2Opt(token)})
	if err != nil {
		return nil, "", err
	}
	return out.QueueUrls, awsv2.ToString(out.NextToken), nil
}

func (c v2Client) DeleteQueue(url string) error {
	_, err := c.c.DeleteQueue(c.ctx, &sqsv2.DeleteQueueInput{QueueUrl: awsv2.String(url)})
	return err
}

func (c v2Client) GetQueueAttributes(url string, names ...string) (map[string]string, error) {
	in := &sqsv2.GetQueueAttributesInput{QueueUrl: awsv2.String(url)}
	for _, n := range names {
		in.AttributeNames = append(in.AttributeNames, types.QueueAttributeName(n))
	}
	out, err := c.c.GetQueueAttributes(c.ctx, in)
	if err != nil {
		return nil, err
	}
	return out.Attributes, nil
}

func (c v2Client) SetQueueAttributes(url string, attrs map[string]string) error {
	_, err := c.c.SetQueueAttributes(c.ctx, &sqsv2.SetQueueAttributesInput{QueueUrl: awsv2.String(url), Attributes: attrs})
	return err
}

func (c v2Client) PurgeQueue(url string) error {
	_, err := c.c.PurgeQueue(c.ctx, &sqsv2.PurgeQueueInput{QueueUrl: awsv2.String(url)})
	return err
}

func (c v2Client) TagQueue(url string, tags map[string]string) error {
	_, err := c.c.TagQueue(c.ctx, &sqsv2.TagQueueInput{QueueUrl: awsv2.String(url), Tags: tags})
	return err
}

func (c v2Client) UntagQueue(url string, keys ...string) error {
	_, err := c.c.UntagQueue(c.ctx, &sqsv2.UntagQueueInput{QueueUrl: awsv2.String(url), TagKeys: keys})
	return err
}

func (c v2Client) ListQueueTags(url string) (map[string]string, error) {
	out, err := c.c.ListQueueTags(c.ctx, &sqsv2.ListQueueTagsInput{QueueUrl: awsv2.String(url)})
	if err != nil {
		return nil, err
	}
	return out.Tags, nil
}

func (c v2Client) ListDeadLetterSourceQueues(url string, max *int, token string) ([]string, string, error) {
	out, err := c.c.ListDeadLetterSourceQueues(c.ctx, &sqsv2.ListDeadLetterSourceQueuesInput{QueueUrl: awsv2.String(url), MaxResults: v2Int32p(max), NextToken: v2Opt(token)})
	if err != nil {
		return nil, "", err
	}
	return out.QueueUrls, awsv2.ToString(out.NextToken), nil
}

func (c v2Client) AddPermission(url, label string, accounts, actions []string) error {
	_, err := c.c.AddPermission(c.ctx, &sqsv2.AddPermissionInput{QueueUrl: awsv2.String(url), Label: awsv2.String(label), AWSAccountIds: accounts, Actions: actions})
	return err
}

func (c v2Client) RemovePermission(url, label string) error {
	_, err := c.c.RemovePermission(c.ctx, &sqsv2.RemovePermissionInput{QueueUrl: awsv2.String(url), Label: awsv2.String(label)})
	return err
}

func (c v2Client) SendMessage(url string, m sendIn) (sendOut, error) {
	out, err := c.c.SendMessage(c.ctx, &sqsv2.SendMessageInput{
		QueueUrl: awsv2.String(url), MessageBody: awsv2.String(m.Body),
		MessageGroupId: m.Group, MessageDeduplicationId: m.Dedup, DelaySeconds: v2Int32(m.Delay),
		MessageAttributes: v2Attrs(m.Attrs), MessageSystemAttributes: v2SysAttrs(m.SysAttrs),
	})
	if err != nil {
		return sendOut{}, err
	}
	return sendOut{
		MessageID: awsv2.ToString(out.MessageId), SequenceNumber: awsv2.ToString(out.SequenceNumber), MD5Body: awsv2.ToString(out.MD5OfMessageBody),
		MD5Attrs: awsv2.ToString(out.MD5OfMessageAttributes), MD5SysAttrs: awsv2.ToString(out.MD5OfMessageSystemAttributes),
	}, nil
}

func (c v2Client) SendMessageBatch(url string, ms []sendIn) ([]sendOut, []batchFailure, error) {
	in := &sqsv2.SendMessageBatchInput{QueueUrl: awsv2.String(url), Entries: []types.SendMessageBatchRequestEntry{}}
	for _, m := range ms {
		in.Entries = append(in.Entries, types.SendMessageBatchRequestEntry{
			Id: awsv2.String(m.ID), MessageBody: awsv2.String(m.Body),
			MessageGroupId: m.Group, MessageDeduplicationId: m.Dedup, DelaySeconds: v2Int32(m.Delay),
			MessageAttributes: v2Attrs(m.Attrs), MessageSystemAttributes: v2SysAttrs(m.SysAttrs),
		})
	}
	out, err := c.c.SendMessageBatch(c.ctx, in)
	if err != nil {
		return nil, nil, err
	}
	var ok []sendOut
	for _, s := range out.Successful {
		ok = append(ok, sendOut{
			ID: awsv2.ToString(s.Id), MessageID: awsv2.ToString(s.MessageId), SequenceNumber: awsv2.ToString(s.SequenceNumber),
			MD5Body: awsv2.ToString(s.MD5OfMessageBody), MD5Attrs: awsv2.ToString(s.MD5OfMessageAttributes), MD5SysAttrs: awsv2.ToString(s.MD5OfMessageSystemAttributes),
		})
	}
	return ok, v2Failures(out.Failed), nil
}

func v2Failures(in []types.BatchResultErrorEntry) []batchFailure {
	var out []batchFailure
	for _, f := range in {
		out = append(out, batchFailure{ID: awsv2.ToString(f.Id), Code: awsv2.ToString(f.Code), Message: awsv2.ToString(f.Message), SenderFault: f.SenderFault})
	}
	return out
}

func (c v2Client) ReceiveMessage(url string, r receiveIn) ([]message, error) {
	in := &sqsv2.ReceiveMessageInput{
		QueueUrl: awsv2.String(url), MaxNumberOfMessages: v2Int32(r.Max), VisibilityTimeout: v2Int32(r.Visibility),
		WaitTimeSeconds: v2Int32(r.Wait), MessageAttributeNames: r.MsgAttrNames, ReceiveRequestAttemptId: v2Opt(r.AttemptID),
	}
	for _, n := range r.SysNames {
		if r.Legacy {
			in.AttributeNames = append(in.AttributeNames, types.QueueAttributeName(n))
		} else {
			in.MessageSystemAttributeNames = append(in.MessageSystemAttributeNames, types.MessageSystemAttributeName(n))
		}
	}
	out, err := c.c.ReceiveMessage(c.ctx, in)
	if err != nil {
		return nil, err
	}
	var got []message
	for _, m := range out.Messages {
		var attrs map[string]msgAttr
		if len(m.MessageAttributes) > 0 {
			attrs = map[string]msgAttr{}
			for k, v := range m.MessageAttributes {
				attrs[k] = msgAttr{awsv2.ToString(v.DataType), awsv2.ToString(v.StringValue), v.BinaryValue}
			}
		}
		got = append(got, message{
			MessageID: awsv2.ToString(m.MessageId), Body: awsv2.ToString(m.Body), MD5Body: awsv2.ToString(m.MD5OfBody),
			Handle: awsv2.ToString(m.ReceiptHandle), MD5Attrs: awsv2.ToString(m.MD5OfMessageAttributes), Attrs: m.Attributes, MsgAttrs: attrs,
		})
	}
	return got, nil
}

func (c v2Client) DeleteMessage(url, handle string) error {
	_, err := c.c.DeleteMessage(c.ctx, &sqsv2.DeleteMessageInput{QueueUrl: awsv2.String(url), ReceiptHandle: awsv2.String(handle)})
	return err
}

func (c v2Client) DeleteMessageBatch(url string, es []handleEntry) ([]string, []batchFailure, error) {
	in := &sqsv2.DeleteMessageBatchInput{QueueUrl: awsv2.String(url), Entries: []types.DeleteMessageBatchRequestEntry{}}
	for _, x := range es {
		in.Entries = append(in.Entries, types.DeleteMessageBatchRequestEntry{Id: awsv2.String(x.ID), ReceiptHandle: awsv2.String(x.Handle)})
	}
	out, err := c.c.DeleteMessageBatch(c.ctx, in)
	if err != nil {
		return nil, nil, err
	}
	var ok []string
	for _, s := range out.Successful {
		ok = append(ok, awsv2.ToString(s.Id))
	}
	return ok, v2Failures(out.Failed), nil
}

func (c v2Client) ChangeMessageVisibility(url, handle string, secs int) error {
	_, err := c.c.ChangeMessageVisibility(c.ctx, &sqsv2.ChangeMessageVisibilityInput{QueueUrl: awsv2.String(url), ReceiptHandle: awsv2.String(handle), VisibilityTimeout: int32(secs)})
	return err
}

func (c v2Client) ChangeMessageVisibilityBatch(url string, es []handleEntry) ([]string, []batchFailure, error) {
	in := &sqsv2.ChangeMessageVisibilityBatchInput{QueueUrl: awsv2.String(url), Entries: []types.ChangeMessageVisibilityBatchRequestEntry{}}
	for _, x := range es {
		in.Entries = append(in.Entries, types.ChangeMessageVisibilityBatchRequestEntry{Id: awsv2.String(x.ID), ReceiptHandle: awsv2.String(x.Handle), VisibilityTimeout: int32(x.Visibility)})
	}
	out, err := c.c.ChangeMessageVisibilityBatch(c.ctx, in)
	if err != nil {
		return nil, nil, err
	}
	var ok []string
	for _, s := range out.Successful {
		ok = append(ok, awsv2.ToString(s.Id))
	}
	return ok, v2Failures(out.Failed), nil
}

func (c v2Client) StartMessageMoveTask(source, destination string, rate *int) (string, error) {
	out, err := c.c.StartMessageMoveTask(c.ctx, &sqsv2.StartMessageMoveTaskInput{SourceArn: awsv2.String(source), DestinationArn: v2Opt(destination), MaxNumberOfMessagesPerSecond: v2Int32p(rate)})
	if err != nil {
		return "", err
	}
	return awsv2.ToString(out.TaskHandle), nil
}

func (c v2Client) CancelMessageMoveTask(handle string) (int64, error) {
	out, err := c.c.CancelMessageMoveTask(c.ctx, &sqsv2.CancelMessageMoveTaskInput{TaskHandle: awsv2.String(handle)})
	if err != nil {
		return 0, err
	}
	return out.ApproximateNumberOfMessagesMoved, nil
}

func (c v2Client) ListMessageMoveTasks(source string, max *int) ([]moveTask, error) {
	out, err := c.c.ListMessageMoveTasks(c.ctx, &sqsv2.ListMessageMoveTasksInput{SourceArn: awsv2.String(source), MaxResults: v2Int32p(max)})
	if err != nil {
		return nil, err
	}
	var tasks []moveTask
	for _, r := range out.Results {
		task := moveTask{
			Handle: awsv2.ToString(r.TaskHandle), Status: awsv2.ToString(r.Status),
			Source: awsv2.ToString(r.SourceArn), Destination: awsv2.ToString(r.DestinationArn),
			Failure: awsv2.ToString(r.FailureReason), Moved: r.ApproximateNumberOfMessagesMoved,
			ToMove: awsv2.ToInt64(r.ApproximateNumberOfMessagesToMove), Started: r.StartedTimestamp,
		}
		if r.MaxNumberOfMessagesPerSecond != nil {
			task.Rate = int64(*r.MaxNumberOfMessagesPerSecond)
		}
		tasks = append(tasks, task)
	}
	return tasks, nil
}

// ---------------------------------------------------------------------------
// aws-sdk-go v1.46.7, query protocol.

type v1Client struct{ c *sqsv1.SQS }

func v1Opt(s string) *string {
	if s == "" {
		return nil
	}
	return awsv1.String(s)
}

func v1Int64(p *int) *int64 {
	if p == nil {
		return nil
	}
	return awsv1.Int64(int64(*p))
}

func v1Attrs(in map[string]msgAttr) map[string]*sqsv1.MessageAttributeValue {
	if in == nil {
		return nil
	}
	out := make(map[string]*sqsv1.MessageAttributeValue, len(in))
	for k, a := range in {
		v := &sqsv1.MessageAttributeValue{DataType: v1Opt(a.DataType), BinaryValue: a.BinaryValue}
		if !isBinary(a.DataType) {
			v.StringValue = awsv1.String(a.StringValue)
		}
		out[k] = v
	}
	return out
}

func v1SysAttrs(in map[string]msgAttr) map[string]*sqsv1.MessageSystemAttributeValue {
	if in == nil {
		return nil
	}
	out := make(map[string]*sqsv1.MessageSystemAttributeValue, len(in))
	for k, a := range in {
		out[k] = &sqsv1.MessageSystemAttributeValue{DataType: v1Opt(a.DataType), StringValue: awsv1.String(a.StringValue), BinaryValue: a.BinaryValue}
	}
	return out
}

func (c v1Client) CreateQueue(name string, attrs, tags map[string]string) (string, error) {
	in := &sqsv1.CreateQueueInput{QueueName: awsv1.String(name)}
	if attrs != nil {
		in.Attributes = awsv1.StringMap(attrs)
	}
	if tags != nil {
		in.Tags = awsv1.StringMap(tags)
	}
	out, err := c.c.CreateQueue(in)
	if err != nil {
		return "", err
	}
	return awsv1.StringValue(out.QueueUrl), nil
}

func (c v1Client) GetQueueURL(name, owner string) (string, error) {
	out, err := c.c.GetQueueUrl(&sqsv1.GetQueueUrlInput{QueueName: awsv1.String(name), QueueOwnerAWSAccountId: v1Opt(owner)})
	if err != nil {
		return "", err
	}
	return awsv1.StringValue(out.QueueUrl), nil
}

func (c v1Client) ListQueues(prefix string, max *int, token string) ([]string, string, error) {
	out, err := c.c.ListQueues(&sqsv1.ListQueuesInput{QueueNamePrefix: v1Opt(prefix), MaxResults: v1Int64(max), NextToken: v1Opt(token)})
	if err != nil {
		return nil, "", err
	}
	return awsv1.StringValueSlice(out.QueueUrls), awsv1.StringValue(out.NextToken), nil
}

func (c v1Client) DeleteQueue(url string) error {
	_, err := c.c.DeleteQueue(&sqsv1.DeleteQueueInput{QueueUrl: awsv1.String(url)})
	return err
}

func (c v1Client) GetQueueAttributes(url string, names ...string) (map[string]string, error) {
	out, err := c.c.GetQueueAttributes(&sqsv1.GetQueueAttributesInput{QueueUrl: awsv1.String(url), AttributeNames: awsv1.StringSlice(names)})
	if err != nil {
		return nil, err
	}
	return awsv1.StringValueMap(out.Attributes), nil
}

func (c v1Client) SetQueueAttributes(url string, attrs map[string]string) error {
	_, err := c.c.SetQueueAttributes(&sqsv1.SetQueueAttributesInput{QueueUrl: awsv1.String(url), Attributes: awsv1.StringMap(attrs)})
	return err
}

func (c v1Client) PurgeQueue(url string) error {
	_, err := c.c.PurgeQueue(&sqsv1.PurgeQueueInput{QueueUrl: awsv1.String(url)})
	return err
}

func (c v1Client) TagQueue(url string, tags map[string]string) error {
	_, err := c.c.TagQueue(&sqsv1.TagQueueInput{QueueUrl: awsv1.String(url), Tags: awsv1.StringMap(tags)})
	return err
}

func (c v1Client) UntagQueue(url string, keys ...string) error {
	_, err := c.c.UntagQueue(&sqsv1.UntagQueueInput{QueueUrl: awsv1.String(url), TagKeys: awsv1.StringSlice(keys)})
	return err
}

func (c v1Client) ListQueueTags(url string) (map[string]string, error) {
	out, err := c.c.ListQueueTags(&sqsv1.ListQueueTagsInput{QueueUrl: awsv1.String(url)})
	if err != nil {
		return nil, err
	}
	return awsv1.StringValueMap(out.Tags), nil
}

func (c v1Client) ListDeadLetterSourceQueues(url string, max *int, token string) ([]string, string, error) {
	out, err := c.c.ListDeadLetterSourceQueues(&sqsv1.ListDeadLetterSourceQueuesInput{QueueUrl: awsv1.String(url), MaxResults: v1Int64(max), NextToken: v1Opt(token)})
	if err != nil {
		return nil, "", err
	}
	return awsv1.StringValueSlice(out.QueueUrls), awsv1.StringValue(out.NextToken), nil
}

func (c v1Client) AddPermission(url, label string, accounts, actions []string) error {
	_, err := c.c.AddPermission(&sqsv1.AddPermissionInput{QueueUrl: awsv1.String(url), Label: awsv1.String(label), AWSAccountIds: awsv1.StringSlice(accounts), Actions: awsv1.StringSlice(actions)})
	return err
}

func (c v1Client) RemovePermission(url, label string) error {
	_, err := c.c.RemovePermission(&sqsv1.RemovePermissionInput{QueueUrl: awsv1.String(url), Label: awsv1.String(label)})
	return err
}

func (c v1Client) SendMessage(url string, m sendIn) (sendOut, error) {
	out, err := c.c.SendMessage(&sqsv1.SendMessageInput{
		QueueUrl: awsv1.String(url), MessageBody: awsv1.String(m.Body),
		MessageGroupId: m.Group, MessageDeduplicationId: m.Dedup, DelaySeconds: v1Int64(m.Delay),
		MessageAttributes: v1Attrs(m.Attrs), MessageSystemAttributes: v1SysAttrs(m.SysAttrs),
	})
	if err != nil {
		return sendOut{}, err
	}
	return sendOut{
		MessageID: awsv1.StringValue(out.MessageId), SequenceNumber: awsv1.StringValue(out.SequenceNumber), MD5Body: awsv1.StringValue(out.MD5OfMessageBody),
		MD5Attrs: awsv1.StringValue(out.MD5OfMessageAttributes), MD5SysAttrs: awsv1.StringValue(out.MD5OfMessageSystemAttributes),
	}, nil
}

func (c v1Client) SendMessageBatch(url string, ms []sendIn) ([]sendOut, []batchFailure, error) {
	in := &sqsv1.SendMessageBatchInput{QueueUrl: awsv1.String(url), Entries: []*sqsv1.SendMessageBatchRequestEntry{}}
	for _, m := range ms {
		in.Entries = append(in.Entries, &sqsv1.SendMessageBatchRequestEntry{
			Id: awsv1.String(m.ID), MessageBody: awsv1.String(m.Body),
			MessageGroupId: m.Group, MessageDeduplicationId: m.Dedup, DelaySeconds: v1Int64(m.Delay),
			MessageAttributes: v1Attrs(m.Attrs), MessageSystemAttributes: v1SysAttrs(m.SysAttrs),
		})
	}
	out, err := c.c.SendMessageBatch(in)
	if err != nil {
		return nil, nil, err
	}
	var ok []sendOut
	for _, s := range out.Successful {
		ok = append(ok, sendOut{
			ID: awsv1.StringValue(s.Id), MessageID: awsv1.StringValue(s.MessageId), SequenceNumber: awsv1.StringValue(s.SequenceNumber),
			MD5Body: awsv1.StringValue(s.MD5OfMessageBody), MD5Attrs: awsv1.StringValue(s.MD5OfMessageAttributes), MD5SysAttrs: awsv1.StringValue(s.MD5OfMessageSystemAttributes),
		})
	}
	return ok, v1Failures(out.Failed), nil
}

func v1Failures(in []*sqsv1.BatchResultErrorEntry) []batchFailure {
	var out []batchFailure
	for _, f := range in {
		out = append(out, batchFailure{ID: awsv1.StringValue(f.Id), Code: awsv1.StringValue(f.Code), Message: awsv1.StringValue(f.Message), SenderFault: awsv1.BoolValue(f.SenderFault)})
	}
	return out
}

func (c v1Client) ReceiveMessage(url string, r receiveIn) ([]message, error) {
	in := &sqsv1.ReceiveMessageInput{
		QueueUrl: awsv1.String(url), MaxNumberOfMessages: v1Int64(r.Max), VisibilityTimeout: v1Int64(r.Visibility),
		WaitTimeSeconds: v1Int64(r.Wait), ReceiveRequestAttemptId: v1Opt(r.AttemptID),
	}
	if len(r.SysNames) > 0 {
		in.AttributeNames = awsv1.StringSlice(r.SysNames)
	}
	if len(r.MsgAttrNames) > 0 {
		in.MessageAttributeNames = awsv1.StringSlice(r.MsgAttrNames)
	}
	out, err := c.c.ReceiveMessage(in)
	if err != nil {
		return nil, err
	}
	var got []message
	for _, m := range out.Messages {
		var attrs map[string]msgAttr
		if len(m.MessageAttributes) > 0 {
			attrs = map[string]msgAttr{}
			for k, v := range m.MessageAttributes {
				attrs[k] = msgAttr{awsv1.StringValue(v.DataType), awsv1.StringValue(v.StringValue), v.BinaryValue}
			}
		}
		var sys map[string]string
		if len(m.Attributes) > 0 {
			sys = awsv1.StringValueMap(m.Attributes)
		}
		got = append(got, message{
			MessageID: awsv1.StringValue(m.MessageId), Body: awsv1.StringValue(m.Body), MD5Body: awsv1.StringValue(m.MD5OfBody),
			Handle: awsv1.StringValue(m.ReceiptHandle), MD5Attrs: awsv1.StringValue(m.MD5OfMessageAttributes), Attrs: sys, MsgAttrs: attrs,
		})
	}
	return got, nil
}

func (c v1Client) DeleteMessage(url, handle string) error {
	_, err := c.c.DeleteMessage(&sqsv1.DeleteMessageInput{QueueUrl: awsv1.String(url), ReceiptHandle: awsv1.String(handle)})
	return err
}

func (c v1Client) DeleteMessageBatch(url string, es []handleEntry) ([]string, []batchFailure, error) {
	in := &sqsv1.DeleteMessageBatchInput{QueueUrl: awsv1.String(url), Entries: []*sqsv1.DeleteMessageBatchRequestEntry{}}
	for _, x := range es {
		in.Entries = append(in.Entries, &sqsv1.DeleteMessageBatchRequestEntry{Id: awsv1.String(x.ID), ReceiptHandle: awsv1.String(x.Handle)})
	}
	out, err := c.c.DeleteMessageBatch(in)
	if err != nil {
		return nil, nil, err
	}
	var ok []string
	for _, s := range out.Successful {
		ok = append(ok, awsv1.StringValue(s.Id))
	}
	return ok, v1Failures(out.Failed), nil
}

func (c v1Client) ChangeMessageVisibility(url, handle string, secs int) error {
	_, err := c.c.ChangeMessageVisibility(&sqsv1.ChangeMessageVisibilityInput{QueueUrl: awsv1.String(url), ReceiptHandle: awsv1.String(handle), VisibilityTimeout: awsv1.Int64(int64(secs))})
	return err
}

func (c v1Client) ChangeMessageVisibilityBatch(url string, es []handleEntry) ([]string, []batchFailure, error) {
	in := &sqsv1.ChangeMessageVisibilityBatchInput{QueueUrl: awsv1.String(url), Entries: []*sqsv1.ChangeMessageVisibilityBatchRequestEntry{}}
	for _, x := range es {
		in.Entries = append(in.Entries, &sqsv1.ChangeMessageVisibilityBatchRequestEntry{Id: awsv1.String(x.ID), ReceiptHandle: awsv1.String(x.Handle), VisibilityTimeout: awsv1.Int64(int64(x.Visibility))})
	}
	out, err := c.c.ChangeMessageVisibilityBatch(in)
	if err != nil {
		return nil, nil, err
	}
	var ok []string
	for _, s := range out.Successful {
		ok = append(ok, awsv1.StringValue(s.Id))
	}
	return ok, v1Failures(out.Failed), nil
}

func (c v1Client) StartMessageMoveTask(source, destination string, rate *int) (string, error) {
	out, err := c.c.StartMessageMoveTask(&sqsv1.StartMessageMoveTaskInput{SourceArn: awsv1.String(source), DestinationArn: v1Opt(destination), MaxNumberOfMessagesPerSecond: v1Int64(rate)})
	if err != nil {
		return "", err
	}
	return awsv1.StringValue(out.TaskHandle), nil
}

func (c v1Client) CancelMessageMoveTask(handle string) (int64, error) {
	out, err := c.c.CancelMessageMoveTask(&sqsv1.CancelMessageMoveTaskInput{TaskHandle: awsv1.String(handle)})
	if err != nil {
		return 0, err
	}
	return awsv1.Int64Value(out.ApproximateNumberOfMessagesMoved), nil
}

func (c v1Client) ListMessageMoveTasks(source string, max *int) ([]moveTask, error) {
	out, err := c.c.ListMessageMoveTasks(&sqsv1.ListMessageMoveTasksInput{SourceArn: awsv1.String(source), MaxResults: v1Int64(max)})
	if err != nil {
		return nil, err
	}
	var tasks []moveTask
	for _, r := range out.Results {
		tasks = append(tasks, moveTask{
			Handle: awsv1.StringValue(r.TaskHandle), Status: awsv1.StringValue(r.Status),
			Source: awsv1.StringValue(r.SourceArn), Destination: awsv1.StringValue(r.DestinationArn),
			Failure: awsv1.StringValue(r.FailureReason), Moved: awsv1.Int64Value(r.ApproximateNumberOfMessagesMoved),
			ToMove: awsv1.Int64Value(r.ApproximateNumberOfMessagesToMove), Started: awsv1.Int64Value(r.StartedTimestamp),
			Rate: awsv1.Int64Value(r.MaxNumberOfMessagesPerSecond),
		})
	}
	return tasks, nil
}
