package admin_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/client"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/store"
)

// TestStep2SiteName: the optional site name of step 2 becomes the primary
// persona's public-site setting, written with the persona; the language
// the wizard was shown in becomes the site's language.
func TestStep2SiteName(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{Bare: true})
	submit(t, s, "/admin/setup/server", step1(s.Dir))
	for _, lang := range []string{"en", "ja"} {
		s.Client.AcceptLanguage = lang
		_, _, page, _ := s.Client.Get(ctx, "/admin/setup")
		want := map[string]string{"en": "Site name (optional)", "ja": "サイト名 (任意)"}[lang]
		if !strings.Contains(string(page), `name="site_name"`) || !strings.Contains(string(page), want) {
			t.Errorf("step 2 (%s) has no site name field labelled %q", lang, want)
		}
	}
	s.Client.AcceptLanguage = "ja-JP,ja;q=0.9,en;q=0.5"
	name := "  " + strings.Repeat("名", 49) + "!  " // 50 characters once trimmed
	if err := s.Client.SetupSite(ctx, client.SetupInput{Domain: s.Domain(), Username: "alice", Password: testsite.Password, SiteName: name}); err != nil {
		t.Fatal(err)
	}
	var c *murlog.PubConfig
	s.App.Store().View(ctx, func(tx store.Tx) error {
		id, err := tx.Personas().PrimaryID()
		if err != nil {
			t.Fatal(err)
		}
		c, err = tx.PubConfigs().Get(id)
		if err != nil {
			t.Fatalf("no site settings after step 2: %v", err)
		}
		return nil
	})
	want := murlog.DefaultPubConfig(c.PersonaID)
	want.SiteName, want.UpdatedAt = strings.TrimSpace(name), c.UpdatedAt
	if *c != *want || c.UpdatedAt.IsZero() {
		t.Errorf("site settings = %+v; want the defaults with site name %q", c, want.SiteName)
	}
	// The owner's API shows it.
	if err := s.Client.Login(ctx, testsite.Password); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Language    string `json:"language"`
		Publication struct {
			SiteName string `json:"site_name"`
		} `json:"publication"`
	}
	if err := s.Client.Call(ctx, "site.get_settings", nil, &got); err != nil || got.Publication.SiteName != want.SiteName || got.Language != "ja" {
		t.Errorf("site.get_settings = %+v, %v; want the site name and language ja (the wizard's)", got, err)
	}
}

// TestStep2WithoutSiteName: the field is optional and no settings row is
// made for it (the persona reads as the defaults).
func TestStep2WithoutSiteName(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	s.App.Store().View(ctx, func(tx store.Tx) error {
		id, _ := tx.Personas().PrimaryID()
		if _, err := tx.PubConfigs().Get(id); murlog.ErrorCode(err) != murlog.ENotFound {
			t.Errorf("site settings without a site name: %v; want none stored", err)
		}
		return nil
	})
}

// TestStep2SiteNameTooLong: 51 characters are refused in the reader's
// language, the form comes back with what was typed (not the passwords),
// and nothing is created.
func TestStep2SiteNameTooLong(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{Bare: true})
	submit(t, s, "/admin/setup/server", step1(s.Dir))
	long := strings.Repeat("名", 51)
	form := url.Values{"domain": {s.Domain()}, "username": {"alice"}, "display_name": {"Alice"}, "site_name": {long},
		"password": {"long enough pw"}, "password_confirm": {"long enough pw"}}
	for _, tc := range []struct{ lang, msg string }{
		{"", "The site name must be at most 50 characters."},
		{"ja", "サイト名は 50 文字以内にしてください。"},
	} {
		s.Client.AcceptLanguage = tc.lang
		status, _, body := submit(t, s, "/admin/setup", form)
		if status != 400 || !strings.Contains(body, `<p class="err">`+tc.msg+`</p>`) {
			t.Errorf("lang %q: %d; want 400 with %q next to the field\n%s", tc.lang, status, tc.msg, body)
		}
		if !strings.Contains(body, `name="site_name" value="`+long+`"`) || !strings.Contains(body, `name="username" value="alice"`) {
			t.Errorf("lang %q: the form does not come back filled in", tc.lang)
		}
		if strings.Contains(body, `value="long enough pw"`) {
			t.Errorf("lang %q: the password was echoed back", tc.lang)
		}
	}
	s.App.Store().View(ctx, func(tx store.Tx) error {
		if ps, _ := tx.Personas().List(); len(ps) != 0 {
			t.Errorf("%d personas after the refused step 2", len(ps))
		}
		if m, _ := tx.Settings().GetMany(murlog.SettingDomain, murlog.SettingPasswordHash, murlog.SettingSetupComplete); len(m) != 0 {
			t.Errorf("settings after the refused step 2: %v", m)
		}
		return nil
	})
	// A control character is refused too, with the field named.
	s.Client.AcceptLanguage = ""
	form.Set("site_name", "bell\a")
	if status, _, body := submit(t, s, "/admin/setup", form); status != 400 || !strings.Contains(body, "contains the control character") {
		t.Errorf("control character in the site name: %d\n%s", status, body)
	}
	form.Set("site_name", strings.Repeat("名", 50))
	if status, loc, _ := submit(t, s, "/admin/setup", form); status != 303 || loc != "/admin/setup" {
		t.Errorf("50 characters: %d → %q; want 303", status, loc)
	}
}
