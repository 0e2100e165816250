package app_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/app"
	"github.com/murlog/murlog/artifact"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/store"
)

// TestArtifactsCommands: `murlog artifacts rebuild --all` renders the
// site into artifact_dir, `check` finds a damaged file and renders it
// again, `purge` removes every derived file — and the site answers the
// same after each, rendering what is gone.
func TestArtifactsCommands(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	var p struct {
		ID string `json:"id"`
	}
	if err := s.Client.Call(ctx, "posts.create", map[string]any{"content": "made by hand #cli"}, &p); err != nil {
		t.Fatal(err)
	}
	o := app.Options{ConfigPath: filepath.Join(s.Dir, "murlog.ini"), Getenv: func(k string) string { return s.Env[k] },
		Logger: testsite.Discard(), KeyPair: testsite.KeyPair}
	var last [2]int
	rep, err := app.RunArtifacts(ctx, o, app.ArtifactsRequest{Command: "rebuild", All: true,
		Progress: func(done, total int) { last = [2]int{done, total} }})
	if err != nil || rep.Rendered < 15 || rep.Failed != 0 {
		t.Fatalf("rebuild --all = %+v, %v; want the site's documents rendered", rep, err)
	}
	if last[0] != last[1] || last[1] < rep.Rendered {
		t.Errorf("the last progress was %d/%d; want all of %d done", last[0], last[1], rep.Rendered)
	}
	page := filepath.Join(rep.Dir, "html", "@alice", p.ID, "index.html")
	if err := os.WriteFile(page, []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = app.RunArtifacts(ctx, o, app.ArtifactsRequest{Command: "check"})
	if err != nil || rep.Corrupt != 1 || rep.Checked < 15 {
		t.Fatalf("check = %+v, %v; want the one damaged page found", rep, err)
	}
	_, st := s.App.Artifacts()
	if err := artifact.Verify(ctx, st, artifact.MustParseKey("html/@alice/"+p.ID+"/index.html")); err != nil {
		t.Errorf("after check the page is still damaged: %v", err)
	}
	rep, err = app.RunArtifacts(ctx, o, app.ArtifactsRequest{Command: "purge"})
	if err != nil || rep.Removed < 15 {
		t.Fatalf("purge = %+v, %v", rep, err)
	}
	left := 0
	st.List(ctx, "", func(artifact.Key) error { left++; return nil })
	if left != 0 {
		t.Errorf("after purge %d artifacts are left", left)
	}
	resp, err := http.Get(s.Server.URL + "/@alice/" + p.ID)
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("the post page after purge: %v, %v; want it rendered again", resp, err)
	}
	if _, err := app.RunArtifacts(ctx, o, app.ArtifactsRequest{Command: "rebuild", Post: "no-such-post"}); err == nil {
		t.Error("rebuild --post of an unknown id succeeded")
	}
}

// TestRepublishUnderLockdown: the owner sees the rebuild's progress and
// may republish everything, lockdown or not (derived files only).
func TestRepublishUnderLockdown(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	if err := s.Client.Call(ctx, "site.controls.set_lockdown", map[string]any{"on": true}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Client.Call(ctx, "posts.create", map[string]any{"content": "refused"}, nil); err == nil {
		t.Fatal("posts.create under lockdown succeeded")
	}
	var st struct {
		Pending    int  `json:"pending"`
		Rebuilding bool `json:"rebuilding"`
	}
	if err := s.Client.Call(ctx, "site.artifacts.rebuild", nil, &st); err != nil {
		t.Fatalf("site.artifacts.rebuild under lockdown: %v", err)
	}
	if st.Pending < 1 || !st.Rebuilding {
		t.Errorf("after republishing: %+v; want the site-wide mark pending", st)
	}
	if _, err := s.App.NewWorker("test").RunBatch(ctx, 50, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	for range 5 { // the site-wide mark becomes a mark per artifact, then none
		if err := s.Client.Call(ctx, "site.artifacts.status", nil, &st); err != nil {
			t.Fatal(err)
		}
		if st.Pending == 0 {
			break
		}
		s.App.NewWorker("test").RunBatch(ctx, 50, 10*time.Second)
	}
	if st.Pending != 0 || st.Rebuilding {
		t.Errorf("after the worker ran: %+v; want nothing pending", st)
	}
}

// TestUpgradeRendersEverythingAgain: artifacts made by another murlog
// (its stamp differs) are all marked when a new one starts.
func TestUpgradeRendersEverythingAgain(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	if resp, err := http.Get(s.Server.URL + "/@alice"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /@alice: %v, %v", resp, err)
	}
	_, st := s.App.Artifacts()
	if _, err := st.Put(ctx, artifact.MustParseKey("misc/stamp.txt"), "text/plain", []byte("murlog 0.9.0 old\n")); err != nil {
		t.Fatal(err)
	}
	drain := func() {
		s.App.Store().Update(ctx, func(tx store.Tx) error {
			ks, err := tx.DirtyKeys().Newest(store.MaxMarkKeys, time.Time{})
			if err == nil {
				_, err = tx.DirtyKeys().Clear(ks...)
			}
			return err
		})
	}
	drain()
	s.Restart(t)
	var marks []string
	s.App.Store().View(ctx, func(tx store.Tx) error {
		ks, err := tx.DirtyKeys().Newest(10, time.Time{})
		for _, k := range ks {
			marks = append(marks, k.Key)
		}
		return err
	})
	if len(marks) != 1 || marks[0] != "site" {
		t.Errorf("after an upgrade the marks are %v; want site", marks)
	}
	drain()
	s.Restart(t) // the same murlog again: nothing to do
	n := 0
	s.App.Store().View(ctx, func(tx store.Tx) (err error) { n, err = tx.DirtyKeys().Count(); return })
	if n != 0 {
		t.Errorf("a restart of the same murlog marked %d; want none", n)
	}
}

// TestUnusableArtifactFolder: a folder murlog cannot use (here a file
// stands where it should be) leaves the site rendering every read, and
// the owner reads why in site.artifacts.status, not only in the log.
func TestUnusableArtifactFolder(t *testing.T) {
	t.Parallel()
	blocked := filepath.Join(t.TempDir(), "not-a-folder")
	if err := os.WriteFile(blocked, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := testsite.Start(t, testsite.Options{Env: map[string]string{"MURLOG_ARTIFACT_DIR": blocked}})
	if resp, err := http.Get(s.Server.URL + "/@alice"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /@alice without artifacts: %v, %v", resp, err)
	}
	err := s.Client.Call(ctx, "site.artifacts.status", nil, nil)
	if err == nil || !strings.Contains(err.Error(), blocked) || !strings.Contains(err.Error(), "every public read is rendered") {
		t.Errorf("site.artifacts.status = %v; want why the folder %s cannot be used", err, blocked)
	}
	if !strings.Contains(s.Logs.String(), "the artifact folder cannot be used") {
		t.Error("no log line says the artifact folder cannot be used")
	}
}
