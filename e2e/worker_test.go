package e2e

import (
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/worker"
)

// The reliability of the job queue, with the real binary: `murlog worker
// --once` processes killed, started twice, fed panicking and malformed
// jobs. Jobs are written the way murlog's own producers write them (the
// store's Jobs().Enqueue); queue.sleep, the diagnostics topic, gives them
// a duration and a way to fail. These tests need no Apache: the worker
// runs as this process's user in a directory this process owns.

// 1. A `worker --once` killed with SIGKILL mid-batch loses no job: jobs it
// acked stay done (one attempt), jobs it held stay claimed until their
// leases run out, then run again (two attempts) — in the next worker,
// started at once, which waits for those leases rather than leaving the
// jobs to a later visit — and nothing else runs twice.
func TestKilledWorkerLosesNoJob(t *testing.T) {
	t.Parallel()
	ws := newJobsSite(t)
	ws.env = []string{fmt.Sprintf("MURLOG_JOB_LEASE=%d", testLease)}
	const n = 200
	ws.mustEnqueue(t, sleepJobs(n, func(i int) string { return fmt.Sprintf(`{"ms":%d}`, 50+i%51) })...)

	run1 := ws.worker(t, "run1")
	// Kill it once 40 jobs are acked, preferably at a moment when a job
	// has finished (logged) but its ack has not committed yet (acks are
	// batched for up to 20 ms); past 120 acked jobs, kill it anyway.
	waitFor(t, 20*time.Second, "40 acked jobs", func() bool {
		rows := ws.rows(t, worker.TopicSleep)
		done := 0
		for _, r := range rows {
			if r.State == queue.StateDone {
				done++
			}
		}
		if done < 40 {
			return false
		}
		for id := range events(parseLog(t, run1.log(t)), "job.completed", worker.TopicSleep) {
			if rows[id].State == queue.StateRunning {
				return true
			}
		}
		return done >= 120
	})
	run1.cmd.Process.Signal(syscall.SIGKILL)
	<-run1.done
	killedAt := run1.exitedAt.Sub(run1.start)

	atKill := ws.rows(t, worker.TopicSleep)
	running, done, waiting := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for id, r := range atKill {
		switch r.State {
		case queue.StateRunning:
			running[id] = true
		case queue.StateDone:
			done[id] = true
		case queue.StatePending, queue.StateScheduled:
			waiting[id] = true
		default:
			t.Errorf("job %s is %s after the kill; want running, done or pending", id, r.State)
		}
		if r.State != queue.StatePending && r.Attempt != 1 {
			t.Errorf("job %s: %s with %d attempts at the kill; want 1", id, r.State, r.Attempt)
		}
	}
	if len(atKill) != n || len(running) == 0 || len(waiting) == 0 {
		t.Fatalf("at the kill: %d jobs, %d running, %d done, %d waiting; want %d with some in flight and some not yet claimed",
			len(atKill), len(running), len(done), len(waiting), n)
	}
	log1 := parseLog(t, run1.log(t))
	ran1 := events(log1, "job.completed", worker.TopicSleep)
	var unacked int
	for id := range ran1 {
		if running[id] {
			unacked++ // finished, but its ack had not committed: it runs again
		} else if !done[id] {
			t.Errorf("job %s logged completed in the killed run but is %s", id, atKill[id].State)
		}
	}
	for id := range done {
		if len(ran1[id]) != 1 {
			t.Errorf("job %s is done but the killed run logged its completion %d times", id, len(ran1[id]))
		}
	}
	t.Logf("killed after %v: %d done, %d running (%d of them finished, ack not yet committed), %d not yet claimed",
		killedAt.Round(time.Millisecond), len(done), len(running), unacked, len(waiting))

	// A worker started at once (the next visit, cron a minute later) runs
	// what was never claimed, and the claimed jobs only once their leases
	// ran out — until then their worker might still be alive.
	restart := time.Now()
	run2 := ws.worker(t, "run2")
	run2.wait(t, time.Minute)
	took := time.Since(restart)
	log2 := parseLog(t, run2.log(t))
	ran2 := events(log2, "job.completed", worker.TopicSleep)
	all := map[string]bool{}
	for id := range waiting {
		all[id] = true
	}
	for id := range running {
		all[id] = true
	}
	if !slices.Equal(keys(ran2), keys(all)) {
		t.Errorf("the restarted worker ran %d jobs; want exactly the %d never claimed and the %d left running",
			len(ran2), len(waiting), len(running))
	}
	recovered, recoveredAt := 0, -1
	for i, l := range log2 {
		if l.Event == "job.recovered" {
			recovered += l.Count
			if recoveredAt < 0 {
				recoveredAt = i
			}
		}
		if l.Event == "job.completed" && running[l.ID] && (recoveredAt < 0 || l.Attempt != 2) {
			t.Errorf("job %s, claimed by the killed worker, ran as attempt %d before any lease was recovered", l.ID, l.Attempt)
		}
	}
	if recovered != len(running) {
		t.Errorf("job.recovered count %d; want %d", recovered, len(running))
	}
	if took > time.Minute {
		t.Errorf("the restarted worker took %v; want the dead worker's jobs done within a minute", took)
	}

	final := ws.rows(t, worker.TopicSleep)
	if len(final) != n {
		t.Fatalf("%d jobs in the table; want %d", len(final), n)
	}
	for id, r := range final {
		want := 1
		if running[id] {
			want = 2
		}
		if r.State != queue.StateDone || r.Attempt != want {
			t.Errorf("job %s: %s after %d attempts; want done after %d", id, r.State, r.Attempt, want)
		}
		if runs := len(ran1[id]) + len(ran2[id]); runs == 0 || runs > want {
			t.Errorf("job %s logged completed %d times; want 1..%d", id, runs, want)
		}
		if running[id] && (len(ran2[id]) != 1 || ran2[id][0] != 2) {
			t.Errorf("job %s re-ran with attempts %v; want [2]", id, ran2[id])
		}
	}
	t.Logf("the restarted worker finished everything in %v (lease %d s)", took.Round(time.Millisecond), testLease)
}

