package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/murlog/murlog/client"
	"github.com/murlog/murlog/internal/apachetest"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/worker"
)

// Jobs under the real Apache: a CGI request that leaves jobs runnable
// spawns a detached `murlog worker --once` after its response, and serve
// and CGI share one database file.

// workerPids returns the running workers CGI requests spawned.
func workerPids(prog string) []int { return apachetest.WorkerPids(prog) }

// killWorkers kills every spawned worker of prog still running.
func killWorkers(prog string) { apachetest.KillWorkers(prog) }

// procStat returns a process's parent, process group and session.
func procStat(pid int) (ppid, pgrp, sid int, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, 0, err
	}
	// pid (comm) state ppid pgrp session …; comm may hold spaces.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	ppid, _ = strconv.Atoi(f[1])
	pgrp, _ = strconv.Atoi(f[2])
	sid, _ = strconv.Atoi(f[3])
	return ppid, pgrp, sid, nil
}

// lockHolders returns the pids holding a flock on path, from /proc/locks.
func lockHolders(path string) []int {
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	return flockHolders(readLocks(), uint64(sys.Dev), sys.Ino)
}

// readLocks reads /proc/locks in reads of 64 KiB. The kernel prints each
// read() under its lock table's lock, so one read is a consistent
// snapshot; os.ReadFile starts with 512 bytes, and while ten CGI processes
// hold SQLite's POSIX locks the table outgrows that, so a lock handed from
// one worker to the next could be seen twice, once in each chunk.
func readLocks() string {
	f, err := os.Open("/proc/locks")
	if err != nil {
		return ""
	}
	defer f.Close()
	var sb strings.Builder
	buf := make([]byte, 64<<10)
	for {
		n, err := f.Read(buf)
		sb.Write(buf[:n])
		if err != nil || n == 0 {
			return sb.String()
		}
	}
}

// flockHolders picks the FLOCK lines of a /proc/locks text that name the
// file (dev, ino). The kernel prints the file as major:minor:inode with the
// device numbers in hex ("fe:00:5678"); an inode number alone is unique only
// within one file system, so matching it without the device counted a lock
// on another mount's file as a second holder.
func flockHolders(locks string, dev, ino uint64) []int {
	want := fmt.Sprintf("%02x:%02x:%d", unix.Major(dev), unix.Minor(dev), ino)
	var out []int
	for _, line := range strings.Split(locks, "\n") {
		// "1: FLOCK  ADVISORY  WRITE 1234 fe:00:5678 0 EOF"
		f := strings.Fields(line)
		if len(f) >= 6 && f[1] == "FLOCK" && f[5] == want {
			pid, _ := strconv.Atoi(f[4])
			out = append(out, pid)
		}
	}
	return out
}

// spawnSite is a site set up through Apache, with the test's handles on
// its database and spawned workers killed when the test ends.
func spawnSite(t *testing.T) (*apachetest.Server, *client.Client, *jobsSite) {
	t.Helper()
	s, owner := setUp(t)
	prog := s.Path(apachetest.Script)
	t.Cleanup(func() { killWorkers(prog) })
	ws := openJobsSite(t, s.DocRoot, prog, s.Credential())
	t.Cleanup(func() { checkOwnership(t, s, ws.dataDir) })
	return s, owner, ws
}

// checkOwnership fails when a file in data_dir does not belong to the CGI
// user (the test's own database handle runs as root).
func checkOwnership(t *testing.T, s *apachetest.Server, dir string) {
	if s.UID < 0 {
		return
	}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != s.UID {
				t.Errorf("%s belongs to uid %d; want the CGI user's %d", p, st.Uid, s.UID)
			}
		}
		return nil
	})
}

