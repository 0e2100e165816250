package post_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/post"
)

// lookups is a mention resolver that knows the accounts in known and
// counts every lookup.
type lookups struct {
	mu    sync.Mutex
	known map[string]bool
	asked []string
}

func (l *lookups) ResolveMention(_ context.Context, user, host string) (string, string, string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asked = append(l.asked, user+"@"+host)
	if !l.known[user+"@"+host] {
		return "", "", "", murlog.NotFound("account")
	}
	return "https://" + host + "/users/" + user, "https://" + host + "/profiles/" + user, "https://" + host + "/inbox", nil
}

// TestMentionsResolvedAtPostTime: a resolved mention links to the real
// profile page and is kept on the post; one that does not resolve stays
// a plain link; a mention of this site is not looked up; at most
// MaxMentionLookups lookups per post; an edit of other fields keeps them.
func TestMentionsResolvedAtPostTime(t *testing.T) {
	e := newEnv(t)
	l := &lookups{known: map[string]bool{"bob@remote.example": true}}
	e.posts.WithMentions(l)
	p := e.create(post.CreateInput{Content: "@bob@remote.example @nobody@remote.example @me@example.com hi"})
	if len(p.Mentions) != 1 || p.Mentions[0].URI != "https://remote.example/users/bob" || p.Mentions[0].Name != "@bob@remote.example" {
		t.Errorf("mentions %+v; want bob only", p.Mentions)
	}
	if !strings.Contains(p.Content, `href="https://remote.example/profiles/bob"`) || !strings.Contains(p.Content, `href="https://remote.example/@nobody"`) {
		t.Errorf("content %s; want bob linked to his profile page, nobody to the guessed one", p.Content)
	}
	if len(l.asked) != 2 {
		t.Errorf("looked up %v; want bob and nobody, not this site's account", l.asked)
	}
	got, err := e.posts.Get(ctx, p.ID, murlog.AudienceOwner)
	if err != nil || len(got.Mentions) != 1 || got.Mentions[0].Inbox != "https://remote.example/inbox" {
		t.Errorf("stored mentions %+v, %v; want bob with his inbox", got, err)
	}
	sum := "cw"
	u, err := e.posts.Update(ctx, post.UpdateInput{ID: p.ID, Summary: &sum})
	if err != nil || len(u.Mentions) != 1 || !strings.Contains(u.Content, "/profiles/bob") || len(l.asked) != 2 {
		t.Errorf("after editing the summary: mentions %+v, content %s, %d lookups; want bob kept without a lookup", u.Mentions, u.Content, len(l.asked))
	}

	var many []string
	for i := range post.MaxMentionLookups + 5 {
		many = append(many, fmt.Sprintf("@u%d@h%d.example", i, i))
	}
	l.asked = nil
	e.create(post.CreateInput{Content: strings.Join(many, " ")})
	if len(l.asked) != post.MaxMentionLookups {
		t.Errorf("a post with %d mentions made %d lookups; want %d", len(many), len(l.asked), post.MaxMentionLookups)
	}
}
