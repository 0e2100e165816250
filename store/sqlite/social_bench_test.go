package sqlite

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/storetest"
)

// seedFollowers gives one persona n accepted followers spread over hosts
// servers, each server with a shared inbox.
func seedFollowers(tb testing.TB, db *DB, n, hosts int) string {
	tb.Helper()
	now := time.Now()
	p := storetest.NewPersona("alice", true, now)
	err := db.Update(context.Background(), func(tx store.Tx) error {
		if err := tx.Personas().Create(p); err != nil {
			return err
		}
		for i := range n {
			a := storetest.NewRemoteActor(fmt.Sprint("u", i), fmt.Sprintf("h%04d.example", i%hosts), true, now)
			if err := tx.RemoteActors().Upsert(a); err != nil {
				return err
			}
			if err := tx.Followers().Create(&murlog.Follower{ID: murlog.NewID(), PersonaID: p.ID, ActorID: a.ID,
				ActivityURI: a.URI + "#follow", State: murlog.FollowAccepted, CreatedAt: now}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return p.ID
}

// walkInboxes pages through every inbox as the fan-out does.
func walkInboxes(tb testing.TB, db *DB, personaID string, page int) int {
	total := 0
	after := ""
	for {
		var got []string
		err := db.View(context.Background(), func(tx store.Tx) (err error) {
			got, err = tx.Followers().Inboxes(personaID, after, page)
			return err
		})
		if err != nil {
			tb.Fatal(err)
		}
		if len(got) == 0 {
			return total
		}
		total += len(got)
		after = got[len(got)-1]
	}
}

// TestInboxesUseTheIndex checks the plan: the fan-out page must be a walk
// of followers_inbox, never a scan plus a temporary B-tree for DISTINCT.
func TestInboxesUseTheIndex(t *testing.T) {
	db := MustOpen(t, nil)
	id := seedFollowers(t, db, 300, 30)
	if n := walkInboxes(t, db, id, 7); n != 30 {
		t.Fatalf("walked %d inboxes; want 30 distinct", n)
	}
	p := queryPlan(t, db, `SELECT DISTINCT delivery_inbox FROM followers
		WHERE persona_id = ? AND state = 'accepted' AND delivery_inbox > ? ORDER BY delivery_inbox LIMIT ?`, id, "", 100)
	if !strings.Contains(p, "followers_inbox") || strings.Contains(p, "TEMP B-TREE") {
		t.Errorf("Inboxes plan = %q; want a covering walk of followers_inbox with no temporary B-tree", p)
	}
}

// BenchmarkInboxes walks the delivery inboxes of 10,000 followers on 1,000
// servers in pages of 100, as deliver_post's fan-out does; one op is the
// whole walk.
func BenchmarkInboxes(b *testing.B) {
	db := MustOpen(b, nil)
	id := seedFollowers(b, db, 10000, 1000)
	b.ResetTimer()
	for b.Loop() {
		if n := walkInboxes(b, db, id, 100); n != 1000 {
			b.Fatalf("walked %d inboxes; want 1000", n)
		}
	}
}