// 6. Under the real Apache, a request that leaves a job runnable answers at
// once; a worker in its own session (no request environment, stdio on
// /dev/null and data_dir/worker.log) runs the job after the CGI process
// is gone, and outlives Apache itself. A burst of requests leaves at most
// one worker holding the lock.
func TestCGIRequestSpawnsDetachedWorker(t *testing.T) {
	s, owner, ws := spawnSite(t)
	ctx := context.Background()
	prog := s.Path(apachetest.Script)
	workerLog := filepath.Join(ws.dataDir, "worker.log")
	lockPath := filepath.Join(ws.dataDir, "worker.lock")
	state := func(id string) queue.State { return ws.rows(t, "")[id].State }

	// One request, one job of 2 s.
	job := queue.NewJob(worker.TopicSleep, []byte(`{"ms":2000}`))
	ws.mustEnqueue(t, job)
	t0 := time.Now()
	if err := owner.Call(ctx, "queue.tick", nil, nil); err != nil {
		t.Fatalf("queue.tick: %v", err)
	}
	responded := time.Since(t0)
	if responded > time.Second {
		t.Errorf("the spawning request answered after %v; want well under the job's 2 s", responded)
	}
	var pid int
	waitFor(t, 2*time.Second, "a spawned worker", func() bool {
		if ps := workerPids(prog); len(ps) > 0 {
			pid = ps[0]
		}
		return pid != 0
	})
	_, pgrp, sid, err := procStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	apachePid, _ := strconv.Atoi(strings.TrimSpace(readFile(t, filepath.Join(s.Root, "run", "httpd.pid"))))
	_, _, apacheSid, _ := procStat(apachePid)
	if sid != pid || pgrp != pid || sid == apacheSid {
		t.Errorf("worker %d: process group %d, session %d (Apache's session %d); want its own session", pid, pgrp, sid, apacheSid)
	}
	if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); exe != prog {
		t.Errorf("worker %d runs %q; want %q", pid, exe, prog)
	}
	for fd, want := range []string{os.DevNull, os.DevNull, workerLog} {
		if got, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", pid, fd)); got != want {
			t.Errorf("worker fd %d is %q; want %q", fd, got, want)
		}
	}
	env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	for _, kv := range strings.Split(string(env), "\x00") {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "HTTP_") || strings.HasPrefix(k, "REQUEST_") ||
			k == "GATEWAY_INTERFACE" || k == "SCRIPT_FILENAME" || k == "REMOTE_ADDR" || k == "QUERY_STRING" {
			t.Errorf("the worker inherited the request's %s", kv)
		}
	}
	// The CGI process (the worker's parent, running the same program)
	// exits while its worker sleeps.
	waitFor(t, 1500*time.Millisecond, "the CGI process to exit", func() bool {
		ppid, _, _, err := procStat(pid)
		exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", ppid))
		return err == nil && exe != prog
	})
	cgiGone := time.Since(t0)
	if st := state(job.ID); st == queue.StateDone {
		t.Fatalf("the 2 s job is done %v after the request; the sleep was not honoured", cgiGone)
	}
	waitFor(t, 15*time.Second, "the job done", func() bool { return state(job.ID) == queue.StateDone })
	doneAfter := time.Since(t0)
	waitFor(t, 5*time.Second, "the worker to exit", func() bool { return len(workerPids(prog)) == 0 })
	ranBy := map[string]string{}
	for _, l := range parseLog(t, readFile(t, workerLog)) {
		if l.Event == "job.completed" {
			ranBy[l.ID] = l.Svc
		}
	}
	if ranBy[job.ID] != "murlog-worker-once" {
		t.Errorf("worker.log has no job.completed line of murlog-worker-once for %s:\n%s", job.ID, readFile(t, workerLog))
	}
	t.Logf("spawn: response after %v, CGI gone within %v, job (2 s) done after %v", responded.Round(time.Millisecond),
		cgiGone.Round(time.Millisecond), doneAfter.Round(time.Millisecond))

	// A burst of 10 requests with 12 jobs waiting: several workers may
	// start, but one at a time holds the lock; the others exit at once.
	yieldedBefore := strings.Count(readFile(t, workerLog), "another worker holds the lock")
	burst := sleepJobs(12, func(int) string { return `{"ms":300}` })
	ws.mustEnqueue(t, burst...)
	stop := make(chan struct{})
	var maxProcs, maxHolders int
	var prevHolders []int
	var doubleHolders string
	first, last, holder := map[int]time.Time{}, map[int]time.Time{}, map[int]bool{}
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			default:
			}
			ps, hs := workerPids(prog), lockHolders(lockPath)
			now := time.Now()
			// Two holders count only when two samples in a row see them: a
			// real double lock lasts as long as a job (300 ms here), while
			// a snapshot that straddles a hand-over does not repeat.
			if len(hs) > 1 && len(prevHolders) > 1 {
				maxHolders = max(maxHolders, min(len(hs), len(prevHolders)))
				doubleHolders = fmt.Sprint(prevHolders, " then ", hs)
			} else {
				maxHolders = max(maxHolders, min(len(hs), 1))
			}
			prevHolders = hs
			maxProcs = max(maxProcs, len(ps))
			for _, p := range ps {
				if _, ok := first[p]; !ok {
					first[p] = now
				}
				last[p] = now
			}
			for _, h := range hs {
				holder[h] = true
			}
			time.Sleep(time.Millisecond)
		}
	}()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var slowest time.Duration
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sent := time.Now()
			if err := owner.Call(ctx, "queue.tick", nil, nil); err != nil {
				t.Errorf("queue.tick in the burst: %v", err)
			}
			mu.Lock()
			slowest = max(slowest, time.Since(sent))
			mu.Unlock()
		}()
	}
	wg.Wait()
	waitFor(t, 20*time.Second, "the burst's jobs done", func() bool {
		return ws.states(t, worker.TopicSleep)[queue.StateDone] == 1+len(burst)
	})
	waitFor(t, 5*time.Second, "the workers to exit", func() bool { return len(workerPids(prog)) == 0 })
	close(stop)
	<-sampled
	if maxHolders > 1 {
		t.Errorf("%d workers held the lock at once (pids %s); want at most 1", maxHolders, doubleHolders)
	}
	var longestLoser time.Duration
	for p := range first {
		if !holder[p] {
			longestLoser = max(longestLoser, last[p].Sub(first[p]))
		}
	}
	if longestLoser > time.Second {
		t.Errorf("a worker that did not hold the lock lived %v; want it to exit at once", longestLoser)
	}
	for id, r := range ws.rows(t, worker.TopicSleep) {
		if r.State != queue.StateDone || r.Attempt != 1 {
			t.Errorf("job %s: %s after %d attempts; want done after 1", id, r.State, r.Attempt)
		}
	}
	yielded := strings.Count(readFile(t, workerLog), "another worker holds the lock") - yieldedBefore
	if len(holder) == 0 || yielded+len(holder) > 10 {
		t.Errorf("burst of 10 requests: %d workers took the lock, %d yielded; want at least one to run and at most one worker per request", len(holder), yielded)
	}
	t.Logf("burst of 10: slowest response %v; %d workers seen (at most %d at once), %d took the lock, %d logged yielding; longest-lived loser %v",
		slowest.Round(time.Millisecond), len(first), maxProcs, len(holder), yielded, longestLoser.Round(time.Millisecond))

	// The worker outlives Apache: stop it (apache2 -k stop, then SIGKILL
	// to its process group) while the job sleeps.
	job = queue.NewJob(worker.TopicSleep, []byte(`{"ms":3000}`))
	ws.mustEnqueue(t, job)
	t0 = time.Now()
	if err := owner.Call(ctx, "queue.tick", nil, nil); err != nil {
		t.Fatalf("queue.tick: %v", err)
	}
	pid = 0
	waitFor(t, 2*time.Second, "a spawned worker", func() bool {
		if ps := workerPids(prog); len(ps) > 0 {
			pid = ps[0]
		}
		return pid != 0
	})
	if err := s.Stop(); err != nil {
		t.Fatalf("stop Apache: %v", err)
	}
	stopped := time.Since(t0)
	if !slices.Contains(workerPids(prog), pid) || state(job.ID) == queue.StateDone {
		t.Fatalf("%v after the request, Apache stopped: worker %d alive %v, job %s; want the worker still running the job",
			stopped, pid, slices.Contains(workerPids(prog), pid), state(job.ID))
	}
	waitFor(t, 15*time.Second, "the job done after Apache stopped", func() bool { return state(job.ID) == queue.StateDone })
	t.Logf("Apache stopped %v after the request; the worker's 3 s job done %v after it", stopped.Round(time.Millisecond),
		time.Since(t0).Round(time.Millisecond))
	waitFor(t, 5*time.Second, "the worker to exit", func() bool { return len(workerPids(prog)) == 0 })
	if log := s.ErrorLog(); strings.Contains(log, "cannot start a worker") {
		t.Errorf("a CGI request could not spawn its worker:\n%s", log)
	}
}

