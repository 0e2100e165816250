// Package httpd is the HTTP edge shared by every transport: the mapping of
// murlog's error vocabulary to HTTP statuses and JSON-RPC codes, request
// logging, panic recovery, the setup guard, caller authentication, cookies
// and CSRF checks, and the client address behind trusted proxies.
package httpd

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/murlog/murlog"
)

// codeMap is the one table from error code to HTTP status and JSON-RPC
// error code. The -320xx application codes are murlog's published API.
var codeMap = map[murlog.Code]struct{ status, rpc int }{
	murlog.EUnauthorized: {http.StatusUnauthorized, -32000},
	murlog.ENotFound:     {http.StatusNotFound, -32001},
	murlog.EConflict:     {http.StatusConflict, -32002},
	murlog.EForbidden:    {http.StatusForbidden, -32003},
	murlog.ERateLimited:  {http.StatusTooManyRequests, -32004},
	murlog.EUnavailable:  {http.StatusServiceUnavailable, -32005},
	murlog.ELocked:       {http.StatusLocked, -32006},
	murlog.EInvalid:      {http.StatusBadRequest, RPCInvalidParams},
	murlog.EInternal:     {http.StatusInternalServerError, RPCInternalError},
}

// JSON-RPC 2.0 protocol error codes.
const (
	RPCParseError     = -32700
	RPCInvalidRequest = -32600
	RPCMethodNotFound = -32601
	RPCInvalidParams  = -32602
	RPCInternalError  = -32603
)

// Status returns the HTTP status for err.
func Status(err error) int {
	if m, ok := codeMap[murlog.ErrorCode(err)]; ok {
		return m.status
	}
	return http.StatusInternalServerError
}

// RPCCode returns the JSON-RPC error code for err.
func RPCCode(err error) int {
	if m, ok := codeMap[murlog.ErrorCode(err)]; ok {
		return m.rpc
	}
	return RPCInternalError
}

// SetRetryAfter adds a Retry-After header (whole seconds, rounded up) when
// err carries a delay.
func SetRetryAfter(w http.ResponseWriter, err error) {
	e := murlog.AsError(err)
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds(e)))
	}
}

// RetryAfterSeconds rounds an error's delay up to whole seconds.
func RetryAfterSeconds(e *murlog.Error) int {
	s := int((e.RetryAfter + 999_999_999) / 1_000_000_000)
	return max(s, 1)
}

// LogError records an internal error; client-caused errors are not logged
// as errors (they are the client's business, and the request line shows
// the status).
func LogError(log *slog.Logger, r *http.Request, err error) {
	if log != nil && murlog.ErrorCode(err) == murlog.EInternal {
		log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
}

// WriteError answers a non-RPC request with err: JSON when the client asks
// for it, plain text otherwise. Only the safe message is sent.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	LogError(log, r, err)
	SetRetryAfter(w, err)
	status := Status(err)
	msg := murlog.ErrorMessage(err)
	if WantsJSON(r) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": string(murlog.ErrorCode(err)), "message": msg}})
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write([]byte(msg + "\n"))
}

// WantsJSON reports whether the request is an API call or asks for JSON.
func WantsJSON(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, "/api/") || strings.Contains(r.Header.Get("Accept"), "json") ||
		strings.HasPrefix(r.Header.Get("Content-Type"), "application/json")
}

// WantsHTML reports whether a browser is navigating: a GET or HEAD that
// accepts text/html.
func WantsHTML(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
		strings.Contains(r.Header.Get("Accept"), "text/html") && !strings.HasPrefix(r.URL.Path, "/api/")
}

// RPCError is a JSON-RPC 2.0 error object. Data.Code is murlog's stable
// error code, which scripts should branch on rather than the message.
type RPCError struct {
	Code    int           `json:"code"`
	Message string        `json:"message"`
	Data    *RPCErrorData `json:"data,omitempty"`
}

// RPCErrorData is the data member of murlog's JSON-RPC errors.
type RPCErrorData struct {
	Code       murlog.Code `json:"code"`
	Field      string      `json:"field,omitempty"`
	RetryAfter int         `json:"retry_after,omitempty"` // seconds
}

// RPCErrorOf builds the error object for err. Internal errors say only
// "internal error"; their detail is in the log.
func RPCErrorOf(err error) RPCError {
	e := murlog.AsError(err)
	msg := murlog.ErrorMessage(err)
	if e.Field != "" && e.Code == murlog.EInvalid {
		msg = e.Field + ": " + msg
	}
	d := &RPCErrorData{Code: e.Code, Field: e.Field}
	if e.RetryAfter > 0 {
		d.RetryAfter = RetryAfterSeconds(e)
	}
	return RPCError{Code: RPCCode(err), Message: msg, Data: d}
}
