package compat

// Identity: namespaces (account, region) and opt-in SigV4, with real
// clients in both protocols: aws-sdk-go-v2 and boto3 in python3 (JSON),
// aws-sdk-go v1 and Debian's python3-boto3 (query).

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	awsv2 "github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	credv2 "github.com/aws/aws-sdk-go-v2/credentials"
	sqsv2 "github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/aws-sdk-go/aws/awserr"
	credv1 "github.com/aws/aws-sdk-go/aws/credentials"
	sqsv1 "github.com/aws/aws-sdk-go/service/sqs"

	awsv1 "github.com/aws/aws-sdk-go/aws"

	"github.com/minisqs/minisqs/internal/testenv"
	"github.com/minisqs/minisqs/protocol/rest"
	"github.com/minisqs/minisqs/server"
	"github.com/minisqs/minisqs/sigv4"
)

// signedClient is an aws-sdk-go-v2 client with the given key and region.
func signedClient(t *testing.T, endpoint, key, secret, region string) *sqsv2.Client {
	return jsonClient(t, endpoint, func(o *sqsv2.Options) {
		o.Region = region
		o.Credentials = credv2.NewStaticCredentialsProvider(key, secret, "")
		o.RetryMaxAttempts = 1
	})
}

// signedQueryClient is an aws-sdk-go v1 client with the given key and region.
func signedQueryClient(t *testing.T, endpoint, key, secret, region string) *sqsv1.SQS {
	return queryClient(t, endpoint, &awsv1.Config{
		Region:      awsv1.String(region),
		Credentials: credv1.NewStaticCredentials(key, secret, ""),
		MaxRetries:  awsv1.Int(0),
	})
}

func queueURLs(t *testing.T, c *sqsv2.Client) []string {
	t.Helper()
	out, err := c.ListQueues(context.Background(), &sqsv2.ListQueuesInput{})
	if err != nil {
		t.Fatal(err)
	}
	return out.QueueUrls
}

// Two accounts and two regions on one server: a queue of one name in each
// namespace is its own queue, and each client lists only its own.
func TestNamespacesIsolateClients(t *testing.T) {
	srv := startServer(t, server.Config{})
	ctx := context.Background()
	a := signedClient(t, srv.URL(), "111111111111", "x", "us-east-1")
	b := signedClient(t, srv.URL(), "222222222222", "x", "eu-west-1")
	aWest := signedQueryClient(t, srv.URL(), "111111111111", "x", "eu-west-1")
	anon := jsonClient(t, srv.URL()) // key "test": the default account
	urls := map[string]string{}
	for name, c := range map[string]*sqsv2.Client{"a": a, "b": b, "default": anon} {
		out, err := c.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("orders")})
		if err != nil {
			t.Fatal(err)
		}
		urls[name] = *out.QueueUrl
	}
	if !strings.Contains(urls["a"], "/111111111111/orders") || !strings.Contains(urls["b"], "/222222222222/orders") || !strings.Contains(urls["default"], "/000000000000/orders") {
		t.Fatalf("queue URLs %v", urls)
	}
	if _, err := a.SendMessage(ctx, &sqsv2.SendMessageInput{QueueUrl: awsv2.String(urls["a"]), MessageBody: awsv2.String("for a")}); err != nil {
		t.Fatal(err)
	}
	got, err := b.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{QueueUrl: awsv2.String(urls["b"])})
	if err != nil || len(got.Messages) != 0 {
		t.Fatalf("b received %v, %v from its own queue", got, err)
	}
	for name, c := range map[string]*sqsv2.Client{"a": a, "b": b} {
		if got := queueURLs(t, c); len(got) != 1 || got[0] != urls[name] {
			t.Errorf("%s lists %v, want [%s]", name, got, urls[name])
		}
	}
	// The same account in another region, through the query protocol.
	out, err := aWest.ListQueues(&sqsv1.ListQueuesInput{})
	if err != nil || len(out.QueueUrls) != 0 {
		t.Fatalf("account a in eu-west-1 lists %v, %v", out, err)
	}
	attrs, err := a.GetQueueAttributes(ctx, &sqsv2.GetQueueAttributesInput{QueueUrl: awsv2.String(urls["a"]), AttributeNames: []sqstypes.QueueAttributeName{"QueueArn"}})
	if err != nil || attrs.Attributes["QueueArn"] != "arn:aws:sqs:us-east-1:111111111111:orders" {
		t.Fatalf("QueueArn %v, %v", attrs, err)
	}
	// boto3 in both protocols sees the same namespaces.
	for _, py := range pythons(t) {
		res := boto(t, py, srv.URL(), "222222222222", "x", "eu-west-1", "list")
		if len(res.Urls) != 1 || res.Urls[0] != urls["b"] {
			t.Errorf("%s (%s) lists %v, want [%s]", py.path, py.protocol, res.Urls, urls["b"])
		}
	}
	// The REST API names the namespace with headers.
	req, _ := http.NewRequest(http.MethodGet, srv.URL()+"/v1/queues", nil)
	req.Header.Set("X-Account-Id", "222222222222")
	req.Header.Set("X-Region", "eu-west-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var listed struct{ Queues []struct{ Arn string } }
	if err := json.Unmarshal(body, &listed); err != nil || len(listed.Queues) != 1 || listed.Queues[0].Arn != "arn:aws:sqs:eu-west-1:222222222222:orders" {
		t.Fatalf("REST list in b's namespace: %s", body)
	}
}

