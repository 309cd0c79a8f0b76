package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/rest"
	"github.com/minisqs/minisqs/server"
)

func TestParseConfig(t *testing.T) {
	defaults := config{
		Config: server.Config{
			Addr: "127.0.0.1:9324", Fsync: engine.FsyncEverySecond, Region: "us-east-1",
			AccountID: "000000000000", Limits: engine.AWSLimits,
		},
		LogLevel: slog.LevelInfo, LogFormat: "text",
	}
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    func(c *config)
		wantErr bool
	}{
		{name: "defaults", want: func(*config) {}},
		{name: "flags", args: []string{"--addr", ":1234", "--db", "/tmp/x.db", "--fsync", "always", "--region", "eu-west-1",
			"--account-id", "123456789012", "--base-url", "http://sqs.local:9324/", "--skip-cooldowns", "--log-level", "debug", "--log-format", "json",
			"--config", "/etc/minisqs/queues.yaml", "--queues", "orders, events.fifo"},
			want: func(c *config) {
				c.Addr, c.DB, c.Fsync, c.Region, c.AccountID = ":1234", "/tmp/x.db", engine.FsyncAlways, "eu-west-1", "123456789012"
				c.BaseURL, c.SkipCooldowns, c.LogLevel, c.LogFormat = "http://sqs.local:9324", true, slog.LevelDebug, "json"
				c.ConfigFile, c.Queues = "/etc/minisqs/queues.yaml", "orders, events.fifo"
			}},
		{name: "environment", env: map[string]string{"MINISQS_ADDR": "0.0.0.0:9324", "MINISQS_DB": "/data/minisqs.db", "MINISQS_FSYNC": "never", "MINISQS_SKIP_COOLDOWNS": "true",
			"MINISQS_CONFIG": "queues.json", "MINISQS_QUEUES": "orders,events.fifo"},
			want: func(c *config) {
				c.Addr, c.DB, c.Fsync, c.SkipCooldowns = "0.0.0.0:9324", "/data/minisqs.db", engine.FsyncNever, true
				c.ConfigFile, c.Queues = "queues.json", "orders,events.fifo"
			}},
		{name: "flag beats environment", args: []string{"--addr", "127.0.0.1:1"}, env: map[string]string{"MINISQS_ADDR": "127.0.0.1:2"},
			want: func(c *config) { c.Addr = "127.0.0.1:1" }},
		{name: "admin token", env: map[string]string{"MINISQS_API_TOKEN": "s3cret"},
			want: func(c *config) { c.Tokens = map[string]rest.Role{"s3cret": rest.RoleAdmin} }},
		{name: "smq limits", args: []string{"--limits", "smq"}, want: func(c *config) { c.Limits = engine.SMQLimits }},
		{name: "smq limits from the environment", env: map[string]string{"MINISQS_LIMITS": "smq"}, want: func(c *config) { c.Limits = engine.SMQLimits }},
		{name: "aws limits named", args: []string{"--limits", "aws"}, env: map[string]string{"MINISQS_LIMITS": "smq"}, want: func(*config) {}},
		{name: "bad limits", args: []string{"--limits", "gcp"}, wantErr: true},
		{name: "limits in capitals", env: map[string]string{"MINISQS_LIMITS": "SMQ"}, wantErr: true},
		{name: "bad fsync", args: []string{"--fsync", "sometimes"}, wantErr: true},
		{name: "bad account", env: map[string]string{"MINISQS_ACCOUNT_ID": "abc"}, wantErr: true},
		{name: "bad base url", args: []string{"--base-url", "localhost:9324"}, wantErr: true},
		{name: "bad log level", args: []string{"--log-level", "loud"}, wantErr: true},
		{name: "bad log format", args: []string{"--log-format", "xml"}, wantErr: true},
		{name: "bad queue name", env: map[string]string{"MINISQS_QUEUES": "orders,new orders"}, wantErr: true},
		{name: "queue named twice", args: []string{"--queues", "a,a"}, wantErr: true},
		{name: "bad bool", env: map[string]string{"MINISQS_SKIP_COOLDOWNS": "maybe"}, wantErr: true},
		{name: "stray argument", args: []string{"serve"}, wantErr: true},
		{name: "bad auth", args: []string{"--auth", "basic"}, wantErr: true},
		{name: "sigv4 without credentials", env: map[string]string{"MINISQS_AUTH": "sigv4"}, wantErr: true},
		{name: "missing credentials file", args: []string{"--credentials", "/nonexistent/keys"}, wantErr: true},
		{name: "unknown flag", args: []string{"--port", "1"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseConfig(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("want an error, got %+v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := defaults
			tt.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestLoadTokens(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good", "# roles\nproducer p-token\n\nconsumer c-token\ninspector i-token\n")
	got, _, err := loadTokens("root", good)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]rest.Role{"root": rest.RoleAdmin, "p-token": rest.RoleProducer, "c-token": rest.RoleConsumer, "i-token": rest.RoleInspector}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tokens %v, want %v", got, want)
	}
	if got, _, err := loadTokens("", ""); err != nil || got != nil {
		t.Errorf("no tokens: %v %v, want none (an open API)", got, err)
	}
	for _, bad := range []string{"superuser x\n", "producer\n", "producer \n"} {
		if _, _, err := loadTokens("", write("bad", bad)); err == nil || !strings.Contains(err.Error(), "bad:1") {
			t.Errorf("%q: error %v, want one naming the file and line", bad, err)
		}
	}
	if _, _, err := loadTokens("", filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing token file was accepted")
	}
}

// A token file that would leave the REST API open, or give a token two
// roles, is refused, naming the file and the line.
func TestLoadTokensRefused(t *testing.T) {
	for _, tc := range []struct {
		name, admin, file string
		want              []string
	}{
		{name: "empty", file: "", want: []string{"has no tokens"}},
		{name: "comments only", file: "# producer p-token\n\n  # none yet\n", want: []string{"has no tokens"}},
		{name: "empty beside --api-token", admin: "root", file: "\n", want: []string{"has no tokens"}},
		{name: "two roles", file: "producer t1\nconsumer c1\nconsumer t1\n", want: []string{":3:", "line 1", "producer there and consumer here"}},
		{name: "same role twice", file: "consumer t1\n\nconsumer t1\n", want: []string{":3:", "line 1", "same role"}},
		{name: "--api-token again as admin", admin: "root", file: "admin root\n", want: []string{":1:", "--api-token", "same role"}},
		{name: "--api-token again as producer", admin: "root", file: "producer root\n", want: []string{":1:", "--api-token", "admin there and producer here"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tokens")
			if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			tokens, _, err := loadTokens(tc.admin, path)
			if err == nil {
				t.Fatalf("loaded %v, want a refusal", tokens)
			}
			for _, want := range append(tc.want, path) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q, want %q in it", err, want)
				}
			}
		})
	}
}

func TestParseConfigCredentials(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(path, []byte("AKID1 secret1 111111111111\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := parseConfig([]string{"--auth", "sigv4", "--credentials", path}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.VerifySignatures || cfg.KeyFile == nil || cfg.Credentials == nil {
		t.Fatalf("config %+v", cfg)
	}
	if c, ok := cfg.Credentials.Lookup("AKID1"); !ok || c.Account != "111111111111" {
		t.Fatalf("Lookup(AKID1) = %+v, %v", c, ok)
	}
}
