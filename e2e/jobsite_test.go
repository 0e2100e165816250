package e2e

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murlog/murlog/internal/apachetest"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/internal/waitfor"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/worker"
)

// Helpers of the job tests (worker_test.go, workerspawn_test.go): a site
// directory with the test's own handles on its database, murlog processes
// started on it, and their JSON log lines.

// jobsSite is a murlog site directory with the test's own handles on its
// database: the store (for enqueueing) and plain SQL (for reading
// queue_jobs and for standing in for the passing of time).
type jobsSite struct {
	dir, ini, dataDir string
	bin               string              // the murlog binary
	cred              *syscall.Credential // run it as this user; nil: as the test
	env               []string            // more of the processes' environment (MURLOG_*)
	db                *sqlite.DB
	raw               *sql.DB
}

// newJobsSite writes murlog.ini and a migrated database into a new
// directory. No setup wizard: the worker needs neither a domain nor a
// persona.
func newJobsSite(t *testing.T) *jobsSite {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o700); err != nil {
		t.Fatal(err)
	}
	ini := "data_dir = ./data\nmedia_path = ./media\nlog_level = info\n"
	if err := os.WriteFile(filepath.Join(dir, "murlog.ini"), []byte(ini), 0o600); err != nil {
		t.Fatal(err)
	}
	return openJobsSite(t, dir, apachetest.Murlog(t), nil)
}

// openJobsSite opens the test's handles on the site in dir (murlog.ini,
// data/murlog.db). Run as root on a site the CGI user owns, SQLite gives
// the -wal and -shm files it creates to the database's owner.
func openJobsSite(t *testing.T, dir, bin string, cred *syscall.Credential) *jobsSite {
	t.Helper()
	ws := &jobsSite{dir: dir, ini: filepath.Join(dir, "murlog.ini"), dataDir: filepath.Join(dir, "data"), bin: bin, cred: cred}
	path := filepath.Join(ws.dataDir, sqlite.FileName)
	var err error
	if ws.db, err = sqlite.Open(context.Background(), path, sqlite.Options{Logger: testsite.Discard()}); err != nil {
		t.Fatal(err)
	}
	if ws.raw, err = sql.Open("sqlite", "file:"+path+"?_busy_timeout=10000"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.raw.Close(); ws.db.Close() })
	return ws
}

// enqueue writes jobs as producers do, in one transaction per MaxBatch.
func (ws *jobsSite) enqueue(js ...queue.Job) error {
	for len(js) > 0 {
		k := min(len(js), queue.MaxBatch)
		batch := js[:k]
		if err := ws.db.Update(context.Background(), func(tx store.Tx) error { return tx.Jobs().Enqueue(batch...) }); err != nil {
			return err
		}
		js = js[k:]
	}
	return nil
}

func (ws *jobsSite) mustEnqueue(t *testing.T, js ...queue.Job) {
	t.Helper()
	if err := ws.enqueue(js...); err != nil {
		t.Fatalf("enqueue: %v", err)
	}
}

// sleepJobs returns n queue.sleep jobs with the payload of each.
func sleepJobs(n int, payload func(i int) string) []queue.Job {
	js := make([]queue.Job, n)
	for i := range js {
		js[i] = queue.NewJob(worker.TopicSleep, []byte(payload(i)))
	}
	return js
}

// jobRow is a queue_jobs row as these tests look at it.
type jobRow struct {
	ID, Topic string
	State     queue.State
	Attempt   int
	LastError string
	RunAt     time.Time
	StartedAt time.Time // zero when NULL
}

