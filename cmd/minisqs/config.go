package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/rest"
	"github.com/minisqs/minisqs/queueconfig"
	"github.com/minisqs/minisqs/server"
	"github.com/minisqs/minisqs/sigv4"
)

// config is the command's settings after flags and environment: the
// server's own, and those of the command around it.
type config struct {
	server.Config
	LogLevel  slog.Level
	LogFormat string
	// ConfigFile declares queues to create at start (queueconfig's format).
	ConfigFile string
	// Queues is a comma-separated list of queues to create at start.
	Queues string
	// KeyFile is --credentials, which SIGHUP reloads.
	KeyFile *sigv4.KeyFile
}

// setting is one setting: its flag, its environment variable, its default
// and its help. The README's table of settings lists the same.
type setting struct {
	flag, env, def, help string
	boolean              bool // given as a bare --flag
}

// textValue holds a setting as text; boolean ones may be given without a
// value, as --flag.
type textValue struct {
	s       string
	boolean bool
}

func (v *textValue) String() string     { return v.s }
func (v *textValue) Set(s string) error { v.s = s; return nil }
func (v *textValue) IsBoolFlag() bool   { return v.boolean }

var settings = []setting{
	{flag: "addr", env: "MINISQS_ADDR", def: "127.0.0.1:9324", help: "address to listen on"},
	{flag: "db", env: "MINISQS_DB", def: "", help: "buntdb file to keep queues and messages in; empty keeps them in memory"},
	{flag: "fsync", env: "MINISQS_FSYNC", def: "everysec", help: "how often the db file is flushed to disk: always, everysec or never"},
	{flag: "region", env: "MINISQS_REGION", def: engine.DefaultRegion, help: "region in queue ARNs"},
	{flag: "account-id", env: "MINISQS_ACCOUNT_ID", def: engine.DefaultAccountID, help: "account id in queue URLs and ARNs"},
	{flag: "base-url", env: "MINISQS_BASE_URL", def: "", help: "base of queue URLs, e.g. http://sqs.local:9324; empty uses each request's Host"},
	{flag: "skip-cooldowns", env: "MINISQS_SKIP_COOLDOWNS", def: "false", help: "lift the 60-second limits on PurgeQueue and on reusing a deleted queue's name", boolean: true},
	{flag: "limits", env: "MINISQS_LIMITS", def: engine.AWSLimits.Name, help: "limits to enforce: aws (Amazon SQS's) or smq (Alibaba Cloud SMQ's: 16 messages a batch, 30 s long polls, 64 KB messages, 120-character names, 7-day retention and delay, 1,000 queues)"},
	{flag: "log-level", env: "MINISQS_LOG_LEVEL", def: "info", help: "debug, info, warn or error"},
	{flag: "log-format", env: "MINISQS_LOG_FORMAT", def: "text", help: "text or json"},
	{flag: "config", env: "MINISQS_CONFIG", def: "", help: "YAML or JSON file declaring queues to create at start"},
	{flag: "queues", env: "MINISQS_QUEUES", def: "", help: "comma-separated queues to create at start, e.g. orders,events.fifo (a .fifo name makes a FIFO queue)"},
	{flag: "api-token", env: "MINISQS_API_TOKEN", def: "", help: "bearer token with the admin role for the REST API (not the SQS protocols); with no token the REST API is open"},
	{flag: "token-file", env: "MINISQS_TOKEN_FILE", def: "", help: "file of REST API tokens, one \"ROLE TOKEN [ACCOUNT]\" a line (admin, producer, consumer, inspector); a token with an account acts in it alone"},
	{flag: "auth", env: "MINISQS_AUTH", def: "off", help: "off, or sigv4 to make every SQS request carry a valid AWS Signature Version 4 of a key in --credentials"},
	{flag: "credentials", env: "MINISQS_CREDENTIALS", def: "", help: "file of access keys, one \"ACCESS_KEY SECRET [ACCOUNT]\" a line, reloaded on SIGHUP; a key acts in its account"},
}

