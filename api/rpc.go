// Package api is murlog's JSON-RPC 2.0 endpoint, POST /api/mur/v1/rpc: the
// owner's SPA and scripts use it for everything. This file is the protocol
// (batches, notifications, error objects, limits); the methods are
// registered in the methods_*.go files next to the views they return.
package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"sync"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/strictjson"
)

// Limits of the endpoint.
const (
	MaxBody  = 1 << 20 // bytes per HTTP request; an article of 100,000 characters fits
	MaxBatch = 100     // calls per batch
)

// access says who may call a method.
type access int

const (
	public access = iota // anyone; the owner may see more
	owner                // the logged-in owner or a bearer token
)

// method is one registered RPC method.
type method struct {
	access access
	// mutating methods change state: called with a session cookie (or
	// anonymously, like auth.login) they need the CSRF header.
	mutating bool
	// exempt mutating methods run during lockdown (lockdownExempt).
	exempt bool
	call   func(ctx context.Context, params json.RawMessage) (any, error)
}

// Server is the JSON-RPC handler.
type Server struct {
	methods map[string]*method
	log     *slog.Logger
	deps    Deps
	names   usernameCache
	// anonBatches holds one slot per anonymous batch in flight.
	anonBatches *httpd.Slots
	// bufs recycles the buffers responses are encoded into.
	bufs sync.Pool
}

// response is a JSON-RPC response object.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	Result  any             `json:"result,omitempty"`
	Error   *httpd.RPCError `json:"error,omitempty"`
	ID      json.RawMessage `json:"id"`
	status  int             // HTTP status when this is the only response
	err     error
}

var nullID = json.RawMessage("null")

// callState collects what method calls want to add to the HTTP response.
type callState struct {
	cookies []*http.Cookie
	wrote   bool // an owner's mutating call succeeded (Deps.OwnerWrites)
}

type stateKey struct{}

func setCookie(ctx context.Context, c *http.Cookie) {
	if st, ok := ctx.Value(stateKey{}).(*callState); ok {
		st.cookies = append(st.cookies, c)
	}
}

// ServeHTTP handles one HTTP request carrying a single call or a batch.
// A single call's error also sets the HTTP status (401, 404, 429 …) so
// plain HTTP clients see it; a batch always answers 200 with one response
// per call, and a request of notifications only answers 204. Each call's
// response is encoded as soon as it is made and counted against the
// request's budget (budget.go); calls past it are not run and get an error.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		s.writeProtocolError(w, http.StatusMethodNotAllowed, httpd.RPCInvalidRequest, "use POST with a JSON-RPC 2.0 body", murlog.EInvalid)
		return
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		s.writeProtocolError(w, http.StatusUnsupportedMediaType, httpd.RPCInvalidRequest, "Content-Type must be application/json", murlog.EInvalid)
		return
	}
	anon := !murlog.CallerFrom(r.Context()).Owner
	body, err := readBody(http.MaxBytesReader(w, r.Body, MaxBody), r.ContentLength)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.writeProtocolError(w, http.StatusRequestEntityTooLarge, httpd.RPCInvalidRequest,
				fmt.Sprintf("request body exceeds %d bytes", MaxBody), murlog.EInvalid)
			return
		}
		s.writeProtocolError(w, http.StatusBadRequest, httpd.RPCParseError, "could not read request body", murlog.EInvalid)
		return
	}
	body = bytes.TrimSpace(body)
	// The cap on anonymous batches bounds the work in flight — parsing,
	// running and encoding up to MaxBatch calls — and is taken once the
	// body is in, before any of it: a client sending its body slowly holds
	// a connection (bounded by the server's read timeout and MaxBody), not
	// a slot that other readers wait for.
	if anon && len(body) > 0 && body[0] == '[' {
		if !s.acquireAnonBatch(r) {
			err := s.anonBatches.Busy()
			httpd.SetRetryAfter(w, err)
			s.writeResponse(w, errorResponse(nullID, err))
			return
		}
		defer s.releaseAnonBatch()
	}
	st := &callState{}
	ctx := context.WithValue(r.Context(), stateKey{}, st)
	// An owner's request is announced before any call runs (the app's
	// rebuild job waits for it, so that its own pass renders its writes).
	var ended func(wrote bool)
	if !anon && s.deps.OwnerWrites != nil {
		ended = s.deps.OwnerWrites(context.WithoutCancel(r.Context()))
		defer func() {
			if ended != nil { // a call panicked
				ended(false)
			}
		}()
	}
	b := &budget{Budget: httpd.Budget{Limit: OwnerBudget}, pool: &s.bufs}
	defer b.release()
	if anon {
		b.Limit = AnonBudget
	}

	var parts [][]byte // encoded responses of a batch
	var single *response
	elems, n, batch, err := strictjson.Scan(body, MaxBatch, maxMembers)
	var se *strictjson.SyntaxError
	switch {
	case errors.As(err, &se) && se.TooDeep:
		single = protocolError(nullID, httpd.RPCInvalidRequest, se.Msg)
	case err != nil:
		single = protocolError(nullID, httpd.RPCParseError, err.Error())
	case batch && n == 0:
		single = protocolError(nullID, httpd.RPCInvalidRequest, "empty batch")
	case n > MaxBatch:
		single = protocolError(nullID, httpd.RPCInvalidRequest, fmt.Sprintf("batch of %d calls exceeds the limit of %d", n, MaxBatch))
	case batch:
		for i := range elems {
			el := &elems[i]
			if b.Spent() {
				// Not run: answer with the budget error, or nothing for
				// a notification.
				if req := parseRequest(el); req.ID != nil || req.err != nil {
					out, _ := b.encode(&response{ID: req.responseID()})
					parts = append(parts, out)
				}
				continue
			}
			if resp := s.handle(ctx, r, el); resp != nil {
				out, _ := b.encode(resp)
				parts = append(parts, out)
			}
		}
	default:
		single = s.handle(ctx, r, &elems[0])
	}
	status := http.StatusOK
	if single != nil {
		batch = false // a batch refused as a whole answers with one error
		out, sent := b.encode(single)
		single = sent
		status = single.status
		if single.err != nil {
			httpd.SetRetryAfter(w, single.err)
		}
		parts = [][]byte{out}
	}
	if ended != nil {
		// Before the answer: the owner who wrote reads the write at once.
		ended(st.wrote)
		ended = nil
	}
	for _, c := range st.cookies {
		http.SetCookie(w, c)
	}
	w.Header().Set("Cache-Control", "no-store")
	if len(parts) == 0 {
		w.WriteHeader(http.StatusNoContent) // notifications only
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if batch {
		w.Write([]byte("["))
	}
	for i, p := range parts {
		if i > 0 {
			w.Write([]byte(","))
		}
		w.Write(p)
	}
	if batch {
		w.Write([]byte("]"))
	}
	w.Write([]byte("\n"))
}

