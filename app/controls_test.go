package app_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/client"
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/store"
)

// TestLockdownRefusesChangesButItsOwn: under lockdown every mutating
// call answers 423 locked — alone, in a batch, with a token — while reads
// and the exempt methods (the controls, logging in and out) still work;
// a lockdown scheduled for later changes nothing yet.
func TestLockdownRefusesChangesButItsOwn(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	c := s.Client
	locked := func(err error) bool {
		var e *client.Error
		return errors.As(err, &e) && e.HTTPStatus == http.StatusLocked && e.Data.Code == "locked"
	}
	var tok struct {
		Token string `json:"token"`
	}
	if err := c.Call(ctx, "tokens.create", map[string]string{"name": "script"}, &tok); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour).UTC()
	if err := c.Call(ctx, "site.controls.set_lockdown", map[string]any{"on": true, "from": later}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "posts.create", map[string]any{"content": "before the lockdown starts"}, nil); err != nil {
		t.Errorf("a lockdown scheduled for later refused a post: %v", err)
	}
	var view struct {
		LockdownActive bool `json:"lockdown_active"`
		Lockdown       struct {
			On     bool   `json:"on"`
			Reason string `json:"reason"`
		} `json:"lockdown"`
	}
	if err := c.Call(ctx, "site.controls.set_lockdown", map[string]any{"on": true, "reason": "a post went viral"}, &view); err != nil {
		t.Fatal(err)
	}
	if !view.LockdownActive || !view.Lockdown.On || view.Lockdown.Reason != "a post went viral" {
		t.Fatalf("site.controls.set_lockdown answered %+v", view)
	}
	if err := c.Call(ctx, "posts.create", map[string]any{"content": "during"}, nil); !locked(err) {
		t.Errorf("posts.create under lockdown: %v; want 423 locked", err)
	}
	bot := s.NewClient()
	bot.Token = tok.Token
	if err := bot.Call(ctx, "personas.update", map[string]any{"display_name": "x"}, nil); !locked(err) {
		t.Errorf("a token's personas.update under lockdown: %v; want 423 locked", err)
	}
	if err := c.Call(ctx, "posts.list", map[string]any{}, nil); err != nil {
		t.Errorf("a read under lockdown: %v", err)
	}
	// A batch: each call on its own terms; the lockdown cannot be slipped
	// past by packing a change beside an exempt call.
	batch := `[{"jsonrpc":"2.0","id":1,"method":"posts.create","params":{"content":"in a batch"}},
		{"jsonrpc":"2.0","id":2,"method":"site.controls.get"},
		{"jsonrpc":"2.0","id":3,"method":"tokens.revoke","params":{"id":"x"}}]`
	status, raw, err := c.Post(ctx, "/api/mur/v1/rpc", "application/json", []byte(batch))
	if err != nil || status != http.StatusOK {
		t.Fatalf("batch: %d %v", status, err)
	}
	var resps []struct {
		ID    int             `json:"id"`
		Error *client.Error   `json:"error"`
		Res   json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(raw, &resps); err != nil || len(resps) != 3 {
		t.Fatalf("batch answer %s: %v", raw, err)
	}
	for _, r := range resps {
		switch r.ID {
		case 1, 3:
			if r.Error == nil || r.Error.Data.Code != "locked" {
				t.Errorf("batch call %d under lockdown: %s; want locked", r.ID, raw)
			}
		case 2:
			if r.Error != nil {
				t.Errorf("site.controls.get in the batch: %+v", r.Error)
			}
		}
	}
	// Logging out still works (so does logging in: both are exempt, and
	// login's argon2 is left to the auth tests); the token lifts it.
	if err := c.Call(ctx, "auth.logout", nil, nil); err != nil {
		t.Errorf("logout under lockdown: %v", err)
	}
	if err := bot.Call(ctx, "site.controls.set_lockdown", map[string]any{"on": false}, nil); err != nil {
		t.Fatal(err)
	}
	if err := bot.Call(ctx, "posts.create", map[string]any{"content": "after"}, nil); err != nil {
		t.Errorf("posts.create after the lockdown: %v", err)
	}
	if err := bot.Call(ctx, "site.controls.set_lockdown", map[string]any{"reason": "no on"}, nil); err == nil {
		t.Error("set_lockdown without on succeeded")
	}
}

