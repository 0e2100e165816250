package prerender_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/artifact"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/internal/waitfor"
	"github.com/murlog/murlog/prerender"
	"github.com/murlog/murlog/store"
)

// TestAnOlderRenderIsNeverStoredLast is the race of two processes
// rendering into one folder (under CGI: the worker spawned by one request
// and the next request's own pass). The other process has rendered a
// post's page from the database as it was and is slow to store it; the
// owner edits, or deletes, the post meanwhile. Once the owner's request
// has answered and the other process has finished, the folder holds the
// edit (or nothing): the renders took turns, so the older one could not be
// stored after the newer one had cleared its mark.
func TestAnOlderRenderIsNeverStoredLast(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		write func(s *site, id string) error
		check func(t *testing.T, body []byte, err error)
	}{
		{"edit", func(s *site, id string) error {
			return s.Client.Call(ctx, "posts.update", map[string]any{"id": id, "content": "the words after"}, nil)
		}, func(t *testing.T, body []byte, err error) {
			if err != nil || !strings.Contains(string(body), "the words after") {
				t.Errorf("the stored page after the edit: %v, %d bytes, edit shown: %v; want the edit",
					err, len(body), strings.Contains(string(body), "the words after"))
			}
		}},
		{"delete", func(s *site, id string) error {
			return s.Client.Call(ctx, "posts.delete", map[string]any{"id": id}, nil)
		}, func(t *testing.T, body []byte, err error) {
			if murlog.ErrorCode(err) != murlog.ENotFound {
				t.Errorf("the deleted post's page is still stored (%v, %d bytes); want it gone", err, len(body))
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSite(t)
			id := s.post(t, map[string]any{"content": "the words before"})
			s.rebuild(t)
			app, arts := s.App.Artifacts()
			page := artifact.MustParseKey("html/@alice/" + id + "/index.html")

			// The other process: its own Rebuilder over the same database
			// and folder, whose render of the page stops after reading.
			rendered, goOn := make(chan struct{}), make(chan struct{})
			var once sync.Once
			slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				app.Renderer.Handler.ServeHTTP(w, r)
				if strings.Contains(r.URL.Path, id) && strings.Contains(r.Header.Get("Accept"), "text/html") {
					once.Do(func() { close(rendered); <-goOn })
				}
			})
			// What happened, in order: the other's stores of the old page,
			// and the owner's answer.
			var mu sync.Mutex
			var events []string
			event := func(e string) { mu.Lock(); events = append(events, e); mu.Unlock() }
			rec := recording{Store: arts, Turner: arts.(prerender.Turner), put: func(k artifact.Key, body []byte) {
				if k == page && strings.Contains(string(body), "the words before") {
					event("old page stored")
				}
			}}
			other := prerender.NewRebuilder(&prerender.Renderer{Handler: slow, Store: rec, Site: app.Renderer.Site}, s.App.Store())
			if err := (prerender.Marks{Store: s.App.Store()}).Add(ctx, "post/"+id); err != nil {
				t.Fatal(err)
			}
			ran := make(chan error, 1)
			go func() {
				_, err := other.Run(dbstat.With(ctx, dbstat.Worker))
				ran <- err
			}()
			<-rendered // the old page is in hand, not stored yet

			s.clock.Advance(time.Second) // the edit is a new version (what the page's texts are kept by)
			wrote := make(chan error, 1)
			go func() {
				err := tc.write(s, id)
				event("answered")
				wrote <- err
			}()
			// The write is committed; its own pass runs next, or waits for
			// its turn. The other process goes on when the owner has been
			// answered, or when the answer is held up (waiting for the turn:
			// a few hundred milliseconds are far more than the pass takes).
			if !waitfor.Until(ctx, 5*time.Millisecond, 10*time.Second, func() bool {
				var p *murlog.Post
				err := s.App.Store().View(ctx, func(tx store.Tx) (err error) {
					p, err = tx.Posts().Get(id)
					return err
				})
				return murlog.ErrorCode(err) == murlog.ENotFound || err == nil && strings.Contains(p.Content, "after")
			}) {
				t.Fatal("the write never committed")
			}
			var err error
			select {
			case err = <-wrote:
				close(goOn)
			case <-time.After(300 * time.Millisecond):
				close(goOn)
				err = <-wrote
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := <-ran; err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			if i := slices.Index(events, "answered"); slices.Contains(events[i:], "old page stored") {
				t.Errorf("the old page was stored after the owner's answer (%v)", events)
			}
			mu.Unlock()
			rc, _, err := arts.Get(ctx, page)
			var body []byte
			if err == nil {
				body, err = io.ReadAll(rc)
				rc.Close()
			}
			tc.check(t, body, err)
		})
	}
}

// recording is an artifact store that tells of each Put.
type recording struct {
	artifact.Store
	prerender.Turner
	put func(artifact.Key, []byte)
}

func (r recording) Put(ctx context.Context, k artifact.Key, contentType string, body []byte) (artifact.Meta, error) {
	r.put(k, body)
	return r.Store.Put(ctx, k, contentType, body)
}

