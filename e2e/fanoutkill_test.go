package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/httpsig"
	"github.com/murlog/murlog/internal/apachetest"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
)

// testLease is the job lease of these tests' worker processes, in seconds
// (job_lease through MURLOG_JOB_LEASE): short, so a killed worker's jobs
// come back within seconds rather than the default minute.
const testLease = 3

// inboxes are remote servers on loopback receiving a fan-out: each POST's
// signature is verified with the persona's public key and its activity
// recorded by inbox. Past holdAfter deliveries they hold every request
// until release, so a kill finds deliveries in flight that the remote
// side has already received — the case that makes a duplicate.
type inboxes struct {
	pub       any
	keyID     string
	holdAfter int
	reached   chan struct{} // closed at the holdAfter-th delivery
	release   chan struct{}

	mu   sync.Mutex
	n    int
	got  map[string][]string // inbox URL → activity ids received, in order
	bad  []string            // what did not verify or decode
	srvs []*httptest.Server
}

func newInboxes(t *testing.T, servers int, keyID, publicPEM string, holdAfter int) *inboxes {
	t.Helper()
	pub, err := httpsig.ParsePublicKeyPEM(publicPEM)
	if err != nil {
		t.Fatal(err)
	}
	in := &inboxes{pub: pub, keyID: keyID, holdAfter: holdAfter, reached: make(chan struct{}), release: make(chan struct{}),
		got: map[string][]string{}}
	for range servers {
		s := httptest.NewServer(http.HandlerFunc(in.serve))
		t.Cleanup(s.Close)
		in.srvs = append(in.srvs, s)
	}
	t.Cleanup(in.open)
	return in
}

// open stops holding requests.
func (in *inboxes) open() {
	select {
	case <-in.release:
	default:
		close(in.release)
	}
}

func (in *inboxes) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var a struct{ ID, Type string }
	err := json.Unmarshal(body, &a)
	if err == nil {
		err = in.verify(r, body)
	}
	inbox := "http://" + r.Host + r.URL.Path
	in.mu.Lock()
	if err != nil {
		in.bad = append(in.bad, fmt.Sprintf("%s: %v", inbox, err))
	} else {
		in.got[inbox] = append(in.got[inbox], a.Type+" "+a.ID)
	}
	in.n++
	n := in.n
	in.mu.Unlock()
	if n == in.holdAfter {
		close(in.reached)
	}
	if n >= in.holdAfter {
		select {
		case <-in.release:
		case <-r.Context().Done():
		}
	}
	w.WriteHeader(http.StatusAccepted)
}

func (in *inboxes) verify(r *http.Request, body []byte) error {
	sig, err := httpsig.Parse(r, true, httpsig.VerifyOptions{Now: time.Now()})
	if err != nil {
		return err
	}
	if sig.KeyID != in.keyID {
		return fmt.Errorf("keyId %s; want %s", sig.KeyID, in.keyID)
	}
	if err := sig.Verify(in.pub); err != nil {
		return err
	}
	return httpsig.VerifyDigest(r, body)
}

// received returns the deliveries so far: by inbox, and in all.
func (in *inboxes) received() (map[string][]string, int, []string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	m := make(map[string][]string, len(in.got))
	total := 0
	for k, v := range in.got {
		m[k] = append([]string(nil), v...)
		total += len(v)
	}
	return m, total, append([]string(nil), in.bad...)
}

