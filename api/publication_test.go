package api_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/murlog/murlog/internal/testsite"
)

// settingsResult is the answer of site.get_settings and
// site.update_settings.
type settingsResult struct {
	Domain      string `json:"domain"`
	Language    string `json:"language"`
	Publication *struct {
		PersonaID         string          `json:"persona_id"`
		SiteName          string          `json:"site_name"`
		Subtitle          string          `json:"subtitle"`
		Author            string          `json:"author"`
		Introduction      string          `json:"introduction"`
		DesignTheme       string          `json:"design_theme"`
		ShowServiceHeader bool            `json:"show_service_header"`
		ShowSiteName      bool            `json:"show_site_name"`
		ShowPagination    bool            `json:"show_pagination"`
		ShowSideProfile   bool            `json:"show_side_profile"`
		ShowSideRecent    int             `json:"show_side_recent"`
		ShowSidePopular   int             `json:"show_side_popular"`
		Extensions        json.RawMessage `json:"extensions"`
		Themes            []string        `json:"themes"`
	} `json:"publication"`
}

func getSettings(t *testing.T, s *testsite.Site, params any) settingsResult {
	t.Helper()
	var r settingsResult
	if err := s.Client.Call(ctx, "site.get_settings", params, &r); err != nil || r.Publication == nil {
		t.Fatalf("site.get_settings(%v) = %+v, %v", params, r, err)
	}
	return r
}

// TestPublicationDefaults: a persona without a stored row reads as the
// seed's defaults, extensions as an object, with the installed themes.
func TestPublicationDefaults(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	pid := primary(t, s).ID
	var m map[string]any
	if err := s.Client.Call(ctx, "site.get_settings", nil, &m); err != nil {
		t.Fatal(err)
	}
	pub, _ := m["publication"].(map[string]any)
	want := map[string]any{"persona_id": pid, "site_name": "", "subtitle": "", "author": "", "introduction": "", "design_theme": "",
		"show_service_header": true, "show_site_name": true, "show_pagination": true, "show_side_profile": true,
		"show_side_recent": float64(5), "show_side_popular": float64(5), "extensions": map[string]any{},
		"themes": []any{"dark", "default", "newspaper", "vertical", "whiteboard"}}
	if !reflect.DeepEqual(pub, want) {
		t.Errorf("publication = %v\nwant %v", pub, want)
	}
	// The site-wide settings are still there.
	if m["domain"] != s.Domain() || m["robots_noai"] != true || m["allow_quotes"] != true {
		t.Errorf("site settings = %v", m)
	}
	if r := getSettings(t, s, map[string]string{"persona_id": pid}); r.Publication.PersonaID != pid {
		t.Errorf("by persona_id: %+v", r.Publication)
	}
	rpcErr(t, "unknown persona", s.Client.Call(ctx, "site.get_settings", map[string]string{"persona_id": "01900000-0000-7000-8000-000000000000"}, nil), -32001, "not_found", 404)
	e := rpcErr(t, "malformed persona", s.Client.Call(ctx, "site.get_settings", map[string]string{"persona_id": "../x"}, nil), -32602, "invalid", 400)
	if e.Data.Field != "persona_id" {
		t.Errorf("malformed persona id: field %q", e.Data.Field)
	}
	rpcErr(t, "unknown parameter", s.Client.Call(ctx, "site.get_settings", map[string]string{"persona": pid}, nil), -32602, "invalid", 400)
}

