package social_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/social"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/storetest"
	"github.com/murlog/murlog/worker"
)

// rows counts the rows of table through a separate read-only connection.
func (e *env) rows(db *sql.DB, table string) int {
	e.t.Helper()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// compacted is the size of the database once vacuumed: the size of a
// VACUUM INTO copy.
func (e *env) compacted() int64 {
	e.t.Helper()
	dst := filepath.Join(e.t.TempDir(), fmt.Sprintf("snap-%d.db", time.Now().UnixNano()))
	must(e.t, e.db.Snapshot(ctx, dst))
	st, err := os.Stat(dst)
	must(e.t, err)
	os.Remove(dst)
	return st.Size()
}

// TestPruneMonth simulates a month of inbound traffic for a site whose
// persona follows 500 accounts posting 20 times a day each (10,000 posts
// and timeline entries a day; 100 accounts with -short, 10 under -race),
// with the prune job running daily at a 7-day age, and checks that the
// database stays bounded while what the owner touched survives. At the
// end a prune at the default 30-day age leaves only what is referenced.
func TestPruneMonth(t *testing.T) {
	t.Parallel()
	accounts, perDay, days, age := 500, 20, 30, 7*24*time.Hour
	switch {
	case raceDetector:
		accounts = 10
	case testing.Short():
		accounts = 100
	}
	e := newEnv(t)
	raw, err := sql.Open("sqlite", "file:"+e.db.Path()+"?mode=ro")
	must(t, err)
	defer raw.Close()

	reg := worker.NewRegistry()
	social.RegisterJobs(reg, e.db)
	if !slices.Contains(reg.Topics(), social.TopicPrune) || reg.Policy(social.TopicPrune).MaxAttempts != queue.DefaultPolicy.Normal().MaxAttempts {
		t.Errorf("RegisterJobs: topics %v, policy %+v; want %s with the default policy", reg.Topics(), reg.Policy(social.TopicPrune), social.TopicPrune)
	}

	actors := make([]*murlog.RemoteActor, accounts)
	e.update(func(tx store.Tx) error {
		for i := range actors {
			a := storetest.NewRemoteActor(fmt.Sprint("u", i), fmt.Sprintf("h%03d.example", i%250), true, e.clock.Now())
			a.Summary = strings.Repeat("bio ", 50)
			if err := tx.RemoteActors().Upsert(a); err != nil {
				return err
			}
			actors[i] = a
			if err := tx.Follows().Create(&murlog.Follow{ID: murlog.NewID(), PersonaID: e.alice.ID, ActorID: a.ID,
				ActivityURI: site.ActivityURL("alice", murlog.NewID()), State: murlog.FollowAccepted, CreatedAt: e.clock.Now()}); err != nil {
				return err
			}
		}
		return nil
	})
	content := "<p>" + strings.Repeat("a federated note of ordinary length ", 8) + "</p>"
	var liked, replied, mentioned *murlog.RemotePost
	stranger := e.actor("stranger", "elsewhere.example") // boosted in once, never followed
	liker := e.actor("liker", "elsewhere.example")       // liked alice's post once
	mine := e.post(e.alice, murlog.VisibilityPublic)
	must(t, e.svc.Liked(ctx, liker.ID, mine.ID, liker.URI+"/likes/1", ""))

	var peakPosts int
	var sizes []int64
	seq := 0
	for day := range days {
		e.update(func(tx store.Tx) error {
			for _, a := range actors {
				for range perDay {
					seq++
					p := &murlog.RemotePost{URI: fmt.Sprintf("%s/statuses/%d", a.URI, seq), ActorID: a.ID, Type: "Note",
						Content: content, Visibility: murlog.VisibilityPublic, Tags: []string{"fediverse"},
						PublishedAt: tx.Now(), ReceivedAt: tx.Now()}
					if err := tx.RemotePosts().Upsert(p); err != nil {
						return err
					}
					if err := tx.Timeline().Add(&murlog.TimelineEntry{ID: murlog.NewID(), PersonaID: e.alice.ID,
						RemotePostID: p.ID, CreatedAt: tx.Now()}); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if day == 0 {
			// What the owner touches on the first day: a like, a reply,
			// a mention of her; and a boost by a stranger.
			liked = storetest.NewRemotePost(actors[1], -1, e.clock.Now())
			replied = storetest.NewRemotePost(actors[2], -2, e.clock.Now())
			mentioned = storetest.NewRemotePost(actors[3], -3, e.clock.Now())
			mentioned.Mentions = []string{site.ActorURL("alice")}
			sp := storetest.NewRemotePost(stranger, 1, e.clock.Now())
			for _, p := range []*murlog.RemotePost{liked, replied, mentioned, sp} {
				must(t, e.svc.Store(ctx, p))
			}
			must(t, e.svc.Boosted(ctx, actors[0].ID, actors[0].URI+"/announce/1", sp.ID))
			_, err := e.svc.Favourite(ctx, e.alice.ID, liked.ID)
			must(t, err)
			at := e.clock.Now()
			reply := storetest.NewPost(e.alice.ID, &at, murlog.VisibilityPublic, at)
			reply.InReplyTo = replied.URI
			e.update(func(tx store.Tx) error { return tx.Posts().Create(reply) })
		}
		peakPosts = max(peakPosts, e.rows(raw, "remote_posts"))
		// The daily maintenance run, as the job does it.
		_, _, err := social.Prune(ctx, e.db, age)
		must(t, err)
		if day == 9 || day == days-1 {
			must(t, e.db.IncrementalVacuum(ctx))
			sizes = append(sizes, e.compacted())
		}
		e.clock.Advance(24 * time.Hour)
	}
	daily := accounts * perDay
	// A post received exactly age ago survives that day's run: age+1 days
	// stay after a run, one more day arrives before the next.
	bound := (int(age/(24*time.Hour))+1)*daily + 10
	if peakPosts > bound+daily {
		t.Errorf("remote_posts peaked at %d; want at most %d (the pruning age's worth plus a day)", peakPosts, bound+daily)
	}
	if n := e.rows(raw, "remote_posts"); n > bound {
		t.Errorf("after the month remote_posts = %d; want at most %d", n, bound)
	}
	if sizes[1] > sizes[0]*5/4 {
		t.Errorf("compacted size on day 30 = %d B, on day 10 = %d B; want it bounded (≤ +25%%) once pruning runs", sizes[1], sizes[0])
	}
	t.Logf("%d accounts × %d posts/day × %d days = %d posts received; peak %d rows; compacted size day 10 %.1f MB, day 30 %.1f MB",
		accounts, perDay, days, seq, peakPosts, float64(sizes[0])/1e6, float64(sizes[1])/1e6)

	// A month later, at the default age, only the referenced rows remain.
	e.clock.Advance(31 * 24 * time.Hour)
	start := time.Now()
	gone, posts, err := e.svc.Prune(ctx, 0)
	must(t, err)
	took := time.Since(start)
	must(t, e.db.IncrementalVacuum(ctx))
	final := e.compacted()
	t.Logf("final prune: %d posts, %d actors in %v; compacted size %.2f MB", posts, gone, took, float64(final)/1e6)
	e.view(func(tx store.Tx) error {
		for what, p := range map[string]*murlog.RemotePost{"liked": liked, "replied to": replied, "mentioning alice": mentioned} {
			if _, err := tx.RemotePosts().Get(p.ID); err != nil {
				t.Errorf("the post alice %s was pruned: %v", what, err)
			}
		}
		if _, err := tx.RemoteActors().Get(stranger.ID); murlog.ErrorCode(err) != murlog.ENotFound {
			t.Errorf("the stranger: %v; want pruned (not followed, no posts left)", err)
		}
		if _, err := tx.RemoteActors().Get(liker.ID); err != nil {
			t.Errorf("the actor who liked alice's post: %v; want kept", err)
		}
		return nil
	})
	if n := e.rows(raw, "remote_posts"); n != 3 {
		t.Errorf("remote_posts after the final prune = %d; want the 3 referenced", n)
	}
	if n := e.rows(raw, "remote_actors"); n != accounts+1 {
		t.Errorf("remote_actors after the final prune = %d; want the %d followed and the liker", n, accounts)
	}
	if n := e.rows(raw, "timeline"); n != 3 {
		t.Errorf("timeline after the final prune = %d; want the 3 entries of kept posts", n)
	}
	if p := e.persona(e.alice.ID); p.FollowingCount != accounts {
		t.Errorf("following_count = %d; want %d", p.FollowingCount, accounts)
	}
	if final > sizes[0]/4 {
		t.Errorf("compacted size after the final prune = %d B; want well under a quarter of the steady state %d B", final, sizes[0])
	}
}
