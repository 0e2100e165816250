package bench

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog/api"
	"github.com/murlog/murlog/client"
	"github.com/murlog/murlog/internal/apachetest"
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
// real `murlog serve`: 300 articles of ~20 KB, then anonymous batches at
// once, each of 100 posts.list calls — 200 MB of reply each before the
// limits. The process's resident size afterwards must stay within 2× of
// what it was before, and no reply may exceed the response budget.
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

	// The batch (limit 100), and the same at the largest page an
	// anonymous caller may ask for (20), which only the response budget
	// bounds: 100 × 20 × 20 KB would be a 40 MB reply.
	var attacks [][][]byte
	for _, limit := range []int{100, 20} {
		a := make([][]byte, 100)
		for i := range a {
			a[i] = listBody(limit)
		}
		attacks = append(attacks, a, a, a)
	}
	var wg sync.WaitGroup
	sizes := make([]int, len(attacks))
	statuses := make([]int, len(attacks))
	for i, a := range attacks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i], sizes[i] = batch(t, client.New(s.base), a)
		}()
	}
	wg.Wait()
	after := s.settledRSS(t, 10*time.Second)
	t.Logf("RSS idle %.1f MB, after six attack batches at once %.1f MB (%.2f×); replies %v bytes, HTTP %v",
		idle, after, after/idle, sizes, statuses)
	if after > 2*idle {
		t.Errorf("RSS after the attack = %.1f MB; want at most 2× idle (%.1f MB)", after, 2*idle)
	}
	for i, n := range sizes {
		// The budget bounds the results; the error objects of the calls
		// refused past it add a few KB.
		if n > api.AnonBudget+64<<10 {
			t.Errorf("attack batch %d got a %d-byte reply; want it bounded by the %d-byte response budget", i, n, api.AnonBudget)
		}
	}
}

// TestMemoryFigures records issue 6, point 23 and issue 15, F: resident
// memory of a real `murlog serve` after seeding 5,000 posts through batches
// and after the mixed read load (readLoad), with murlog's default memory
// settings and, in the same run, with the soft memory limit turned off
// (GOMEMLIMIT=off: GOGC=400 alone, the behaviour before it). It fails when the default variant's mean after the
// read load is over maxReadRSS. It runs only with MURLOG_BENCH_MEMORY=1;
// see docs/benchmarks.md.
func TestMemoryFigures(t *testing.T) {
	if os.Getenv("MURLOG_BENCH_MEMORY") == "" {
		t.Skip("set MURLOG_BENCH_MEMORY=1 to measure resident memory (about a minute)")
	}
	d := 10 * time.Second
	rounds := 2
	if n, err := strconv.Atoi(os.Getenv("MURLOG_BENCH_MEMORY_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	type figures struct{ idle, seeded, read, rps, cpuUS float64 }
	type variant struct {
		name string
		env  []string
		bin  string // another build; this tree's when empty
	}
	variants := []variant{{name: "default"}, {name: "GOMEMLIMIT=off", env: []string{"GOMEMLIMIT=off"}}}
	// MURLOG_BENCH_MEMLIMITS="24MiB,32MiB" compares other limits too.
	for _, l := range strings.Split(os.Getenv("MURLOG_BENCH_MEMLIMITS"), ",") {
		if l = strings.TrimSpace(l); l != "" {
			variants = append(variants, variant{name: "GOMEMLIMIT=" + l, env: []string{"GOMEMLIMIT=" + l}})
		}
	}
	// MURLOG_BENCH_BASELINE=/path/to/murlog[,/path/to/another] adds those
	// builds, with their own default settings, as variants named after
	// their files.
	for _, b := range strings.Split(os.Getenv("MURLOG_BENCH_BASELINE"), ",") {
		if b = strings.TrimSpace(b); b != "" {
			variants = append(variants, variant{name: filepath.Base(b), bin: b})
		}
	}
	got := map[string][]figures{}
	for r := 0; r < rounds; r++ {
		for i := range variants {
			v := variants[(i+r)%len(variants)] // alternate which runs first
			bin := v.bin
			if bin == "" {
				bin = apachetest.Murlog(t)
			}
			s := startBinary(t, bin, v.env...)
			f := figures{idle: s.settledRSS(t, 3*time.Second)}
			ids := s.seedNotes(t, 5000)
			// The batches' pages are rendered by the job in the background
			// (a batch is not the owner's request to wait for): the figures
			// are the site's steady state, once they are.
			took := s.rendered(t, 10*time.Minute)
			f.seeded = s.settledRSS(t, 5*time.Second)
			var perCall time.Duration
			f.rps, perCall = s.readLoad(t, ids, 32, d)
			f.cpuUS = float64(perCall.Nanoseconds()) / 1e3
			f.read = s.settledRSS(t, 5*time.Second)
			t.Logf("round %d %-15s after the read load: %s", r+1, v.name, s.rssParts(t))
			got[v.name] = append(got[v.name], f)
			t.Logf("round %d %-15s RSS idle %.1f MB, after seed %.1f MB (rendered %v after it), after read load %.1f MB; reads %.0f calls/s, %.0f µs server CPU per call",
				r+1, v.name, f.idle, f.seeded, took.Round(time.Second), f.read, f.rps, f.cpuUS)
		}
	}
	for _, v := range variants {
		var f figures
		for _, x := range got[v.name] {
			f.idle, f.seeded, f.read, f.rps, f.cpuUS = f.idle+x.idle, f.seeded+x.seeded, f.read+x.read, f.rps+x.rps, f.cpuUS+x.cpuUS
		}
		n := float64(len(got[v.name]))
		t.Logf("mean %-15s RSS idle %.1f MB, after seed %.1f MB, after read load %.1f MB; reads %.0f calls/s, %.0f µs server CPU per call",
			v.name, f.idle/n, f.seeded/n, f.read/n, f.rps/n, f.cpuUS/n)
		if v.name == "default" && f.read/n > maxReadRSS {
			t.Errorf("default settings: RSS after the mixed read load = %.1f MB (mean of %d rounds); want at most %.0f MB (issue 15, F)",
				f.read/n, len(got[v.name]), maxReadRSS)
		}
	}
}

// maxReadRSS is issue 15 F's bound, in MB, on what murlog serve holds after
// the seed and the mixed read load with its default settings.
const maxReadRSS = 40.0
