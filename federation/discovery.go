package federation

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/internal/xmltext"
)

// Link relations of the discovery documents.
const (
	relProfilePage = "http://webfinger.net/rel/profile-page"
	relSubscribe   = "http://ostatus.org/schema/1.0/subscribe"
	relLRDD        = "lrdd"
	nodeinfoSchema = "http://nodeinfo.diaspora.software/ns/schema/"
)

// SubscribePath is where the WebFinger subscribe template points: the
// remote-follow ("authorize interaction") page, at the path Mastodon uses
// so that servers building the link themselves agree. The page is served
// by the public site (a later issue).
const SubscribePath = "/authorize_interaction"

type jrd struct {
	Subject string    `json:"subject,omitempty"`
	Aliases []string  `json:"aliases,omitempty"`
	Links   []jrdLink `json:"links"`
}

type jrdLink struct {
	Rel      string `json:"rel"`
	Type     string `json:"type,omitempty"`
	Href     string `json:"href,omitempty"`
	Template string `json:"template,omitempty"`
}

func webfingerJRD(site murlog.Site, p *murlog.Persona) jrd {
	actor := site.ActorURL(p.Username)
	return jrd{
		Subject: "acct:" + p.Username + "@" + site.Domain,
		Aliases: []string{actor},
		Links: []jrdLink{
			{Rel: relProfilePage, Type: "text/html", Href: site.PersonaURL(p.Username)},
			{Rel: "self", Type: activitypub.MediaType, Href: actor},
			{Rel: relSubscribe, Template: site.Base() + SubscribePath + "?uri={uri}"},
		},
	}
}

