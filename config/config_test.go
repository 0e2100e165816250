package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func writeIni(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadSeedExample(t *testing.T) {
	t.Parallel()
	p := writeIni(t, `db_driver = "sqlite"
data_dir = "./data"
media_path = "./media"
web_dir = "./web/dist"

# スタンドアロンモード時のみ
listen = ":8080"
`)
	c, err := Load(p, env(nil))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	dir := filepath.Dir(p)
	for _, tc := range []struct{ name, got, want string }{
		{"db_driver", c.DBDriver, "sqlite"},
		{"data_dir", c.DataDir, filepath.Join(dir, "data")},
		{"media_path", c.MediaPath, filepath.Join(dir, "media")},
		{"web_dir", c.WebDir, filepath.Join(dir, "web", "dist")},
		{"listen", c.Listen, ":8080"},
		{"scheme", c.Scheme, "https"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %q; want %q", tc.name, tc.got, tc.want)
		}
	}
	if !c.Exists || c.Path != p {
		t.Errorf("Exists, Path = %v, %q; want true, %q", c.Exists, c.Path, p)
	}
	if c.DBPath() != filepath.Join(dir, "data", "murlog.db") || c.ResetPath() != filepath.Join(dir, "murlog.reset") {
		t.Errorf("DBPath, ResetPath = %q, %q", c.DBPath(), c.ResetPath())
	}
}

func TestLoadMissingFileGivesDefaults(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), FileName)
	c, err := Load(p, env(map[string]string{"MURLOG_DATA_DIR": "/srv/murlog"}))
	if err != nil {
		t.Fatalf("Load of a missing file: %v; want defaults", err)
	}
	if c.Exists {
		t.Error("Exists = true for a missing file")
	}
	if c.DataDir != "/srv/murlog" || c.Listen != "127.0.0.1:8080" || c.Scheme != "https" {
		t.Errorf("got data_dir %q listen %q scheme %q; want the override and defaults", c.DataDir, c.Listen, c.Scheme)
	}
}

func TestEnvironmentOverridesEveryKey(t *testing.T) {
	t.Parallel()
	p := writeIni(t, "data_dir = ./a\nlisten = :1\nscheme = https\n")
	c, err := Load(p, env(map[string]string{
		"MURLOG_DB_DRIVER": "sqlite", "MURLOG_DATA_DIR": "b", "MURLOG_MEDIA_PATH": "/m", "MURLOG_WEB_DIR": "w",
		"MURLOG_LISTEN": "127.0.0.1:9", "MURLOG_SCHEME": "http", "MURLOG_TRUSTED_PROXY": "10.0.0.0/8, 127.0.0.1",
		"MURLOG_LOG_LEVEL": "debug",
	}))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(p)
	if c.DataDir != filepath.Join(dir, "b") || c.MediaPath != "/m" || c.WebDir != filepath.Join(dir, "w") ||
		c.Listen != "127.0.0.1:9" || c.Scheme != "http" || c.LogLevel != "debug" || len(c.TrustedProxy) != 2 {
		t.Errorf("overrides not applied: %+v", c)
	}
	// Every key must have an override; a new key without one fails here.
	for _, k := range Keys {
		c2 := Default(p)
		if err := c2.set(k, "x"); err != nil && strings.Contains(err.Error(), "unknown key") {
			t.Errorf("key %q is in Keys but set() does not know it", k)
		}
	}
}

func TestMalformedFilesFailWithFileLineAndKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, body, want string }{
		{"unknown key", "data_dir = x\nsceme = http\n", ":2: key \"sceme\": unknown key"},
		{"bad scheme", "scheme = gopher\n", ":1: key \"scheme\": must be https or http"},
		{"no equals", "data_dir\n", ":1: expected key = value"},
		{"unterminated quote", "data_dir = \"abc\n", ":1: key \"data_dir\": missing closing quote"},
		{"section", "[server]\n", ":1: sections are not supported"},
		{"duplicate", "listen = :1\nlisten = :2\n", ":2: key \"listen\": already set on line 1"},
		{"bad listen", "listen = 8080\n", ":1: key \"listen\": must be host:port"},
		{"bad driver", "db_driver = mysql\n", ":1: key \"db_driver\": unknown driver \"mysql\" (known: sqlite, postgres)"},
		{"empty path", "data_dir = \"\"\n", ":1: key \"data_dir\": must not be empty"},
		{"bad proxy", "trusted_proxy = 10.0.0.0/33\n", ":1: key \"trusted_proxy\": bad network"},
		{"bad escape", `web_dir = "a\n"` + "\n", `unknown escape`},
		{"text after quote", `web_dir = "a" b` + "\n", "unexpected text after closing quote"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeIni(t, tc.body)
			_, err := Load(p, env(nil))
			if err == nil {
				t.Fatalf("Load(%q) = nil error; want one containing %q", tc.body, tc.want)
			}
			if !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load(%q) error = %q; want the file path and %q", tc.body, err, tc.want)
			}
		})
	}
}

