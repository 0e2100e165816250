package mediadir_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/murlog/murlog/internal/testsite"
)

var ctx = context.Background()

func fetch(t *testing.T, url, accept string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// mediaURLs are the /media/ URLs the actor document and the profile
// page (its <img>, og:image and JSON-LD) point at.
func mediaURLs(t *testing.T, s *testsite.Site) (actor map[string]string, page []string) {
	t.Helper()
	_, _, b := fetch(t, s.Server.URL+"/@alice", "application/activity+json")
	var a map[string]any
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("actor: %v\n%s", err, b)
	}
	actor = map[string]string{}
	for _, k := range []string{"icon", "image"} {
		if m, ok := a[k].(map[string]any); ok {
			actor[k], _ = m["url"].(string)
		}
	}
	st, _, html := fetch(t, s.Server.URL+"/@alice", "text/html")
	if st != 200 {
		t.Fatalf("profile page: %d", st)
	}
	page = regexp.MustCompile(`https?://[^"'\s<>]*/media/[^"'\s<>]*`).FindAllString(string(html), -1)
	return actor, page
}

// With no file behind it, an avatar cannot be set, and nothing points at
// /media/; with the file in the media directory, the actor's icon, the
// page's avatar, og:image and JSON-LD, and the owner's app's URL all
// answer 200 with the image.
func TestAvatarURLsAnswerTheImage(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	var ps struct {
		Items []struct{ ID string } `json:"items"`
	}
	if err := s.Client.Call(ctx, "personas.list", nil, &ps); err != nil || len(ps.Items) == 0 {
		t.Fatalf("personas.list: %v %v", ps, err)
	}
	id := ps.Items[0].ID
	update := func(params map[string]any) error {
		params["id"] = id
		return s.Client.Call(ctx, "personas.update", params, nil)
	}
	err := update(map[string]any{"avatar_path": "avatars/a.png", "header_path": "headers/h.png"})
	if err == nil || !strings.Contains(err.Error(), "avatar_path") || !strings.Contains(err.Error(), "no image in the media directory") {
		t.Fatalf("personas.update with no such file: %v; want invalid naming avatar_path", err)
	}
	actor, page := mediaURLs(t, s)
	if len(actor) != 0 || len(page) != 0 {
		t.Errorf("no file: actor points at %v, page at %v; want nothing under /media/", actor, page)
	}

	img := PNG(t)
	dir := filepath.Join(s.Dir, "media")
	for _, ref := range []string{"avatars/a.png", "headers/h.png"} {
		write(t, dir, ref, img)
	}
	if err := update(map[string]any{"avatar_path": "avatars/a.png", "header_path": "headers/h.png"}); err != nil {
		t.Fatalf("personas.update with the files there: %v", err)
	}
	actor, page = mediaURLs(t, s)
	if actor["icon"] != s.Server.URL+"/media/avatars/a.png" || actor["image"] != s.Server.URL+"/media/headers/h.png" {
		t.Errorf("actor icon, image = %v; want both under /media/", actor)
	}
	if len(page) == 0 {
		t.Error("the profile page shows no avatar")
	}
	// The owner's app shows /media/<avatar_path> (web/spa/src/social/persona.ts).
	urls := append([]string{actor["icon"], actor["image"], s.Server.URL + "/media/avatars/a.png"}, page...)
	for _, u := range urls {
		st, h, b := fetch(t, u, "image/*")
		if st != 200 || h.Get("Content-Type") != "image/png" || string(b) != string(img) {
			t.Errorf("GET %s: %d %s (%d bytes); want 200 and the image", u, st, h.Get("Content-Type"), len(b))
		}
	}
	if err := os.Remove(filepath.Join(dir, "avatars", "a.png")); err != nil {
		t.Fatal(err)
	}
	if st, _, _ := fetch(t, s.Server.URL+"/media/avatars/a.png", "image/*"); st != 404 {
		t.Errorf("GET a removed image: %d; want 404", st)
	}
}
