package activitypub

import (
	"fmt"
	"strings"
	"testing"
)

func TestAccepts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		accept string
		want   bool
	}{
		// The two media types of the ActivityPub spec, as servers send them.
		{"application/activity+json", true},
		{`application/ld+json; profile="https://www.w3.org/ns/activitystreams"`, true},
		// NodeBB#13199: no space before profile.
		{`application/ld+json;profile="https://www.w3.org/ns/activitystreams"`, true},
		{`application/ld+json ; profile = "https://www.w3.org/ns/activitystreams"`, true},
		// Unquoted profile.
		{`application/ld+json; profile=https://www.w3.org/ns/activitystreams`, true},
		// Several profiles, space-separated.
		{`application/ld+json; profile="https://www.w3.org/ns/activitystreams https://example.com/other"`, true},
		{`application/ld+json; profile="https://example.com/other https://www.w3.org/ns/activitystreams"`, true},
		// http scheme and a trailing '#'.
		{`application/ld+json; profile="http://www.w3.org/ns/activitystreams#"`, true},
		// Bare ld+json: Mastodon takes it as ActivityPub too.
		{"application/ld+json", true},
		// Another profile only: a JSON-LD context fetch, not ActivityPub.
		{`application/ld+json; profile="http://www.w3.org/ns/json-ld#context"`, false},
		// gotosocial#611: both, comma-separated, as GoToSocial and Mastodon send them.
		{`application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"`, true},
		{`application/ld+json; profile="https://www.w3.org/ns/activitystreams", application/activity+json`, true},
		// Misskey's Accept.
		{`application/activity+json, application/ld+json`, true},
		// Letter case.
		{"Application/Activity+JSON", true},
		{`APPLICATION/LD+JSON; PROFILE="https://www.w3.org/ns/activitystreams"`, true},
		// q-values.
		{"application/activity+json;q=0", false},
		{"application/activity+json; q=0.0", false},
		{"text/html;q=0.9, application/activity+json", true},
		{"text/html, application/activity+json;q=0.9", false},
		{"text/html;q=0.5, application/activity+json;q=0.5", true},
		{"application/activity+json;q=0.8, */*;q=0.1", true},
		{"application/activity+json;q=0.5, */*", false},
		{"application/activity+json;q=0.5, text/*", false},
		{"application/activity+json;q=0.9, text/*;q=1, text/html;q=0.1", true},
		{"application/activity+json;q=bogus", false},
		{"application/activity+json;q=0.3, application/ld+json;q=0.9, text/html;q=0.5", true},
		// A comma inside a quoted profile does not split the header.
		{`application/ld+json; profile="https://www.w3.org/ns/activitystreams,x", text/html;q=0.1`, false},
		{`text/plain;x="a,b", application/activity+json`, true},
		// Browsers and generic clients get HTML.
		{"*/*", false},
		{"", false},
		{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", false},
		{"application/json", false},
		{"application/activity+jsonx", false},
		{"garbage", false},
		{";;;,,,", false},
	} {
		// Twice: the second answer is the remembered one.
		for round := 0; round < 2; round++ {
			if got := Accepts(c.accept); got != c.want {
				t.Errorf("Accepts(%q) = %v (round %d); want %v", c.accept, got, round, c.want)
			}
		}
	}
}

// TestAcceptsRemembersABoundedNumber: however many distinct headers
// clients send, at most maxRemembered are kept, none longer than
// maxRemembered bytes, and the ones not kept are answered right.
func TestAcceptsRemembersABoundedNumber(t *testing.T) {
	t.Parallel()
	for i := 0; i < 3*maxRemembered; i++ {
		h := fmt.Sprintf("text/html;q=0.%d, application/activity+json;q=0.5", i%10)
		h += strings.Repeat(" ", i)
		if got, want := Accepts(h), i%10 <= 5; got != want { // ActivityPub wins ties
			t.Fatalf("Accepts(%q) = %v; want %v", h, got, want)
		}
	}
	n := 0
	remembered.Range(func(k, _ any) bool {
		n++
		if len(k.(string)) > maxRemembered {
			t.Errorf("a header of %d bytes is kept", len(k.(string)))
		}
		return true
	})
	if n > maxRemembered {
		t.Errorf("%d headers kept; want at most %d", n, maxRemembered)
	}
}

func TestIsActivityContentType(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ct   string
		want bool
	}{
		{"application/activity+json", true},
		{"application/activity+json; charset=utf-8", true},
		{"application/activity+json;charset=UTF-8", true},
		{`application/ld+json; profile="https://www.w3.org/ns/activitystreams"`, true},
		{`application/ld+json;profile="https://www.w3.org/ns/activitystreams"`, true},
		{`application/ld+json; profile=https://www.w3.org/ns/activitystreams; charset=utf-8`, true},
		{"application/ld+json", true},
		{"Application/LD+JSON", true},
		{`application/ld+json; profile="http://www.w3.org/ns/json-ld#context"`, false},
		{"application/activity+json, application/ld+json", true},
		{"application/json", false},
		{"text/html", false},
		{"application/x-www-form-urlencoded", false},
		{"", false},
		{"activity+json", false},
	} {
		if got := IsActivityContentType(c.ct); got != c.want {
			t.Errorf("IsActivityContentType(%q) = %v; want %v", c.ct, got, c.want)
		}
	}
}

func BenchmarkAccepts(b *testing.B) {
	const h = `application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"`
	for b.Loop() {
		Accepts(h)
	}
}
