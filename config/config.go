// Package config reads murlog.ini: the few settings murlog needs before it
// can open its database. Everything else (domain, password, site options)
// lives in the database's settings table, so a backup is one file.
//
// Each key may be overridden by an environment variable MURLOG_<KEY>
// (upper case), which is how containers and tests configure murlog.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/murlog/murlog"
)

// FileName is the name of the ini file murlog looks for.
const FileName = "murlog.ini"

// ResetFileName is the one-time password reset file written beside the ini.
const ResetFileName = "murlog.reset"

// Config is the startup configuration. Paths are absolute after Load.
type Config struct {
	// Path is the absolute path of the ini file this came from (or would be
	// written to, for a Config that has no file yet).
	Path string
	// Exists is false when no ini file was found (setup step 1 not done).
	Exists bool

	DBDriver  string // "sqlite" (default); "postgres" is known but not in this build yet
	DataDir   string // holds murlog.db, snapshots, locks
	MediaPath string // uploaded media
	WebDir    string // built SPA and theme assets
	// ThemesDir holds the public blog's themes (<name>/theme.json …); when
	// it does not exist the copy built into the binary is used.
	ThemesDir string
	// ArtifactDir holds the rendered public site (package prerender);
	// empty means the folder _site beside murlog.ini on a CGI install
	// (inside the document root, where Apache serves it) and
	// <data_dir>/artifacts otherwise (app.artifactDir).
	ArtifactDir string
	Listen      string // serve mode address
	Scheme      string // "https" (default) or "http" for local testing
	// TrustedProxy lists the networks whose X-Forwarded-For is believed
	// when finding the client address (for the login rate limit).
	TrustedProxy []netip.Prefix
	LogLevel     string // debug, info (default), warn, error

	// Job worker (seed: アダプティブ並列度).
	WorkerMinConcurrency int // default 8
	WorkerMaxConcurrency int // default 32
	// MetricsToken enables GET /metrics for callers presenting it as a
	// bearer token; empty keeps /metrics off.
	MetricsToken string
	// QueueDualWrite names a second queue ("sqlite:<path>") that every job
	// is also written to while moving between providers; QueueReadFrom
	// says which one the workers read ("primary" or "secondary").
	QueueDualWrite string
	QueueReadFrom  string
	// QueueSingleWrite ends dual writing (migration phase 3): jobs go to
	// the queue read from only.
	QueueSingleWrite bool
	// AllowPrivateNetwork lets federation reach loopback and private
	// addresses, which the outbound address guard refuses otherwise. For
	// tests and labs only: on a real site it opens the door to SSRF.
	AllowPrivateNetwork bool
	// InboxRateLimit is the inbox's sustained rate per client address
	// and per signing domain, in requests per second (bursts of four
	// times as many); 0 means federation's default (100).
	InboxRateLimit int
	// JobLease is how long, in seconds, a worker's claim holds a job
	// unless renewed (every half lease while the job runs): how soon the
	// jobs of a worker that died are run again. 0 means the queue's
	// default (60).
	JobLease int
	// ShieldBlockLimits overrides the persistent shields' limits per
	// address block and minute, by class (login, inbox, search, api);
	// a class not named keeps its default (httpd.DefaultBlockLimits).
	// They apply under CGI only.
	ShieldBlockLimits map[string]int
	// SearchBudgetMS is how long, in milliseconds, one search of the
	// public blog may run before its page says it is too expensive; 0
	// means store.SearchBudget (50). A slow shared host may need more.
	SearchBudgetMS int
}

// Bounds of search_budget_ms: below 10 ms nearly every search fails; a
// search of seconds would let one reader hold a core.
const (
	MinSearchBudgetMS = 10
	MaxSearchBudgetMS = 2000
)

// ShieldClasses are the classes shield_block_limits may name.
var ShieldClasses = []string{"login", "inbox", "search", "api"}

// Keys lists every key murlog.ini accepts, in the order they are written.
var Keys = []string{"db_driver", "data_dir", "media_path", "web_dir", "themes_dir", "artifact_dir", "listen", "scheme", "trusted_proxy", "log_level",
	"worker_min_concurrency", "worker_max_concurrency", "metrics_token", "queue_dual_write", "queue_read_from",
	"queue_single_write", "allow_private_network", "inbox_rate_limit", "job_lease", "shield_block_limits", "search_budget_ms"}

// Default returns the configuration murlog assumes for an ini at path that
// does not exist yet.
func Default(path string) *Config {
	dir := filepath.Dir(path)
	return &Config{
		Path:      path,
		DBDriver:  "sqlite",
		DataDir:   filepath.Join(dir, "data"),
		MediaPath: filepath.Join(dir, "media"),
		WebDir:    filepath.Join(dir, "web", "dist"),
		ThemesDir: filepath.Join(dir, "web", "themes"),
		Listen:    "127.0.0.1:8080",
		Scheme:    "https",
		LogLevel:  "info",

		WorkerMinConcurrency: 8,
		WorkerMaxConcurrency: 32,
		QueueReadFrom:        "primary",
	}
}

