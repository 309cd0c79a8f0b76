package minisqs

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/testcontainers/testcontainers-go"
)

// options are the module's settings, gathered from Option values.
type options struct {
	queues      []string // created from MINISQS_QUEUES
	deadLetters []deadLetter
	configFile  string
	volume      string
	adminToken  string // the server's admin token, sent on control calls
}

type deadLetter struct {
	queue, dlq      string
	maxReceiveCount int
}

// Option configures the minisqs container. Options check their arguments
// when Run reads them, so a mistake fails before any container starts.
type Option func(*options) error

// Customize does nothing: Run reads Options itself. It makes an Option a
// testcontainers.ContainerCustomizer, to pass to Run with the others.
func (o Option) Customize(*testcontainers.GenericContainerRequest) error { return nil }

var _ testcontainers.ContainerCustomizer = Option(nil)

// validName mirrors the server's rule, so that a bad name fails early: 1 to
// 80 letters, digits, hyphens and underscores, ".fifo" counted in the 80.
func validName(name string) error {
	base := strings.TrimSuffix(name, ".fifo")
	if base == "" || len(name) > 80 || strings.TrimLeft(base, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" {
		return fmt.Errorf("invalid queue name %q: want 1 to 80 letters, digits, hyphens or underscores, ending in .fifo for a FIFO queue", name)
	}
	return nil
}

func (o *options) addQueue(name string) error {
	if err := validName(name); err != nil {
		return err
	}
	if !slices.Contains(o.queues, name) {
		o.queues = append(o.queues, name)
	}
	return nil
}

// WithQueues creates queues with default attributes when the server starts.
// A name ending in ".fifo" makes a FIFO queue.
func WithQueues(names ...string) Option {
	return func(o *options) error {
		for _, name := range names {
			if err := o.addQueue(name); err != nil {
				return err
			}
		}
		return nil
	}
}

// WithFIFOQueue creates a FIFO queue when the server starts; its name must
// end in ".fifo", as SQS requires.
func WithFIFOQueue(name string) Option {
	return func(o *options) error {
		if !strings.HasSuffix(name, ".fifo") {
			return fmt.Errorf("FIFO queue name %q must end in .fifo", name)
		}
		return o.addQueue(name)
	}
}

// WithDeadLetterQueue creates queue and dlq when the server starts, with a
// redrive policy on queue that moves a message to dlq after maxReceiveCount
// receives. Both must be FIFO queues or both standard. It cannot be combined
// with WithConfigFile, whose file can declare the same.
func WithDeadLetterQueue(queue, dlq string, maxReceiveCount int) Option {
	return func(o *options) error {
		for _, name := range []string{queue, dlq} {
			if err := validName(name); err != nil {
				return err
			}
		}
		if queue == dlq {
			return fmt.Errorf("queue %s cannot be its own dead-letter queue", queue)
		}
		if strings.HasSuffix(queue, ".fifo") != strings.HasSuffix(dlq, ".fifo") {
			return fmt.Errorf("queue %s and its dead-letter queue %s must both be FIFO or both standard", queue, dlq)
		}
		if maxReceiveCount < 1 || maxReceiveCount > 1000 {
			return fmt.Errorf("maxReceiveCount %d: want 1 to 1000", maxReceiveCount)
		}
		for _, d := range o.deadLetters {
			if d.queue == queue {
				return fmt.Errorf("queue %s already has a dead-letter queue, %s", queue, d.dlq)
			}
		}
		o.deadLetters = append(o.deadLetters, deadLetter{queue, dlq, maxReceiveCount})
		return nil
	}
}

// WithConfigFile copies a minisqs config file (YAML or JSON; see the
// README) into the container and has the server create its queues at start.
func WithConfigFile(path string) Option {
	return func(o *options) error {
		info, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("config file: %w", err)
		}
		if info.IsDir() {
			return fmt.Errorf("config file %s is a directory", path)
		}
		o.configFile = path
		return nil
	}
}

// WithVolume keeps queues and messages in the named Docker volume, mounted
// at /data, so that a later container with the same volume finds them. The
// volume outlives the container: remove it with
// testcontainers.RemoveVolumes(name) when terminating the last one.
func WithVolume(name string) Option {
	return func(o *options) error {
		if name == "" {
			return errors.New("volume name must not be empty")
		}
		o.volume = name
		return nil
	}
}

// WithAdminToken starts the server with token as its admin bearer token
// (MINISQS_API_TOKEN), which guards the REST API and the test-control API,
// and has the Container's control helpers send it. A token file of the
// server's own (MINISQS_TOKEN_FILE, in testcontainers.WithEnv) may add
// other roles' tokens beside it, but not the same token again.
func WithAdminToken(token string) Option {
	return func(o *options) error {
		if strings.TrimSpace(token) == "" || strings.ContainsAny(token, " \t\r\n") {
			return errors.New("admin token must be non-empty, without spaces")
		}
		o.adminToken = token
		return nil
	}
}

// generatedConfig is a config file declaring the dead-letter pairs, in the
// JSON form of the server's format.
func (o *options) generatedConfig() (string, error) {
	type dlqJSON struct {
		Name            string `json:"name"`
		MaxReceiveCount int    `json:"maxReceiveCount"`
	}
	type queueJSON struct {
		Name            string   `json:"name"`
		DeadLetterQueue *dlqJSON `json:"deadLetterQueue,omitempty"`
	}
	var doc struct {
		Queues []queueJSON `json:"queues"`
	}
	at := map[string]int{}
	declare := func(name string) *queueJSON {
		if i, ok := at[name]; ok {
			return &doc.Queues[i]
		}
		at[name] = len(doc.Queues)
		doc.Queues = append(doc.Queues, queueJSON{Name: name})
		return &doc.Queues[len(doc.Queues)-1]
	}
	for _, d := range o.deadLetters {
		declare(d.queue).DeadLetterQueue = &dlqJSON{Name: d.dlq, MaxReceiveCount: d.maxReceiveCount}
		declare(d.dlq)
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	return string(b), err
}