// 3. serve and CGI on one site directory at once: 100 posts.create through
// both front doors while jobs are enqueued and run by serve's in-process
// worker and CGI-spawned workers. No request fails with a 5xx (SQLITE_BUSY
// surfacing as a 500), every post is stored, every job is done.
func TestServeAndCGIShareTheDatabase(t *testing.T) {
	t.Parallel()
	s, owner, ws := spawnSite(t)
	ctx := context.Background()
	prog := s.Path(apachetest.Script)
	var tok struct {
		Token string `json:"token"`
	}
	if err := owner.Call(ctx, "tokens.create", map[string]string{"name": "load"}, &tok); err != nil {
		t.Fatalf("tokens.create: %v", err)
	}
	enqueued := 300
	ws.mustEnqueue(t, sleepJobs(enqueued, func(int) string { return `{"ms":100}` })...)
	// A CGI request spawns a worker, which takes the lock…
	if err := owner.Call(ctx, "queue.tick", nil, nil); err != nil {
		t.Fatalf("queue.tick: %v", err)
	}
	waitFor(t, 5*time.Second, "the spawned worker to claim jobs", func() bool {
		return ws.states(t, worker.TopicSleep)[queue.StateRunning] > 0
	})
	// …so serve's in-process worker, started now as the same user on the
	// same directory, runs beside it.
	srv := ws.start(t, "serve", "serve", "--listen", "127.0.0.1:0", "--config", ws.ini)
	var addr string
	waitFor(t, 10*time.Second, "serve to listen", func() bool {
		for _, l := range parseLog(t, srv.log(t)) {
			if l.Msg == "murlog serving" {
				addr = l.Addr
			}
		}
		return addr != "" || srv.exited()
	})
	if addr == "" {
		t.Fatalf("serve exited:\n%s", srv.log(t))
	}

	doors := map[string]*client.Client{"apache": client.New(s.URL), "serve": client.New("http://" + addr)}
	type result struct {
		door   string
		status int
		id     string
		err    string
	}
	const perDoor, conns = 50, 4
	results := make(chan result, 2*perDoor)
	hammerDone := make(chan struct{})
	var enq sync.WaitGroup
	enq.Add(1)
	go func() { // jobs keep arriving while the posts are written
		defer enq.Done()
		for i := 0; ; i++ {
			select {
			case <-hammerDone:
				return
			case <-time.After(40 * time.Millisecond):
			}
			if err := ws.enqueue(sleepJobs(10, func(k int) string { return fmt.Sprintf(`{"ms":%d}`, 10+k*3) })...); err != nil {
				t.Errorf("enqueue during the load: %v", err)
				return
			}
			enqueued += 10
		}
	}()
	var wg sync.WaitGroup
	start := time.Now()
	for door, c := range doors {
		c.Token = tok.Token
		for w := 0; w < conns; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < perDoor; i += conns {
					body := rpcBody("posts.create", map[string]string{"content": fmt.Sprintf("load %s %d", door, i)})
					status, raw, err := c.Post(ctx, "/api/mur/v1/rpc", "application/json", body)
					r := result{door: door, status: status}
					var resp client.Response
					var p postResult
					switch {
					case err != nil:
						r.err = err.Error()
					case json.Unmarshal(raw, &resp) != nil:
						r.err = fmt.Sprintf("undecodable %.200q", raw)
					case resp.Error != nil:
						r.err = resp.Error.Error()
					case json.Unmarshal(resp.Result, &p) != nil || p.ID == "":
						r.err = fmt.Sprintf("no post id in %.200q", raw)
					default:
						r.id = p.ID
					}
					results <- r
				}
			}()
		}
	}
	wg.Wait()
	hammered := time.Since(start)
	close(hammerDone)
	enq.Wait()
	close(results)

	byStatus := map[string]int{}
	var created []string
	for r := range results {
		byStatus[fmt.Sprintf("%s %d", r.door, r.status)]++
		if r.status >= 500 || r.status == 0 {
			t.Errorf("posts.create through %s: HTTP %d: %s", r.door, r.status, r.err)
		} else if r.err != "" {
			t.Errorf("posts.create through %s: HTTP %d: %s", r.door, r.status, r.err)
		}
		if r.id != "" {
			created = append(created, r.id)
		}
	}
	stored := map[string]bool{}
	rs, err := ws.raw.Query("SELECT id FROM posts")
	if err != nil {
		t.Fatal(err)
	}
	for rs.Next() {
		var id string
		rs.Scan(&id)
		stored[id] = true
	}
	rs.Close()
	for _, id := range created {
		if !stored[id] {
			t.Errorf("post %s was created (200) but is not stored", id)
		}
	}
	if len(created) != 2*perDoor || len(stored) != len(created) {
		t.Errorf("%d posts created, %d stored; want %d and %d", len(created), len(stored), 2*perDoor, 2*perDoor)
	}

	drained := waitFor(t, 30*time.Second, "every job done", func() bool {
		st := ws.states(t, worker.TopicSleep)
		return st[queue.StatePending]+st[queue.StateScheduled]+st[queue.StateRunning] == 0
	})
	if st := ws.states(t, worker.TopicSleep); st[queue.StateDone] != enqueued || len(st) != 1 {
		t.Errorf("jobs by state %v; want all %d done", st, enqueued)
	}
	for id, r := range ws.rows(t, worker.TopicSleep) {
		if r.Attempt != 1 {
			t.Errorf("job %s ran %d times; want once", id, r.Attempt)
		}
	}
	srv.cmd.Process.Signal(syscall.SIGTERM)
	srv.wait(t, 20*time.Second)
	waitFor(t, 10*time.Second, "spawned workers to exit", func() bool { return len(workerPids(prog)) == 0 })

	serveLog, workerLog := srv.log(t), readFile(t, filepath.Join(ws.dataDir, "worker.log"))
	bySvc := map[string]int{}
	for _, l := range append(parseLog(t, serveLog), parseLog(t, workerLog)...) {
		if l.Event == "job.completed" && l.Topic == worker.TopicSleep {
			bySvc[l.Svc]++
		}
	}
	if bySvc["murlog-serve"] == 0 || bySvc["murlog-worker-once"] == 0 {
		t.Errorf("jobs completed by %v; want both serve's worker and CGI-spawned workers to have run some", bySvc)
	}
	var problems []string
	for name, log := range map[string]string{"serve": serveLog, "worker.log": workerLog, "Apache error_log": s.ErrorLog()} {
		for _, line := range strings.Split(log, "\n") {
			for _, bad := range []string{"database is locked", "SQLITE_BUSY", "worker.ack_failed", "worker.claim_failed", "level\":\"ERROR", "panic"} {
				if strings.Contains(line, bad) {
					problems = append(problems, name+": "+line)
					break
				}
			}
		}
	}
	slices.Sort(problems)
	if len(problems) > 0 {
		t.Errorf("%d problem lines in the logs, e.g.:\n%s", len(problems), strings.Join(problems[:min(len(problems), 10)], "\n"))
	}
	t.Logf("%d posts.create in %v (%v); %d jobs done by %v, drained %v after the load; %d spawned workers yielded to the lock",
		len(created), hammered.Round(time.Millisecond), byStatus, enqueued, bySvc, drained.Round(time.Millisecond),
		strings.Count(workerLog, "another worker holds the lock"))
}