// rows returns the jobs of topic ("" for all) by id.
func (ws *jobsSite) rows(t *testing.T, topic string) map[string]jobRow {
	t.Helper()
	rs, err := ws.raw.Query(`SELECT id, topic, state, attempt, last_error, run_at, coalesce(started_at, 0)
		FROM queue_jobs WHERE ? = '' OR topic = ?`, topic, topic)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	out := map[string]jobRow{}
	for rs.Next() {
		var r jobRow
		var runAt, started int64
		if err := rs.Scan(&r.ID, &r.Topic, &r.State, &r.Attempt, &r.LastError, &runAt, &started); err != nil {
			t.Fatal(err)
		}
		r.RunAt = time.UnixMicro(runAt)
		if started != 0 {
			r.StartedAt = time.UnixMicro(started)
		}
		out[r.ID] = r
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// states counts the jobs of topic by state.
func (ws *jobsSite) states(t *testing.T, topic string) map[queue.State]int {
	t.Helper()
	rs, err := ws.raw.Query("SELECT state, count(*) FROM queue_jobs WHERE topic = ? GROUP BY state", topic)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	out := map[queue.State]int{}
	for rs.Next() {
		var s queue.State
		var n int
		if err := rs.Scan(&s, &n); err != nil {
			t.Fatal(err)
		}
		out[s] = n
	}
	return out
}

// exec runs one statement on the database (the stand-ins for time passing).
func (ws *jobsSite) exec(t *testing.T, q string, args ...any) int64 {
	t.Helper()
	res, err := ws.raw.Exec(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	n, _ := res.RowsAffected()
	return n
}

// waitFor checks cond every 5 ms until it holds, or fails the test.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	if !waitfor.Until(context.Background(), 5*time.Millisecond, timeout, cond) {
		t.Fatalf("waited %v for %s", timeout, what)
	}
	return time.Since(start)
}

// proc is a murlog process the test started, its stderr in a file.
type proc struct {
	cmd      *exec.Cmd
	logPath  string
	start    time.Time
	done     chan struct{}
	exitedAt time.Time
}

// worker starts `murlog worker --once` on the site; it is killed at the
// end of the test if still running.
func (ws *jobsSite) worker(t *testing.T, name string) *proc {
	t.Helper()
	return ws.start(t, name, "worker", "--once", "--config", ws.ini)
}

func (ws *jobsSite) start(t *testing.T, name string, args ...string) *proc {
	t.Helper()
	p := &proc{logPath: filepath.Join(t.TempDir(), name+".log"), done: make(chan struct{})}
	f, err := os.Create(p.logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p.cmd = exec.Command(ws.bin, args...)
	p.cmd.Dir = ws.dir
	p.cmd.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + ws.dir}, ws.env...)
	p.cmd.Stdout, p.cmd.Stderr = f, f
	if ws.cred != nil {
		p.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: ws.cred}
	}
	p.start = time.Now()
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); p.exitedAt = time.Now(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
			return
		default:
		}
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// wait waits for the process to exit and fails unless it exits 0.
func (p *proc) wait(t *testing.T, timeout time.Duration) time.Duration {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("%s did not exit within %v\n%s", p.cmd.Args, timeout, p.log(t))
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("%s exited %d; want 0\n%s", p.cmd.Args, code, p.log(t))
	}
	return p.exitedAt.Sub(p.start)
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *proc) log(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// logLine is one JSON line of murlog's stderr: job events ("event") and
// the app's own lines ("msg").
type logLine struct {
	Event   string `json:"event"`
	Msg     string `json:"msg"`
	Svc     string `json:"svc"`
	Topic   string `json:"queue.topic"`
	ID      string `json:"job.id"`
	Attempt int    `json:"job.attempt"`
	Error   string `json:"error"`
	Panic   string `json:"panic"`
	Stack   string `json:"stack"`
	Count   int    `json:"count"`
	Addr    string `json:"addr"`
}

func parseLog(t *testing.T, s string) []logLine {
	t.Helper()
	var out []logLine
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l logLine
		if json.Unmarshal(sc.Bytes(), &l) == nil {
			out = append(out, l)
		}
	}
	return out
}

// events returns, by job id, the attempts logged with event for jobs of
// topic ("" for all topics).
func events(lines []logLine, event, topic string) map[string][]int {
	out := map[string][]int{}
	for _, l := range lines {
		if l.Event == event && (topic == "" || l.Topic == topic) {
			out[l.ID] = append(out[l.ID], l.Attempt)
		}
	}
	return out
}

func keys[M ~map[string]V, V any](m M) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