func TestPublicationUpdate(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	pid := primary(t, s).ID
	var r settingsResult
	err := s.Client.Call(ctx, "site.update_settings", map[string]any{"language": "ja", "publication": map[string]any{
		"site_name": "  Alice の日記 <script>  ", "subtitle": "sub", "author": "Alice", "introduction": "Hello\r\nworld",
		"design_theme": "vertical", "show_service_header": false, "show_site_name": false, "show_pagination": false,
		"show_side_profile": false, "show_side_recent": 100, "show_side_popular": -1,
		"extensions": map[string]any{"shareButtons": []string{"x", "hatena", "mastodon"}, "comments": map[string]any{"mode": "moderated"},
			"analytics":     map[string]any{"googleAnalytics": map[string]any{"measurementId": " G-ABC123 "}, "matomo": map[string]any{"site": 7}},
			"futureFeature": []any{1, "two", nil}},
	}}, &r)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, r settingsResult) {
		t.Helper()
		p := r.Publication
		if r.Language != "ja" || p == nil || p.PersonaID != pid || p.SiteName != "Alice の日記 <script>" || p.Subtitle != "sub" ||
			p.Author != "Alice" || p.Introduction != "Hello\nworld" || p.DesignTheme != "vertical" || p.ShowServiceHeader ||
			p.ShowSiteName || p.ShowPagination || p.ShowSideProfile || p.ShowSideRecent != 100 || p.ShowSidePopular != -1 {
			t.Errorf("%s: %+v %+v", what, r, p)
			return
		}
		// Unknown keys and providers come back as they were sent; the
		// measurement id trimmed. Extensions is an object, not a string.
		var ext map[string]any
		if err := json.Unmarshal(p.Extensions, &ext); err != nil {
			t.Errorf("%s: extensions %s is not an object: %v", what, p.Extensions, err)
		}
		want := map[string]any{"shareButtons": []any{"x", "hatena", "mastodon"}, "comments": map[string]any{"mode": "moderated"},
			"analytics":     map[string]any{"googleAnalytics": map[string]any{"measurementId": "G-ABC123"}, "matomo": map[string]any{"site": float64(7)}},
			"futureFeature": []any{float64(1), "two", nil}}
		if !reflect.DeepEqual(ext, want) {
			t.Errorf("%s: extensions = %s", what, p.Extensions)
		}
	}
	check("update answer", r)
	check("read back", getSettings(t, s, nil))

	// A partial update keeps the other fields, of both kinds.
	err = s.Client.Call(ctx, "site.update_settings", map[string]any{"persona_id": pid, "publication": map[string]any{"subtitle": "new sub"}}, &r)
	if err != nil || r.Publication.Subtitle != "new sub" || r.Publication.SiteName != "Alice の日記 <script>" || r.Language != "ja" ||
		r.Publication.ShowSideRecent != 100 || !strings.Contains(string(r.Publication.Extensions), "futureFeature") {
		t.Errorf("partial update = %+v %+v, %v", r, r.Publication, err)
	}
	// A site-only update keeps the publication and still answers it.
	if err := s.Client.Call(ctx, "site.update_settings", map[string]any{"language": "en-GB"}, &r); err != nil || r.Language != "en-GB" ||
		r.Publication == nil || r.Publication.Subtitle != "new sub" {
		t.Errorf("site-only update = %+v, %v", r, err)
	}
	// null is the same as leaving a field out; {} clears the extensions.
	if err := s.Client.Call(ctx, "site.update_settings", map[string]any{"publication": map[string]any{"extensions": nil, "site_name": nil}}, &r); err != nil ||
		!strings.Contains(string(r.Publication.Extensions), "futureFeature") || r.Publication.SiteName == "" {
		t.Errorf("null fields = %+v, %v", r.Publication, err)
	}
	if err := s.Client.Call(ctx, "site.update_settings", map[string]any{"publication": map[string]any{"extensions": map[string]any{}, "design_theme": ""}}, &r); err != nil ||
		string(r.Publication.Extensions) != "{}" || r.Publication.DesignTheme != "" {
		t.Errorf("clearing = %+v, %v", r.Publication, err)
	}
	rpcErr(t, "unknown persona", s.Client.Call(ctx, "site.update_settings", map[string]any{"persona_id": "01900000-0000-7000-8000-000000000000",
		"publication": map[string]any{"site_name": "x"}}, nil), -32001, "not_found", 404)
}