// webfinger answers RFC 7033 lookups for acct:user@domain (also without
// the scheme, and with a leading "@"), and for the actor/profile URL.
// Usernames match in any case; the domain must be this site's.
func (h *Handler) webfinger(w http.ResponseWriter, r *http.Request) {
	w.Header()["Access-Control-Allow-Origin"] = h.hdr.anyOrigin
	s, err := h.snapshot(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	res := queryParam(r.URL.RawQuery, "resource")
	pd := s.byResource[res]
	if pd == nil {
		if pd, err = s.resolve(h.d.Site, res); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	writeDoc(w, h.hdr.jrd, "max-age=259200, public", pd.jrd)
}

// queryParam is the first value of key in a raw query, decoded, without
// building the whole url.Values map.
func queryParam(raw, key string) string {
	for kv := range strings.SplitSeq(raw, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if k != key {
			continue
		}
		if d, err := url.QueryUnescape(v); err == nil {
			return d
		}
		return ""
	}
	return ""
}

// resolve finds the persona a WebFinger resource names.
func (s *snapshot) resolve(site murlog.Site, res string) (*personaDoc, error) {
	res = strings.TrimSpace(res)
	if res == "" {
		return nil, murlog.Invalid("resource", "is required")
	}
	var user, host string
	switch lower := strings.ToLower(res); {
	case strings.HasPrefix(lower, "http://"), strings.HasPrefix(lower, "https://"):
		u, err := url.Parse(res)
		if err != nil || u.Host == "" {
			return nil, murlog.Invalid("resource", "is not a valid URL")
		}
		name, ok := strings.CutPrefix(u.Path, "/@")
		if !ok || name == "" || strings.Contains(name, "/") {
			return nil, murlog.NotFound("account")
		}
		user, host = name, u.Host
	default:
		acct := res
		if len(lower) > 5 && lower[:5] == "acct:" {
			acct = res[5:]
		} else if strings.Contains(lower, ":") && !strings.Contains(lower, "@") {
			return nil, murlog.Invalid("resource", "must be acct:user@domain or a profile URL")
		}
		acct = strings.TrimPrefix(acct, "@")
		i := strings.LastIndexByte(acct, '@')
		if i <= 0 || i == len(acct)-1 {
			return nil, murlog.Invalid("resource", "must be acct:user@domain or a profile URL")
		}
		user, host = acct[:i], acct[i+1:]
	}
	if !strings.EqualFold(host, site.Domain) {
		return nil, murlog.NotFound("account")
	}
	pd := s.byName[strings.ToLower(user)]
	if pd == nil {
		return nil, murlog.NotFound("account")
	}
	return pd, nil
}

// hostMeta renders the XRD (RFC 6415) and its JRD twin, which point
// WebFinger clients that start from host-meta at the lrdd template.
func hostMeta(site murlog.Site) (xml, jrdJSON []byte) {
	tmpl := site.Base() + "/.well-known/webfinger?resource={uri}"
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">` + "\n")
	b.WriteString(`  <Link rel="lrdd" template="`)
	xmltext.Escape(&b, tmpl)
	b.WriteString(`"/>` + "\n</XRD>\n")
	j, _ := activitypub.Marshal(jrd{Links: []jrdLink{{Rel: relLRDD, Template: tmpl}}}) // strings only
	return []byte(b.String()), j
}

// hostMeta serves XML, or JSON for host-meta.json or an Accept asking
// for JSON (and not XML first).
func (h *Handler) hostMeta(w http.ResponseWriter, r *http.Request) {
	w.Header()["Access-Control-Allow-Origin"] = h.hdr.anyOrigin
	w.Header()["Vary"] = h.hdr.vary
	s, err := h.snapshot(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	accept := r.Header.Get("Accept")
	if strings.HasSuffix(r.URL.Path, ".json") || strings.Contains(accept, "json") && !strings.Contains(accept, "xml") {
		writeDoc(w, h.hdr.jrd, "max-age=259200, public", s.hostMetaJRD)
		return
	}
	writeDoc(w, []string{"application/xrd+xml; charset=utf-8"}, "max-age=259200, public", s.hostMetaXML)
}

func nodeinfoLinks(site murlog.Site) jrd {
	return jrd{Links: []jrdLink{
		{Rel: nodeinfoSchema + "2.0", Href: site.Base() + "/nodeinfo/2.0"},
		{Rel: nodeinfoSchema + "2.1", Href: site.Base() + "/nodeinfo/2.1"},
	}}
}

func (h *Handler) nodeinfoLinks(w http.ResponseWriter, r *http.Request) {
	w.Header()["Access-Control-Allow-Origin"] = h.hdr.anyOrigin
	s, err := h.snapshot(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeDoc(w, []string{"application/json"}, "max-age=1800, public", s.nodeinfoLinks)
}

// nodeInfo is the NodeInfo 2.0 / 2.1 document.
type nodeInfo struct {
	Version           string         `json:"version"`
	Software          nodeSoftware   `json:"software"`
	Protocols         []string       `json:"protocols"`
	Services          nodeServices   `json:"services"`
	OpenRegistrations bool           `json:"openRegistrations"`
	Usage             nodeUsage      `json:"usage"`
	Metadata          map[string]any `json:"metadata"`
}

type nodeSoftware struct {
	Name       string `json:"name"`
	Version    string `json:"version"`
	Repository string `json:"repository,omitempty"` // 2.1
	Homepage   string `json:"homepage,omitempty"`   // 2.1
}

type nodeServices struct {
	Inbound  []string `json:"inbound"`
	Outbound []string `json:"outbound"`
}

type nodeUsage struct {
	Users      nodeUsers `json:"users"`
	LocalPosts int       `json:"localPosts"`
}

type nodeUsers struct {
	Total          int `json:"total"`
	ActiveMonth    int `json:"activeMonth"`
	ActiveHalfyear int `json:"activeHalfyear"`
}

// instanceV1 is the part of Mastodon's GET /api/v1/instance that servers
// and crawlers read to tell what they talk to: Mastodon client apps probe
// it on login and parse "version" for features, and directories
// (instances.social and the crawlers behind fediverse statistics) read
// uri, title and stats. The version says Mastodon 4.0.0 compatibility, in
// the "(compatible; software version)" form Pleroma and Akkoma use, so
// version parsers get a number and people the real name.
type instanceV1 struct {
	URI              string         `json:"uri"`
	Title            string         `json:"title"`
	ShortDescription string         `json:"short_description"`
	Description      string         `json:"description"`
	Email            string         `json:"email"`
	Version          string         `json:"version"`
	URLs             map[string]any `json:"urls"`
	Stats            instanceStats  `json:"stats"`
	Languages        []string       `json:"languages"`
	Registrations    bool           `json:"registrations"`
	ApprovalRequired bool           `json:"approval_required"`
	InvitesEnabled   bool           `json:"invites_enabled"`
}

type instanceStats struct {
	UserCount   int `json:"user_count"`
	StatusCount int `json:"status_count"`
	DomainCount int `json:"domain_count"`
}

// render builds NodeInfo and the instance document from the counts.
func (st *stats) render(site murlog.Site, s *snapshot) error {
	users := len(s.personas)
	st.nodeinfo = map[string][]byte{}
	for _, v := range []string{"2.0", "2.1"} {
		ni := nodeInfo{Version: v, Software: nodeSoftware{Name: "murlog", Version: murlog.Version},
			Protocols: []string{"activitypub"}, Services: nodeServices{Inbound: []string{}, Outbound: []string{}},
			Usage:    nodeUsage{Users: nodeUsers{Total: users, ActiveMonth: users, ActiveHalfyear: users}, LocalPosts: st.posts},
			Metadata: map[string]any{"nodeName": s.title(site), "nodeDescription": s.about}}
		if v == "2.1" {
			ni.Software.Repository = "https://github.com/murlog/murlog"
			ni.Software.Homepage = "https://github.com/murlog/murlog"
		}
		b, err := activitypub.Marshal(ni)
		if err != nil {
			return err
		}
		st.nodeinfo[v] = b
	}
	langs := []string{}
	if s.site.Language != "" {
		langs = append(langs, s.site.Language)
	}
	var err error
	st.instance, err = activitypub.Marshal(instanceV1{URI: site.Domain, Title: s.title(site), ShortDescription: s.about,
		Description: s.about, Version: "4.0.0 (compatible; murlog " + murlog.Version + ")", URLs: map[string]any{},
		Stats: instanceStats{UserCount: users, StatusCount: st.posts}, Languages: langs})
	return err
}

// title is the site's name (siteconfig.Name of the primary persona), the
// domain before there is one.
func (s *snapshot) title(site murlog.Site) string {
	if s.name != "" {
		return s.name
	}
	return site.Domain
}

func (h *Handler) nodeinfo(w http.ResponseWriter, r *http.Request) {
	w.Header()["Access-Control-Allow-Origin"] = h.hdr.anyOrigin
	v := r.PathValue("version")
	if v != "2.0" && v != "2.1" {
		h.notFound(w, r)
		return
	}
	_, st, err := h.stats(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ct := `application/json; profile="` + nodeinfoSchema + v + `#"`
	writeDoc(w, []string{ct}, "max-age=1800, public", st.nodeinfo[v])
}

func (h *Handler) instance(w http.ResponseWriter, r *http.Request) {
	w.Header()["Access-Control-Allow-Origin"] = h.hdr.anyOrigin
	_, st, err := h.stats(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeDoc(w, []string{"application/json; charset=utf-8"}, "max-age=180, public", st.instance)
}
