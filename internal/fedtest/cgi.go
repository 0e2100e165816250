package fedtest

import (
	"context"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murlog/murlog/internal/apachetest"
	"github.com/murlog/murlog/internal/testsite"
)

// StartCGI runs murlog as the shared host does: murlog.cgi under a real
// Apache (apachetest), with MURLOG_SCHEME=http
// and MURLOG_ALLOW_PRIVATE_NETWORK=1 set by Apache (SetEnv, as a host's
// panel or .htaccess would), so the CGI processes and the workers they
// spawn reach loopback. It opens the script once (which writes the
// .htaccess), runs both setup steps and logs the owner in.
//
// Without o.Name, Apache listens on a free port of 127.0.0.1 and that is
// the domain ("127.0.0.1:PORT"). With it, the domain is o.Name, entered in
// names: Apache listens on port 80 of a loopback address of its own where
// it may (root), else the domain is o.Name:PORT. Only the test and
// in-process instances resolve that name (the CGI resolves names with the
// system resolver), so the instances the CGI reaches must be named by
// address: Start with Options.OwnLoopback. Jobs run only in the `murlog worker --once`
// processes CGI requests spawn; they are killed when the test ends.
//
// The instance's log lines are Apache's error_log (the CGI processes'
// stderr) and data_dir/worker.log (the spawned workers'); see LogText.
// App and Server are nil. Without Apache the test is skipped (failed
// under CI=true).
func StartCGI(tb testing.TB, names *Names, o Options) *Instance {
	tb.Helper()
	apachetest.Require(tb)
	if o.Username == "" {
		o.Username = "owner"
	}
	env := map[string]string{"MURLOG_SCHEME": "http", "MURLOG_ALLOW_PRIVATE_NETWORK": "1", "MURLOG_LOG_LEVEL": "debug"}
	for k, v := range o.Env {
		env[k] = v
	}
	var conf strings.Builder
	for k, v := range env {
		conf.WriteString("SetEnv " + k + " " + v + "\n")
	}
	ao := apachetest.Options{Config: conf.String()}
	if o.Name != "" {
		if a, ok := ownLoopback(); ok {
			ao.Listen = netip.AddrPortFrom(a, 80).String()
		}
	}
	s := apachetest.Start(tb, ao)
	prog := s.Path(apachetest.Script)
	tb.Cleanup(func() { apachetest.KillWorkers(prog) })
	in := &Instance{Name: loopback.String(), Domain: s.Addr, Username: o.Username, Dir: s.DocRoot,
		Logs: &testsite.SyncBuffer{}, Apache: s, names: names}
	if o.Name != "" {
		ap := netip.MustParseAddrPort(s.Addr)
		in.Name, in.Domain = o.Name, o.Name
		if ap.Port() != 80 {
			in.Domain = hostPort(o.Name, int(ap.Port()))
		}
		names.Add(o.Name, ap.Addr())
	}
	in.Base = "http://" + in.Domain
	in.logText = func() string { return in.CGILog() + in.WorkerLog() }
	ctx := context.Background()
	c := in.NewClient()
	// As the owner does after uploading: open the script itself, which
	// writes the .htaccess that routes every other path to it.
	if status, _, body, err := c.Get(ctx, "/"+apachetest.Script); err != nil || status != http.StatusSeeOther {
		tb.Fatalf("CGI %s: first GET /%s: status %d, err %v; want 303\n%s", in.Domain, apachetest.Script, status, err, body)
	}
	if err := c.Setup(ctx, in.Domain, o.Username, Password); err != nil {
		tb.Fatalf("CGI %s: setup: %v\n%s", in.Domain, err, s.ErrorLog())
	}
	if err := c.Login(ctx, Password); err != nil {
		tb.Fatalf("CGI %s: login: %v", in.Domain, err)
	}
	in.Owner = c
	return in
}

// WorkerLog returns data_dir/worker.log of a CGI instance: what the
// workers its requests spawned logged ("" for the other kinds).
func (in *Instance) WorkerLog() string {
	if in.Apache == nil {
		return ""
	}
	b, _ := os.ReadFile(filepath.Join(in.Dir, "data", "worker.log"))
	return string(b)
}

// CGILog returns what a CGI instance's CGI processes logged (their
// stderr, in Apache's error_log); "" for the other kinds.
func (in *Instance) CGILog() string {
	if in.Apache == nil {
		return ""
	}
	return cgiLog(in.Apache.ErrorLog())
}

// WorkerProg is the program a CGI instance's spawned workers run
// (apachetest.WorkerPids finds them by it); "" for the other kinds.
func (in *Instance) WorkerProg() string {
	if in.Apache == nil {
		return ""
	}
	return in.Apache.Path(apachetest.Script)
}

// cgiLog picks murlog's JSON lines out of Apache's error_log. mod_cgid
// hands a CGI program the error log itself as stderr, so its lines are
// there as written; mod_cgi (the prefork setups) copies each one as
// "[…] AH01215: LINE: /path/murlog.cgi".
func cgiLog(errorLog string) string {
	var b strings.Builder
	for _, line := range strings.Split(errorLog, "\n") {
		if _, rest, ok := strings.Cut(line, "AH01215: "); ok {
			if i := strings.LastIndex(rest, ": /"); i >= 0 {
				rest = rest[:i]
			}
			line = rest
		}
		if strings.HasPrefix(line, "{") {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