// TestKillSwitchesHoldInboxAndDelivery: the inbox switch off answers
// every POST 503 with Retry-After before it is read; the delivery switch
// off leaves sending jobs in the queue, unclaimed and their attempts
// unspent, until it is on again; the other switches are stored.
func TestKillSwitchesHoldInboxAndDelivery(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	c := s.Client
	post := func() *http.Response {
		resp, err := http.Post(s.Server.URL+"/inbox", "application/activity+json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if st := post().StatusCode; st == http.StatusServiceUnavailable {
		t.Fatalf("an unsigned POST with the inbox on: %d; want a refusal of the request, not 503", st)
	}
	var view struct {
		Switches map[string]bool `json:"switches"`
	}
	if err := c.Call(ctx, "site.controls.set_switches", map[string]any{"inbox": false, "delivery": false, "comments": false}, &view); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"inbox": false, "delivery": false, "comments": false, "page_views": true, "link_previews": true, "service_worker": true}
	for k, v := range want {
		if got, ok := view.Switches[k]; !ok || got != v {
			t.Errorf("switch %s = %v (%v); want %v", k, got, ok, v)
		}
	}
	if resp := post(); resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "300" {
		t.Errorf("POST /inbox with the inbox off: %d, Retry-After %q; want 503, 300", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	job := delivery.ActivityJob(delivery.TopicSendLike, delivery.ActivityPayload{PersonaID: "none", Inbox: "https://remote.example/inbox",
		Object: "https://remote.example/notes/1", ActivityID: "https://" + s.Domain() + "/likes/1"})
	if err := s.App.Store().Update(ctx, func(tx store.Tx) error { return tx.Jobs().Enqueue(job) }); err != nil {
		t.Fatal(err)
	}
	state := func() (string, int) {
		var page struct {
			Items []struct {
				ID      string `json:"id"`
				State   string `json:"state"`
				Attempt int    `json:"attempt"`
			} `json:"items"`
		}
		if err := c.Call(ctx, "queue.list", map[string]any{"topic": delivery.TopicSendLike}, &page); err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			if it.ID == job.ID {
				return it.State, it.Attempt
			}
		}
		t.Fatalf("job %s not listed", job.ID)
		return "", 0
	}
	s.App.NewWorker("test").RunBatch(ctx, 20, 2*time.Second)
	if st, n := state(); st != "pending" || n != 0 {
		t.Errorf("a sending job with delivery off: %s after %d attempts; want pending, 0", st, n)
	}
	if err := c.Call(ctx, "site.controls.set_switches", map[string]any{"delivery": true}, nil); err != nil {
		t.Fatal(err)
	}
	s.App.NewWorker("test").RunBatch(ctx, 20, 2*time.Second)
	if st, n := state(); st == "pending" && n == 0 {
		t.Error("the sending job was not claimed with delivery on again")
	}
}

// TestRuntimePointerFollowsTheSwitches: the public runtime pointer that
// rendered pages read is the running site's controls: the reader worker
// switched off through the API is off in /api/pub/runtime at once (same
// process), and lockdown shows with a minute's caching; /sw.js is served
// at the root.
func TestRuntimePointerFollowsTheSwitches(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	reader := s.NewClient()
	runtime := func() (map[string]any, http.Header) {
		t.Helper()
		status, h, body, err := reader.Get(ctx, "/api/pub/runtime")
		if err != nil || status != http.StatusOK {
			t.Fatalf("GET /api/pub/runtime: %d %v %s", status, err, body)
		}
		var d map[string]any
		if err := json.Unmarshal(body, &d); err != nil {
			t.Fatalf("GET /api/pub/runtime: %v in %s", err, body)
		}
		return d, h
	}
	if d, h := runtime(); d["service_worker"] != true || d["lockdown"] != false || h.Get("Cache-Control") != "no-cache" {
		t.Errorf("a new site: %v, Cache-Control %q; want the worker on, no lockdown, no-cache", d, h.Get("Cache-Control"))
	}
	if err := s.Client.Call(ctx, "site.controls.set_switches", map[string]any{"service_worker": false}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Client.Call(ctx, "site.controls.set_lockdown", map[string]any{"on": true}, nil); err != nil {
		t.Fatal(err)
	}
	d, h := runtime()
	if d["service_worker"] != false || d["comments"] != true || d["lockdown"] != true {
		t.Errorf("worker switched off, lockdown on: %v; want service_worker false, comments true, lockdown true", d)
	}
	if got := h.Get("Cache-Control"); got != "public, max-age=60" {
		t.Errorf("under lockdown: Cache-Control %q; want public, max-age=60", got)
	}
	v, _ := d["version"].(string)
	status, h, body, err := reader.Get(ctx, "/sw.js")
	if err != nil || status != http.StatusOK || h.Get("Content-Type") != "text/javascript; charset=utf-8" ||
		v == "" || !strings.Contains(string(body), `"version":"`+v+`"`) {
		t.Errorf("GET /sw.js: %d %v %q; want the worker of version %q", status, err, h.Get("Content-Type"), v)
	}
}
