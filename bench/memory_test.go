package bench

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog/client"
)

// articleBody is posts.create of an article of about size bytes.
func articleBody(i, size int) []byte {
	var b strings.Builder
	for n := 0; b.Len() < size; n++ {
		fmt.Fprintf(&b, "Paragraph %d of article %d: murlog keeps one SQLite file as its ledger and serves readers from it.\n\n", n, i)
	}
	return rpc("posts.create", map[string]string{"kind": "article", "title": fmt.Sprintf("Article %d", i), "content": b.String()})
}

// TestAnonymousAmplification is the attack of issue 6, point 1, against a
// real `murlog serve`: 300 articles of ~20 KB, then three anonymous
// batches at once, each of 100 posts.list calls with limit 100 — 200 MB
// of reply each before the response budget. The process's resident size
// afterwards must stay within 2× of what it was before.
func TestAnonymousAmplification(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real murlog serve; skipped with -short")
	}
	s := startServer(t)
	const perBatch = 40 // 40 × 20 KB stays under the 1 MiB body limit
	for done := 0; done < 300; done += perBatch {
		calls := make([][]byte, 0, perBatch)
		for i := done; i < min(done+perBatch, 300); i++ {
			calls = append(calls, articleBody(i, 20<<10))
		}
		if st, _ := batch(t, s.owner, calls); st != http.StatusOK {
			t.Fatalf("seed batch at %d: HTTP %d", done, st)
		}
	}
	idle := s.settledRSS(t, 5*time.Second)

	attack := make([][]byte, 100)
	for i := range attack {
		attack[i] = listBody(100)
	}
	var wg sync.WaitGroup
	sizes := make([]int, 3)
	statuses := make([]int, 3)
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i], sizes[i] = batch(t, client.New(s.base), attack)
		}()
	}
	wg.Wait()
	after := s.settledRSS(t, 10*time.Second)
	t.Logf("RSS idle %.1f MB, after three attack batches %.1f MB (%.2f×); replies %v bytes, HTTP %v",
		idle, after, after/idle, sizes, statuses)
	if after > 2*idle {
		t.Errorf("RSS after the attack = %.1f MB; want at most 2× idle (%.1f MB)", after, 2*idle)
	}
	for i, n := range sizes {
		if n > 16<<20 {
			t.Errorf("attack batch %d got a %d-byte reply; want it bounded by the response budget", i, n)
		}
	}
}

// TestMemoryFigures records issue 6, point 23: resident memory of a real
// `murlog serve` after seeding 5,000 posts through batches and after a read
// load, with murlog's default memory settings and, in the same run, with
// the soft memory limit turned off (GOMEMLIMIT=off: GOGC=400 alone, the
// behaviour before it). It runs only with MURLOG_BENCH_MEMORY=1; see
// docs/benchmarks.md.
func TestMemoryFigures(t *testing.T) {
	if os.Getenv("MURLOG_BENCH_MEMORY") == "" {
		t.Skip("set MURLOG_BENCH_MEMORY=1 to measure resident memory (about a minute)")
	}
	d := 10 * time.Second
	rounds := 2
	if os.Getenv("MURLOG_BENCH_MEMLIMITS") != "" {
		rounds = 1
	}
	type figures struct{ idle, seeded, read, rps float64 }
	type variant struct {
		name string
		env  []string
	}
	variants := []variant{{"default", nil}, {"GOMEMLIMIT=off", []string{"GOMEMLIMIT=off"}}}
	// MURLOG_BENCH_MEMLIMITS="24MiB,32MiB" compares other limits too.
	for _, l := range strings.Split(os.Getenv("MURLOG_BENCH_MEMLIMITS"), ",") {
		if l = strings.TrimSpace(l); l != "" {
			variants = append(variants, variant{"GOMEMLIMIT=" + l, []string{"GOMEMLIMIT=" + l}})
		}
	}
	got := map[string][]figures{}
	for r := 0; r < rounds; r++ {
		for i := range variants {
			v := variants[(i+r)%len(variants)] // alternate which runs first
			s := startServer(t, v.env...)
			f := figures{idle: s.settledRSS(t, 3*time.Second)}
			s.seedNotes(t, 5000)
			f.seeded = s.settledRSS(t, 5*time.Second)
			f.rps = s.readLoad(t, 32, d)
			f.read = s.settledRSS(t, 5*time.Second)
			got[v.name] = append(got[v.name], f)
			t.Logf("round %d %-15s RSS idle %.1f MB, after seed %.1f MB, after read load %.1f MB; reads %.0f calls/s",
				r+1, v.name, f.idle, f.seeded, f.read, f.rps)
		}
	}
	for _, v := range variants {
		var f figures
		for _, x := range got[v.name] {
			f.idle, f.seeded, f.read, f.rps = f.idle+x.idle, f.seeded+x.seeded, f.read+x.read, f.rps+x.rps
		}
		n := float64(len(got[v.name]))
		t.Logf("mean %-15s RSS idle %.1f MB, after seed %.1f MB, after read load %.1f MB; reads %.0f calls/s",
			v.name, f.idle/n, f.seeded/n, f.read/n, f.rps/n)
	}
}
