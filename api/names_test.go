package api_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/murlog/murlog/internal/testsite"
)

// TestInvisibleNamesAreRefused: every name the owner sets through the
// API — a persona's display name and profile field names, the site's
// name (also under its old name, title), its publication name and author, an API token's name — refuses
// a name that shows as nothing or as another (murlog.CheckName), and
// takes an emoji ZWJ sequence or Japanese.
func TestInvisibleNamesAreRefused(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	pid := primary(t, s).ID
	q := func(v string) string { b, _ := json.Marshal(v); return string(b) }
	for _, tc := range []struct {
		what, method, field string
		params              func(name string) string
	}{
		{"display name", "personas.update", "display_name", func(n string) string { return `{"id":"` + pid + `","display_name":` + q(n) + `}` }},
		{"profile field name", "personas.update", "fields", func(n string) string {
			return `{"id":"` + pid + `","fields":[{"name":` + q(n) + `,"value":"v"}]}`
		}},
		// title is site_name's old name, still read for a release.
		{"site title (old name)", "site.update_settings", "site_name", func(n string) string { return `{"title":` + q(n) + `}` }},
		{"site name", "site.update_settings", "site_name", func(n string) string { return `{"publication":{"site_name":` + q(n) + `}}` }},
		{"author", "site.update_settings", "author", func(n string) string { return `{"publication":{"author":` + q(n) + `}}` }},
		{"token name", "tokens.create", "name", func(n string) string { return `{"name":` + q(n) + `}` }},
	} {
		t.Run(tc.what, func(t *testing.T) {
			for _, bad := range []string{"\u3164", "\u200d", "\u00ad", "\u2800", "alice\u200b", "al\u00adice", "\ufeffalice"} {
				status, _, v := raw(t, s, s.Client, "application/json",
					`{"jsonrpc":"2.0","method":"`+tc.method+`","params":`+tc.params(bad)+`,"id":1}`)
				msg, _ := field(v, "error", "message").(string)
				if status != 400 || field(v, "error", "data", "code") != "invalid" || !strings.HasSuffix(fmt.Sprint(field(v, "error", "data", "field")), tc.field) ||
					!strings.Contains(msg, "visible") {
					t.Errorf("%s %+q = HTTP %d %v; want 400 invalid on %s saying what is invisible", tc.method, bad, status, field(v, "error"), tc.field)
				}
			}
			for _, good := range []string{"👨\u200d👩\u200d👧", "山田太郎"} {
				if err := s.Client.Call(ctx, tc.method, json.RawMessage(tc.params(good)), nil); err != nil {
					t.Errorf("%s %q: %v; want accepted", tc.method, good, err)
				}
			}
		})
	}
}
