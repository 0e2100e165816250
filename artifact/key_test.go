package artifact_test

import (
	"strings"
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/artifact"
	"github.com/murlog/murlog/artifact/artifacttest"
)

func TestParseKeyRefusesHostile(t *testing.T) {
	t.Parallel()
	for _, s := range artifacttest.HostileKeys {
		k, err := artifact.ParseKey(s)
		if murlog.ErrorCode(err) != murlog.EInvalid {
			t.Errorf("ParseKey(%q) = %q, %v; want an invalid error", clip(s), k, err)
			continue
		}
		if len(err.Error()) > 200 {
			t.Errorf("ParseKey(%q): error of %d bytes; a hostile key must not make a long message", clip(s), len(err.Error()))
		}
	}
}

func TestParseKeyAccepts(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"html/@alice/01abc/index.html",
		"ap/@alice/outbox.json",
		"assets/theme-x/app.3f2a9c.css",
		"html/tags/日本語/index.html",
		"html/@alice/café/index.html", // precomposed é
		"html/@alice/ブログ-2026/index.html",
		"well-known/webfinger~acct+alice@example.com.json",
		"file",
		"tmp-1",  // not a temp file name: no leading dot
		"meta-x", // nor a sidecar's
		"a..b",
		"a.",
		strings.Repeat("a", artifact.MaxSegment),
		strings.Repeat(strings.Repeat("a", 99)+"/", 10) + strings.Repeat("a", 23), // 1023 bytes
	} {
		k, err := artifact.ParseKey(s)
		if err != nil || k.String() != s {
			t.Errorf("ParseKey(%q) = %q, %v; want it as it is", clip(s), k, err)
		}
	}
}

func TestCheckPrefix(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"", "html/", "html/@al", "html/@alice/01abc/index.html", "a"} {
		if err := artifact.CheckPrefix(p); err != nil {
			t.Errorf("CheckPrefix(%q) = %v; want nil", p, err)
		}
	}
	for _, p := range []string{"/", "../", "html//", "html/.", "html/.tmp-", "a%2f", "a\\"} {
		if err := artifact.CheckPrefix(p); murlog.ErrorCode(err) != murlog.EInvalid {
			t.Errorf("CheckPrefix(%q) = %v; want invalid", p, err)
		}
	}
}

func TestETagOf(t *testing.T) {
	t.Parallel()
	// SHA-256 of "": a fixed vector, so the ETag form cannot drift.
	if got, want := artifact.ETagOf(artifact.Sum(nil)), `"sha256-e3b0c44298fc1c149afbf4c8996fb924"`; got != want {
		t.Errorf("ETagOf(Sum(nil)) = %s; want %s", got, want)
	}
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
