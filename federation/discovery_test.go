package federation

import (
	"encoding/xml"
	"testing"

	"github.com/murlog/murlog"
)

// TestHostMetaIsXMLWhateverTheDomain: host-meta's template goes through
// the one XML escaper (internal/xmltext), so even a domain holding what
// XML cannot carry gives a well-formed document.
func TestHostMetaIsXMLWhateverTheDomain(t *testing.T) {
	t.Parallel()
	for _, domain := range []string{"blog.example", `a&b<c>"d'`, "ctl\x01\x1f\x7f", "bad\xffutf8", "\ufffe"} {
		doc, _ := hostMeta(murlog.Site{Scheme: "https", Domain: domain})
		var x struct {
			Link struct {
				Rel      string `xml:"rel,attr"`
				Template string `xml:"template,attr"`
			}
		}
		if err := xml.Unmarshal(doc, &x); err != nil {
			t.Errorf("host-meta for domain %q is not XML: %v\n%s", domain, err, doc)
			continue
		}
		if x.Link.Rel != "lrdd" || x.Link.Template == "" {
			t.Errorf("host-meta for domain %q: link %+v; want the lrdd template", domain, x.Link)
		}
	}
}
