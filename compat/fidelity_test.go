package compat

// Shared helpers of the tests that hold minisqs to what AWS is recorded
// doing (fidelity_*_test.go). Each test names its recording: a LocalStack
// snapshot validated against AWS (localstack/localstack,
// tests/aws/services/sqs/*.snapshot.json), a moto test marked
// aws_verified (getmoto/moto, tests/test_sqs/test_sqs.py), a go-cloud
// replay of real AWS traffic (google/go-cloud,
// pubsub/awssnssqs/testdata/*.replay), or an AWS documentation page.
// Every test runs the JSON protocol (aws-sdk-go-v2) and the query protocol
// (aws-sdk-go v1.46.7) against one server. Identifiers start with "fd".

import (
	"context"
	"testing"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	awsv1 "github.com/aws/aws-sdk-go/aws"
	sqsv1 "github.com/aws/aws-sdk-go/service/sqs"

	"github.com/minisqs/minisqs/server"
)

// fdEnv is one test's server with a client of each protocol.
type fdEnv struct {
	t   *testing.T
	srv *testServer
	js  *sqsv2.Client
	q   *sqsv1.SQS
	ctx context.Context
}

func newFDEnv(t *testing.T, cfg server.Config) *fdEnv {
	t.Helper()
	t.Parallel()
	srv := startServer(t, cfg)
	return &fdEnv{t: t, srv: srv, js: jsonClient(t, srv.URL()), q: queryClient(t, srv.URL()), ctx: context.Background()}
}

// create makes a queue through the JSON protocol and returns its URL.
func (e *fdEnv) create(name string, attrs map[string]string) string {
	e.t.Helper()
	out, err := e.js.CreateQueue(e.ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String(name), Attributes: attrs})
	if err != nil {
		e.t.Fatalf("CreateQueue %s: %v", name, err)
	}
	return awsv2.ToString(out.QueueUrl)
}

// wantMessage wants err to be code with message, at status, the sender's fault.
func wantMessage(t *testing.T, what string, err error, status int, code, message string) {
	t.Helper()
	got := mustAPIError(t, err)
	if got.Code != code || got.Message != message || got.Status != status || !got.Sender {
		t.Errorf("%s: got %d %s %q (sender %v),\n want %d %s %q", what, got.Status, got.Code, got.Message, got.Sender, status, code, message)
	}
}

// fdProtocols names the two protocols in subtests.
var fdProtocols = []string{"json", "query"}

// qStr and jStr make optional strings for each SDK.
func qStr(s string) *string { return awsv1.String(s) }
func jStr(s string) *string { return awsv2.String(s) }