func TestBadEnvironmentValueNamesTheVariable(t *testing.T) {
	t.Parallel()
	_, err := Load(filepath.Join(t.TempDir(), FileName), env(map[string]string{"MURLOG_SCHEME": "ftp"}))
	if err == nil || !strings.Contains(err.Error(), "MURLOG_SCHEME") {
		t.Fatalf("err = %v; want it to name MURLOG_SCHEME", err)
	}
}

func TestParseValues(t *testing.T) {
	t.Parallel()
	p := writeIni(t, "\ufeff; comment\n  web_dir = \"with \\\"quotes\\\" and \\\\\" # trailing\ndata_dir = plain value # comment\r\nmedia_path=/abs/media\n")
	c, err := Load(p, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(p)
	if want := filepath.Join(dir, `with "quotes" and \`); c.WebDir != want {
		t.Errorf("web_dir = %q; want %q", c.WebDir, want)
	}
	if want := filepath.Join(dir, "plain value"); c.DataDir != want {
		t.Errorf("data_dir = %q; want %q", c.DataDir, want)
	}
	if c.MediaPath != "/abs/media" {
		t.Errorf("media_path = %q; want /abs/media", c.MediaPath)
	}
}

func TestLocate(t *testing.T) {
	t.Parallel()
	wd, _ := os.Getwd()
	for _, tc := range []struct {
		flag, envv, want string
	}{
		{"/etc/m.ini", "/env.ini", "/etc/m.ini"},
		{"", "/env.ini", "/env.ini"},
		{"", "", filepath.Join(wd, FileName)},
		{"rel.ini", "", filepath.Join(wd, "rel.ini")},
	} {
		got, err := Locate(tc.flag, env(map[string]string{"MURLOG_CONFIG": tc.envv}))
		if err != nil || got != tc.want {
			t.Errorf("Locate(%q, MURLOG_CONFIG=%q) = %q, %v; want %q", tc.flag, tc.envv, got, err, tc.want)
		}
	}
}

func TestWriteRoundTripsAndNeverOverwrites(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), FileName)
	vals := map[string]string{"data_dir": "./da ta", "media_path": "./media", "scheme": "http", "web_dir": `we"ird`}
	if err := Write(p, vals); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v; want 0600", st.Mode().Perm())
	}
	c, err := Load(p, env(nil))
	if err != nil {
		t.Fatalf("Load after Write: %v", err)
	}
	dir := filepath.Dir(p)
	if c.DataDir != filepath.Join(dir, "da ta") || c.WebDir != filepath.Join(dir, `we"ird`) || c.Scheme != "http" {
		t.Errorf("round trip = %+v", c)
	}
	if err := Write(p, map[string]string{"data_dir": "/other"}); !errors.Is(err, ErrExists) {
		t.Errorf("second Write = %v; want ErrExists", err)
	}
	c2, _ := Load(p, env(nil))
	if c2.DataDir != c.DataDir {
		t.Errorf("second Write changed the file: data_dir %q → %q", c.DataDir, c2.DataDir)
	}
	if err := Write(filepath.Join(t.TempDir(), FileName), map[string]string{"bogus": "1"}); err == nil {
		t.Error("Write with an unknown key succeeded")
	}
}

func TestFromValues(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), FileName)
	c, err := FromValues(p, map[string]string{"data_dir": "d", "web_dir": ""})
	if err != nil {
		t.Fatal(err)
	}
	if c.DataDir != filepath.Join(filepath.Dir(p), "d") || c.WebDir != Default(p).WebDir {
		t.Errorf("FromValues = %+v", c)
	}
	_, err = FromValues(p, map[string]string{"scheme": "ftp"})
	var ke *KeyError
	if !errors.As(err, &ke) || ke.Key != "scheme" {
		t.Errorf("FromValues(scheme=ftp) = %v; want a KeyError for scheme", err)
	}
}

func TestCheckDataDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := Default(filepath.Join(dir, FileName))
	c.DataDir = filepath.Join(dir, "missing")
	if err := c.CheckDataDir(); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing dir: %v", err)
	}
	c.DataDir = dir
	if err := c.CheckDataDir(); err != nil {
		t.Errorf("writable dir: %v", err)
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o500)
		c.DataDir = ro
		if err := c.CheckDataDir(); err == nil || !strings.Contains(err.Error(), "not writable") {
			t.Errorf("read-only dir: %v", err)
		}
	}
}

func TestWorkerAndQueueKeys(t *testing.T) {
	t.Parallel()
	p := writeIni(t, "worker_min_concurrency = 4\nworker_max_concurrency = 16\nmetrics_token = \"0123456789abcdef\"\nqueue_dual_write = sqlite:data/next.db\n")
	c, err := Load(p, env(map[string]string{"MURLOG_WORKER_MAX_CONCURRENCY": "64", "MURLOG_QUEUE_READ_FROM": "secondary"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.WorkerMinConcurrency != 4 || c.WorkerMaxConcurrency != 64 || c.MetricsToken != "0123456789abcdef" ||
		c.QueueDualWrite != "sqlite:"+filepath.Join(filepath.Dir(p), "data/next.db") || c.QueueReadFrom != "secondary" {
		t.Errorf("got %+v", c)
	}
	d := Default(p)
	if d.WorkerMinConcurrency != 8 || d.WorkerMaxConcurrency != 32 || d.QueueReadFrom != "primary" {
		t.Errorf("defaults = %+v; want 8, 32, primary", d)
	}
	for _, tc := range []struct{ body, want string }{
		{"worker_min_concurrency = 0\n", "from 1 to 1024"},
		{"worker_max_concurrency = lots\n", "whole number"},
		{"worker_min_concurrency = 40\nworker_max_concurrency = 10\n", "below worker_min_concurrency"},
		{"metrics_token = short\n", "at least 16"},
		{"queue_dual_write = redis://x\n", "sqlite:<path>"},
		{"queue_read_from = secondary\n", "need queue_dual_write"},
		{"queue_single_write = true\n", "need queue_dual_write"},
		{"queue_single_write = maybe\n", "true or false"},
	} {
		if _, err := Load(writeIni(t, tc.body), env(nil)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%q) = %v; want an error containing %q", tc.body, err, tc.want)
		}
	}
}

func TestAllowPrivateNetwork(t *testing.T) {
	t.Parallel()
	p := writeIni(t, "allow_private_network = true\n")
	if d := Default(p); d.AllowPrivateNetwork {
		t.Error("allow_private_network defaults to true; want false")
	}
	for _, tc := range []struct {
		env  string
		want bool
	}{{"", true}, {"false", false}, {"0", false}, {"yes", true}} {
		c, err := Load(p, env(map[string]string{"MURLOG_ALLOW_PRIVATE_NETWORK": tc.env}))
		if err != nil || c.AllowPrivateNetwork != tc.want {
			t.Errorf("ini true, MURLOG_ALLOW_PRIVATE_NETWORK=%q: got %v, %v; want %v", tc.env, c.AllowPrivateNetwork, err, tc.want)
		}
	}
	if _, err := Load(writeIni(t, "allow_private_network = sometimes\n"), env(nil)); err == nil || !strings.Contains(err.Error(), `key "allow_private_network": must be true or false`) {
		t.Errorf("bad value: err = %v; want the key and true or false", err)
	}
	if _, err := Load(p, env(map[string]string{"MURLOG_ALLOW_PRIVATE_NETWORK": "on"})); err == nil || !strings.Contains(err.Error(), "MURLOG_ALLOW_PRIVATE_NETWORK") {
		t.Errorf("bad override: err = %v; want it to name the variable", err)
	}
}

// TestPathsRefuseControlCharacters: a path with a control character (or a
// byte that is not UTF-8) could pass for another path on a page or in a log.
func TestPathsRefuseControlCharacters(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), FileName)
	for _, v := range []string{"da\tta", "data\x1b[2K", "data\u0085", "\xffdata", "da\x7fta"} {
		want := "control characters"
		if v == "\xffdata" {
			want = "is not valid UTF-8"
		}
		if _, err := FromValues(p, map[string]string{"media_path": v}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("FromValues(media_path=%q) = %v; want an error saying %q", v, err, want)
		}
		if _, err := Load(p, env(map[string]string{"MURLOG_DATA_DIR": v})); err == nil || !strings.Contains(err.Error(), "MURLOG_DATA_DIR") {
			t.Errorf("Load with MURLOG_DATA_DIR=%q = %v; want an error naming the variable", v, err)
		}
	}
}

