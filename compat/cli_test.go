package compat

// The aws CLI against minisqs, in both SQS protocols:
//
//   - "aws" on PATH: aws-cli v1.45 (botocore 1.43), which speaks the JSON
//     protocol;
//   - /usr/bin/aws: Debian's aws-cli v2.9, whose bundled botocore predates
//     SQS's JSON protocol and speaks the query protocol.
//
// Each CLI talks to the server through a recording proxy, so the test also
// proves which protocol it used. A missing CLI skips the test under plain
// go test and fails it under the README's test command, which installs both.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minisqs/minisqs/internal/testenv"
	"github.com/minisqs/minisqs/server"
)

const cliV2Path = "/usr/bin/aws"

// cliRunner runs one aws CLI binary against one endpoint.
type cliRunner struct {
	path     string
	endpoint string
	env      []string
	dir      string
}

// cliEnv is the environment for a CLI: the test's own, without any AWS
// settings or proxies, plus static test credentials and empty config files.
func cliEnv(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	cfg, creds := filepath.Join(dir, "config"), filepath.Join(dir, "credentials")
	for _, f := range []string{cfg, creds} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch uk := strings.ToUpper(k); {
		case strings.HasPrefix(uk, "AWS_"), uk == "HTTP_PROXY", uk == "HTTPS_PROXY", uk == "ALL_PROXY", uk == "NO_PROXY":
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"AWS_ACCESS_KEY_ID=test",
		"AWS_SECRET_ACCESS_KEY=test",
		"AWS_DEFAULT_REGION=us-east-1",
		"AWS_CONFIG_FILE="+cfg,
		"AWS_SHARED_CREDENTIALS_FILE="+creds,
		"AWS_PAGER=",
		"AWS_EC2_METADATA_DISABLED=true",
		"NO_PROXY=127.0.0.1,localhost",
	)
}

// run runs "aws sqs ARGS --endpoint-url E --output json" and returns its
// stdout, stderr and error.
func (c *cliRunner) run(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	full := append([]string{"sqs"}, args...)
	full = append(full, "--endpoint-url", c.endpoint, "--output", "json")
	cmd := exec.CommandContext(ctx, c.path, full...)
	cmd.Env = c.env
	cmd.Dir = c.dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s %v: timed out", c.path, args)
	}
	return out.String(), errb.String(), err
}

// ok runs a command that must succeed and decodes its JSON output into v
// (v nil: the output must be empty or a JSON value).
func (c *cliRunner) ok(t *testing.T, v any, args ...string) {
	t.Helper()
	stdout, stderr, err := c.run(t, args...)
	if err != nil {
		t.Fatalf("aws sqs %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout, stderr)
	}
	if v == nil {
		if s := strings.TrimSpace(stdout); s != "" && !json.Valid([]byte(s)) {
			t.Fatalf("aws sqs %s: output is not JSON: %s", args[0], stdout)
		}
		return
	}
	if err := json.Unmarshal([]byte(stdout), v); err != nil {
		t.Fatalf("aws sqs %s: output is not JSON (%v): %s\nstderr: %s", args[0], err, stdout, stderr)
	}
}

// cliVersion returns the "aws --version" line.
func cliVersion(t *testing.T, path string, env []string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v: %s", path, err, out)
	}
	return strings.TrimSpace(string(out))
}

// cliRecorder is a proxy in front of the server that notes each request's
// protocol and action, as "json:Action" or "query:Action".
type cliRecorder struct {
	mu    sync.Mutex
	calls []string
}

func (r *cliRecorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}

func cliProxy(t *testing.T, target string) (*httptest.Server, *cliRecorder) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rec := &cliRecorder{}
	ps := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		call := "unknown"
		if target := r.Header.Get("X-Amz-Target"); target != "" {
			call = "json:" + strings.TrimPrefix(target, "AmazonSQS.")
		} else if form, err := url.ParseQuery(string(body)); err == nil && form.Get("Action") != "" {
			call = "query:" + form.Get("Action")
		} else if a := r.URL.Query().Get("Action"); a != "" {
			call = "query:" + a
		}
		rec.mu.Lock()
		rec.calls = append(rec.calls, call)
		rec.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(ps.Close)
	return ps, rec
}