// parseConfig reads settings from args, then getenv for those not given as
// flags, then the defaults. It is pure, so tests drive it with a table.
func parseConfig(args []string, getenv func(string) string, usage io.Writer) (config, error) {
	fs := flag.NewFlagSet("minisqs", flag.ContinueOnError)
	fs.SetOutput(usage)
	vals := make(map[string]*textValue, len(settings))
	for _, s := range settings {
		v := &textValue{s: s.def, boolean: s.boolean}
		if e := getenv(s.env); e != "" {
			v.s = e
		}
		vals[s.flag] = v
		fs.Var(v, s.flag, fmt.Sprintf("%s (env %s)", s.help, s.env))
	}
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	get := func(name string) string { return strings.TrimSpace(vals[name].s) }
	cfg := config{
		Config: server.Config{
			Addr:      get("addr"),
			DB:        get("db"),
			Region:    get("region"),
			AccountID: get("account-id"),
			BaseURL:   strings.TrimSuffix(get("base-url"), "/"),
		},
		LogFormat:  get("log-format"),
		ConfigFile: get("config"),
		Queues:     get("queues"),
	}
	var err error
	if cfg.Fsync, err = engine.ParseFsyncPolicy(get("fsync")); err != nil {
		return config{}, err
	}
	limits, ok := engine.LimitsNamed(get("limits"))
	if !ok {
		return config{}, fmt.Errorf("limits %q: want %s or %s", get("limits"), engine.AWSLimits.Name, engine.SMQLimits.Name)
	}
	cfg.Limits = limits
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
	if _, err := queueconfig.ParseList("queues", cfg.Queues); err != nil {
		return config{}, err
	}
	if cfg.Tokens, cfg.TokenAccounts, err = loadTokens(get("api-token"), get("token-file")); err != nil {
		return config{}, err
	}
	switch get("auth") {
	case "off":
	case "sigv4":
		cfg.VerifySignatures = true
	default:
		return config{}, fmt.Errorf("auth %q: want off or sigv4", get("auth"))
	}
	if path := get("credentials"); path != "" {
		if cfg.KeyFile, err = sigv4.LoadKeyFile(path); err != nil {
			return config{}, err
		}
		cfg.Credentials = cfg.KeyFile
	} else if cfg.VerifySignatures {
		return config{}, fmt.Errorf("auth sigv4 needs --credentials (MINISQS_CREDENTIALS): the keys to check signatures against")
	}
	if cfg.BaseURL != "" {
		u, err := url.Parse(cfg.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return config{}, fmt.Errorf("base-url %q: want http(s)://host[:port]", cfg.BaseURL)
		}
	}
	return cfg, nil
}

// loadTokens gathers the REST API's tokens: adminToken, and the lines of
// file, each "ROLE TOKEN"; blank lines and lines starting with # are
// skipped. None means the API is open, so a token file without tokens is
// refused rather than leaving the API open unawares; so is a token given
// twice, whose role would otherwise be the last line's.
func loadTokens(adminToken, file string) (map[string]rest.Role, map[string]string, error) {
	tokens := map[string]rest.Role{}
	accounts := map[string]string{} // of tokens bound to one
	given := map[string]string{}    // where each token was given
	if adminToken != "" {
		tokens[adminToken] = rest.RoleAdmin
		given[adminToken] = "--api-token"
	}
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, nil, fmt.Errorf("token-file: %w", err)
		}
		inFile := 0
		for n, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			f := strings.Fields(line)
			if len(f) < 2 || len(f) > 3 || !rest.ValidRole(rest.Role(f[0])) {
				return nil, nil, fmt.Errorf("%s:%d: want \"ROLE TOKEN [ACCOUNT]\" with ROLE admin, producer, consumer or inspector", file, n+1)
			}
			role, token := f[0], f[1]
			if len(f) == 3 {
				if !sigv4.IsAccountID(f[2]) {
					return nil, nil, fmt.Errorf("%s:%d: account %q: want 12 digits", file, n+1, f[2])
				}
				accounts[token] = f[2]
			}
			if where, ok := given[token]; ok {
				if tokens[token] == rest.Role(role) {
					return nil, nil, fmt.Errorf("%s:%d: the same token as %s, with the same role: give each token once", file, n+1, where)
				}
				return nil, nil, fmt.Errorf("%s:%d: the same token as %s, with the role %s there and %s here: a token has one role", file, n+1, where, tokens[token], role)
			}
			tokens[token] = rest.Role(role)
			given[token] = fmt.Sprintf("line %d", n+1)
			inFile++
		}
		if inFile == 0 {
			return nil, nil, fmt.Errorf("token-file %s has no tokens, only blank or # lines: give at least one \"ROLE TOKEN\" line, or no --token-file for an open API", file)
		}
	}
	if len(tokens) == 0 {
		return nil, nil, nil
	}
	if len(accounts) == 0 {
		accounts = nil
	}
	return tokens, accounts, nil
}
