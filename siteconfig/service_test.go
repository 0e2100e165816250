package siteconfig_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/siteconfig"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/sqlite/sqlitetest"
)

var ctx = context.Background()

type env struct {
	db      *sqlite.DB
	svc     *siteconfig.Service
	primary string
	other   string
	changes int
	log     *bytes.Buffer
}

// newEnv opens a real SQLite file with two personas and a service whose
// installed themes are default and dark.
func newEnv(t *testing.T) *env {
	t.Helper()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	db, err := sqlite.Open(ctx, sqlitetest.Path(t, t.TempDir(), "murlog.db"), sqlite.Options{Now: func() time.Time { return now },
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := &env{db: db, primary: murlog.NewID(), other: murlog.NewID(), log: &bytes.Buffer{}}
	err = db.Update(ctx, func(tx store.Tx) error {
		for i, id := range []string{e.primary, e.other} {
			p := &murlog.Persona{ID: id, Username: []string{"alice", "bob"}[i], DisplayName: "A", Primary: i == 0,
				PublicKeyPEM: "pub", PrivateKeyPEM: "priv", CreatedAt: now, UpdatedAt: now}
			if err := tx.Personas().Create(p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	themes := []string{"dark", "default"}
	e.svc = siteconfig.New(db, siteconfig.Options{
		ThemeExists: func(n string) bool { return n == "dark" || n == "default" },
		ThemeNames:  func() []string { return themes },
		OnChange:    func() { e.changes++ },
		Log:         slog.New(slog.NewTextHandler(e.log, nil)),
	})
	return e
}

func ptr[T any](v T) *T { return &v }

func raw(s string) *json.RawMessage { r := json.RawMessage(s); return &r }

func TestGetDefaults(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, id := range []string{"", e.primary, e.other} {
		c, ext, err := e.svc.Get(ctx, id)
		want := murlog.DefaultPubConfig(e.primary)
		if id == e.other {
			want.PersonaID = e.other
		}
		if err != nil || *c != *want || ext.CommentsMode != "none" || len(ext.Raw) != 0 {
			t.Errorf("Get(%q) = %+v, %+v, %v; want the defaults %+v", id, c, ext, err, want)
		}
	}
	if _, _, err := e.svc.Get(ctx, murlog.NewID()); murlog.ErrorCode(err) != murlog.ENotFound {
		t.Errorf("unknown persona: %v; want not found", err)
	}
	if _, _, err := e.svc.Get(ctx, "../x"); murlog.AsError(err).Field != "persona_id" {
		t.Errorf("malformed persona id: %v", err)
	}
	// Get writes nothing.
	e.db.View(ctx, func(tx store.Tx) error {
		if _, err := tx.PubConfigs().Get(e.primary); murlog.ErrorCode(err) != murlog.ENotFound {
			t.Errorf("a row exists after Get: %v", err)
		}
		return nil
	})
}

func TestUpdate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, ext, err := e.svc.Update(ctx, "", siteconfig.Update{SiteName: ptr("  My <b>site</b>  "), Introduction: ptr("line 1\r\nline 2"),
		DesignTheme: ptr("dark"), ShowPagination: ptr(false), SideRecent: ptr(1000000), SidePopular: ptr(-3),
		Extensions: raw(`{ "shareButtons": ["x", "mastodon"], "future": {"b": 1, "a": 2} }`)})
	if err != nil {
		t.Fatal(err)
	}
	if c.PersonaID != e.primary || c.SiteName != "My <b>site</b>" || c.Introduction != "line 1\nline 2" || c.DesignTheme != "dark" ||
		c.ShowPagination || !c.ShowSiteName || c.SideRecent != 1000000 || c.SidePopular != -3 ||
		c.Extensions != `{"shareButtons":["x","mastodon"],"future":{"b":1,"a":2}}` || strings.Join(ext.ShareButtons, ",") != "x,mastodon" {
		t.Errorf("after update: %+v %+v", c, ext)
	}
	if e.changes != 1 {
		t.Errorf("OnChange called %d times; want 1", e.changes)
	}
	// A partial update keeps the other fields; it touches only its persona.
	c, _, err = e.svc.Update(ctx, e.primary, siteconfig.Update{Subtitle: ptr("sub")})
	if err != nil || c.SiteName != "My <b>site</b>" || c.Subtitle != "sub" || c.SideRecent != 1000000 || c.ShowPagination ||
		c.Extensions != `{"shareButtons":["x","mastodon"],"future":{"b":1,"a":2}}` {
		t.Errorf("partial update: %+v, %v", c, err)
	}
	if o, _, _ := e.svc.Get(ctx, e.other); *o != *murlog.DefaultPubConfig(e.other) {
		t.Errorf("the other persona changed: %+v", o)
	}
	// The stored counts are as written; a reader clamps.
	got, _, _ := e.svc.Get(ctx, "")
	if got.SideRecent != 1000000 || murlog.ClampSide(got.SideRecent) != murlog.MaxSidePosts || murlog.ClampSide(got.SidePopular) != 0 {
		t.Errorf("stored counts %d %d", got.SideRecent, got.SidePopular)
	}
	// Back to the default theme and no extensions.
	c, _, err = e.svc.Update(ctx, e.other, siteconfig.Update{DesignTheme: ptr(""), Extensions: raw(`{}`)})
	if err != nil || c.DesignTheme != "" || c.Extensions != "{}" || c.PersonaID != e.other {
		t.Errorf("reset: %+v, %v", c, err)
	}
}

// TestUpdateRefused: every refused field names itself, and nothing is
// written, neither that field nor the valid ones beside it.
func TestUpdateRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if _, _, err := e.svc.Update(ctx, "", siteconfig.Update{SiteName: ptr("kept"), Extensions: raw(`{"comments":{"mode":"open"}}`)}); err != nil {
		t.Fatal(err)
	}
	before, _, _ := e.svc.Get(ctx, "")
	for _, tc := range []struct {
		name  string
		u     siteconfig.Update
		field string
	}{
		{"site name 51", siteconfig.Update{SiteName: ptr(strings.Repeat("名", 51))}, "site_name"},
		{"subtitle 51", siteconfig.Update{Subtitle: ptr(strings.Repeat("s", 51))}, "subtitle"},
		{"author 51", siteconfig.Update{Author: ptr(strings.Repeat("a", 51))}, "author"},
		{"introduction 1001", siteconfig.Update{Introduction: ptr(strings.Repeat("i", 1001))}, "introduction"},
		{"control character", siteconfig.Update{SiteName: ptr("a\x1bb")}, "site_name"},
		{"invalid utf-8", siteconfig.Update{Author: ptr("caf\xe9")}, "author"},
		{"theme traversal", siteconfig.Update{DesignTheme: ptr("../x")}, "design_theme"},
		{"theme slash", siteconfig.Update{DesignTheme: ptr("dark/../../etc")}, "design_theme"},
		{"theme unknown", siteconfig.Update{DesignTheme: ptr("newspaper")}, "design_theme"},
		{"theme long", siteconfig.Update{DesignTheme: ptr(strings.Repeat("t", 51))}, "design_theme"},
		{"recent out of int32", siteconfig.Update{SideRecent: ptr(1 << 31)}, "show_side_recent"},
		{"popular out of int32", siteconfig.Update{SidePopular: ptr(-1<<31 - 1)}, "show_side_popular"},
		{"extensions array", siteconfig.Update{Extensions: raw(`[]`)}, "extensions"},
		{"extensions duplicate id", siteconfig.Update{Extensions: raw(`{"shareButtons":["x","x"]}`)}, "extensions.shareButtons[1]"},
		// The valid site name beside a refused field is not written either.
		{"valid beside invalid", siteconfig.Update{SiteName: ptr("new"), Extensions: raw(`{"comments":{"mode":"all"}}`)}, "extensions.comments.mode"},
	} {
		_, _, err := e.svc.Update(ctx, "", tc.u)
		if ae := murlog.AsError(err); err == nil || ae.Code != murlog.EInvalid || ae.Field != tc.field {
			t.Errorf("%s: err = %v; want invalid %s", tc.name, err, tc.field)
		}
	}
	if after, _, _ := e.svc.Get(ctx, ""); *after != *before {
		t.Errorf("a refused update wrote: %+v; was %+v", after, before)
	}
	if e.changes != 1 {
		t.Errorf("OnChange called %d times; want 1 (refused updates change nothing)", e.changes)
	}
	if _, _, err := e.svc.Update(ctx, murlog.NewID(), siteconfig.Update{SiteName: ptr("x")}); murlog.ErrorCode(err) != murlog.ENotFound {
		t.Errorf("unknown persona: %v", err)
	}
	// Limits are characters, not bytes: 50 kanji and 1,000 kana fit.
	if _, _, err := e.svc.Update(ctx, "", siteconfig.Update{SiteName: ptr(strings.Repeat("名", 50)), Introduction: ptr(strings.Repeat("あ", 1000))}); err != nil {
		t.Errorf("50 and 1,000 characters: %v", err)
	}
}

// TestLoadRefusesStoredExtensions: a stored value that no longer
// validates (written by an older version or by hand) reads as "{}" with
// an error, and the rest of the row is still read.
func TestLoadRefusesStoredExtensions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bad := `{"shareButtons":["x","x"]}`
	e.db.Update(ctx, func(tx store.Tx) error {
		c := murlog.DefaultPubConfig(e.primary)
		c.SiteName, c.Extensions, c.UpdatedAt = "Stored", bad, tx.Now()
		return tx.PubConfigs().Put(c)
	})
	e.db.View(ctx, func(tx store.Tx) error {
		c, ext, err := siteconfig.Load(tx, e.primary)
		if err == nil || c == nil || c.SiteName != "Stored" || c.Extensions != "{}" || ext.CommentsMode != "none" || ext.ShareButtons != nil {
			t.Errorf("Load = %+v, %+v, %v; want the row with extensions {} and an error", c, ext, err)
		}
		if err != nil && !strings.Contains(err.Error(), "shareButtons[1]") {
			t.Errorf("the error does not say what is wrong: %v", err)
		}
		c, _, err = siteconfig.Load(tx, e.other)
		if err != nil || *c != *murlog.DefaultPubConfig(e.other) {
			t.Errorf("Load without a row = %+v, %v", c, err)
		}
		return nil
	})
	c, _, err := e.svc.Get(ctx, "")
	if err != nil || c.Extensions != "{}" || c.SiteName != "Stored" || !strings.Contains(e.log.String(), "stored extensions refused") {
		t.Errorf("Get = %+v, %v; log %q", c, err, e.log)
	}
	// The next update repairs it.
	if c, _, err = e.svc.Update(ctx, "", siteconfig.Update{Author: ptr("me")}); err != nil || c.Extensions != "{}" || c.SiteName != "Stored" {
		t.Errorf("update over a refused value: %+v, %v", c, err)
	}
}

func TestThemes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if got := e.svc.Themes(); strings.Join(got, ",") != "dark,default" {
		t.Errorf("Themes = %v", got)
	}
	if got := siteconfig.New(e.db, siteconfig.Options{}).Themes(); got == nil || len(got) != 0 {
		t.Errorf("Themes without ThemeNames = %#v; want empty, not nil", got)
	}
	// Without ThemeExists only the default theme is accepted.
	bare := siteconfig.New(e.db, siteconfig.Options{})
	if _, _, err := bare.Update(ctx, "", siteconfig.Update{DesignTheme: ptr("dark")}); murlog.AsError(err).Field != "design_theme" {
		t.Errorf("no theme set: %v", err)
	}
	if _, _, err := bare.Update(ctx, "", siteconfig.Update{DesignTheme: ptr(" ")}); err != nil {
		t.Errorf("blank theme (the default): %v", err)
	}
}