// cliFindV1 finds the aws CLI on PATH and checks that it is aws-cli v1
// (the pyenv shim), not Debian's v2 found first by mistake.
func cliFindV1(t *testing.T, env []string) string {
	t.Helper()
	p, err := exec.LookPath("aws")
	if err != nil {
		testenv.Missing(t, "aws CLI v1 not on PATH: %v", err)
	}
	if real, err := filepath.EvalSymlinks(p); err == nil && real == cliV2Path {
		testenv.Missing(t, "aws on PATH is %s (aws-cli v2), want aws-cli v1 found first (PATH=%s)", p, os.Getenv("PATH"))
	}
	if v := cliVersion(t, p, env); !strings.HasPrefix(v, "aws-cli/1.") {
		t.Fatalf("aws on PATH (%s) is %q, want aws-cli/1.x", p, v)
	}
	return p
}

func cliFindV2(t *testing.T, env []string) string {
	t.Helper()
	if _, err := os.Stat(cliV2Path); err != nil {
		testenv.Missing(t, "Debian aws-cli v2 (%s, package awscli) missing: %v", cliV2Path, err)
	}
	if v := cliVersion(t, cliV2Path, env); !strings.HasPrefix(v, "aws-cli/2.") {
		t.Fatalf("%s is %q, want aws-cli/2.x", cliV2Path, v)
	}
	return cliV2Path
}

func TestCLIv1JSONProtocol(t *testing.T) {
	t.Parallel()
	env := cliEnv(t)
	cliScenario(t, cliFindV1(t, env), env, "json")
}

func TestCLIv2QueryProtocol(t *testing.T) {
	t.Parallel()
	env := cliEnv(t)
	cliScenario(t, cliFindV2(t, env), env, "query")
}