// Locate returns the ini path every mode uses: the --config flag, else
// $MURLOG_CONFIG, else murlog.ini in the working directory. Under CGI,
// Apache runs the program in its own directory, so that is beside the binary.
func Locate(flagPath string, getenv func(string) string) (string, error) {
	p := flagPath
	if p == "" {
		p = getenv("MURLOG_CONFIG")
	}
	if p == "" {
		p = FileName
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("config: %w", err)
	}
	return abs, nil
}

// Load reads the ini at path and applies MURLOG_* overrides from getenv.
// A missing file is not an error: the result has Exists == false and the
// defaults (plus overrides), so the setup wizard can run. A malformed file
// fails with its name, line and key.
func Load(path string, getenv func(string) string) (*Config, error) {
	c := Default(path)
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("config: read %s: %w", path, err)
	default:
		c.Exists = true
		entries, err := parse(path, b)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if err := c.set(e.key, e.value); err != nil {
				return nil, fmt.Errorf("%s:%d: key %q: %w", path, e.line, e.key, err)
			}
		}
	}
	for _, k := range Keys {
		env := "MURLOG_" + strings.ToUpper(k)
		if v := getenv(env); v != "" {
			if err := c.set(k, v); err != nil {
				return nil, fmt.Errorf("environment %s: %w", env, err)
			}
		}
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// set assigns one key, resolving relative paths against the ini's directory.
func (c *Config) set(key, v string) error {
	dir := filepath.Dir(c.Path)
	path := func() (string, error) {
		if v == "" {
			return "", errors.New("must not be empty")
		}
		if !utf8.ValidString(v) {
			return "", errors.New("is not valid UTF-8")
		}
		if HasControl(v) {
			return "", errors.New("must not contain control characters")
		}
		if filepath.IsAbs(v) {
			return filepath.Clean(v), nil
		}
		return filepath.Join(dir, v), nil
	}
	var err error
	switch key {
	case "db_driver":
		// The names murlog knows; whether this build can open one is the
		// composition root's answer (app: postgres is not built yet).
		if v != "sqlite" && v != "postgres" {
			return fmt.Errorf("unknown driver %q (known: sqlite, postgres)", v)
		}
		c.DBDriver = v
	case "data_dir":
		c.DataDir, err = path()
	case "media_path":
		c.MediaPath, err = path()
	case "web_dir":
		c.WebDir, err = path()
	case "themes_dir":
		c.ThemesDir, err = path()
	case "artifact_dir":
		c.ArtifactDir, err = path()
	case "listen":
		if _, _, e := splitHostPort(v); e != nil {
			return e
		}
		c.Listen = v
	case "scheme":
		if v != "https" && v != "http" {
			return fmt.Errorf("must be https or http, not %q", v)
		}
		c.Scheme = v
	case "trusted_proxy":
		c.TrustedProxy, err = parsePrefixes(v)
	case "log_level":
		switch v {
		case "debug", "info", "warn", "error":
			c.LogLevel = v
		default:
			return fmt.Errorf("must be debug, info, warn or error, not %q", v)
		}
	case "worker_min_concurrency":
		c.WorkerMinConcurrency, err = positive(v, 1, 1024)
	case "worker_max_concurrency":
		c.WorkerMaxConcurrency, err = positive(v, 1, 1024)
	case "metrics_token":
		if len(v) < 16 {
			return errors.New("must be at least 16 characters (it guards /metrics)")
		}
		c.MetricsToken = v
	case "queue_dual_write":
		if !strings.HasPrefix(v, "sqlite:") || len(v) == len("sqlite:") {
			return fmt.Errorf("must be sqlite:<path> (the only other queue supported so far), not %q", v)
		}
		p := strings.TrimPrefix(v, "sqlite:")
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		c.QueueDualWrite = "sqlite:" + p
	case "queue_single_write":
		c.QueueSingleWrite, err = boolean(v)
	case "allow_private_network":
		c.AllowPrivateNetwork, err = boolean(v)
	case "inbox_rate_limit":
		c.InboxRateLimit, err = positive(v, 1, 1_000_000)
	case "job_lease":
		c.JobLease, err = positive(v, MinJobLease, MaxJobLease)
	case "shield_block_limits":
		c.ShieldBlockLimits, err = blockLimits(v)
	case "search_budget_ms":
		c.SearchBudgetMS, err = positive(v, MinSearchBudgetMS, MaxSearchBudgetMS)
	case "queue_read_from":
		if v != "primary" && v != "secondary" {
			return fmt.Errorf("must be primary or secondary, not %q", v)
		}
		c.QueueReadFrom = v
	default:
		return fmt.Errorf("unknown key (known keys: %s)", strings.Join(Keys, ", "))
	}
	return err
}

// Bounds of job_lease, in seconds. Renewals come every half lease, so a
// lease under two seconds would be renewed more often than a busy
// database answers; one over ten minutes would leave a dead worker's jobs
// waiting longer than the five minutes murlog used to.
const (
	MinJobLease = 2
	MaxJobLease = 600
)

// HasControl reports control characters or bytes that are not UTF-8: a
// path holding them can look like another one in a page or a log.
func HasControl(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if murlog.IsControl(r) {
			return true
		}
	}
	return false
}