// TestKilledFanoutFinishesWithinALease: a `worker --once` delivering a
// post to 200 followers on four servers is killed with SIGKILL while
// deliveries are in flight. A worker started at once (as the next visit
// or cron line would) delivers what was never claimed, waits for the dead
// worker's leases to run out, recovers its jobs and delivers them: every
// follower gets the post, every job is done within a minute of the
// restart (here within seconds: the lease is shortened to testLease
// seconds), deliveries repeated are at most the jobs that were in flight
// at the kill, and every delivery, first or repeated, carries the same
// activity id, by which the receivers drop the repeats.
func TestKilledFanoutFinishesWithinALease(t *testing.T) {
	t.Parallel()
	site := testsite.New(t)
	ws := openJobsSite(t, site.Dir, apachetest.Murlog(t), nil)
	ws.env = []string{"MURLOG_SCHEME=http", "MURLOG_ALLOW_PRIVATE_NETWORK=1", fmt.Sprintf("MURLOG_JOB_LEASE=%d", testLease)}
	bg := context.Background()

	var alice *murlog.Persona
	if err := ws.db.View(bg, func(tx store.Tx) error {
		var err error
		alice, err = tx.Personas().Primary()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	const followers = 200
	local := murlog.Site{Scheme: "http", Domain: site.Domain()}
	in := newInboxes(t, 4, local.KeyID(alice.Username), alice.PublicKeyPEM, 60)
	want := map[string]bool{}
	if err := ws.db.Update(bg, func(tx store.Tx) error {
		now := tx.Now()
		for i := range followers {
			base := fmt.Sprintf("%s/users/f%03d", in.srvs[i%len(in.srvs)].URL, i)
			a := &murlog.RemoteActor{URI: base, Username: fmt.Sprintf("f%03d", i), Domain: strings.TrimPrefix(in.srvs[i%len(in.srvs)].URL, "http://"),
				URL: base, Inbox: base + "/inbox", Type: "Person", KeyID: base + "#main-key", PublicKeyPEM: "pem",
				FetchedAt: now, CreatedAt: now, UpdatedAt: now}
			if err := tx.RemoteActors().Upsert(a); err != nil {
				return err
			}
			if err := tx.Followers().Create(&murlog.Follower{ID: murlog.NewID(), PersonaID: alice.ID, ActorID: a.ID,
				ActivityURI: base + "#follows/1", State: murlog.FollowAccepted, CreatedAt: now}); err != nil {
				return err
			}
			want[a.Inbox] = true
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var post struct{ ID string }
	if err := site.Client.Call(bg, "posts.create", map[string]any{"content": "to every follower, once"}, &post); err != nil {
		t.Fatal(err)
	}
	createID := "Create " + local.ActivityURL(alice.Username, post.ID)

	run1 := ws.worker(t, "run1")
	select {
	case <-in.reached:
	case <-run1.done:
		t.Fatalf("the first worker exited before 60 deliveries\n%s", run1.log(t))
	case <-time.After(60 * time.Second):
		t.Fatalf("60 deliveries did not arrive within 60 s\n%s", run1.log(t))
	}
	run1.cmd.Process.Signal(syscall.SIGKILL)
	<-run1.done
	atKill := ws.states(t, delivery.TopicDeliverNote)
	inFlight := atKill[queue.StateRunning]
	// Every job the kill left running is recovered: the deliveries, and
	// any other (the rebuild of the post's pages, say) the worker had
	// claimed beside them.
	var runningAtKill int
	if err := ws.raw.QueryRow("SELECT count(*) FROM queue_jobs WHERE state = 'running'").Scan(&runningAtKill); err != nil {
		t.Fatal(err)
	}
	_, receivedAtKill, _ := in.received()
	in.open()
	if inFlight == 0 || atKill[queue.StateDone] == 0 {
		t.Fatalf("deliver_note jobs at the kill: %v; want some done and some in flight", atKill)
	}

	restart := time.Now()
	run2 := ws.worker(t, "run2")
	run2.wait(t, time.Minute)
	took := time.Since(restart)
	final := ws.states(t, delivery.TopicDeliverNote)
	if final[queue.StateDone] != followers || len(final) != 1 {
		t.Errorf("deliver_note jobs after the restart: %v; want all %d done, one per follower", final, followers)
	}
	if st := ws.states(t, delivery.TopicDeliverPost); st[queue.StateDone] != 1 || len(st) != 1 {
		t.Errorf("deliver_post jobs: %v; want the one fan-out, done", st)
	}
	if took > time.Minute {
		t.Errorf("the restarted worker took %v to finish; want within a minute", took)
	}
	recovered := 0
	for _, l := range parseLog(t, run2.log(t)) {
		if l.Event == "job.recovered" {
			recovered += l.Count
		}
	}
	if recovered != runningAtKill {
		t.Errorf("the restarted worker recovered %d jobs; want the %d running at the kill (%d of them deliveries)", recovered, runningAtKill, inFlight)
	}

	got, total, bad := in.received()
	for _, b := range bad {
		t.Errorf("a delivery that did not verify: %s", b)
	}
	ids := map[string]bool{}
	for inbox := range want {
		if len(got[inbox]) == 0 {
			t.Errorf("%s received nothing", inbox)
		}
		for _, id := range got[inbox] {
			ids[id] = true
		}
	}
	if len(got) != followers {
		t.Errorf("%d inboxes received the post; want %d", len(got), followers)
	}
	if len(ids) != 1 || !ids[createID] {
		t.Errorf("activities received: %v; want only %q (one id per post, repeats included)", ids, createID)
	}
	duplicates := total - len(got)
	if duplicates > inFlight {
		t.Errorf("%d deliveries repeated; want at most the %d jobs in flight at the kill", duplicates, inFlight)
	}
	t.Logf("killed with %d deliveries received and %d jobs in flight (%v); the restarted worker finished in %v, %d deliveries repeated",
		receivedAtKill, inFlight, atKill, took.Round(time.Millisecond), duplicates)
}