// cliScenario drives one CLI through the common SQS commands and checks
// that it used the expected protocol.
func cliScenario(t *testing.T, path string, env []string, protocol string) {
	srv := startServer(t, server.Config{})
	proxy, rec := cliProxy(t, srv.URL())
	c := &cliRunner{path: path, endpoint: proxy.URL, env: env, dir: t.TempDir()}
	name := "cli-" + protocol

	// create-queue with attributes.
	var created struct{ QueueUrl string }
	c.ok(t, &created, "create-queue", "--queue-name", name, "--attributes", "VisibilityTimeout=45,MessageRetentionPeriod=3600,DelaySeconds=0")
	if want := proxy.URL + "/000000000000/" + name; created.QueueUrl != want {
		t.Fatalf("QueueUrl = %q, want %q", created.QueueUrl, want)
	}
	qu := created.QueueUrl

	// get-queue-attributes.
	var attrs struct{ Attributes map[string]string }
	c.ok(t, &attrs, "get-queue-attributes", "--queue-url", qu, "--attribute-names", "All")
	a := attrs.Attributes
	if a["VisibilityTimeout"] != "45" || a["MessageRetentionPeriod"] != "3600" || a["DelaySeconds"] != "0" ||
		a["QueueArn"] != "arn:aws:sqs:us-east-1:000000000000:"+name || a["ApproximateNumberOfMessages"] != "0" {
		t.Fatalf("attributes = %v", a)
	}

	// set-queue-attributes, then read back just what was set.
	c.ok(t, nil, "set-queue-attributes", "--queue-url", qu, "--attributes", "VisibilityTimeout=60,DelaySeconds=1")
	attrs.Attributes = nil
	c.ok(t, &attrs, "get-queue-attributes", "--queue-url", qu, "--attribute-names", "VisibilityTimeout", "DelaySeconds")
	if len(attrs.Attributes) != 2 || attrs.Attributes["VisibilityTimeout"] != "60" || attrs.Attributes["DelaySeconds"] != "1" {
		t.Fatalf("attributes after set = %v", attrs.Attributes)
	}
	c.ok(t, nil, "set-queue-attributes", "--queue-url", qu, "--attributes", "DelaySeconds=0")

	// send-message with message attributes and a body that needs escaping.
	body := "hello <cli> & \"friends\" 'apos' 🚀 漢字\r\nline two\ttab"
	msgAttrs := `{"color":{"DataType":"String","StringValue":"blue & <green>"},"count":{"DataType":"Number","StringValue":"42"},"kind":{"DataType":"String.custom","StringValue":"k"}}`
	var sent struct {
		MessageId              string
		MD5OfMessageBody       string
		MD5OfMessageAttributes string
	}
	c.ok(t, &sent, "send-message", "--queue-url", qu, "--message-body", body, "--message-attributes", msgAttrs)
	wantAttrMD5 := refMD5OfAttributes(cliAttrMap(t, msgAttrs))
	if sent.MessageId == "" || sent.MD5OfMessageBody != refMD5(body) || sent.MD5OfMessageAttributes != wantAttrMD5 {
		t.Fatalf("send-message = %+v, want body MD5 %s, attributes MD5 %s", sent, refMD5(body), wantAttrMD5)
	}

	// receive-message with every system and message attribute.
	var got struct {
		Messages []struct {
			MessageId              string
			ReceiptHandle          string
			MD5OfBody              string
			Body                   string
			Attributes             map[string]string
			MD5OfMessageAttributes string
			MessageAttributes      map[string]struct {
				DataType    string
				StringValue string
			}
		}
	}
	c.ok(t, &got, "receive-message", "--queue-url", qu, "--attribute-names", "All", "--message-attribute-names", "All",
		"--max-number-of-messages", "10", "--wait-time-seconds", "0")
	if len(got.Messages) != 1 {
		t.Fatalf("received %d messages, want 1", len(got.Messages))
	}
	m := got.Messages[0]
	if m.MessageId != sent.MessageId || m.Body != body || m.MD5OfBody != refMD5(body) || m.ReceiptHandle == "" {
		t.Fatalf("received %+v\nwant body %q, id %s", m, body, sent.MessageId)
	}
	if m.Attributes["ApproximateReceiveCount"] != "1" || m.Attributes["SenderId"] != "000000000000" ||
		m.Attributes["SentTimestamp"] == "" || m.Attributes["ApproximateFirstReceiveTimestamp"] == "" {
		t.Fatalf("system attributes = %v", m.Attributes)
	}
	if len(m.MessageAttributes) != 3 || m.MessageAttributes["color"].StringValue != "blue & <green>" ||
		m.MessageAttributes["count"].DataType != "Number" || m.MessageAttributes["count"].StringValue != "42" ||
		m.MessageAttributes["kind"].DataType != "String.custom" || m.MD5OfMessageAttributes != wantAttrMD5 {
		t.Fatalf("message attributes = %+v (MD5 %s, want %s)", m.MessageAttributes, m.MD5OfMessageAttributes, wantAttrMD5)
	}
	attrs.Attributes = nil
	c.ok(t, &attrs, "get-queue-attributes", "--queue-url", qu, "--attribute-names", "ApproximateNumberOfMessagesNotVisible")
	if attrs.Attributes["ApproximateNumberOfMessagesNotVisible"] != "1" {
		t.Fatalf("in flight after receive = %v", attrs.Attributes)
	}

	// delete-message empties the queue.
	c.ok(t, nil, "delete-message", "--queue-url", qu, "--receipt-handle", m.ReceiptHandle)
	attrs.Attributes = nil
	c.ok(t, &attrs, "get-queue-attributes", "--queue-url", qu, "--attribute-names", "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible")
	if attrs.Attributes["ApproximateNumberOfMessages"] != "0" || attrs.Attributes["ApproximateNumberOfMessagesNotVisible"] != "0" {
		t.Fatalf("counts after delete = %v", attrs.Attributes)
	}

	// A missing queue: non-zero exit and the query error code on stderr.
	for _, args := range [][]string{
		{"get-queue-attributes", "--queue-url", proxy.URL + "/000000000000/no-such-queue", "--attribute-names", "All"},
		{"get-queue-url", "--queue-name", "no-such-queue"},
	} {
		stdout, stderr, err := c.run(t, args...)
		var exit *exec.ExitError
		if err == nil || !errors.As(err, &exit) || exit.ExitCode() == 0 {
			t.Fatalf("aws sqs %s on a missing queue: err %v, stdout %s", args[0], err, stdout)
		}
		if !strings.Contains(stderr, "AWS.SimpleQueueService.NonExistentQueue") {
			t.Fatalf("aws sqs %s stderr lacks the error code:\n%s", args[0], stderr)
		}
	}

	// Every call went over the expected protocol.
	calls := rec.seen()
	if len(calls) == 0 {
		t.Fatal("no requests reached the proxy")
	}
	actions := map[string]bool{}
	for _, call := range calls {
		proto, action, _ := strings.Cut(call, ":")
		if proto != protocol {
			t.Errorf("request %q did not use the %s protocol (all: %v)", call, protocol, calls)
		}
		actions[action] = true
	}
	for _, want := range []string{"CreateQueue", "GetQueueAttributes", "SetQueueAttributes", "SendMessage", "ReceiveMessage", "DeleteMessage", "GetQueueUrl"} {
		if !actions[want] {
			t.Errorf("no %s request seen (calls: %v)", want, calls)
		}
	}
}

// cliAttrMap turns the CLI's --message-attributes JSON into attributes for
// the digest.
func cliAttrMap(t *testing.T, raw string) map[string]msgAttr {
	t.Helper()
	var m map[string]struct{ DataType, StringValue string }
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatal(err)
	}
	out := map[string]msgAttr{}
	for k, v := range m {
		out[k] = strAttr(v.DataType, v.StringValue)
	}
	return out
}