// positive parses an integer in [lo, hi].
func positive(v string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("must be a whole number from %d to %d, not %q", lo, hi, v)
	}
	return n, nil
}

// blockLimits parses "class=n, class=n": each class one of
// ShieldClasses, each n requests per block and minute.
func blockLimits(v string) (map[string]int, error) {
	out := map[string]int{}
	for _, part := range strings.Split(v, ",") {
		class, n, ok := strings.Cut(strings.TrimSpace(part), "=")
		class = strings.TrimSpace(class)
		if !ok || !slices.Contains(ShieldClasses, class) {
			return nil, fmt.Errorf("must be class=number pairs separated by commas, the classes %s, not %q", strings.Join(ShieldClasses, ", "), part)
		}
		if _, dup := out[class]; dup {
			return nil, fmt.Errorf("names %s twice", class)
		}
		limit, err := positive(strings.TrimSpace(n), 1, 10_000_000)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", class, err)
		}
		out[class] = limit
	}
	return out, nil
}

// boolean parses the spellings of true and false murlog.ini accepts.
func boolean(v string) (bool, error) {
	switch v {
	case "true", "1", "yes":
		return true, nil
	case "false", "0", "no":
		return false, nil
	}
	return false, fmt.Errorf("must be true or false, not %q", v)
}

// Validate checks relations between keys that no single key can.
func (c *Config) Validate() error {
	if c.WorkerMaxConcurrency < c.WorkerMinConcurrency {
		return fmt.Errorf("worker_max_concurrency (%d) is below worker_min_concurrency (%d)", c.WorkerMaxConcurrency, c.WorkerMinConcurrency)
	}
	if (c.QueueReadFrom == "secondary" || c.QueueSingleWrite) && c.QueueDualWrite == "" {
		return errors.New("queue_read_from = secondary and queue_single_write need queue_dual_write to name the secondary queue")
	}
	return nil
}

func splitHostPort(v string) (string, string, error) {
	i := strings.LastIndexByte(v, ':')
	if i < 0 {
		return "", "", fmt.Errorf("must be host:port or :port, not %q", v)
	}
	port := v[i+1:]
	if port == "" {
		return "", "", fmt.Errorf("missing port in %q", v)
	}
	for _, r := range port {
		if r < '0' || r > '9' {
			return "", "", fmt.Errorf("bad port in %q", v)
		}
	}
	return v[:i], port, nil
}

// parsePrefixes reads a comma-separated list of CIDRs or single addresses.
func parsePrefixes(v string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if strings.Contains(f, "/") {
			p, err := netip.ParsePrefix(f)
			if err != nil {
				return nil, fmt.Errorf("bad network %q: %w", f, err)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("bad address %q: %w", f, err)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// DBPath is the SQLite database file inside DataDir.
func (c *Config) DBPath() string { return filepath.Join(c.DataDir, "murlog.db") }

// ResetPath is where `murlog reset` writes the one-time reset secret.
func (c *Config) ResetPath() string { return filepath.Join(filepath.Dir(c.Path), ResetFileName) }

// CheckDataDir verifies that DataDir exists, is a directory and is
// writable by this process: SQLite creates -wal and -shm files beside the
// database even to read it, so an unwritable directory would otherwise
// fail later and less clearly. It costs two system calls, so CGI runs it
// on every request.
func (c *Config) CheckDataDir() error {
	st, err := os.Stat(c.DataDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("data_dir %s does not exist: create it or fix data_dir in %s", c.DataDir, c.Path)
	case err != nil:
		return fmt.Errorf("data_dir %s: %w", c.DataDir, err)
	case !st.IsDir():
		return fmt.Errorf("data_dir %s is not a directory (set in %s)", c.DataDir, c.Path)
	}
	if err := unix.Access(c.DataDir, unix.W_OK|unix.X_OK); err != nil {
		return fmt.Errorf("data_dir %s is not writable by user id %d: %w (under CGI it must belong to the user Apache runs murlog as)", c.DataDir, os.Geteuid(), err)
	}
	return nil
}

// KeyError is a bad value for one key.
type KeyError struct {
	Key string
	Err error
}

func (e *KeyError) Error() string { return e.Key + ": " + e.Err.Error() }
func (e *KeyError) Unwrap() error { return e.Err }

// FromValues returns the configuration that writing values to an ini at
// path would produce (before environment overrides), so the setup wizard
// can check a form before it writes anything. Empty values keep defaults.
func FromValues(path string, values map[string]string) (*Config, error) {
	c := Default(path)
	for _, k := range Keys {
		v, ok := values[k]
		if !ok || v == "" {
			continue
		}
		if err := c.set(k, v); err != nil {
			return nil, &KeyError{Key: k, Err: err}
		}
	}
	for k := range values {
		if !known(k) {
			return nil, &KeyError{Key: k, Err: errors.New("unknown key")}
		}
	}
	return c, nil
}