// A dead-letter queue of another account, named by its ARN.
func TestCrossAccountDeadLetterQueueByArn(t *testing.T) {
	srv := startServer(t, server.Config{})
	ctx := context.Background()
	a := signedClient(t, srv.URL(), "111111111111", "x", "us-east-1")
	b := signedClient(t, srv.URL(), "222222222222", "x", "us-east-1")
	dlq, err := b.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("dlq")})
	if err != nil {
		t.Fatal(err)
	}
	policy := `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:222222222222:dlq","maxReceiveCount":"1"}`
	src, err := a.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("src"), Attributes: map[string]string{"RedrivePolicy": policy}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.SendMessage(ctx, &sqsv2.SendMessageInput{QueueUrl: src.QueueUrl, MessageBody: awsv2.String("poison")}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := a.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{QueueUrl: src.QueueUrl}); err != nil {
			t.Fatal(err)
		}
		srv.Advance(31 * time.Second) // the visibility timeout ends
	}
	got, err := b.ReceiveMessage(ctx, &sqsv2.ReceiveMessageInput{QueueUrl: dlq.QueueUrl, MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{"All"}})
	if err != nil || len(got.Messages) != 1 || *got.Messages[0].Body != "poison" {
		t.Fatalf("the dead-letter queue of account b got %v, %v", got, err)
	}
	if src := got.Messages[0].Attributes["DeadLetterQueueSourceArn"]; src != "arn:aws:sqs:us-east-1:111111111111:src" {
		t.Errorf("DeadLetterQueueSourceArn %q", src)
	}
}

const (
	testKey    = "AKIDMINISQSTEST"
	testSecret = "minisqs-test-secret"
)