// 2. Two `worker --once` started together: one runs the jobs, the other
// sees the lock and exits 0 at once.
func TestSecondOnceWorkerYieldsToTheLock(t *testing.T) {
	ws := newJobsSite(t)
	ws.mustEnqueue(t, sleepJobs(16, func(int) string { return `{"ms":1000}` })...)
	a, b := ws.worker(t, "a"), ws.worker(t, "b")
	var loser, winner *proc
	select {
	case <-a.done:
		loser, winner = a, b
	case <-b.done:
		loser, winner = b, a
	case <-time.After(10 * time.Second):
		t.Fatal("neither worker exited within 10 s")
	}
	took := loser.exitedAt.Sub(loser.start)
	winnerAlive := !winner.exited()
	if code := loser.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("the second worker exited %d; want 0\n%s", code, loser.log(t))
	}
	if took > time.Second || !winnerAlive {
		t.Errorf("the second worker exited after %v (the first still running: %v); want < 1 s while the first works", took, winnerAlive)
	}
	lines := parseLog(t, loser.log(t))
	var said bool
	for _, l := range lines {
		said = said || strings.Contains(l.Msg, "another worker holds the lock")
		if l.Event != "" && l.ID != "" {
			t.Errorf("the worker that lost the lock ran a job: %+v", l)
		}
	}
	if !said {
		t.Errorf("the second worker's log lacks the lock message:\n%s", loser.log(t))
	}
	ran := winner.wait(t, 30*time.Second)
	if got := len(events(parseLog(t, winner.log(t)), "job.completed", worker.TopicSleep)); got != 16 {
		t.Errorf("the first worker completed %d jobs; want 16", got)
	}
	for id, r := range ws.rows(t, worker.TopicSleep) {
		if r.State != queue.StateDone || r.Attempt != 1 {
			t.Errorf("job %s: %s after %d attempts; want done after 1", id, r.State, r.Attempt)
		}
	}
	t.Logf("lock loser exited 0 after %v; the winner ran 16 × 1 s jobs in %v", took.Round(time.Millisecond), ran.Round(time.Millisecond))
}

