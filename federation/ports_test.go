package federation_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/internal/testsite"
)

// The consumer ports below are implemented by the store and the
// signature verifier in other packages; until they land these small
// in-memory versions stand in for them, over the site's real database.

type tombstones map[string]time.Time

func (t tombstones) Tombstone(_ context.Context, id string) (time.Time, bool, error) {
	at, ok := t[id]
	return at, ok, nil
}

// follows holds follower and following ids in order; the cursor is the
// last id of the previous page.
type follows struct{ followers, following []string }

func page(all []string, after string, limit int) ([]string, string, error) {
	i := 0
	if after != "" {
		i = slices.Index(all, after) + 1
	}
	end := min(i+limit, len(all))
	next := ""
	if end < len(all) {
		next = all[end-1]
	}
	return all[i:end], next, nil
}

func (f *follows) FollowerURIs(_ context.Context, _, after string, limit int) ([]string, string, error) {
	return page(f.followers, after, limit)
}

func (f *follows) FollowingURIs(_ context.Context, _, after string, limit int) ([]string, string, error) {
	return page(f.following, after, limit)
}

func (f *follows) IsFollower(_ context.Context, _, actor string) (bool, error) {
	return slices.Contains(f.followers, actor), nil
}

type pins []string

func (p pins) PinnedPostIDs(context.Context, string) ([]string, error) { return p, nil }

// signatures stands in for the HTTP signature verifier: the keyId of a
// Signature header names the signer; keyId "bad" is a forged signature.
type signatures struct{}

func (signatures) Requester(r *http.Request) (string, error) {
	sig := r.Header.Get("Signature")
	_, rest, _ := strings.Cut(sig, `keyId="`)
	key, _, _ := strings.Cut(rest, `"`)
	if key == "bad" || key == "" {
		return "", murlog.Errorf(murlog.EUnauthorized, "signature does not verify")
	}
	actor, _, _ := strings.Cut(key, "#")
	return actor, nil
}

func signedBy(actor string) []string {
	return []string{"Signature", `keyId="` + actor + `#main-key",signature="x"`}
}

// portSite serves a federation.Handler with every port wired over a real
// test site's database.
func portSite(t *testing.T, d federation.Deps) (*testsite.Site, string, *federation.Handler) {
	t.Helper()
	s := testsite.New(t)
	d.Site = murlog.Site{Scheme: "http", Domain: s.Domain()}
	d.Store = s.App.Store()
	h := federation.New(d)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return s, srv.URL, h
}

func TestTombstone(t *testing.T) {
	t.Parallel()
	deleted := murlog.NewID()
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s, base, _ := portSite(t, federation.Deps{Tombstones: tombstones{deleted: at}})
	r := get(t, base, "/@alice/"+deleted, apAccept)
	wantStatus(t, r, http.StatusGone, "deleted post")
	wantHeader(t, r, "Content-Type", "application/activity+json", "tombstone")
	ts := r.json(t)
	if str(ts, "type") != "Tombstone" || str(ts, "id") != "http://"+s.Domain()+"/@alice/"+deleted || str(ts, "deleted") != "2026-11-30T12:00:00Z" {
		t.Errorf("tombstone = %s", r.body)
	}
	wantStatus(t, get(t, base, "/@alice/"+murlog.NewID(), apAccept), 404, "never existed")
}

func TestFollowersOnlyPost(t *testing.T) {
	t.Parallel()
	const follower, stranger = "https://remote.example/users/f", "https://remote.example/users/s"
	s, base, _ := portSite(t, federation.Deps{Requester: signatures{}, FollowerCheck: &follows{followers: []string{follower}}})
	p := createPost(t, s, map[string]any{"visibility": "followers"})
	d := createPost(t, s, map[string]any{"visibility": "direct"})
	path := "/@alice/" + p.ID
	wantStatus(t, get(t, base, path, apAccept), 404, "followers-only, unsigned")
	wantStatus(t, get(t, base, path, apAccept, signedBy(stranger)...), 404, "followers-only, signed by a stranger")
	wantStatus(t, get(t, base, path, apAccept, "Signature", `keyId="bad"`), 404, "followers-only, forged signature")
	r := get(t, base, path, apAccept, signedBy(follower)...)
	wantStatus(t, r, 200, "followers-only, signed by a follower")
	wantHeader(t, r, "Cache-Control", "private", "followers-only")
	n := r.json(t)
	followers := "http://" + s.Domain() + "/@alice/followers"
	assertAddressed(t, "followers-only", n, []string{followers}, nil)
	if ip, _ := n["interactionPolicy"].(map[string]any); ip == nil {
		t.Error("followers-only note has no interactionPolicy")
	}
	wantStatus(t, get(t, base, "/@alice/"+d.ID, apAccept, signedBy(follower)...), 404, "direct, signed by a follower")
}

