package federation_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// TestCollectionsFromTheStore reads the followers collection and the
// follower-only checks through the app's real ports over SQLite.
func TestCollectionsFromTheStore(t *testing.T) {
	s, _ := site(t)
	st := s.App.Store()
	var personaID string
	err := st.Update(ctx, func(tx store.Tx) error {
		p, err := tx.Personas().Primary()
		if err != nil {
			return err
		}
		personaID = p.ID
		for i := 0; i < 25; i++ {
			a := &murlog.RemoteActor{URI: fmt.Sprintf("https://r%02d.example/users/u", i), Username: "u",
				Domain: fmt.Sprintf("r%02d.example", i), Inbox: fmt.Sprintf("https://r%02d.example/users/u/inbox", i)}
			if err := tx.RemoteActors().Upsert(a); err != nil {
				return err
			}
			f := &murlog.Follower{ID: murlog.NewID(), PersonaID: p.ID, ActorID: a.ID,
				ActivityURI: a.URI + "#follow", State: murlog.FollowAccepted, CreatedAt: tx.Now()}
			if err := tx.Followers().Create(f); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var username string
	st.View(ctx, func(tx store.Tx) error {
		p, err := tx.Personas().Get(personaID)
		username = p.Username
		return err
	})
	base := s.Server.URL
	top := get(t, base, "/@"+username+"/followers", apAccept).json(t)
	if top["totalItems"] != float64(25) {
		t.Fatalf("followers totalItems: got %v; want 25", top["totalItems"])
	}
	first, ok := top["first"].(string)
	if !ok {
		t.Fatalf("followers: no first page link in %v", top)
	}
	seen := map[string]bool{}
	for page, n := first, 0; page != "" && n < 5; n++ {
		r := get(t, "", page, apAccept)
		wantStatus(t, r, http.StatusOK, "followers page")
		m := r.json(t)
		items, _ := m["orderedItems"].([]any)
		for _, it := range items {
			seen[it.(string)] = true
		}
		page, _ = m["next"].(string)
	}
	if len(seen) != 25 {
		t.Fatalf("followers pages listed %d distinct actors; want all 25", len(seen))
	}
}
