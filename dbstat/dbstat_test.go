package dbstat

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestClassInContext(t *testing.T) {
	ctx := context.Background()
	if Of(ctx) != System || Of(nil) != System {
		t.Error("no class is System")
	}
	if c := Of(With(With(ctx, Public), Worker)); c != Worker {
		t.Errorf("innermost class: %v; want worker", c)
	}
	for _, c := range Classes() {
		if back, ok := parse(c.String()); !ok || back != c {
			t.Errorf("class %d names %q, which parses to %v %v", c, c, back, ok)
		}
	}
	if Class(200).String() != "system" {
		t.Error("an unknown class is not labelled system")
	}
}

// TestLogAddsUpAcrossProcesses: many writers, each with its own file
// handle as separate processes have, flushing concurrently while the
// file is folded again and again, lose no count and invent none.
func TestLogAddsUpAcrossProcesses(t *testing.T) {
	old := compactAt
	compactAt = 256 // fold every few flushes
	t.Cleanup(func() { compactAt = old })
	path := filepath.Join(t.TempDir(), "metrics", "statements")
	const writers, flushes = 12, 150
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := &Log{Path: path, Counter: &Counter{}}
			for i := range flushes {
				l.Counter.Add(Public, 3)
				l.Counter.Add(Class(w%int(numClasses)), 1)
				if i%5 == 0 {
					l.Counter.Add(Inbox, 2)
				}
				if err := l.Flush(); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	want := map[Class]uint64{Public: 3 * writers * flushes, Inbox: 2 * writers * (flushes / 5)}
	for w := range writers {
		want[Class(w%int(numClasses))] += flushes
	}
	got, err := (&Log{Path: path, Counter: &Counter{}}).Totals()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Classes() {
		if got[c] != want[c] {
			t.Errorf("%s: %d; want %d", c, got[c], want[c])
		}
	}
	if st, err := os.Stat(path); err != nil || st.Size() > compactAt+64*int64(numClasses) {
		t.Errorf("the file was not kept folded: %v, %v", st.Size(), err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v; want 0600", st.Mode().Perm())
	}
}

// TestLogKeepsWhatItCannotWrite: counts a flush cannot write stay for the
// next, and Totals shows them meanwhile; lines it cannot read are skipped.
func TestLogKeepsWhatItCannotWrite(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o600)
	l := &Log{Path: filepath.Join(blocker, "statements"), Counter: &Counter{}}
	l.Counter.Add(Owner, 7)
	if err := l.Flush(); err == nil {
		t.Fatal("a flush under a file succeeded")
	}
	if got := l.Counter.Counts()[Owner]; got != 7 {
		t.Errorf("after a failed flush %d owner statements are left; want 7", got)
	}
	l.Path = filepath.Join(dir, "statements")
	os.WriteFile(l.Path, []byte("public 5\ngarbage\nfuture_class 9\npublic x\nworker 2\n"), 0o600)
	got, err := l.Totals()
	if err != nil {
		t.Fatal(err)
	}
	if got[Public] != 5 || got[Worker] != 2 || got[Owner] != 7 {
		t.Errorf("totals %v; want public 5, worker 2, owner 7 (unflushed)", got)
	}
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, _ := l.Totals(); got[Owner] != 7 {
		t.Errorf("after the flush, owner %d; want 7 (counted once)", got[Owner])
	}
	b, _ := os.ReadFile(l.Path)
	if want := "owner 7\n"; string(b[len(b)-len(want):]) != want {
		t.Errorf("file ends %q; want the appended line", b)
	}
}

// foldingFile is a counts file's path, folded every 64 lines for the
// test (compactAt), so that folding is part of what it reads back.
func foldingFile(t *testing.T) string {
	old := compactAt
	compactAt = 64
	t.Cleanup(func() { compactAt = old })
	return filepath.Join(t.TempDir(), "statements")
}

// TestDropsShareTheFile: shield drops are flushed, folded and read back
// beside the statements, each to its own totals.
func TestDropsShareTheFile(t *testing.T) {
	path := foldingFile(t)
	for range 20 {
		l := &Log{Path: path, Counter: &Counter{}}
		l.Counter.Drop(ShieldSearch)
		l.Counter.Drop(ShieldWriteBreaker)
		l.Counter.Add(Public, 2)
		if err := l.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	l := &Log{Path: path, Counter: &Counter{}}
	l.Counter.Drop(ShieldSearch) // not flushed yet: counted by Totals anyway
	drops, err := l.DropTotals()
	if err != nil {
		t.Fatal(err)
	}
	stmts, _ := l.Totals()
	if drops[ShieldSearch] != 21 || drops[ShieldWriteBreaker] != 20 || drops[ShieldInboxClient] != 0 || stmts[Public] != 40 {
		t.Errorf("drops %v, statements %v; want search 21, write_breaker 20, public 40", drops, stmts)
	}
	if Shield(99).String() != "other" {
		t.Error("an unknown shield is not labelled other")
	}
	ctx := WithCounter(context.Background(), l.Counter)
	Dropped(ctx, ShieldAnonAPI)
	Dropped(context.Background(), ShieldAnonAPI) // no counter: nothing, no panic
	if l.Counter.DropCounts()[ShieldAnonAPI] != 1 {
		t.Error("Dropped did not count in the context's Counter")
	}
}

// TestEventsShareTheFile: artifact hits, misses and rebuilds (with their
// histogram) add up across processes through the counts file, folding
// included, as statements do.
func TestEventsShareTheFile(t *testing.T) {
	path := foldingFile(t)
	for range 10 {
		l := &Log{Path: path, Counter: &Counter{}}
		l.Counter.Count(ArtifactHit)
		l.Counter.Count(ArtifactHit)
		l.Counter.Count(ArtifactMiss)
		l.Counter.Rebuilt(3 * time.Millisecond) // the 0.005 bucket
		l.Counter.Rebuilt(time.Minute)          // +Inf
		if err := l.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	l := &Log{Path: path, Counter: &Counter{}}
	l.Counter.Count(ArtifactStale) // not flushed: counted anyway
	ev, err := l.EventTotals()
	if err != nil {
		t.Fatal(err)
	}
	if ev.N[ArtifactHit] != 20 || ev.N[ArtifactMiss] != 10 || ev.N[ArtifactRebuild] != 20 || ev.N[ArtifactStale] != 1 {
		t.Errorf("events %v; want 20 hits, 10 misses, 20 rebuilds, 1 stale", ev.N)
	}
	if ev.Buckets[2] != 10 || ev.Buckets[len(RebuildBuckets)] != 10 {
		t.Errorf("rebuild buckets %v; want 10 in le=0.005 and 10 in +Inf", ev.Buckets)
	}
	if want := 10 * (0.003 + 60); ev.Seconds < want-0.001 || ev.Seconds > want+0.001 {
		t.Errorf("rebuild seconds %v; want %v", ev.Seconds, want)
	}
	if stmts, _ := l.Totals(); stmts[Public] != 0 {
		t.Errorf("events counted as statements: %v", stmts)
	}
}
