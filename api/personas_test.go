package api_test

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murlog/murlog/internal/testsite"
)

type personaResult struct {
	ID           string `json:"id"`
	Username     string `json:"username"`
	Acct         string `json:"acct"`
	DisplayName  string `json:"display_name"`
	Summary      string `json:"summary"`
	Fields       []struct{ Name, Value string }
	Locked       bool   `json:"locked"`
	ShowFollows  bool   `json:"show_follows"`
	Discoverable bool   `json:"discoverable"`
	Primary      bool   `json:"primary"`
	URL          string `json:"url"`
	AvatarPath   string `json:"avatar_path"`
}

func primary(t *testing.T, s *testsite.Site) personaResult {
	var l struct{ Items []personaResult }
	if err := s.NewClient().Call(ctx, "personas.list", nil, &l); err != nil || len(l.Items) != 1 {
		t.Fatalf("personas.list = %v, %v", l, err)
	}
	return l.Items[0]
}

func TestPersonas(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	p := primary(t, s)
	if p.URL != "http://"+s.Domain()+"/@alice" || p.Acct != "alice@"+s.Domain() || !p.Primary {
		t.Errorf("persona = %+v; want its public url and acct", p)
	}
	var got map[string]any
	s.NewClient().Call(ctx, "personas.get", map[string]string{"id": p.ID}, &got)
	if got["private_key_pem"] != nil || !strings.Contains(got["public_key_pem"].(string), "BEGIN PUBLIC KEY") {
		t.Errorf("personas.get exposes %v; want the public key only", got)
	}
	// An avatar names an image in the media directory (media/).
	rpcErr(t, "avatar with no file", s.Client.Call(ctx, "personas.update", map[string]any{"id": p.ID, "avatar_path": "avatars/a.png"}, nil), -32602, "invalid", 400)
	writePNG(t, filepath.Join(s.Dir, "media", "avatars", "a.png"))
	var u personaResult
	err := s.Client.Call(ctx, "personas.update", map[string]any{"id": p.ID, "display_name": "Alice A.", "summary": "bio",
		"locked": true, "fields": []map[string]string{{"name": "Web", "value": "https://a.example"}, {"name": "場所", "value": "東京"}},
		"avatar_path": "avatars/a.png"}, &u)
	if err != nil {
		t.Fatal(err)
	}
	if u.DisplayName != "Alice A." || !u.Locked || len(u.Fields) != 2 || u.Fields[1].Name != "場所" || u.AvatarPath != "avatars/a.png" || !u.ShowFollows {
		t.Errorf("after update: %+v", u)
	}
	five := []map[string]string{{"name": "1"}, {"name": "2"}, {"name": "3"}, {"name": "4"}, {"name": "5"}}
	for _, tc := range []struct {
		name   string
		params map[string]any
	}{
		{"five fields", map[string]any{"id": p.ID, "fields": five}},
		{"field without name", map[string]any{"id": p.ID, "fields": []map[string]string{{"value": "x"}}}},
		{"long display name", map[string]any{"id": p.ID, "display_name": strings.Repeat("n", 101)}},
		{"escaping media path", map[string]any{"id": p.ID, "avatar_path": "../murlog.ini"}},
		{"bad id", map[string]any{"id": "x"}},
	} {
		rpcErr(t, tc.name, s.Client.Call(ctx, "personas.update", tc.params, nil), -32602, "invalid", 400)
	}
	if after := primary(t, s); after.DisplayName != "Alice A." || len(after.Fields) != 2 {
		t.Errorf("a refused update changed the persona: %+v", after)
	}
	rpcErr(t, "unknown persona", s.Client.Call(ctx, "personas.get", map[string]string{"id": "01900000-0000-7000-8000-000000000000"}, nil), -32001, "not_found", 404)
}

func TestSiteSettings(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	var st map[string]any
	if err := s.Client.Call(ctx, "site.get_settings", nil, &st); err != nil {
		t.Fatal(err)
	}
	if st["domain"] != s.Domain() || st["robots_noai"] != true || st["robots_noindex"] != false {
		t.Errorf("defaults = %v", st)
	}
	err := s.Client.Call(ctx, "site.update_settings", map[string]any{"robots_noindex": true, "language": "ja"}, &st)
	if err != nil || st["robots_noindex"] != true || st["language"] != "ja" {
		t.Errorf("update = %v, %v", st, err)
	}
	rpcErr(t, "bad language", s.Client.Call(ctx, "site.update_settings", map[string]any{"language": "123"}, nil), -32602, "invalid", 400)
	rpcErr(t, "domain is read-only", s.Client.Call(ctx, "site.update_settings", map[string]any{"domain": "evil.example"}, nil), -32602, "invalid", 400)
	s.Client.Call(ctx, "site.get_settings", nil, &st)
	if st["domain"] != s.Domain() || st["language"] != "ja" {
		t.Errorf("after refused updates: %v", st)
	}
}

// writePNG writes a 1×1 PNG at path.
func writePNG(t *testing.T, path string) {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
