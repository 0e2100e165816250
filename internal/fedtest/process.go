package fedtest

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/murlog/murlog/internal/testsite"
)

// StartProcess runs bin (a murlog binary) as `murlog serve` on a free
// port of 127.0.0.1, with MURLOG_SCHEME=http and
// MURLOG_ALLOW_PRIVATE_NETWORK=1, sets it up through the wizard with its
// listen address as domain ("127.0.0.1:PORT": a real process resolves
// names with the system resolver, so it is federated with by host:port)
// and logs the owner in. Its log lines (stderr) are kept in Logs; App and
// Server are nil. The process gets SIGINT when the test ends.
func StartProcess(tb testing.TB, names *Names, bin string, o Options) *Instance {
	tb.Helper()
	in := Serve(tb, names, bin, o)
	in.Owner = in.NewClient()
	ctx := context.Background()
	if err := in.Owner.Setup(ctx, in.Domain, in.Username, Password); err != nil {
		tb.Fatalf("process %s: setup: %v\n%s", in.Domain, err, in.Logs)
	}
	if err := in.Owner.Login(ctx, Password); err != nil {
		tb.Fatalf("process %s: login: %v", in.Domain, err)
	}
	return in
}

// Serve runs bin as StartProcess does but leaves it as a new owner finds
// it: no murlog.ini, the setup wizard waiting (a browser test sets it up
// itself). Owner is nil.
func Serve(tb testing.TB, names *Names, bin string, o Options) *Instance {
	tb.Helper()
	if o.Username == "" {
		o.Username = "owner"
	}
	in := &Instance{Username: o.Username, Dir: tb.TempDir(), Logs: &testsite.SyncBuffer{}, names: names}
	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0")
	cmd.Dir = in.Dir
	cmd.Env = append(os.Environ(), "MURLOG_CONFIG="+filepath.Join(in.Dir, "murlog.ini"), "MURLOG_SCHEME=http",
		"MURLOG_ALLOW_PRIVATE_NETWORK=1", "MURLOG_LOG_LEVEL=debug")
	for k, v := range o.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	exited := make(chan struct{})
	tb.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	// serve logs its address in a JSON line; every line is kept.
	addr := make(chan string, 1)
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			in.Logs.Write(append(sc.Bytes(), '\n'))
			var line struct {
				Addr string `json:"addr"`
			}
			if !sent && json.Unmarshal(sc.Bytes(), &line) == nil && line.Addr != "" {
				addr <- line.Addr
				sent = true
			}
		}
		cmd.Wait()
	}()
	select {
	case a := <-addr:
		in.Domain = a
	case <-time.After(30 * time.Second):
		tb.Fatalf("murlog serve did not report its address\n%s", in.Logs)
	}
	in.Name, _, _ = net.SplitHostPort(in.Domain)
	in.Base = "http://" + in.Domain
	return in
}
