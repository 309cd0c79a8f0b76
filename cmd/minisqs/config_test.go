package main

import (
	"io"
	"log/slog"
	"testing"

	"github.com/minisqs/minisqs/engine"
)

func TestParseConfig(t *testing.T) {
	defaults := config{
		Addr: "127.0.0.1:9324", Fsync: engine.FsyncEverySecond, Region: "us-east-1",
		AccountID: "000000000000", LogLevel: slog.LevelInfo, LogFormat: "text",
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
			"--account-id", "123456789012", "--base-url", "http://sqs.local:9324/", "--skip-cooldowns", "--log-level", "debug", "--log-format", "json"},
			want: func(c *config) {
				c.Addr, c.DB, c.Fsync, c.Region, c.AccountID = ":1234", "/tmp/x.db", engine.FsyncAlways, "eu-west-1", "123456789012"
				c.BaseURL, c.SkipCooldowns, c.LogLevel, c.LogFormat = "http://sqs.local:9324", true, slog.LevelDebug, "json"
			}},
		{name: "environment", env: map[string]string{"MINISQS_ADDR": "0.0.0.0:9324", "MINISQS_DB": "/data/minisqs.db", "MINISQS_FSYNC": "never", "MINISQS_SKIP_COOLDOWNS": "true"},
			want: func(c *config) {
				c.Addr, c.DB, c.Fsync, c.SkipCooldowns = "0.0.0.0:9324", "/data/minisqs.db", engine.FsyncNever, true
			}},
		{name: "flag beats environment", args: []string{"--addr", "127.0.0.1:1"}, env: map[string]string{"MINISQS_ADDR": "127.0.0.1:2"},
			want: func(c *config) { c.Addr = "127.0.0.1:1" }},
		{name: "bad fsync", args: []string{"--fsync", "sometimes"}, wantErr: true},
		{name: "bad account", env: map[string]string{"MINISQS_ACCOUNT_ID": "abc"}, wantErr: true},
		{name: "bad base url", args: []string{"--base-url", "localhost:9324"}, wantErr: true},
		{name: "bad log level", args: []string{"--log-level", "loud"}, wantErr: true},
		{name: "bad log format", args: []string{"--log-format", "xml"}, wantErr: true},
		{name: "bad bool", env: map[string]string{"MINISQS_SKIP_COOLDOWNS": "maybe"}, wantErr: true},
		{name: "stray argument", args: []string{"serve"}, wantErr: true},
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
			if got != want {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}