// TestFlockHoldersMatchDeviceAndInode covers the flake of
// TestCGIRequestSpawnsDetachedWorker ("2 workers held the lock"): a flock on
// a file with the same inode number on another device is not a holder.
func TestFlockHoldersMatchDeviceAndInode(t *testing.T) {
	dev := unix.Mkdev(0xfe, 0)
	locks := "1: FLOCK  ADVISORY  WRITE 100 fe:00:5678 0 EOF\n" +
		"2: FLOCK  ADVISORY  WRITE 200 08:01:5678 0 EOF\n" + // same inode, other device
		"3: POSIX  ADVISORY  WRITE 300 fe:00:5678 0 EOF\n" + // not a flock
		"4: FLOCK  ADVISORY  WRITE 400 fe:00:15678 0 EOF\n" // inode with the same suffix
	if got := flockHolders(locks, dev, 5678); !slices.Equal(got, []int{100}) {
		t.Errorf("flockHolders = %v; want [100] (device and inode must both match)", got)
	}
	// The real file: a flock this process takes is found, by device and inode.
	path := filepath.Join(t.TempDir(), "lock")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if got := lockHolders(path); !slices.Contains(got, os.Getpid()) {
		t.Errorf("lockHolders(%s) = %v; want this process %d", path, got, os.Getpid())
	}
}