// readBody reads the body into a buffer sized from the
// Content-Length when there is one, so a 1 MiB body is not held twice
// while the buffer grows.
func readBody(in io.Reader, length int64) ([]byte, error) {
	var buf bytes.Buffer
	if length > 0 && length <= MaxBody {
		buf.Grow(int(length) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(in)
	return buf.Bytes(), err
}

// parsed is a request object taken apart by parseRequest. ID is nil for a
// notification; err is the error to answer with instead of a call.
type parsed struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
	err    *response
}

// responseID is the id a response to req carries: null when there is none
// or it could not be read.
func (req parsed) responseID() json.RawMessage {
	if req.err != nil {
		return req.err.ID
	}
	if req.ID == nil {
		return nullID
	}
	return req.ID
}

// maxMembers is how many members a request object has at most (jsonrpc,
// method, params, id).
const maxMembers = 4

// parseRequest reads the members of a scanned request object. Member names
// are matched exactly, and any other member is refused rather than ignored,
// so that "METHOD" cannot sit beside "method" and mean something else to a
// filter in front of us.
func parseRequest(el *strictjson.Element) parsed {
	var req parsed
	if !el.IsObject {
		req.err = protocolError(nullID, httpd.RPCInvalidRequest, "invalid request: not a request object")
		return req
	}
	var version, method, unknown []byte
	for _, m := range el.Members {
		switch string(m.Key) {
		case `"jsonrpc"`:
			version = m.Val
		case `"method"`:
			method = m.Val
		case `"params"`:
			req.Params = m.Val
		case `"id"`:
			req.ID = m.Val
		default:
			if unknown == nil {
				unknown = m.Key
			}
		}
	}
	if req.ID != nil && !validID(req.ID) {
		req.err = protocolError(nullID, httpd.RPCInvalidRequest, "invalid request: id must be a string, number or null")
		return req
	}
	id := req.responseID()
	if p := el.Problem; p != nil {
		if len(p.Path) > 1 && string(p.Path[0].Key) == `"params"` {
			err := murlog.Invalid(strictjson.Where(p.Path[1:]), "%s", p.Msg)
			req.err = errorResponse(id, err)
			return req
		}
		msg := "invalid request: " + p.Msg
		if w := strictjson.Where(p.Path); w != "" {
			msg = "invalid request: " + w + ": " + p.Msg
		}
		req.err = protocolError(id, httpd.RPCInvalidRequest, msg)
		return req
	}
	if unknown != nil {
		k, _ := strictjson.Unquote(unknown)
		msg := fmt.Sprintf("invalid request: unknown member %q", k)
		for _, name := range []string{"jsonrpc", "method", "params", "id"} {
			if strings.EqualFold(k, name) {
				msg += fmt.Sprintf("; member names are case-sensitive: did you mean %q?", name)
			}
		}
		req.err = protocolError(id, httpd.RPCInvalidRequest, msg)
		return req
	}
	if v, ok := strictjson.Unquote(version); !ok || v != "2.0" {
		req.err = protocolError(id, httpd.RPCInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
		return req
	}
	if req.Method, _ = strictjson.Unquote(method); req.Method == "" {
		req.err = protocolError(id, httpd.RPCInvalidRequest, `invalid request: "method" must be a non-empty string`)
		return req
	}
	if p := bytes.TrimSpace(req.Params); len(p) > 0 && p[0] != '{' && !bytes.Equal(p, nullID) {
		req.err = protocolError(id, httpd.RPCInvalidParams, "invalid params: params must be an object")
	}
	return req
}

// handle runs one request object. It returns nil for a notification.
func (s *Server) handle(ctx context.Context, r *http.Request, el *strictjson.Element) *response {
	req := parseRequest(el)
	notification := req.ID == nil
	if req.err != nil {
		if req.err.Error.Code == httpd.RPCInvalidRequest {
			// An invalid request is answered even without an id: it is
			// not a valid notification either.
			return req.err
		}
		return keep(req.err, notification)
	}
	id := req.responseID()
	m, ok := s.methods[req.Method]
	if !ok {
		resp := protocolError(id, httpd.RPCMethodNotFound, fmt.Sprintf("method not found: %q", req.Method))
		resp.Error.Data.Code = murlog.ENotFound
		resp.status = http.StatusNotFound
		return keep(resp, notification)
	}
	result, err := s.call(ctx, m, req.Params)
	if err != nil {
		httpd.LogError(s.log, r, err)
		e := httpd.RPCErrorOf(err)
		return keep(&response{JSONRPC: "2.0", Error: &e, ID: id, status: httpd.Status(err), err: err}, notification)
	}
	return keep(&response{JSONRPC: "2.0", Result: result, ID: id, status: http.StatusOK}, notification)
}

func keep(r *response, notification bool) *response {
	if notification {
		return nil
	}
	return r
}

// call checks access and CSRF, then runs the method.
func (s *Server) call(ctx context.Context, m *method, params json.RawMessage) (any, error) {
	c := murlog.CallerFrom(ctx)
	if c.Presented == "token" && c.AuthErr != nil {
		return nil, c.AuthErr // a bad bearer token fails every call, so scripts notice
	}
	if m.access == owner && !c.Owner {
		if c.AuthErr != nil {
			return nil, c.AuthErr
		}
		return nil, murlog.Errorf(murlog.EUnauthorized, "log in or send an API token (Authorization: Bearer …)")
	}
	if m.mutating && c.Via != "token" && !c.CSRFOK {
		return nil, murlog.Errorf(murlog.EForbidden, "missing or invalid CSRF token: send the csrf_token cookie's value in the X-CSRF-Token header")
	}
	if m.mutating && !m.exempt {
		if err := s.locked(ctx); err != nil {
			return nil, err
		}
	}
	result, err := m.call(ctx, params)
	if err != nil {
		return nil, err
	}
	if st, ok := ctx.Value(stateKey{}).(*callState); ok && m.mutating && c.Owner {
		st.wrote = true
	}
	if result == nil {
		return ok, nil
	}
	return result, nil
}

// ok is the result of methods that return nothing else.
var ok = map[string]string{"status": "ok"}

func validID(id json.RawMessage) bool {
	switch id[0] {
	case '"', 'n':
		return true
	case '{', '[', 't', 'f':
		return false
	}
	return true // a number
}

func protocolError(id json.RawMessage, code int, msg string) *response {
	return &response{JSONRPC: "2.0", ID: id, status: http.StatusBadRequest,
		Error: &httpd.RPCError{Code: code, Message: msg, Data: &httpd.RPCErrorData{Code: murlog.EInvalid}}}
}

// writeResponse writes one response object with its HTTP status.
func (s *Server) writeResponse(w http.ResponseWriter, r *response) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(r.status)
	encodeTo(w, r)
}

func (s *Server) writeProtocolError(w http.ResponseWriter, status, code int, msg string, c murlog.Code) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(&response{JSONRPC: "2.0", ID: nullID,
		Error: &httpd.RPCError{Code: code, Message: msg, Data: &httpd.RPCErrorData{Code: c}}})
}
