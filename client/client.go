// Package client is a small typed client for murlog's JSON-RPC API and
// setup wizard. Scripts can use it; murlog's own integration tests drive
// real servers (httptest, Apache CGI) through it.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
)

// Client calls one murlog site. It keeps cookies (session, CSRF) like a
// browser and echoes the CSRF cookie in X-CSRF-Token, as the SPA does.
type Client struct {
	BaseURL string
	HTTP    *http.Client
	// Token, when set, is sent as a bearer token instead of the session.
	Token string
	// AcceptLanguage is sent with wizard requests.
	AcceptLanguage string
	nextID         atomic.Int64
}

// New returns a client for the site at base (e.g. "http://127.0.0.1:8080").
func New(base string) *Client {
	jar, _ := cookiejar.New(nil)
	return &Client{BaseURL: strings.TrimRight(base, "/"),
		HTTP: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// Error is a JSON-RPC error response.
type Error struct {
	HTTPStatus int
	RPCCode    int    `json:"code"`
	Message    string `json:"message"`
	Data       struct {
		Code       string `json:"code"`
		Field      string `json:"field"`
		RetryAfter int    `json:"retry_after"`
	} `json:"data"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("murlog: %s (%d, HTTP %d): %s", e.Data.Code, e.RPCCode, e.HTTPStatus, e.Message)
}

// Response is one raw JSON-RPC response.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	Result  json.RawMessage `json:"result"`
	Error   *Error          `json:"error"`
	ID      json.RawMessage `json:"id"`
}

// Call invokes method with params and decodes the result into result
// (which may be nil). A JSON-RPC error is returned as *Error.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params, "id": c.nextID.Add(1)})
	if err != nil {
		return err
	}
	status, raw, err := c.Post(ctx, "/api/mur/v1/rpc", "application/json", body)
	if err != nil {
		return err
	}
	var resp Response
	if err := json.Unmarshal(raw, &resp); err != nil {
		return fmt.Errorf("murlog: HTTP %d, undecodable response %q: %w", status, raw, err)
	}
	if resp.Error != nil {
		resp.Error.HTTPStatus = status
		return resp.Error
	}
	if result != nil {
		return json.Unmarshal(resp.Result, result)
	}
	return nil
}

// Post sends a raw body to path with the client's credentials and CSRF
// header, returning the status and body.
func (c *Client) Post(ctx context.Context, path, contentType string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", contentType)
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if t := c.Cookie(ctx, "csrf_token"); t != "" {
		req.Header.Set("X-CSRF-Token", t)
	}
	return c.do(req)
}

func (c *Client) do(req *http.Request) (int, []byte, error) {
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// Cookie returns the value of a cookie the client holds for the site. When
// it holds no CSRF cookie yet, it fetches one (any response issues it).
func (c *Client) Cookie(ctx context.Context, name string) string {
	u, _ := url.Parse(c.BaseURL + "/")
	for _, ck := range c.HTTP.Jar.Cookies(u) {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}

// Login calls auth.login, first fetching a CSRF cookie if needed.
func (c *Client) Login(ctx context.Context, password string) error {
	if c.Cookie(ctx, "csrf_token") == "" {
		if err := c.FetchCSRF(ctx); err != nil {
			return err
		}
	}
	return c.Call(ctx, "auth.login", map[string]string{"password": password}, nil)
}

// FetchCSRF loads a page that issues the csrf_token cookie.
func (c *Client) FetchCSRF(ctx context.Context) error {
	_, _, _, err := c.Get(ctx, "/admin/setup")
	return err
}

// Get fetches path as a browser would (Accept: text/html).
func (c *Client) Get(ctx context.Context, path string) (int, http.Header, []byte, error) {
	return c.browse(ctx, http.MethodGet, path, nil)
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// SubmitForm loads the form at path, copies its csrf_token hidden field
// (as scripted installs do) and posts values to it. It returns the status,
// headers and body of the POST response.
func (c *Client) SubmitForm(ctx context.Context, path string, values url.Values) (int, http.Header, []byte, error) {
	status, _, page, err := c.Get(ctx, path)
	if err != nil {
		return 0, nil, nil, err
	}
	m := csrfField.FindSubmatch(page)
	if m == nil {
		return status, nil, page, fmt.Errorf("murlog: no csrf_token field in %s (HTTP %d)", path, status)
	}
	v := url.Values{}
	for k, vs := range values {
		v[k] = vs
	}
	v.Set("csrf_token", string(m[1]))
	return c.browse(ctx, http.MethodPost, path, v)
}

// browse makes a browser-like request: Accept text/html, the client's
// language, and form values as the body when form is not nil.
func (c *Client) browse(ctx context.Context, method, path string, form url.Values) (int, http.Header, []byte, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, body)
	if err != nil {
		return 0, nil, nil, err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("Accept", "text/html")
	if c.AcceptLanguage != "" {
		req.Header.Set("Accept-Language", c.AcceptLanguage)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b, err
}

// Setup runs both wizard steps with typical values and the given domain,
// username and password. Step 1 is skipped when murlog.ini exists already.
func (c *Client) Setup(ctx context.Context, domain, username, password string) error {
	return c.SetupSite(ctx, SetupInput{Domain: domain, Username: username, Password: password})
}

// SetupInput is the step 2 form. DisplayName defaults to Username;
// SiteName is optional.
type SetupInput struct {
	Domain, Username, DisplayName, Password, SiteName string
}

// SetupSite runs both wizard steps as Setup does, with every field of
// step 2.
func (c *Client) SetupSite(ctx context.Context, in SetupInput) error {
	status, hdr, _, err := c.Get(ctx, "/admin/setup/server")
	if err != nil {
		return err
	}
	if status == http.StatusOK {
		st, h, body, err := c.SubmitForm(ctx, "/admin/setup/server", url.Values{"data_dir": {"./data"}, "media_path": {"./media"}, "scheme": {"http"}})
		if err != nil {
			return err
		}
		if st != http.StatusSeeOther {
			return fmt.Errorf("murlog: setup step 1: HTTP %d %s: %s", st, h.Get("Location"), body)
		}
	} else if status != http.StatusSeeOther {
		return fmt.Errorf("murlog: setup step 1: HTTP %d (%s)", status, hdr.Get("Location"))
	}
	if in.DisplayName == "" {
		in.DisplayName = in.Username
	}
	form := url.Values{"domain": {in.Domain}, "username": {in.Username}, "display_name": {in.DisplayName},
		"password": {in.Password}, "password_confirm": {in.Password}}
	if in.SiteName != "" {
		form.Set("site_name", in.SiteName)
	}
	st, h, body, err := c.SubmitForm(ctx, "/admin/setup", form)
	if err != nil {
		return err
	}
	if st != http.StatusSeeOther {
		return fmt.Errorf("murlog: setup step 2: HTTP %d %s: %s", st, h.Get("Location"), body)
	}
	return nil
}
