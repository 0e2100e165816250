package murlog

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestPublicAt(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { x := now.Add(d); return &x }
	for _, tc := range []struct {
		pub   *time.Time
		vis   Visibility
		want  bool
		state string
	}{
		{nil, VisibilityPublic, false, "draft"},
		{at(time.Second), VisibilityPublic, false, "scheduled"},
		{at(0), VisibilityPublic, true, "published"},
		{at(-time.Hour), VisibilityUnlisted, true, "published"},
		{at(-time.Hour), VisibilityFollowers, false, "published"},
		{at(-time.Hour), VisibilityDirect, false, "published"},
	} {
		p := &Post{PublishedAt: tc.pub, Visibility: tc.vis}
		if got := p.PublicAt(now); got != tc.want {
			t.Errorf("PublicAt(published_at %v, %s) = %v; want %v", tc.pub, tc.vis, got, tc.want)
		}
		if got := p.State(now); got != tc.state {
			t.Errorf("State(published_at %v) = %q; want %q", tc.pub, got, tc.state)
		}
	}
	if Visibility("everyone").Valid() || !VisibilityDirect.Valid() {
		t.Error("Visibility.Valid accepts an unknown value or refuses a known one")
	}
}

func TestSiteURLs(t *testing.T) {
	t.Parallel()
	s := Site{Scheme: "https", Domain: "example.com"}
	for _, tc := range []struct{ got, want string }{
		{s.PersonaURL("alice"), "https://example.com/@alice"},
		{s.PostURL("alice", "01a2"), "https://example.com/@alice/01a2"},
		{s.TagURL("日本 語"), "https://example.com/tags/%E6%97%A5%E6%9C%AC%20%E8%AA%9E"},
		{s.MentionURL("bob", "mastodon.example"), "https://mastodon.example/@bob"},
		{Site{Scheme: "http", Domain: "127.0.0.1:8080"}.Base(), "http://127.0.0.1:8080"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q; want %q", tc.got, tc.want)
		}
	}
}

func TestIDs(t *testing.T) {
	t.Parallel()
	a, b := NewID(), NewID()
	if !ValidID(a) || a >= b || a[14] != '7' {
		t.Errorf("NewID = %q then %q; want increasing UUIDv7 strings", a, b)
	}
	for _, bad := range []string{"", "x", strings.ToUpper(a), a + "0", "not-a-uuid-but-36-characters-long!!"} {
		if ValidID(bad) {
			t.Errorf("ValidID(%q) = true", bad)
		}
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	cause := errors.New("disk on fire")
	wrapped := fmt.Errorf("saving: %w", Internal(cause))
	if ErrorCode(wrapped) != EInternal || ErrorMessage(wrapped) != "internal error" || !errors.Is(wrapped, cause) {
		t.Errorf("internal error: code %s message %q; want the cause hidden but reachable", ErrorCode(wrapped), ErrorMessage(wrapped))
	}
	inv := fmt.Errorf("ctx: %w", Invalid("title", "must be at most %d characters", 200))
	if ErrorCode(inv) != EInvalid || ErrorMessage(inv) != "must be at most 200 characters" || AsError(inv).Field != "title" {
		t.Errorf("invalid error = %v", inv)
	}
	if ErrorCode(nil) != "" || ErrorCode(errors.New("x")) != EInternal {
		t.Error("ErrorCode of nil / foreign errors")
	}
	if NotFound("post").Message != "post not found" {
		t.Error("NotFound message")
	}
}

func TestValidLanguage(t *testing.T) {
	t.Parallel()
	for tag, ok := range map[string]bool{"ja": true, "en-US": true, "zh-Hant-TW": true, "": false, "j": false, "123": false, "en_US": false} {
		if ValidLanguage(tag) != ok {
			t.Errorf("ValidLanguage(%q) = %v; want %v", tag, !ok, ok)
		}
	}
}
