package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/internal/apachetest"
	"github.com/murlog/murlog/internal/fedtest"
)

// Federation on a shared host (issue 15, B6): the walk of
// TestFederationWalk with one side murlog.cgi under the real Apache, once
// as the side that acts first (alice) and once as the side that receives
// first (bob), beside serve⇄serve in the same run. Every job of the CGI
// side — its deliveries included — runs in a `murlog worker --once` a CGI
// request spawned, never in the CGI process; each step's wall time
// (action → seen on the other side) is logged as a table, the figures of
// docs/benchmarks.md ("Federation under CGI").
func TestFederationWalkCGI(t *testing.T) {
	t.Parallel()
	apachetest.Require(t)
	configs := []struct {
		name     string
		cgiA     bool // alice (alpha, who follows, replies, likes, boosts) is CGI
		cgiB     bool // bob (beta, who posts, edits, deletes, blocks) is CGI
		aliceOpt fedtest.Options
		bobOpt   fedtest.Options
	}{
		{name: "serve⇄serve", aliceOpt: fedtest.Options{Name: "alpha.test", Username: "alice"}, bobOpt: fedtest.Options{Name: "beta.test", Username: "bob"}},
		// The CGI side is named (alpha.test, beta.test) where the test and
		// the in-process side resolve it; the side the CGI reaches is
		// named by its address (OwnLoopback), as murlog.cgi resolves
		// names with the system resolver. So CGI bob gets the mention
		// (beta.test is mention syntax) and CGI alice cannot send one (an
		// address is not).
		{name: "cgi⇄serve", cgiA: true, aliceOpt: fedtest.Options{Name: "alpha.test", Username: "alice"}, bobOpt: fedtest.Options{OwnLoopback: true, Username: "bob"}},
		{name: "serve⇄cgi", cgiB: true, aliceOpt: fedtest.Options{OwnLoopback: true, Username: "alice"}, bobOpt: fedtest.Options{Name: "beta.test", Username: "bob"}},
		// bob speaks only draft-cavage, as most of the fediverse: alice's
		// workers, a new process each, must double-knock once in all, not
		// once per process.
		{name: "cgi⇄serve (cavage peer)", cgiA: true, aliceOpt: fedtest.Options{Name: "alpha.test", Username: "alice"}, bobOpt: fedtest.Options{OwnLoopback: true, Username: "bob", CavageOnly: true}},
	}
	walks := make([]*walk, len(configs))
	for i, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			names := fedtest.NewNames()
			start := func(cgi bool, o fedtest.Options) *fedtest.Instance {
				if cgi {
					return fedtest.StartCGI(t, names, o)
				}
				return fedtest.Start(t, names, o)
			}
			a, b := start(c.cgiA, c.aliceOpt), start(c.cgiB, c.bobOpt)
			// Polled every 20 ms, so a step's time is its latency to
			// within that, not the 100 ms of the other walks' polling.
			w := &walk{a: a, b: b, tag: c.name, poll: 20 * time.Millisecond}
			walks[i] = w
			w.run(t)
			// The double-knock: the cavage-only peer refuses RFC 9421
			// once (the first knock), never a peer that speaks it.
			want := 0
			if c.bobOpt.CavageOnly {
				want = 1
			}
			if refused := b.Requests(func(method, path string, status int) bool {
				return method == http.MethodPost && strings.HasSuffix(path, "/inbox") && status == http.StatusUnauthorized
			}); len(refused) != want {
				t.Errorf("bob refused %d inbox POSTs with 401 %v; want %d (double-knock once, then the remembered scheme)\n%s",
					len(refused), refused, want, fedtest.Diagnose(a, b))
			}
			for _, in := range []*fedtest.Instance{a, b} {
				if refused := in.Requests(func(method, path string, status int) bool {
					return method == http.MethodPost && strings.HasSuffix(path, "/inbox") && status >= 400 &&
						!(in == b && c.bobOpt.CavageOnly && status == http.StatusUnauthorized)
				}); len(refused) > 0 {
					t.Errorf("%s refused inbox POSTs %v; want none\n%s", in.Domain, refused, fedtest.Diagnose(a, b))
				}
				if in.Apache != nil {
					checkSpawnedWorkersRan(t, in)
				}
			}
		})
	}
	t.Log("per step wall time (action → seen on the other side), ms:\n" + stepTable(configs[0].name, walks, func(i int) string { return configs[i].name }))
}

