package api_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/murlog/murlog/client"
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/post"
	"github.com/murlog/murlog/queue"
)

// topicJobs counts the jobs of topic in state.
func topicJobs(t *testing.T, s *testsite.Site, topic string, state queue.State) int {
	t.Helper()
	js, err := s.App.Queue().List(ctx, queue.ListQuery{Topic: topic, State: state, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return len(js)
}

// TestPostsCountScheduled: a scheduled post is not in posts_count, for the
// owner or an anonymous reader, until the site's worker runs its
// post.publish job at its time.
func TestPostsCountScheduled(t *testing.T) {
	t.Parallel()
	var clock atomic.Pointer[time.Time]
	now := time.Now().UTC()
	clock.Store(&now)
	s := testsite.Start(t, testsite.Options{Now: func() time.Time { return *clock.Load() }})
	anon := s.NewClient()
	count := func(who string, c *client.Client) float64 {
		t.Helper()
		var l struct{ Items []map[string]any }
		if err := c.Call(ctx, "personas.list", nil, &l); err != nil || len(l.Items) != 1 {
			t.Fatalf("personas.list as %s = %v, %v", who, l.Items, err)
		}
		return l.Items[0]["posts_count"].(float64)
	}
	create(t, s.Client, map[string]any{"content": "now"})
	create(t, s.Client, map[string]any{"content": "later", "published_at": now.Add(time.Hour).Format(time.RFC3339)})
	for who, c := range map[string]*client.Client{"the owner": s.Client, "an anonymous reader": anon} {
		if n := count(who, c); n != 1 {
			t.Errorf("posts_count for %s with one post published and one scheduled = %v; want 1", who, n)
		}
	}
	w := s.App.NewWorker("test")
	// Before the time only the published post's delivery is due (and the
	// artifact rebuilds the writes enqueued).
	if _, err := w.RunBatch(ctx, 20, 5*time.Second); err != nil || topicJobs(t, s, delivery.TopicDeliverPost, queue.StateDone) != 1 {
		t.Errorf("worker before the time: %v, %d deliver_post done; want 1 (the published post's)", err,
			topicJobs(t, s, delivery.TopicDeliverPost, queue.StateDone))
	}
	if done := topicJobs(t, s, post.TopicPublish, queue.StateDone); done != 0 {
		t.Errorf("post.publish jobs done before the time = %d; want 0", done)
	}
	later := now.Add(time.Hour + time.Second)
	clock.Store(&later)
	if _, err := w.RunBatch(ctx, 10, 5*time.Second); err != nil || topicJobs(t, s, post.TopicPublish, queue.StateDone) != 1 {
		t.Fatalf("worker at the time: %v, %d post.publish jobs done; want the one", err, topicJobs(t, s, post.TopicPublish, queue.StateDone))
	}
	for who, c := range map[string]*client.Client{"the owner": s.Client, "an anonymous reader": anon} {
		if n := count(who, c); n != 2 {
			t.Errorf("posts_count for %s after the scheduled post's time = %v; want 2", who, n)
		}
	}
}
