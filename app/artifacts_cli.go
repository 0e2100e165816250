package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/artifact"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/prerender"
	"github.com/murlog/murlog/store"
)

// ArtifactsRequest is one `murlog artifacts` command.
type ArtifactsRequest struct {
	// Command is "rebuild", "purge" or "check".
	Command string
	// What rebuild renders: everything (All), one post (Post, an id), one
	// persona's pages (Persona, a username); none of them: what writes
	// marked and no rebuild has rendered yet.
	All     bool
	Post    string
	Persona string
	// Progress, when set, is told how far a rebuild or a check has come.
	Progress func(done, total int)
}

// ArtifactsReport is what the command did.
type ArtifactsReport struct {
	Rendered, Failed int // rebuild
	Removed          int // purge: artifacts (and their variants) deleted
	Checked, Corrupt int // check: artifacts read, found damaged (and rendered again)
	Dir              string
}

// RunArtifacts runs `murlog artifacts`: every one of its commands only
// ever touches derived files, so each reverts itself — after a purge the
// next request (or rebuild) renders the page again.
func RunArtifacts(ctx context.Context, o Options, req ArtifactsRequest) (ArtifactsReport, error) {
	a, err := New(ctx, o)
	if err != nil {
		return ArtifactsReport{}, err
	}
	defer a.Close()
	rt := a.running.Load()
	if rt == nil {
		return ArtifactsReport{}, fmt.Errorf("the site at %s is not set up: no artifacts to make", a.Config().Path)
	}
	rep := ArtifactsReport{Dir: a.artifactDir(rt.cfg)}
	if rt.rebuild == nil {
		return rep, fmt.Errorf("the artifact folder %s cannot be used (see the log above)", rep.Dir)
	}
	ctx = dbstat.With(ctx, dbstat.Worker)
	progress := req.Progress
	if progress == nil {
		progress = func(int, int) {}
	}
	switch req.Command {
	case "rebuild":
		err = a.rebuildArtifacts(ctx, rt, req, progress, &rep)
	case "purge":
		rep.Removed, err = purgeArtifacts(ctx, rt.artifactStore)
	case "check":
		err = checkArtifacts(ctx, rt, progress, &rep)
	default:
		err = murlog.Invalid("command", "must be rebuild, purge or check, not %q", req.Command)
	}
	return rep, err
}

// rebuildArtifacts marks what req names and renders until no mark is
// left, reporting the marks done against those there were.
func (a *App) rebuildArtifacts(ctx context.Context, rt *running, req ArtifactsRequest, progress func(int, int), rep *ArtifactsReport) error {
	var marks []string
	err := rt.eng.store.View(ctx, func(tx store.Tx) error {
		switch {
		case req.All:
			marks = append(marks, "site")
		case req.Post != "":
			if _, err := tx.Posts().Get(req.Post); err != nil {
				return err
			}
			marks = append(marks, "post/"+req.Post)
		case req.Persona != "":
			p, err := tx.Personas().GetByUsername(req.Persona)
			if err != nil {
				return err
			}
			err = eachPost(tx, p.ID, func(id string) { marks = append(marks, "post/"+id) })
			marks = append(marks, prerender.PersonaScopes(p)...) // marked last, rendered first
			return err
		}
		return nil
	})
	if err == nil {
		err = prerender.Marks{Store: rt.eng.store}.Add(ctx, marks...)
	}
	if err != nil {
		return err
	}
	rb := *rt.rebuild
	rb.Budget = time.Second // short runs, so the progress moves
	total := 0
	for {
		st, err := rb.Run(ctx)
		rep.Rendered += st.Rendered
		rep.Failed += st.Failed
		if err != nil {
			return err
		}
		total = max(total, st.Left+rep.Rendered)
		progress(rep.Rendered, total)
		if st.Left <= 0 {
			return nil
		}
	}
}

// eachPost calls fn with the id of every post of a persona, a page at a
// time.
func eachPost(tx store.Tx, personaID string, fn func(id string)) error {
	after := ""
	for {
		ps, err := tx.Posts().List(store.PostQuery{PersonaID: personaID, Audience: murlog.AudienceOwner, Now: tx.Now(),
			Before: after, Limit: 500})
		if err != nil {
			return err
		}
		for _, p := range ps {
			fn(p.ID)
		}
		if len(ps) < 500 {
			return nil
		}
		after = ps[len(ps)-1].ID
	}
}

// purgeArtifacts removes every artifact; it returns how many it removed.
func purgeArtifacts(ctx context.Context, st artifact.Store) (int, error) {
	removed, err := prerender.Withdrawn(ctx, st, "", nil)
	n := 0
	for _, k := range removed {
		if !strings.HasSuffix(k.String(), ".gz") {
			n++
		}
	}
	return n, err
}

// checkArtifacts reads every artifact and checks its length and hash
// against its metadata; a damaged one is rendered again (and removed
// when it renders nothing).
func checkArtifacts(ctx context.Context, rt *running, progress func(int, int), rep *ArtifactsReport) error {
	st := rt.artifactStore
	var keys []artifact.Key
	if err := st.List(ctx, "", func(k artifact.Key) error { keys = append(keys, k); return nil }); err != nil {
		return err
	}
	var errs []error
	for i, k := range keys {
		rep.Checked++
		if err := artifact.Verify(ctx, st, k); err != nil {
			rep.Corrupt++
			// A damaged variant is made again with its plain key.
			plain, _ := strings.CutSuffix(k.String(), ".gz")
			if pk, perr := artifact.ParseKey(plain); perr == nil {
				if _, ok := prerender.DocOf(pk, rt.site.Domain); ok {
					if err := rt.rebuild.RebuildKey(ctx, pk); err != nil {
						errs = append(errs, err)
					}
				} else if err := prerender.Delete(ctx, st, pk); err != nil {
					errs = append(errs, err)
				}
			}
		}
		if i%50 == 0 || i == len(keys)-1 {
			progress(i+1, len(keys))
		}
	}
	return errors.Join(errs...)
}