// checkSpawnedWorkersRan checks that the CGI instance's jobs ran in the
// workers its requests spawned: worker.log holds their job.completed
// lines (svc murlog-worker-once) for the deliveries the walk made, the CGI
// processes logged none, and no request failed to spawn its worker.
func checkSpawnedWorkersRan(t *testing.T, in *fedtest.Instance) {
	t.Helper()
	bySvc := map[string]map[string]int{} // svc → topic → completed
	count := func(log string) {
		for _, line := range strings.Split(log, "\n") {
			var l struct {
				Event string `json:"event"`
				Svc   string `json:"svc"`
				Topic string `json:"queue.topic"`
			}
			if json.Unmarshal([]byte(line), &l) != nil || l.Event != "job.completed" {
				continue
			}
			if bySvc[l.Svc] == nil {
				bySvc[l.Svc] = map[string]int{}
			}
			bySvc[l.Svc][l.Topic]++
		}
	}
	count(in.WorkerLog())
	spawned := bySvc["murlog-worker-once"]
	if len(bySvc) != 1 || spawned == nil {
		t.Errorf("%s: worker.log has jobs completed by %v; want only murlog-worker-once", in.Domain, bySvc)
	}
	delivered := 0
	for topic, n := range spawned {
		if strings.HasPrefix(topic, "deliver_") || strings.HasPrefix(topic, "send_") || topic == "accept_follow" {
			delivered += n
		}
	}
	if delivered == 0 || spawned["inbox.process"] == 0 {
		t.Errorf("%s: the spawned workers completed %v; want deliveries and inbox.process among them", in.Domain, spawned)
	}
	bySvc = map[string]map[string]int{}
	count(in.CGILog())
	if served := in.Requests(func(string, string, int) bool { return true }); len(served) == 0 {
		t.Errorf("%s: no request lines of the CGI processes in Apache's error_log: the check below would see nothing", in.Domain)
	}
	if len(bySvc) > 0 {
		t.Errorf("%s: the CGI processes completed jobs themselves %v; want every job in a spawned worker", in.Domain, bySvc)
	}
	if log := in.Apache.ErrorLog(); strings.Contains(log, "cannot start a worker") {
		t.Errorf("%s: a CGI request could not spawn its worker:\n%s", in.Domain, log)
	}
	t.Logf("%s: the spawned workers completed %v", in.Domain, spawned)
}

// stepTable formats the walks' step times side by side, each column also
// as a ratio to the first (the baseline measured in the same run).
func stepTable(base string, walks []*walk, name func(int) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| step |")
	for i := range walks {
		fmt.Fprintf(&b, " %s |", name(i))
	}
	b.WriteString("\n|---|")
	b.WriteString(strings.Repeat("---:|", len(walks)))
	b.WriteString("\n")
	if len(walks) == 0 || walks[0] == nil {
		return b.String()
	}
	totals := make([]time.Duration, len(walks))
	for k, st := range walks[0].took {
		fmt.Fprintf(&b, "| %s |", st.name)
		for i, w := range walks {
			if w == nil || k >= len(w.took) {
				b.WriteString(" – |")
				continue
			}
			d := w.took[k]
			if d.skipped {
				b.WriteString(" skipped |")
				continue
			}
			totals[i] += d.d
			ms := d.d.Milliseconds()
			if i == 0 || walks[0].took[k].skipped || walks[0].took[k].d == 0 {
				fmt.Fprintf(&b, " %d |", ms)
			} else {
				fmt.Fprintf(&b, " %d (×%.1f) |", ms, float64(d.d)/float64(walks[0].took[k].d))
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("| **walk** |")
	for i, d := range totals {
		if i == 0 || totals[0] == 0 {
			fmt.Fprintf(&b, " %d |", d.Milliseconds())
		} else {
			fmt.Fprintf(&b, " %d (×%.1f) |", d.Milliseconds(), float64(d)/float64(totals[0]))
		}
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "(baseline %s; ratios against it; %d cores)\n", base, runtime.NumCPU())
	return b.String()
}