// 4. A job that panics every time ends dead after its attempts, with the
// panic text, each retry after the default backoff (1 s, then 2 s); the
// other jobs of the same worker processes complete once.
func TestPanickingJobDiesAloneInWorkerProcess(t *testing.T) {
	ws := newJobsSite(t)
	bad := queue.NewJob(worker.TopicSleep, []byte(`{"ms":10,"panic":true}`))
	bad.MaxAttempts = 3
	ws.mustEnqueue(t, bad)
	ws.mustEnqueue(t, sleepJobs(20, func(int) string { return `{"ms":50}` })...)
	const panicText = "panic: queue.sleep: panic requested by the payload"
	var lines []logLine
	for run := 1; run <= bad.MaxAttempts; run++ {
		p := ws.worker(t, fmt.Sprintf("run%d", run))
		p.wait(t, 30*time.Second)
		lines = append(lines, parseLog(t, p.log(t))...)
		r := ws.rows(t, "")[bad.ID]
		if run == bad.MaxAttempts {
			break
		}
		if r.State != queue.StateScheduled || r.Attempt != run || !strings.Contains(r.LastError, panicText) {
			t.Fatalf("after run %d the panicking job is %s, attempt %d, last_error %q; want scheduled for a retry", run, r.State, r.Attempt, r.LastError)
		}
		backoff, want := r.RunAt.Sub(r.StartedAt), time.Second<<(run-1)
		if backoff < want || backoff > want+time.Second {
			t.Errorf("after attempt %d the retry is due %v after the claim; want the %v backoff", run, backoff, want)
		}
		// Stand-in for waiting out the backoff.
		ws.exec(t, "UPDATE queue_jobs SET run_at = ? WHERE id = ?", time.Now().UnixMicro(), bad.ID)
	}
	r := ws.rows(t, "")[bad.ID]
	if r.State != queue.StateDead || r.Attempt != 3 || !strings.Contains(r.LastError, panicText) {
		t.Errorf("the panicking job is %s after %d attempts, last_error %q; want dead after 3 with %q", r.State, r.Attempt, r.LastError, panicText)
	}
	var panics, dead int
	for _, l := range lines {
		if l.Event == "job.panic" && l.ID == bad.ID && strings.Contains(l.Stack, "worker.runSleep") {
			panics++
		}
		if l.Event == "job.dead" && l.ID == bad.ID {
			dead++
		}
	}
	if panics != 3 || dead != 1 {
		t.Errorf("logged %d job.panic lines with a stack and %d job.dead; want 3 and 1", panics, dead)
	}
	good := ws.rows(t, worker.TopicSleep)
	delete(good, bad.ID)
	completed := events(lines, "job.completed", worker.TopicSleep)
	for id, r := range good {
		if r.State != queue.StateDone || r.Attempt != 1 || len(completed[id]) != 1 {
			t.Errorf("job %s beside the panicking one: %s after %d attempts, completed %d times; want done once", id, r.State, r.Attempt, len(completed[id]))
		}
	}
}

