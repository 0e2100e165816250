package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/murlog/murlog/client"
)

// Accept headers of the spike's visitors: what Mastodon sends for a
// document and for a link preview, and what a browser sends for a page.
const (
	AcceptActivity = "application/activity+json, application/ld+json"
	AcceptPreview  = "text/html,application/xhtml+xml"
	AcceptPage     = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
)

// Spike is the boost spike of issue 16: remote servers fetching a boosted
// post's actor, note and link preview, and readers following it to the
// post page, its theme assets and the home page.
type Spike struct {
	// Actor is the actor's path ("/@owner"), Post the boosted post's.
	Actor, Post string
	// Assets are the theme assets the post page loads (ThemeAssets).
	Assets []string
	// ReaderEvery makes one visitor in ReaderEvery a reader (6: 5,000
	// servers and 1,000 readers in 6,000 visitors, evenly interleaved); 6
	// when zero.
	ReaderEvery int
}

// Visitor is visitor i's scenario: a server's, or every ReaderEvery-th a
// reader's.
func (s Spike) Visitor(i int) []Request {
	every := s.ReaderEvery
	if every <= 0 {
		every = 6
	}
	if i%every == every-1 {
		return s.Reader()
	}
	return s.Server()
}

// Server is a remote server's three fetches.
func (s Spike) Server() []Request {
	json := http.Header{"Accept": {AcceptActivity}, "Accept-Encoding": {"gzip"}}
	return []Request{
		{Name: "actor JSON", Path: s.Actor, Header: json},
		{Name: "note JSON", Path: s.Post, Header: json},
		{Name: "post preview", Path: s.Post, Header: http.Header{"Accept": {AcceptPreview}, "Accept-Encoding": {"gzip"}}},
	}
}

// Reader is a browser's visit: the post page, its assets, the home page.
func (s Spike) Reader() []Request {
	page := http.Header{"Accept": {AcceptPage}, "Accept-Encoding": {"gzip, deflate, br"}}
	reqs := []Request{{Name: "post page", Path: s.Post, Header: page}}
	for _, a := range s.Assets {
		reqs = append(reqs, Request{Name: "theme asset", Path: a, Header: http.Header{"Accept": {"*/*"}, "Accept-Encoding": {"gzip, deflate, br"}}})
	}
	return append(reqs, Request{Name: "home page", Path: "/", Header: page})
}

var (
	tagRE  = regexp.MustCompile(`(?is)<(link|script)\b[^>]*>`)
	attrRE = regexp.MustCompile(`(?is)\b(rel|href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))`)
)

// ThemeAssets returns the paths under /themes/ that a browser loads with
// page: stylesheets, preloads and scripts, in order, each once. Absolute
// URLs are reduced to their path (the generator talks to one server).
func ThemeAssets(page []byte) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range tagRE.FindAllSubmatch(page, -1) {
		attrs := map[string]string{}
		for _, a := range attrRE.FindAllSubmatch(m[0], -1) {
			attrs[strings.ToLower(string(a[1]))] = string(a[2]) + string(a[3]) + string(a[4])
		}
		ref := attrs["src"]
		if strings.EqualFold(string(m[1]), "link") {
			rels := strings.Fields(strings.ToLower(attrs["rel"]))
			if !slices.ContainsFunc(rels, func(r string) bool { return r == "stylesheet" || r == "preload" || r == "modulepreload" }) {
				continue
			}
			ref = attrs["href"]
		}
		u, err := url.Parse(ref)
		if err != nil || !strings.HasPrefix(u.Path, "/themes/") || seen[u.RequestURI()] {
			continue
		}
		seen[u.RequestURI()] = true
		out = append(out, u.RequestURI())
	}
	return out
}

// Run runs the spike at rate visitors a second, visitors in all, against
// addr, while post (when not nil) is called once every postEvery for the
// same time: the owner writing through the crowd. It returns the
// visitors' result and the owner's.
func (s Spike) Run(ctx context.Context, addr string, rate float64, visitors int, post func(context.Context) (int, error), postEvery time.Duration) (crowd, owner *Result) {
	done := make(chan struct{})
	if post != nil {
		go func() {
			defer close(done)
			owner = Calls(ctx, Real, "posts.create", postEvery, int(math.Round(float64(visitors)/rate/postEvery.Seconds())), post)
		}()
	} else {
		close(done)
	}
	crowd = Run(ctx, Config{Addr: addr, Rate: rate, Visitors: visitors, Visitor: s.Visitor})
	<-done
	return crowd, owner
}

// PostNotes returns a post function for Spike.Run: c, logged in as the
// owner, creates a short note through the API on each call.
func PostNotes(c *client.Client) func(context.Context) (int, error) {
	var n atomic.Int64
	return func(ctx context.Context) (int, error) {
		err := c.Call(ctx, "posts.create", map[string]any{"content": fmt.Sprintf("Note %d, posted through the spike #spike", n.Add(1))}, nil)
		var e *client.Error
		if errors.As(err, &e) {
			return e.HTTPStatus, err
		}
		if err != nil {
			return 0, err
		}
		return http.StatusOK, nil
	}
}

// Issue 16's target for the spike: every request succeeds, p99 ≤ 100 ms.
const SpikeP99 = 100 * time.Millisecond

// LagLimit is how late (p99) the generator may start visitors before a
// run counts as generator-bound: a quarter of SpikeP99; later than that,
// the crowd the server met was thinner than asked.
const LagLimit = 25 * time.Millisecond

// MeetsSpikeTarget reports whether s meets the spike's target.
func (s Summary) MeetsSpikeTarget() bool { return s.OK == s.Requests && s.P99 <= SpikeP99 }

// GeneratorBound reports whether the generator fell behind its schedule
// by more than LagLimit.
func (s Summary) GeneratorBound() bool { return s.Lag.P99 > LagLimit }

// Verdict says in a line whether s meets the spike's target, and whether
// the generator kept its schedule.
func (s Summary) Verdict(label string) string {
	v := "met"
	if !s.MeetsSpikeTarget() {
		v = "MISSED"
	}
	out := fmt.Sprintf("target for %s (100%% success, p99 ≤ %s): %s (%.3f%%, p99 %s)", label, Ms(SpikeP99), v, s.Success(), Ms(s.P99))
	if s.GeneratorBound() {
		out += fmt.Sprintf("; the generator started visitors late (lag p99 %s): the run was partly closed-loop", Ms(s.Lag.P99))
	}
	return out
}

// SpikeSize is the spike's length and visitor rate from the environment
// (getenv): 60 s at 100 visitors a second, or MURLOG_SPIKE_SECONDS, and
// the rate times MURLOG_SPIKE_SCALE.
func SpikeSize(getenv func(string) string) (seconds, rate float64) {
	seconds, rate = 60, 100
	if v, err := strconv.ParseFloat(getenv("MURLOG_SPIKE_SECONDS"), 64); err == nil && v > 0 {
		seconds = v
	}
	if v, err := strconv.ParseFloat(getenv("MURLOG_SPIKE_SCALE"), 64); err == nil && v > 0 {
		rate *= v
	}
	return seconds, rate
}

// Requests is the number of requests the first visitors of s send.
func (s Spike) Requests(visitors int) int {
	n := 0
	for i := 0; i < visitors; i++ {
		n += len(s.Visitor(i))
	}
	return n
}
