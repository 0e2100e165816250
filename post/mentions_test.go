package post_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

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
	t.Parallel()
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

// TestRefusedPostsLookUpNoMention: a post that will be refused — a bad
// or unknown persona, a schedule out of range, text past its limit, a bad
// field — is refused before any mention is looked up, since a lookup may
// wait MentionTimeout on a remote server. So is such an edit.
func TestRefusedPostsLookUpNoMention(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	l := &lookups{known: map[string]bool{"bob@remote.example": true}}
	e.posts.WithMentions(l)
	hi := "@bob@remote.example hi"
	for _, tc := range []struct {
		what string
		in   post.CreateInput
		want murlog.Code
	}{
		{"a malformed persona_id", post.CreateInput{PersonaID: "nope", Content: hi}, murlog.EInvalid},
		{"an unknown persona", post.CreateInput{PersonaID: murlog.NewID(), Content: hi}, murlog.ENotFound},
		{"a schedule in year 10000", post.CreateInput{Content: hi,
			PublishedAt: post.Schedule{Mode: post.PublishAt, At: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}, murlog.EInvalid},
		{"a schedule before 1970", post.CreateInput{Content: hi,
			PublishedAt: post.Schedule{Mode: post.PublishAt, At: time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC)}}, murlog.EInvalid},
		{"a note over its limit", post.CreateInput{Content: hi + strings.Repeat("x", post.MaxNote)}, murlog.EInvalid},
		{"a note with a title", post.CreateInput{Title: "t", Content: hi}, murlog.EInvalid},
		{"an unknown visibility", post.CreateInput{Content: hi, Visibility: "friends"}, murlog.EInvalid},
		{"a bad in_reply_to", post.CreateInput{Content: hi, InReplyTo: "ftp://x"}, murlog.EInvalid},
		{"a control character", post.CreateInput{Content: hi + "\x00"}, murlog.EInvalid},
	} {
		_, err := e.posts.Create(ctx, tc.in)
		if murlog.ErrorCode(err) != tc.want {
			t.Errorf("create with %s = %v; want %s", tc.what, err, tc.want)
		}
		if len(l.asked) != 0 {
			t.Errorf("create with %s looked up %v before refusing it; want no lookup", tc.what, l.asked)
			l.asked = nil
		}
	}
	p := e.create(post.CreateInput{Content: "plain"})
	long, bad := hi+strings.Repeat("x", post.MaxNote), murlog.Visibility("friends")
	for _, tc := range []struct {
		what string
		in   post.UpdateInput
	}{
		{"text over the limit", post.UpdateInput{ID: p.ID, Content: &long}},
		{"an unknown visibility", post.UpdateInput{ID: p.ID, Content: &hi, Visibility: &bad}},
	} {
		if _, err := e.posts.Update(ctx, tc.in); murlog.ErrorCode(err) != murlog.EInvalid {
			t.Errorf("edit with %s = %v; want invalid", tc.what, err)
		}
		if len(l.asked) != 0 {
			t.Errorf("edit with %s looked up %v before refusing it; want no lookup", tc.what, l.asked)
			l.asked = nil
		}
	}
	// And a good post still looks its mention up.
	if p := e.create(post.CreateInput{Content: hi}); len(p.Mentions) != 1 || len(l.asked) != 1 {
		t.Errorf("a valid post: mentions %+v after lookups %v; want bob, looked up once", p.Mentions, l.asked)
	}
}
