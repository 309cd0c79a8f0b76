package compat

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"maps"
	"net/http"
	"slices"
	"testing"
	"time"

	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	awsv1 "github.com/aws/aws-sdk-go/aws"
	credv1 "github.com/aws/aws-sdk-go/aws/credentials"
	"github.com/aws/aws-sdk-go/aws/session"
	sqsv1 "github.com/aws/aws-sdk-go/service/sqs"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/internal/sqsload"
	"github.com/minisqs/minisqs/minisqstest"
	"github.com/minisqs/minisqs/server"
)

// testServer is a minisqs serving on a loopback port for one test, through
// minisqstest, on a manual clock the test advances.
type testServer struct {
	*minisqstest.Server
	Clock *engine.ManualClock // nil when cfg named a clock of its own
}

// startServer runs a server for the test; cfg may set DB, SkipCooldowns and
// the like. Without a clock in cfg it runs on a manual one.
func startServer(t testing.TB, cfg server.Config) *testServer {
	t.Helper()
	opts := []minisqstest.Option{minisqstest.WithConfig(cfg)}
	if cfg.Clock == nil {
		opts = append(opts, minisqstest.WithManualClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
	}
	srv := minisqstest.RunT(t, opts...)
	return &testServer{Server: srv, Clock: srv.ManualClock()}
}

// jsonClient is an aws-sdk-go-v2 SQS client; its service/sqs speaks the
// JSON protocol. optFns change its options, as for sqs.New. Its transport
// reads each answer whole (sqsload.LoopbackClient): against a server this
// close, the SDK would otherwise now and then retry a receive whose answer
// had arrived, and find its messages in flight.
func jsonClient(t testing.TB, endpoint string, optFns ...func(*sqsv2.Options)) *sqsv2.Client {
	t.Helper()
	return sqsv2.New(sqsload.LoopbackClient(endpoint).Options(), optFns...)
}

// queryClient is an aws-sdk-go v1 SQS client pinned before v1.47, which
// speaks the query protocol. cfgs override its configuration.
func queryClient(t testing.TB, endpoint string, cfgs ...*awsv1.Config) *sqsv1.SQS {
	t.Helper()
	sess, err := session.NewSession(&awsv1.Config{
		Region:      awsv1.String("us-east-1"),
		Endpoint:    awsv1.String(endpoint),
		Credentials: credv1.NewStaticCredentials("test", "test", ""),
		HTTPClient:  &http.Client{Timeout: 30 * time.Second},
	})
	if err != nil {
		t.Fatalf("session: %v", err)
	}
	return sqsv1.New(sess, cfgs...)
}

// waitForWaiters blocks until n timers wait on the clock (a long poll has
// started waiting), so a test can advance time past it.
var waitForWaiters = minisqstest.AwaitWaiters

// refMD5OfAttributes computes MD5OfMessageAttributes independently of
// minisqs, as the SQS docs describe it: attributes sorted by name; for each,
// length-prefixed name, length-prefixed data type, a transport byte (1 for
// String and Number, 2 for Binary) and the length-prefixed value; lengths
// 4-byte big-endian. No attributes digest to "".
func refMD5OfAttributes(attrs map[string]msgAttr) string {
	if len(attrs) == 0 {
		return ""
	}
	var buf bytes.Buffer
	put := func(b []byte) {
		binary.Write(&buf, binary.BigEndian, uint32(len(b)))
		buf.Write(b)
	}
	for _, n := range slices.Sorted(maps.Keys(attrs)) {
		a := attrs[n]
		put([]byte(n))
		put([]byte(a.DataType))
		if isBinary(a.DataType) {
			buf.WriteByte(2)
			put(a.BinaryValue)
		} else {
			buf.WriteByte(1)
			put([]byte(a.StringValue))
		}
	}
	return refMD5(buf.String())
}

// refMD5 is the hex MD5 of s, as MD5OfBody.
func refMD5(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}
