package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strconv"
	"strings"

	"github.com/minisqs/minisqs/engine"
)

// config is the command's settings after flags and environment.
type config struct {
	Addr          string
	DB            string
	Fsync         engine.FsyncPolicy
	Region        string
	AccountID     string
	BaseURL       string
	SkipCooldowns bool
	LogLevel      slog.Level
	LogFormat     string
}

// setting is one setting: its flag, its environment variable, its default
// and its help. The README's table of settings lists the same.
type setting struct {
	flag, env, def, help string
}

var settings = []setting{
	{"addr", "MINISQS_ADDR", "127.0.0.1:9324", "address to listen on"},
	{"db", "MINISQS_DB", "", "buntdb file to keep queues and messages in; empty keeps them in memory"},
	{"fsync", "MINISQS_FSYNC", "everysec", "how often the db file is flushed to disk: always, everysec or never"},
	{"region", "MINISQS_REGION", engine.DefaultRegion, "region in queue ARNs"},
	{"account-id", "MINISQS_ACCOUNT_ID", engine.DefaultAccountID, "account id in queue URLs and ARNs"},
	{"base-url", "MINISQS_BASE_URL", "", "base of queue URLs, e.g. http://sqs.local:9324; empty uses each request's Host"},
	{"skip-cooldowns", "MINISQS_SKIP_COOLDOWNS", "false", "lift the 60-second limits on PurgeQueue and on reusing a deleted queue's name"},
	{"log-level", "MINISQS_LOG_LEVEL", "info", "debug, info, warn or error"},
	{"log-format", "MINISQS_LOG_FORMAT", "text", "text or json"},
}

// parseConfig reads settings from args, then getenv for those not given as
// flags, then the defaults. It is pure, so tests drive it with a table.
func parseConfig(args []string, getenv func(string) string, usage io.Writer) (config, error) {
	fs := flag.NewFlagSet("minisqs", flag.ContinueOnError)
	fs.SetOutput(usage)
	vals := make(map[string]*string, len(settings))
	for _, s := range settings {
		def := s.def
		if v := getenv(s.env); v != "" {
			def = v
		}
		vals[s.flag] = fs.String(s.flag, def, fmt.Sprintf("%s (env %s)", s.help, s.env))
	}
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	get := func(name string) string { return strings.TrimSpace(*vals[name]) }
	cfg := config{
		Addr:      get("addr"),
		DB:        get("db"),
		Region:    get("region"),
		AccountID: get("account-id"),
		BaseURL:   strings.TrimSuffix(get("base-url"), "/"),
		LogFormat: get("log-format"),
	}
	var err error
	if cfg.Fsync, err = engine.ParseFsyncPolicy(get("fsync")); err != nil {
		return config{}, err
	}
	if cfg.SkipCooldowns, err = strconv.ParseBool(get("skip-cooldowns")); err != nil {
		return config{}, fmt.Errorf("skip-cooldowns %q: want true or false", get("skip-cooldowns"))
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(get("log-level"))); err != nil {
		return config{}, fmt.Errorf("log-level %q: want debug, info, warn or error", get("log-level"))
	}
	if cfg.LogFormat != "text" && cfg.LogFormat != "json" {
		return config{}, fmt.Errorf("log-format %q: want text or json", cfg.LogFormat)
	}
	if len(cfg.AccountID) != 12 || strings.Trim(cfg.AccountID, "0123456789") != "" {
		return config{}, fmt.Errorf("account-id %q: want 12 digits", cfg.AccountID)
	}
	if cfg.Region == "" {
		return config{}, fmt.Errorf("region must not be empty")
	}
	if cfg.BaseURL != "" {
		u, err := url.Parse(cfg.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return config{}, fmt.Errorf("base-url %q: want http(s)://host[:port]", cfg.BaseURL)
		}
	}
	return cfg, nil
}