func TestSignedAuthorizedFetch(t *testing.T) {
	t.Parallel()
	s, base, h := portSite(t, federation.Deps{Requester: signatures{}})
	setSetting(t, s, federation.SettingAuthorizedFetch, "1")
	h.Invalidate()
	pub := createPost(t, s, nil)
	path := "/@alice/" + pub.ID
	wantStatus(t, get(t, base, path, apAccept), 401, "unsigned")
	wantStatus(t, get(t, base, path, apAccept, "Signature", `keyId="bad"`), 401, "forged")
	wantStatus(t, get(t, base, path, apAccept, signedBy("https://remote.example/users/x")...), 200, "signed")
	r := get(t, base, "/@alice", apAccept, signedBy("https://remote.example/users/x")...)
	if _, ok := r.json(t)["featured"]; !ok {
		t.Errorf("signed actor fetch under authorized fetch = %s; want the full actor", r.body)
	}
	// Off: a forged signature is ignored and public documents are served.
	setSetting(t, s, federation.SettingAuthorizedFetch, "0")
	h.Invalidate()
	wantStatus(t, get(t, base, path, apAccept, "Signature", `keyId="bad"`), 200, "forged, authorized fetch off")
}

func TestFollowersPaging(t *testing.T) {
	t.Parallel()
	f := &follows{}
	for i := 0; i < federation.PageSize+3; i++ {
		f.followers = append(f.followers, "https://r"+string(rune('a'+i))+".example/users/u")
	}
	f.following = f.followers[:2]
	_, base, _ := portSite(t, federation.Deps{Followers: f})
	p1 := get(t, base, "/@alice/followers?page=true", apAccept).json(t)
	items, _ := p1["orderedItems"].([]any)
	if len(items) != federation.PageSize || str(p1, "next") == "" || str(p1, "partOf") == "" {
		t.Fatalf("followers page 1 = %v; want %d items and a next page", p1, federation.PageSize)
	}
	next, _ := url.Parse(str(p1, "next"))
	p2 := get(t, base, next.RequestURI(), apAccept).json(t)
	items2, _ := p2["orderedItems"].([]any)
	if len(items2) != 3 || items2[0] != f.followers[federation.PageSize] {
		t.Errorf("followers page 2 = %v; want the last 3", p2)
	}
	if _, ok := p2["next"]; ok {
		t.Errorf("followers page 2 next = %v; want none", p2["next"])
	}
	fo := get(t, base, "/@alice/following?page=true", apAccept).json(t)
	if items, _ := fo["orderedItems"].([]any); len(items) != 2 {
		t.Errorf("following page = %v; want 2 items", fo)
	}
	if _, ok := fo["next"]; ok {
		t.Errorf("following page next = %v; want none", fo["next"])
	}
}

func TestFeatured(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	a := createPost(t, s, map[string]any{"content": "pinned one"})
	b := createPost(t, s, map[string]any{"content": "pinned draft", "published_at": nil})
	c := createPost(t, s, map[string]any{"content": "pinned private", "visibility": "followers"})
	h := federation.New(federation.Deps{Site: murlog.Site{Scheme: "http", Domain: s.Domain()}, Store: s.App.Store(),
		Pins: pins{a.ID, b.ID, c.ID, murlog.NewID()}})
	srv := httptest.NewServer(h)
	defer srv.Close()
	f := get(t, srv.URL, "/@alice/featured", apAccept).json(t)
	items, _ := f["orderedItems"].([]any)
	if len(items) != 1 || f["totalItems"] != 1.0 {
		t.Fatalf("featured = %v; want the one public pin", f)
	}
	if n := items[0].(map[string]any); str(n, "type") != "Note" || !strings.HasSuffix(str(n, "id"), a.ID) {
		t.Errorf("featured item = %v; want the Note %s", n, a.ID)
	}
}

// TestOneShotSkipsTheCache: under CGI each request reads the database.
func TestOneShotSkipsTheCache(t *testing.T) {
	t.Parallel()
	s, base, _ := portSite(t, federation.Deps{OneShot: true})
	get(t, base, "/@alice", apAccept)
	s.Rename(t, "Fresh")
	if n := str(get(t, base, "/@alice", apAccept).json(t), "name"); n != "Fresh" {
		t.Errorf("one-shot name = %q; want the database's Fresh at once", n)
	}
}

// countingRequester counts verifications.
type countingRequester struct{ n atomic.Int64 }

func (c *countingRequester) Requester(*http.Request) (string, error) {
	c.n.Add(1)
	return "https://remote.example/users/x", nil
}

// TestNoVerificationForPublicDocuments: with authorized fetch off a
// signed GET of a public document costs no signature check.
func TestNoVerificationForPublicDocuments(t *testing.T) {
	t.Parallel()
	req := &countingRequester{}
	s, base, _ := portSite(t, federation.Deps{Requester: req})
	pub := createPost(t, s, nil)
	for _, p := range []string{"/@alice", "/@alice/main-key", "/@alice/" + pub.ID, "/@alice/outbox?page=true", "/@alice/followers"} {
		wantStatus(t, get(t, base, p, apAccept, signedBy("https://remote.example/users/x")...), 200, p)
	}
	if n := req.n.Load(); n != 0 {
		t.Errorf("%d signature verifications for public documents; want 0", n)
	}
}
