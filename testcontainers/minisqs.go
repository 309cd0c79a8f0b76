// Package minisqs is a testcontainers-go module for minisqs, an Amazon SQS
// emulator: Run starts the image, and the Container it returns hands back
// the endpoint, queue URLs and an aws-sdk-go-v2 configuration that reach it
// through the port Docker maps on the host, and helpers over the server's
// test-control API (Reset, Advance, AddFault, SaveState, Wait, Requests).
//
//	ctr, err := minisqs.Run(ctx, "minisqs/minisqs:latest",
//		minisqs.WithQueues("orders"),
//		minisqs.WithDeadLetterQueue("payments", "payments-dlq", 3),
//	)
//	testcontainers.CleanupContainer(t, ctr)
//	client, err := ctr.SQSClient(ctx)
//	url, err := ctr.QueueURL(ctx, "orders")
//
// The module is a Go module of its own, so that its users do not pull in
// the server's dependencies.
package minisqs

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

const (
	// DefaultImage is the image's usual name.
	DefaultImage = "minisqs/minisqs:latest"
	// Port is the port minisqs listens on inside the container.
	Port = "9324/tcp"
	// Region is the region the returned AWS configuration names; minisqs
	// puts its own region (us-east-1 unless MINISQS_REGION says otherwise)
	// in ARNs and does not check signatures.
	Region = "us-east-1"

	// Paths inside the container.
	configDir = "/etc/minisqs"
	dataDir   = "/data"
	dbPath    = dataDir + "/minisqs.db"

	// startupTimeout bounds the wait for /health. The server answers within
	// milliseconds of starting; the rest is Docker's.
	startupTimeout = 60 * time.Second
)

// Container is a running minisqs container.
type Container struct {
	testcontainers.Container
	settings options
}

// Run starts a minisqs container from img. Options of this package declare
// queues and storage; any testcontainers.ContainerCustomizer may follow, such
// as testcontainers.WithEnv(map[string]string{"MINISQS_LOG_LEVEL": "debug"}).
// Run returns once the server answers /health on its mapped port, with every
// declared queue created.
func Run(ctx context.Context, img string, opts ...testcontainers.ContainerCustomizer) (*Container, error) {
	var settings options
	for _, opt := range opts {
		if o, ok := opt.(Option); ok {
			if err := o(&settings); err != nil {
				return nil, fmt.Errorf("minisqs option: %w", err)
			}
		}
	}
	if settings.configFile != "" && len(settings.deadLetters) > 0 {
		return nil, fmt.Errorf("minisqs option: WithDeadLetterQueue cannot be combined with WithConfigFile; declare the dead-letter queue in %s instead (deadLetterQueue: {name: ..., maxReceiveCount: ...})", settings.configFile)
	}

	env := map[string]string{}
	var files []testcontainers.ContainerFile
	if len(settings.queues) > 0 {
		env["MINISQS_QUEUES"] = strings.Join(settings.queues, ",")
	}
	if settings.configFile != "" {
		path := configDir + "/" + baseName(settings.configFile)
		files = append(files, testcontainers.ContainerFile{HostFilePath: settings.configFile, ContainerFilePath: path, FileMode: 0o644})
		env["MINISQS_CONFIG"] = path
	}
	if len(settings.deadLetters) > 0 {
		doc, err := settings.generatedConfig()
		if err != nil {
			return nil, fmt.Errorf("minisqs option: %w", err)
		}
		path := configDir + "/queues.json"
		files = append(files, testcontainers.ContainerFile{Reader: strings.NewReader(doc), ContainerFilePath: path, FileMode: 0o644})
		env["MINISQS_CONFIG"] = path
	}

	moduleOpts := []testcontainers.ContainerCustomizer{
		testcontainers.WithExposedPorts(Port),
		testcontainers.WithWaitStrategy(wait.ForHTTP("/health").WithPort(Port).WithStartupTimeout(startupTimeout)),
	}
	if settings.adminToken != "" {
		env["MINISQS_API_TOKEN"] = settings.adminToken
	}
	if settings.volume != "" {
		env["MINISQS_DB"] = dbPath
		moduleOpts = append(moduleOpts, testcontainers.WithMounts(testcontainers.VolumeMount(settings.volume, dataDir)))
	}
	if len(env) > 0 {
		moduleOpts = append(moduleOpts, testcontainers.WithEnv(env))
	}
	if len(files) > 0 {
		moduleOpts = append(moduleOpts, testcontainers.WithFiles(files...))
	}
	moduleOpts = append(moduleOpts, opts...)

	ctr, err := testcontainers.Run(ctx, img, moduleOpts...)
	var c *Container
	if ctr != nil {
		c = &Container{Container: ctr, settings: settings}
	}
	if err != nil {
		return c, fmt.Errorf("run minisqs: %w", err)
	}
	return c, nil
}

func baseName(path string) string {
	return path[strings.LastIndexAny(path, `/\`)+1:]
}

// BaseEndpoint is the server's URL on the host, such as
// "http://localhost:32768": the value for an SDK's endpoint setting
// (aws.Config.BaseEndpoint, --endpoint-url). It is not called Endpoint so
// as not to hide testcontainers.Container's Endpoint(ctx, proto), which
// gives the same with proto "http".
func (c *Container) BaseEndpoint(ctx context.Context) (string, error) {
	return c.PortEndpoint(ctx, Port, "http")
}

// AWSConfig is an aws-sdk-go-v2 configuration for the container: its
// BaseEndpoint, Region and static dummy credentials.
func (c *Container) AWSConfig(ctx context.Context) (aws.Config, error) {
	endpoint, err := c.BaseEndpoint(ctx)
	if err != nil {
		return aws.Config{}, err
	}
	return aws.Config{
		Region:       Region,
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
	}, nil
}

// SQSClient is an SQS client for the container; optFns adjust its options
// as they do for sqs.NewFromConfig.
func (c *Container) SQSClient(ctx context.Context, optFns ...func(*sqs.Options)) (*sqs.Client, error) {
	cfg, err := c.AWSConfig(ctx)
	if err != nil {
		return nil, err
	}
	return sqs.NewFromConfig(cfg, optFns...), nil
}

// QueueURL asks the server for the URL of the queue called name. The server
// builds it from the host and mapped port the request came to, so it works
// from the test as it is.
func (c *Container) QueueURL(ctx context.Context, name string) (string, error) {
	client, err := c.SQSClient(ctx)
	if err != nil {
		return "", err
	}
	out, err := client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(name)})
	if err != nil {
		return "", fmt.Errorf("queue URL of %s: %w", name, err)
	}
	return aws.ToString(out.QueueUrl), nil
}
