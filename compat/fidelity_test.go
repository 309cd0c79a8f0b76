package compat

// Shared helpers of the tests that hold minisqs to what AWS is recorded
// doing (fidelity_*_test.go). Each test names its recording: a LocalStack
// snapshot validated against AWS (localstack/localstack,
// tests/aws/services/sqs/*.snapshot.json), a moto test marked
// aws_verified (getmoto/moto, tests/test_sqs/test_sqs.py), a go-cloud
// replay of real AWS traffic (google/go-cloud,
// pubsub/awssnssqs/testdata/*.replay), or an AWS documentation page.
// Every test runs under both SQS protocols (adapter_test.go), or is one
// protocol's wire format where the recording is.

import (
	"testing"
)

// wantMessage wants err to be code with message, at status, the sender's fault.
func wantMessage(t *testing.T, what string, err error, status int, code, message string) {
	t.Helper()
	got := mustAPIError(t, err)
	if got.Code != code || got.Message != message || got.Status != status || !got.Sender {
		t.Errorf("%s: got %d %s %q (sender %v),\n want %d %s %q", what, got.Status, got.Code, got.Message, got.Sender, status, code, message)
	}
}