// startVerifying runs a server that checks every SQS request's signature
// against one key, in account 333333333333.
func startVerifying(t *testing.T) *testServer {
	t.Helper()
	path := filepath.Join(t.TempDir(), "credentials")
	if err := os.WriteFile(path, []byte(testKey+" "+testSecret+" 333333333333\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	keys, err := sigv4.LoadKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return startServer(t, server.Config{VerifySignatures: true, Credentials: keys})
}

func TestSigV4(t *testing.T) {
	srv := startVerifying(t)
	ctx := context.Background()

	good := signedClient(t, srv.URL(), testKey, testSecret, "us-east-1")
	out, err := good.CreateQueue(ctx, &sqsv2.CreateQueueInput{QueueName: awsv2.String("signed")})
	if err != nil {
		t.Fatalf("a signed request: %v", err)
	}
	if !strings.Contains(*out.QueueUrl, "/333333333333/signed") {
		t.Fatalf("the key's account is not the queue's: %s", *out.QueueUrl)
	}
	_, err = signedClient(t, srv.URL(), testKey, "wrong", "us-east-1").ListQueues(ctx, &sqsv2.ListQueuesInput{})
	wantCode(t, err, "SignatureDoesNotMatch")
	_, err = signedClient(t, srv.URL(), "AKIDUNKNOWN", testSecret, "us-east-1").ListQueues(ctx, &sqsv2.ListQueuesInput{})
	wantCode(t, err, "InvalidClientTokenId")

	// The query protocol.
	if _, err := signedQueryClient(t, srv.URL(), testKey, testSecret, "us-east-1").ListQueues(&sqsv1.ListQueuesInput{}); err != nil {
		t.Fatalf("a signed query request: %v", err)
	}
	_, err = signedQueryClient(t, srv.URL(), testKey, "wrong", "us-east-1").ListQueues(&sqsv1.ListQueuesInput{})
	var rf awserr.RequestFailure
	if !errors.As(err, &rf) || rf.Code() != "SignatureDoesNotMatch" || rf.StatusCode() != http.StatusForbidden {
		t.Fatalf("a query request with a wrong secret: %v", err)
	}

	// Raw requests: the body is bound, the date is bound, and a request
	// must be signed at all.
	body := `{"QueueNamePrefix":"s"}`
	sign := func(payload string, at time.Time) *http.Request {
		req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/", strings.NewReader(payload))
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("X-Amz-Target", "AmazonSQS.ListQueues")
		creds := awsv2.Credentials{AccessKeyID: testKey, SecretAccessKey: testSecret}
		if err := v4.NewSigner().SignHTTP(ctx, creds, req, sha256Hex(payload), "sqs", "us-east-1", at); err != nil {
			t.Fatal(err)
		}
		return req
	}
	tampered := sign(body, time.Now())
	tampered.Body = io.NopCloser(strings.NewReader(`{"QueueNamePrefix":"t"}`))
	for name, tc := range map[string]struct {
		req        *http.Request
		code, text string
	}{
		"valid":        {sign(body, time.Now()), "", ""},
		"tampered":     {tampered, "SignatureDoesNotMatch", "The request signature we calculated does not match"},
		"expired":      {sign(body, time.Now().Add(-20*time.Minute)), "SignatureDoesNotMatch", "Signature expired: "},
		"not signed":   {unsigned(t, srv.URL(), body), "MissingAuthenticationToken", ""},
		"signed ahead": {sign(body, time.Now().Add(20*time.Minute)), "SignatureDoesNotMatch", "Signature not yet current: "},
	} {
		resp, err := http.DefaultClient.Do(tc.req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if tc.code == "" {
			if resp.StatusCode != http.StatusOK {
				t.Errorf("%s: %s %s", name, resp.Status, raw)
			}
			continue
		}
		if resp.StatusCode != http.StatusForbidden || !strings.HasPrefix(resp.Header.Get("x-amzn-query-error"), tc.code+";") || !strings.Contains(string(raw), tc.text) {
			t.Errorf("%s: %s %s %s, want 403 %s %q", name, resp.Status, resp.Header.Get("x-amzn-query-error"), raw, tc.code, tc.text)
		}
	}

	// A presigned query URL.
	req, _ := http.NewRequest(http.MethodGet, srv.URL()+"/?Action=ListQueues&Version=2012-11-05&X-Amz-Expires=300", nil)
	signedURL, _, err := v4.NewSigner().PresignHTTP(ctx, awsv2.Credentials{AccessKeyID: testKey, SecretAccessKey: testSecret}, req, sha256Hex(""), "sqs", "us-east-1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(signedURL)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(raw), "/333333333333/signed") {
		t.Fatalf("a presigned ListQueues: %s %s", resp.Status, raw)
	}
	// ... and the same URL with its query changed.
	resp, err = http.Get(strings.Replace(signedURL, "Action=ListQueues", "Action=ListQueues&QueueNamePrefix=x", 1))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a changed presigned URL answered %s", resp.Status)
	}

	// boto3, both protocols: its own signer passes, a wrong secret fails.
	for _, py := range pythons(t) {
		if res := boto(t, py, srv.URL(), testKey, testSecret, "us-east-1", "list"); res.Error != "" || len(res.Urls) != 1 {
			t.Errorf("%s (%s) signed: %+v", py.path, py.protocol, res)
		}
		if res := boto(t, py, srv.URL(), testKey, "wrong", "us-east-1", "list"); res.Error != "SignatureDoesNotMatch" {
			t.Errorf("%s (%s) with a wrong secret: %+v", py.path, py.protocol, res)
		}
	}
}

func unsigned(t *testing.T, endpoint, body string) *http.Request {
	req, err := http.NewRequest(http.MethodPost, endpoint+"/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "AmazonSQS.ListQueues")
	return req
}

// python is a Python with boto3, and the SQS protocol its botocore speaks.
type python struct{ path, protocol string }

// pythons are the two Pythons with boto3 here: python3 on PATH, whose
// botocore speaks the JSON protocol, and Debian's /usr/bin/python3 with
// python3-boto3, whose older botocore speaks the query protocol.
func pythons(t *testing.T) []python {
	t.Helper()
	var out []python
	for _, py := range []python{{"python3", "json"}, {"/usr/bin/python3", "query"}} {
		if err := exec.Command(py.path, "-c", "import boto3").Run(); err != nil {
			testenv.Missing(t, "%s has no boto3: %v", py.path, err)
		}
		out = append(out, py)
	}
	return out
}

const bothoIdentityScript = `
import json, os, sys
import boto3, botocore
c = boto3.client("sqs", endpoint_url=os.environ["MINISQS_ENDPOINT"], region_name=os.environ["REGION"],
                 aws_access_key_id=os.environ["KEY"], aws_secret_access_key=os.environ["SECRET"],
                 config=botocore.config.Config(retries={"max_attempts": 1}))
try:
    print(json.dumps({"urls": c.list_queues().get("QueueUrls", [])}))
except botocore.exceptions.ClientError as e:
    print(json.dumps({"error": e.response["Error"]["Code"]}))
`

type botoResult struct {
	Urls  []string
	Error string
}

// boto runs the identity script with py against endpoint.
func boto(t *testing.T, py python, endpoint, key, secret, region, _ string) botoResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py.path, "-c", bothoIdentityScript)
	cmd.Env = append(cliEnv(t), "MINISQS_ENDPOINT="+endpoint, "KEY="+key, "SECRET="+secret, "REGION="+region)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", py.path, err, stderr.String())
	}
	var res botoResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("%s printed %q: %v", py.path, stdout.String(), err)
	}
	return res
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// The binary reloads --credentials on SIGHUP: a key added to the file
// works, a key taken out stops working, and a broken file keeps the keys
// in force.
func TestCredentialsReloadOnSIGHUP(t *testing.T) {
	path := filepath.Join(t.TempDir(), "credentials")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("AKIDFIRST first-secret\n")
	p := startProcess(t, "--auth", "sigv4", "--credentials", path)
	list := func(key, secret string) error {
		_, err := signedClient(t, p.URL, key, secret, "us-east-1").ListQueues(context.Background(), &sqsv2.ListQueuesInput{})
		return err
	}
	if err := list("AKIDFIRST", "first-secret"); err != nil {
		t.Fatal(err)
	}
	hup := func() {
		if err := p.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
	}
	write("AKIDSECOND second-secret\n")
	hup()
	deadline := time.Now().Add(5 * time.Second)
	for list("AKIDSECOND", "second-secret") != nil {
		if time.Now().After(deadline) {
			t.Fatal("the new key does not work 5 s after SIGHUP")
		}
		time.Sleep(10 * time.Millisecond)
	}
	wantCode(t, list("AKIDFIRST", "first-secret"), "InvalidClientTokenId")
	write("not a key file\n")
	hup()
	time.Sleep(100 * time.Millisecond) // a reload that would drop the keys has had its chance
	if err := list("AKIDSECOND", "second-secret"); err != nil {
		t.Fatalf("a broken file dropped the keys in force: %v", err)
	}
}

// A REST token bound to an account acts in that account alone.
func TestRESTTokenBoundToAccount(t *testing.T) {
	srv := startServer(t, server.Config{
		Tokens:        map[string]rest.Role{"root": rest.RoleAdmin, "tenant": rest.RoleAdmin},
		TokenAccounts: map[string]string{"tenant": "444444444444"},
	})
	do := func(token, account string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/v1/queues", strings.NewReader(`{"name":"orders"}`))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		if account != "" {
			req.Header.Set("X-Account-Id", account)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(raw)
	}
	if status, body := do("tenant", ""); status != http.StatusCreated || !strings.Contains(body, "arn:aws:sqs:us-east-1:444444444444:orders") {
		t.Fatalf("the bound token made %d %s", status, body)
	}
	if status, body := do("tenant", "555555555555"); status != http.StatusForbidden {
		t.Fatalf("the bound token in another account: %d %s", status, body)
	}
	if status, body := do("root", "555555555555"); status != http.StatusCreated || !strings.Contains(body, ":555555555555:orders") {
		t.Fatalf("an unbound token in another account: %d %s", status, body)
	}
}