// TestRunGivesWayToTheOwner: a run rendering a backlog stops after the mark
// in hand when an owner's request begins — in this process, or in another
// sharing the folder (under CGI the worker and the request are two
// processes) — and goes on only when the request is done, whose own pass
// would otherwise wait for the folder behind the job's marks.
func TestRunGivesWayToTheOwner(t *testing.T) {
	t.Parallel()
	for _, process := range []string{"this", "another"} {
		t.Run(process, func(t *testing.T) {
			t.Parallel()
			s := newSite(t)
			var marks []string
			for i := range 20 {
				marks = append(marks, fmt.Sprintf("key:html/@alice/backlog-%02d/index.html", i))
			}
			if err := (prerender.Marks{Store: s.App.Store()}).Add(ctx, marks...); err != nil {
				t.Fatal(err)
			}
			rb, arts := s.App.Artifacts()
			owner := rb
			if process == "another" {
				// Its own Rebuilder over the same folder: nothing in memory
				// is shared with the run.
				owner = prerender.NewRebuilder(&prerender.Renderer{Handler: rb.Renderer.Handler, Store: arts, Site: rb.Renderer.Site},
					s.App.Store())
			}
			run := *rb
			var mu sync.Mutex
			var events []string
			event := func(e string) { mu.Lock(); events = append(events, e); mu.Unlock() }
			run.Forget = func(ks ...artifact.Key) {
				for _, k := range ks {
					event(k.String())
				}
				if len(events) == 1 { // the owner's request begins as the first mark is done
					done := owner.Writing()
					time.AfterFunc(200*time.Millisecond, func() { event("owner done"); done() })
				}
			}
			if _, err := run.Run(dbstat.With(ctx, dbstat.Worker)); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(events) != 21 || events[1] != "owner done" {
				t.Errorf("the run rendered %v; want one mark, then nothing until the owner's request was done, then the other 19", events)
			}
		})
	}
}

// TestAnotherProcessesWriteIsReadInTheTurn: a write of another process
// (the owner's CGI request beside the worker it spawned, serve beside a
// command) does not reach this process's caches, so a mark rendered after
// it must read the database again, not what an earlier mark of the same
// pass kept: the page stored last would show the old words until the
// next write. Here the persona's name changes behind the app's back
// between the two marks of one pass.
func TestAnotherProcessesWriteIsReadInTheTurn(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ids := []string{s.post(t, map[string]any{"content": "one"}), s.post(t, map[string]any{"content": "two"})}
	s.rebuild(t)
	s.Rename(t, "Alice Before")
	s.rebuild(t) // what the rename marked (the store marks what a persona row shows in)
	for _, id := range ids {
		if err := (prerender.Marks{Store: s.App.Store()}).Add(ctx, "key:html/@alice/"+id+"/index.html"); err != nil {
			t.Fatal(err)
		}
		s.clock.Advance(time.Second)
	}
	rb, _ := s.App.Artifacts()
	run := *rb
	marks := 0
	run.Forget = func(ks ...artifact.Key) {
		if marks++; marks == 1 {
			s.Rename(t, "Alice After") // committed by "another process": no Invalidate here
		}
	}
	if _, err := run.Run(dbstat.With(ctx, dbstat.Worker)); err != nil {
		t.Fatal(err)
	}
	if marks < 2 {
		t.Fatalf("the pass rendered %d marks; want the two pages at least", marks)
	}
	_, arts := s.App.Artifacts()
	for _, id := range ids {
		k := artifact.MustParseKey("html/@alice/" + id + "/index.html")
		rc, _, err := arts.Get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(rc)
		rc.Close()
		if !strings.Contains(string(body), "Alice After") {
			t.Errorf("%s, stored after another process renamed the persona, shows the old name (%v); want the new one",
				k, strings.Contains(string(body), "Alice Before"))
		}
	}
}

// TestADeletionIsWithdrawnFirst: the marks of a deleted post are rendered
// (its files taken away) before the lists the deletion also marked, so a
// pass cut short by its budget — an owner's request on a loaded machine —
// has still stopped serving the post.
func TestADeletionIsWithdrawnFirst(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	id := s.post(t, map[string]any{"content": "soon gone #crowd"})
	s.rebuild(t)
	// Deleted behind the app's back: its marks wait for the pass below.
	if err := s.App.Store().Update(ctx, func(tx store.Tx) error { return tx.Posts().Delete(id) }); err != nil {
		t.Fatal(err)
	}
	rb, _ := s.App.Artifacts()
	run := *rb
	var first []artifact.Key
	run.Forget = func(ks ...artifact.Key) {
		if first == nil {
			first = ks
		}
	}
	if _, err := run.Run(dbstat.With(ctx, dbstat.Worker)); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(first, artifact.MustParseKey("ap/@alice/"+id+".as")) {
		t.Errorf("the pass began with %v; want the deleted post's documents", first)
	}
}
