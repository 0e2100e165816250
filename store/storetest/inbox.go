package storetest

import (
	"bytes"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

func testInboxItems(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	at := c.t
	body := []byte(`{"id":"https://r.test/a/1","type":"Create"}`)
	put := func(id, persona string, b []byte, at time.Time) bool {
		t.Helper()
		var isNew bool
		update(t, s, func(tx store.Tx) (err error) {
			isNew, err = tx.InboxItems().Put(id, "actor-1", persona, b, at)
			return err
		})
		return isNew
	}
	get := func(id string) (*store.InboxItem, error) {
		var it *store.InboxItem
		err := s.View(ctx, func(tx store.Tx) (err error) { it, err = tx.InboxItems().Get(id); return err })
		return it, err
	}
	if !put("h1", "", body, at) {
		t.Fatal("Put(h1) first time: isNew false, want true")
	}
	if put("h1", "p2", []byte("other"), at.Add(time.Second)) {
		t.Fatal("Put(h1) again: isNew true, want false")
	}
	it, err := get("h1")
	if err != nil {
		t.Fatalf("Get(h1): %v", err)
	}
	if it.ID != "h1" || it.ActorID != "actor-1" || it.PersonaID != "" || !bytes.Equal(it.Body, body) || it.Done || !it.ReceivedAt.Equal(at) {
		t.Fatalf("Get(h1) = %+v, want the first Put unchanged", it)
	}
	update(t, s, func(tx store.Tx) error { return tx.InboxItems().Done("h1") })
	if it, err = get("h1"); err != nil || !it.Done || it.Body != nil {
		t.Fatalf("Get(h1) after Done = %+v, %v; want done with no body", it, err)
	}
	if put("h1", "", body, at) {
		t.Fatal("Put(h1) after Done: isNew true, want false (the id stays for dedupe)")
	}
	if err := s.Update(ctx, func(tx store.Tx) error { return tx.InboxItems().Done("nope") }); code(err) != murlog.ENotFound {
		t.Fatalf("Done(unknown) = %v, want not_found", err)
	}
	if _, err := get("nope"); code(err) != murlog.ENotFound {
		t.Fatalf("Get(unknown) = %v, want not_found", err)
	}
	put("h2", "p1", body, at.Add(time.Hour))
	var n int
	update(t, s, func(tx store.Tx) (err error) { n, err = tx.InboxItems().Prune(at.Add(time.Minute)); return err })
	if n != 1 {
		t.Fatalf("Prune = %d, want 1 (h1 only)", n)
	}
	if _, err := get("h1"); code(err) != murlog.ENotFound {
		t.Fatalf("Get(h1) after Prune = %v, want not_found", err)
	}
	if it, err := get("h2"); err != nil || it.PersonaID != "p1" {
		t.Fatalf("Get(h2) after Prune = %+v, %v; want kept", it, err)
	}
}
