package apachetest

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/textproto"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// CGI runs a CGI program directly, without Apache, with the environment
// mod_cgid would give it after murlog's .htaccess rewrite. It measures the
// program's life from fork to exit, which is what each CGI request costs
// on top of Apache's own work.
type CGI struct {
	Program    string // path of the program, e.g. <docroot>/murlog.cgi
	DocRoot    string // working directory and DOCUMENT_ROOT; the program's directory when empty
	ScriptName string // SCRIPT_NAME; "/" + the program's base name when empty
	Host       string // HTTP_HOST; "127.0.0.1:80" when empty
	// Credential, when not nil, runs the program as that user, as Apache
	// would (see Server.Credential): never run it as root against the
	// files of a site the CGI user owns.
	Credential *syscall.Credential
	Env        []string // extra environment (e.g. GODEBUG=inittrace=1)
}

// CGIResponse is a parsed CGI answer.
type CGIResponse struct {
	Status  int
	Header  http.Header
	Body    []byte
	Stderr  []byte
	Elapsed time.Duration // fork to exit
	// Responded is fork to the end of the response (stdout closed): what
	// the client waits for. A program may close stdout before exiting.
	Responded time.Duration
}

// Do runs one request. requestURI is the public URL path and query
// (REQUEST_URI); when it does not start with ScriptName it is treated as
// rewritten to the script, as murlog's .htaccess does.
func (c *CGI) Do(method, requestURI string, header http.Header, body []byte) (*CGIResponse, error) {
	dir := c.DocRoot
	if dir == "" {
		dir = filepath.Dir(c.Program)
	}
	script := c.ScriptName
	if script == "" {
		script = "/" + filepath.Base(c.Program)
	}
	host := c.Host
	if host == "" {
		host = "127.0.0.1:80"
	}
	name, port, err := net.SplitHostPort(host)
	if err != nil {
		name, port = host, "80"
	}
	path, query, _ := strings.Cut(requestURI, "?")
	env := []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"GATEWAY_INTERFACE=CGI/1.1",
		"SERVER_SOFTWARE=apachetest",
		"SERVER_NAME=" + name,
		"SERVER_ADDR=127.0.0.1",
		"SERVER_PORT=" + port,
		"SERVER_PROTOCOL=HTTP/1.1",
		"REQUEST_SCHEME=http",
		"REQUEST_METHOD=" + method,
		"REQUEST_URI=" + requestURI,
		"QUERY_STRING=" + query,
		"SCRIPT_NAME=" + script,
		"SCRIPT_FILENAME=" + c.Program,
		"DOCUMENT_ROOT=" + dir,
		"CONTEXT_DOCUMENT_ROOT=" + dir,
		"CONTEXT_PREFIX=",
		"REMOTE_ADDR=127.0.0.1",
		"REMOTE_PORT=40000",
		"HTTP_HOST=" + host,
	}
	if rest, ok := strings.CutPrefix(path, script); ok && (rest == "" || rest[0] == '/') {
		if rest != "" {
			env = append(env, "PATH_INFO="+rest, "PATH_TRANSLATED="+filepath.Join(dir, rest))
		}
	} else {
		env = append(env, "REDIRECT_STATUS=200", "REDIRECT_URL="+path)
	}
	if body != nil || method == http.MethodPost || method == http.MethodPut {
		env = append(env, "CONTENT_LENGTH="+strconv.Itoa(len(body)))
	}
	for k, vs := range header {
		if len(vs) == 0 {
			continue
		}
		switch ck := http.CanonicalHeaderKey(k); ck {
		case "Content-Type":
			env = append(env, "CONTENT_TYPE="+vs[0])
		case "Content-Length", "Proxy", "Authorization":
			// Apache never passes these as HTTP_* (Authorization only
			// through the rewrite's E= flag: set it in Env to test that).
		default:
			env = append(env, "HTTP_"+strings.ToUpper(strings.ReplaceAll(ck, "-", "_"))+"="+strings.Join(vs, ", "))
		}
	}
	env = append(env, c.Env...)

	cmd := exec.Command(c.Program)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if c.Credential != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.Credential}
	}
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var stdout bytes.Buffer
	_, rerr := stdout.ReadFrom(pipe)
	responded := time.Since(t0)
	err = cmd.Wait()
	elapsed := time.Since(t0)
	if err == nil {
		err = rerr
	}
	resp := &CGIResponse{Stderr: stderr.Bytes(), Elapsed: elapsed, Responded: responded}
	if err != nil {
		return resp, fmt.Errorf("%s: %v\nstderr: %s", c.Program, err, stderr.Bytes())
	}
	if err := parseCGI(stdout.Bytes(), resp); err != nil {
		return resp, fmt.Errorf("%s: %v\nstdout: %q\nstderr: %s", c.Program, err, stdout.Bytes(), stderr.Bytes())
	}
	return resp, nil
}

// parseCGI reads a CGI response: header lines, a blank line, the body.
func parseCGI(out []byte, resp *CGIResponse) error {
	r := textproto.NewReader(bufio.NewReader(bytes.NewReader(out)))
	h, err := r.ReadMIMEHeader()
	if err != nil {
		return fmt.Errorf("bad CGI header: %w", err)
	}
	resp.Header = http.Header(h)
	resp.Status = http.StatusOK
	if s := resp.Header.Get("Status"); s != "" {
		code, _, _ := strings.Cut(s, " ")
		if resp.Status, err = strconv.Atoi(code); err != nil {
			return fmt.Errorf("bad CGI Status %q", s)
		}
	} else if resp.Header.Get("Location") != "" {
		resp.Status = http.StatusFound
	}
	var body bytes.Buffer
	if _, err := body.ReadFrom(r.R); err != nil {
		return err
	}
	resp.Body = body.Bytes()
	return nil
}