// TestPublicationRefused: each bad input of the issue is an invalid-params
// error naming the field where it is in the params, and nothing is written
// (not even the valid settings beside it).
func TestPublicationRefused(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	err := s.Client.Call(ctx, "site.update_settings", map[string]any{"language": "ja", "publication": map[string]any{"site_name": "Kept",
		"extensions": map[string]any{"shareButtons": []string{"x"}, "keep": true}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := getSettings(t, s, nil)
	call := func(pub string) string {
		return `{"jsonrpc":"2.0","method":"site.update_settings","params":{"language":"en","publication":` + pub + `},"id":1}`
	}
	ext := func(e string) string { return call(`{"site_name":"Changed","extensions":` + e + `}`) }
	long := `{"k":"` + strings.Repeat("a", 4090) + `"}`
	for _, tc := range []struct{ name, body, field, msg string }{
		{"extensions too long", ext(long), "publication.extensions", "at most 4096"},
		{"extensions not an object", ext(`["x"]`), "publication.extensions", "must be a JSON object"},
		{"extensions as a string", ext(`"{}"`), "publication.extensions", "not a string"},
		{"duplicate share ids", ext(`{"shareButtons":["x","line","x"]}`), "publication.extensions.shareButtons[2]", "listed twice"},
		{"invalid share id", ext(`{"shareButtons":["x","line","<b>"]}`), "publication.extensions.shareButtons[2]", "not a share button id"},
		{"share id too long", ext(`{"shareButtons":["` + strings.Repeat("a", 65) + `"]}`), "publication.extensions.shareButtons[0]", "1–64"},
		{"unknown comment mode", ext(`{"comments":{"mode":"everyone"}}`), "publication.extensions.comments.mode", "none, moderated or open"},
		{"bad provider name", ext(`{"analytics":{"google analytics":{}}}`), "publication.extensions.analytics", "provider name"},
		{"over-long measurement id", ext(`{"analytics":{"googleAnalytics":{"measurementId":"` + strings.Repeat("G", 129) + `"}}}`),
			"publication.extensions.analytics.googleAnalytics.measurementId", "at most 128"},
		{"too deep", ext(strings.Repeat(`{"a":`, 9) + "1" + strings.Repeat("}", 9)), "publication.extensions.a.a.a.a.a.a.a.a", "levels deep"},
		// The request scanner refuses duplicate keys anywhere in the body.
		{"duplicate key", ext(`{"comments":{"mode":"open","mode":"none"}}`), "publication.extensions.comments.mode", "given twice"},
		{"theme traversal", call(`{"design_theme":"../x"}`), "publication.design_theme", "not a theme name"},
		{"theme with a slash", call(`{"design_theme":"default/../../etc"}`), "publication.design_theme", "not a theme name"},
		{"unknown theme", call(`{"design_theme":"nosuch"}`), "publication.design_theme", "there is no theme"},
		{"theme too long", call(`{"design_theme":"` + strings.Repeat("t", 51) + `"}`), "publication.design_theme", "at most 50"},
		{"site name 51 characters", call(`{"site_name":"` + strings.Repeat("名", 51) + `"}`), "publication.site_name", "at most 50"},
		{"subtitle 51", call(`{"subtitle":"` + strings.Repeat("s", 51) + `"}`), "publication.subtitle", "at most 50"},
		{"author 51", call(`{"author":"` + strings.Repeat("a", 51) + `"}`), "publication.author", "at most 50"},
		{"introduction 1001", call(`{"introduction":"` + strings.Repeat("i", 1001) + `"}`), "publication.introduction", "at most 1000"},
		{"control character", call(`{"site_name":"a\u001bb"}`), "publication.site_name", "U+001B"},
		{"count out of int32", call(`{"show_side_recent":2147483648}`), "publication.show_side_recent", "between"},
		{"count not an integer", call(`{"show_side_popular":1.5}`), "publication.show_side_popular", "must be an integer"},
		{"flag not a boolean", call(`{"show_pagination":"yes"}`), "publication.show_pagination", "true or false"},
		{"unknown key", call(`{"site_nme":"x"}`), "publication.site_nme", "unknown parameter"},
		{"key in the wrong case", call(`{"Site_Name":"x"}`), "publication.Site_Name", `did you mean "site_name"`},
		{"publication not an object", call(`"x"`), "publication", "must be an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, v := raw(t, s, s.Client, "application/json", tc.body)
			msg, _ := field(v, "error", "message").(string)
			if status != 400 || field(v, "error", "code") != float64(-32602) || field(v, "error", "data", "field") != tc.field || !strings.Contains(msg, tc.msg) {
				t.Errorf("HTTP %d %v; want 400 -32602 on field %q mentioning %q", status, field(v, "error"), tc.field, tc.msg)
			}
		})
	}
	if after := getSettings(t, s, nil); !reflect.DeepEqual(after, before) || after.Language != "ja" || after.Publication.SiteName != "Kept" {
		t.Errorf("after refused updates:\n%+v %+v\nwant\n%+v %+v", after, after.Publication, before, before.Publication)
	}
	// An unknown persona is refused before anything is written.
	rpcErr(t, "unknown persona", s.Client.Call(ctx, "site.update_settings", map[string]any{"language": "en",
		"persona_id": "01900000-0000-7000-8000-000000000000"}, nil), -32001, "not_found", 404)
	if after := getSettings(t, s, nil); after.Language != "ja" {
		t.Errorf("language written with an unknown persona_id: %q", after.Language)
	}
	// A valid publication beside a refused site setting is not written.
	err = s.Client.Call(ctx, "site.update_settings", map[string]any{"language": "123", "publication": map[string]any{"site_name": "Changed"}}, nil)
	rpcErr(t, "bad language beside a valid publication", err, -32602, "invalid", 400)
	if after := getSettings(t, s, nil); after.Publication.SiteName != "Kept" {
		t.Errorf("site name written beside a refused language: %q", after.Publication.SiteName)
	}
}

func TestPublicationOwnerOnly(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	anon := s.NewClient()
	if err := anon.FetchCSRF(ctx); err != nil {
		t.Fatal(err)
	}
	rpcErr(t, "anonymous get", anon.Call(ctx, "site.get_settings", map[string]any{}, nil), -32000, "unauthorized", 401)
	rpcErr(t, "anonymous update", anon.Call(ctx, "site.update_settings", map[string]any{"publication": map[string]any{"site_name": "pwned"}}, nil),
		-32000, "unauthorized", 401)
	if r := getSettings(t, s, nil); r.Publication.SiteName != "" {
		t.Errorf("an anonymous update wrote %q", r.Publication.SiteName)
	}
}

// TestSiteSettingsOneNameEach: the site's name and introduction are one
// setting each, named alike in site.get_settings and the public config
// document; the names they had before (title, description at the top
// level) are still taken on input, into those settings.
func TestSiteSettingsOneNameEach(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	me := primary(t, s)
	var top map[string]json.RawMessage
	if err := s.Client.Call(ctx, "site.get_settings", nil, &top); err != nil {
		t.Fatal(err)
	}
	keys := func(m map[string]json.RawMessage) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	if got, want := keys(top), []string{"allow_quotes", "authorized_fetch", "domain", "language", "publication", "robots_noai", "robots_noindex"}; !slices.Equal(got, want) {
		t.Errorf("site.get_settings has %v; want %v (the name and introduction are publication's)", got, want)
	}

	// The old top-level names land in the publication block.
	var r settingsResult
	if err := s.Client.Call(ctx, "site.update_settings", map[string]any{"title": " Old name ", "description": "Old text"}, &r); err != nil {
		t.Fatal(err)
	}
	if r.Publication.SiteName != "Old name" || r.Publication.Introduction != "Old text" {
		t.Errorf("title and description = site name %q, introduction %q; want them in publication", r.Publication.SiteName, r.Publication.Introduction)
	}
	// The new name wins over the old; an old name too long for the new
	// setting is refused under the new name.
	err := s.Client.Call(ctx, "site.update_settings", map[string]any{"title": "Old", "publication": map[string]any{"site_name": "New"}}, &r)
	if err != nil || r.Publication.SiteName != "New" {
		t.Errorf("title beside publication.site_name = %q, %v; want New", r.Publication.SiteName, err)
	}
	e := rpcErr(t, "a 51-character title", s.Client.Call(ctx, "site.update_settings", map[string]any{"title": strings.Repeat("名", 51)}, nil), -32602, "invalid", 400)
	if e.Data.Field != "publication.site_name" {
		t.Errorf("a 51-character title is refused on %q; want publication.site_name", e.Data.Field)
	}

	// The public config document has the publication's fields under the
	// same names (and whose they are; the owner's block adds the themes).
	var own map[string]json.RawMessage
	if err := json.Unmarshal(top["publication"], &own); err != nil {
		t.Fatal(err)
	}
	status, _, body, err := s.NewClient().Get(ctx, "/api/pub/personas/"+me.Username+"/config")
	var pub map[string]json.RawMessage
	if err != nil || status != 200 || json.Unmarshal(body, &pub) != nil {
		t.Fatalf("GET config = %d %s, %v", status, body, err)
	}
	delete(own, "persona_id")
	delete(own, "themes")
	delete(pub, "username")
	if got, want := keys(pub), keys(own); !slices.Equal(got, want) {
		t.Errorf("public config fields %v; want the publication's %v", got, want)
	}
	if string(pub["site_name"]) != `"New"` || string(pub["introduction"]) != `"Old text"` || string(pub["show_side_recent"]) != "5" {
		t.Errorf("public config = %s", body)
	}

	// site.info names the site for the owner's app, to anyone.
	var info struct{ Name string }
	if err := s.NewClient().Call(ctx, "site.info", nil, &info); err != nil || info.Name != "New" {
		t.Errorf("site.info name = %q, %v; want the site name", info.Name, err)
	}
	if err := s.Client.Call(ctx, "site.update_settings", map[string]any{"publication": map[string]any{"site_name": ""}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.NewClient().Call(ctx, "site.info", nil, &info); err != nil || info.Name != me.DisplayName || info.Name == "" {
		t.Errorf("site.info name without a site name = %q, %v; want the display name %q", info.Name, err, me.DisplayName)
	}
}