// 5. Bad jobs: what can be refused is refused at enqueue with a clear
// error and nothing of the batch written; what cannot run (undecodable
// payload, unknown topic, out-of-range value) goes dead at once with its
// reason, and the worker exits 0.
func TestBadJobsRefusedOrDeadNeverFatal(t *testing.T) {
	ws := newJobsSite(t)
	good := queue.NewJob(worker.TopicSleep, []byte(`{"ms":1}`))
	big := queue.NewJob(worker.TopicSleep, []byte(`{"ms":1,"pad":"`+strings.Repeat("x", queue.MaxPayload)+`"}`))
	badID := queue.NewJob(worker.TopicNoop, nil)
	badID.ID = "42"
	badPrio := queue.NewJob(worker.TopicNoop, nil)
	badPrio.Priority = 10
	for _, tc := range []struct {
		name string
		jobs []queue.Job
		want string
	}{
		{"oversized payload", []queue.Job{big}, fmt.Sprintf("is %d bytes; the limit is %d", len(big.Payload), queue.MaxPayload)},
		{"oversized payload in a batch", []queue.Job{good, big}, "the limit is 65536"},
		{"malformed topic", []queue.Job{queue.NewJob("Deliver Note", nil)}, "use lower-case letters"},
		{"dead-letter topic", []queue.Job{queue.NewJob("queue.sleep.dead", nil)}, "names a dead-letter topic"},
		{"id not a UUID", []queue.Job{badID}, "job id must be a UUID"},
		{"priority out of range", []queue.Job{badPrio}, "must be 0–9"},
	} {
		err := ws.enqueue(tc.jobs...)
		if err == nil || murlog.ErrorCode(err) != murlog.EInvalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("enqueue %s: %v; want an invalid error saying %q", tc.name, err, tc.want)
		}
	}
	if n := len(ws.rows(t, "")); n != 0 {
		t.Fatalf("%d jobs written by refused enqueues; want none", n)
	}

	dead := map[string]string{} // id → the reason it must record
	add := func(topic string, payload []byte, reason string) {
		j := queue.NewJob(topic, payload)
		ws.mustEnqueue(t, j)
		dead[j.ID] = reason
	}
	add(worker.TopicSleep, []byte(`{"ms":`), "payload of queue.sleep does not decode: unexpected end of JSON input")
	add(worker.TopicSleep, []byte{0xff, 0xfe, 0x00}, "payload of queue.sleep does not decode: invalid character")
	add(worker.TopicSleep, []byte(`{"ms":"10"}`), "payload of queue.sleep does not decode: json: cannot unmarshal string")
	add(worker.TopicSleep, []byte(`{"ms":600000}`), "queue.sleep: ms must be 0–10000, not 600000")
	add("no_such.topic", []byte(`{}`), `no handler is registered for topic "no_such.topic"`)
	add("deliver_nothing", []byte(`{}`), `no handler is registered for topic "deliver_nothing"`)
	ws.mustEnqueue(t, sleepJobs(10, func(int) string { return `{"ms":20}` })...)
	noop := queue.NewJob(worker.TopicNoop, []byte("not json at all")) // noop reads no payload
	ws.mustEnqueue(t, noop)

	p := ws.worker(t, "run")
	p.wait(t, 30*time.Second)
	rows := ws.rows(t, "")
	for id, reason := range dead {
		r := rows[id]
		if r.State != queue.StateDead || r.Attempt != 1 || !strings.Contains(r.LastError, reason) {
			t.Errorf("%s job %s: %s after %d attempts, last_error %q; want dead after 1 with %q", r.Topic, id, r.State, r.Attempt, r.LastError, reason)
		}
	}
	for id, r := range rows {
		if _, bad := dead[id]; !bad && r.State != queue.StateDone {
			t.Errorf("good %s job %s is %s (%q); want done", r.Topic, id, r.State, r.LastError)
		}
	}
	log := p.log(t)
	if got := len(events(parseLog(t, log), "job.dead", "")); got != len(dead) {
		t.Errorf("logged %d job.dead lines; want %d", got, len(dead))
	}
	if strings.Contains(log, "job.panic") || strings.Contains(log, "goroutine ") {
		t.Errorf("the worker panicked on a bad job:\n%s", log)
	}
}