// TestThemesDir: themes_dir defaults beside the ini, is resolved against
// the ini's directory like every path, and MURLOG_THEMES_DIR overrides it.
func TestThemesDir(t *testing.T) {
	t.Parallel()
	p := writeIni(t, "data_dir = ./data\n")
	dir := filepath.Dir(p)
	c, err := Load(p, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "web", "themes"); c.ThemesDir != want {
		t.Errorf("default themes_dir = %q; want %q", c.ThemesDir, want)
	}
	c, err = Load(writeIni(t, "themes_dir = ./my/themes\n"), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(filepath.Dir(c.Path), "my", "themes"); c.ThemesDir != want {
		t.Errorf("themes_dir = ./my/themes gave %q; want %q", c.ThemesDir, want)
	}
	c, err = Load(p, env(map[string]string{"MURLOG_THEMES_DIR": "/srv/themes"}))
	if err != nil || c.ThemesDir != "/srv/themes" {
		t.Errorf("MURLOG_THEMES_DIR=/srv/themes: got %q, %v; want /srv/themes", c.ThemesDir, err)
	}
	if _, err := Load(p, env(map[string]string{"MURLOG_THEMES_DIR": "th\x1bemes"})); err == nil || !strings.Contains(err.Error(), "MURLOG_THEMES_DIR") {
		t.Errorf("MURLOG_THEMES_DIR with a control character: err = %v; want an error naming the variable", err)
	}
	c, err = FromValues(p, map[string]string{"themes_dir": "t"})
	if err != nil || c.ThemesDir != filepath.Join(dir, "t") {
		t.Errorf("FromValues(themes_dir=t) = %v, %v; want %q", c, err, filepath.Join(dir, "t"))
	}
}

// TestJobLeaseBounds: job_lease takes whole seconds from MinJobLease to
// MaxJobLease; outside them (or not a number) it is refused with the
// variable named; unset it leaves the queue's default (0 here).
func TestJobLeaseBounds(t *testing.T) {
	t.Parallel()
	checkIntBounds(t, "MURLOG_JOB_LEASE", "from 2 to 600", func(c *Config) int { return c.JobLease },
		[]intCase{{"2", 2}, {"60", 60}, {"600", 600}, {"1", 0}, {"601", 0}, {"0", 0}, {"60s", 0}})
}

// TestSearchBudgetBounds: search_budget_ms takes whole milliseconds from
// MinSearchBudgetMS to MaxSearchBudgetMS; outside them it is refused with
// the variable named; unset it leaves the store's default (0 here).
func TestSearchBudgetBounds(t *testing.T) {
	t.Parallel()
	checkIntBounds(t, "MURLOG_SEARCH_BUDGET_MS", "from 10 to 2000", func(c *Config) int { return c.SearchBudgetMS },
		[]intCase{{"10", 10}, {"50", 50}, {"2000", 2000}, {"9", 0}, {"2001", 0}, {"0", 0}, {"50ms", 0}})
}

// intCase is a value of a bounded whole-number key and what it loads
// as; 0 means refused.
type intCase struct {
	v    string
	want int
}

// checkIntBounds: unset, the key loads as 0; each case loads as it says,
// and a refused one names the variable and the bounds.
func checkIntBounds(t *testing.T, name, bounds string, get func(*Config) int, cases []intCase) {
	t.Helper()
	p := filepath.Join(t.TempDir(), FileName)
	if c, err := Load(p, env(nil)); err != nil || get(c) != 0 {
		t.Errorf("no %s: %v; want 0 (the default)", name, err)
	}
	for _, tc := range cases {
		c, err := Load(p, env(map[string]string{name: tc.v}))
		switch {
		case tc.want == 0 && (err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), bounds)):
			t.Errorf("%s=%s: %v; want it refused, naming the variable and the bounds", name, tc.v, err)
		case tc.want != 0 && (err != nil || get(c) != tc.want):
			t.Errorf("%s=%s: %+v, %v; want %d", name, tc.v, c, err, tc.want)
		}
	}
}
