package api_test

import (
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/auth"
	"github.com/murlog/murlog/client"
	"github.com/murlog/murlog/internal/testsite"
)

type totpSetup struct {
	Secret     string `json:"secret"`
	OTPAuthURI string `json:"otpauth_uri"`
	QRSVG      string `json:"qr_svg"`
}

type totpStatus struct {
	Enabled           bool `json:"enabled"`
	Pending           bool `json:"pending"`
	RecoveryCodesLeft int  `json:"recovery_codes_left"`
}

// totpSite is a set-up site on a settable clock with the owner's client.
func totpSite(t *testing.T) (*testsite.Site, *siteClock) {
	c := &siteClock{t: time.Now().UTC().Truncate(time.Second)}
	return testsite.Start(t, testsite.Options{Now: c.now}), c
}

func totpCode(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	code, err := auth.TOTPCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// enrolOverRPC turns two-factor login on through the API and moves the
// clock a step on, so the verifying code is spent and the next is fresh.
func enrolOverRPC(t *testing.T, s *testsite.Site, c *siteClock) (string, []string) {
	t.Helper()
	var setup totpSetup
	if err := s.Client.Call(ctx, "totp.setup", map[string]string{"password": testsite.Password}, &setup); err != nil {
		t.Fatalf("totp.setup: %v", err)
	}
	var verified struct {
		Enabled       bool     `json:"enabled"`
		RecoveryCodes []string `json:"recovery_codes"`
	}
	if err := s.Client.Call(ctx, "totp.verify", map[string]string{"code": totpCode(t, setup.Secret, c.now())}, &verified); err != nil {
		t.Fatalf("totp.verify: %v", err)
	}
	if !verified.Enabled || len(verified.RecoveryCodes) != 10 {
		t.Fatalf("totp.verify = %+v; want enabled and 10 recovery codes", verified)
	}
	c.add(auth.TOTPPeriod)
	return setup.Secret, verified.RecoveryCodes
}

// login tries auth.login from a fresh client and returns it with the error.
func login(t *testing.T, s *testsite.Site, params map[string]any) (*client.Client, error) {
	t.Helper()
	cl := s.NewClient()
	if err := cl.FetchCSRF(ctx); err != nil {
		t.Fatal(err)
	}
	return cl, cl.Call(ctx, "auth.login", params, nil)
}

// codeErr asserts err is auth.login's second-factor refusal.
func codeErr(t *testing.T, what string, err error, msg string) {
	t.Helper()
	e := rpcErr(t, what, err, -32000, "unauthorized", 401)
	if e.Data.Field != "totp_code" || e.Message != msg {
		t.Errorf("%s: field %q, message %q; want totp_code, %q", what, e.Data.Field, e.Message, msg)
	}
}

func TestTOTPSetupAndVerify(t *testing.T) {
	t.Parallel()
	s, c := totpSite(t)
	var st totpStatus
	if err := s.Client.Call(ctx, "totp.status", nil, &st); err != nil || st != (totpStatus{}) {
		t.Errorf("totp.status on a new site = %+v, %v; want all off", st, err)
	}
	var setup totpSetup
	if err := s.Client.Call(ctx, "totp.setup", map[string]string{"password": testsite.Password}, &setup); err != nil {
		t.Fatal(err)
	}
	want := "otpauth://totp/murlog:alice@" + s.Domain() + "?secret=" + setup.Secret + "&issuer=murlog&algorithm=SHA1&digits=6&period=30"
	if setup.OTPAuthURI != want || len(setup.Secret) != 32 {
		t.Errorf("totp.setup = %q, secret %q; want %s", setup.OTPAuthURI, setup.Secret, want)
	}
	checkQR(t, setup.QRSVG)
	s.Client.Call(ctx, "totp.status", nil, &st)
	if st.Enabled || !st.Pending {
		t.Errorf("totp.status after setup = %+v; want pending only", st)
	}
	// Nothing changes for login before verification.
	if _, err := login(t, s, map[string]any{"password": testsite.Password}); err != nil {
		t.Errorf("login without a code before verification: %v", err)
	}
	e := rpcErr(t, "totp.verify with a wrong code", s.Client.Call(ctx, "totp.verify", map[string]string{"code": wrongCode(totpCode(t, setup.Secret, c.now()))}, nil), -32602, "invalid", 400)
	if e.Data.Field != "code" {
		t.Errorf("wrong code's field = %q; want code", e.Data.Field)
	}
	secret, codes := setup.Secret, []string(nil)
	var verified struct {
		RecoveryCodes []string `json:"recovery_codes"`
	}
	if err := s.Client.Call(ctx, "totp.verify", map[string]string{"code": totpCode(t, secret, c.now())}, &verified); err != nil {
		t.Fatal(err)
	}
	codes = verified.RecoveryCodes
	if len(codes) != 10 || len(codes[0]) != 9 || codes[0][4] != '-' {
		t.Errorf("recovery codes = %q; want 10 of xxxx-xxxx", codes)
	}
	s.Client.Call(ctx, "totp.status", nil, &st)
	if st != (totpStatus{Enabled: true, RecoveryCodesLeft: 10}) {
		t.Errorf("totp.status after verify = %+v; want enabled, 10 codes left", st)
	}
	rpcErr(t, "totp.setup while on", s.Client.Call(ctx, "totp.setup", map[string]string{"password": testsite.Password}, nil), -32002, "conflict", 409)
	// The session that enrolled stays logged in.
	if err := s.Client.Call(ctx, "tokens.list", nil, nil); err != nil {
		t.Errorf("the enrolling session after verify: %v", err)
	}
}

func wrongCode(right string) string {
	if right == "000000" {
		return "111111"
	}
	return "000000"
}

// checkQR: the data URI is well formed and holds an SVG document with one path.
func checkQR(t *testing.T, uri string) {
	t.Helper()
	b64, ok := strings.CutPrefix(uri, "data:image/svg+xml;base64,")
	if !ok {
		t.Fatalf("qr_svg = %.40q…; want data:image/svg+xml;base64,…", uri)
	}
	svg, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatalf("qr_svg's payload is not base64: %v", err)
	}
	dec := xml.NewDecoder(strings.NewReader(string(svg)))
	elems := map[string]int{}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("qr_svg is not XML: %v", err)
		}
		if el, ok := tok.(xml.StartElement); ok {
			elems[el.Name.Local]++
		}
	}
	if elems["svg"] != 1 || elems["path"] != 1 || elems["script"] != 0 {
		t.Errorf("qr_svg elements = %v; want one svg with one path", elems)
	}
}

func TestLoginWithTOTPOverRPC(t *testing.T) {
	t.Parallel()
	s, c := totpSite(t)
	secret, codes := enrolOverRPC(t, s, c)
	pw := testsite.Password
	_, err := login(t, s, map[string]any{"password": pw})
	codeErr(t, "login without a code", err, "two-factor code required")
	_, err = login(t, s, map[string]any{"password": pw, "totp_code": ""})
	codeErr(t, "login with an empty code", err, "two-factor code required")
	now := totpCode(t, secret, c.now())
	// A wrong password is answered as ever, whatever the code.
	_, err = login(t, s, map[string]any{"password": "not the password", "totp_code": now})
	if e := rpcErr(t, "wrong password with the right code", err, -32000, "unauthorized", 401); e.Data.Field != "" || e.Message != "wrong password" {
		t.Errorf("wrong password with the right code: field %q message %q; want the plain wrong-password error", e.Data.Field, e.Message)
	}
	_, err = login(t, s, map[string]any{"password": pw, "totp_code": wrongCode(now)})
	codeErr(t, "login with a wrong code", err, "wrong or already used code")
	cl, err := login(t, s, map[string]any{"password": pw, "totp_code": now})
	if err != nil {
		t.Fatalf("login with the current code: %v", err)
	}
	if err := cl.Call(ctx, "tokens.list", nil, nil); err != nil {
		t.Errorf("owner call after a two-factor login: %v", err)
	}
	_, err = login(t, s, map[string]any{"password": pw, "totp_code": now})
	codeErr(t, "the same code again", err, "wrong or already used code")
	// A recovery code works once.
	if _, err := login(t, s, map[string]any{"password": pw, "totp_code": codes[0]}); err != nil {
		t.Errorf("login with a recovery code: %v", err)
	}
	_, err = login(t, s, map[string]any{"password": pw, "totp_code": codes[0]})
	codeErr(t, "the recovery code again", err, "wrong or already used code")
	var st totpStatus
	s.Client.Call(ctx, "totp.status", nil, &st)
	if st.RecoveryCodesLeft != 9 {
		t.Errorf("recovery_codes_left = %d; want 9", st.RecoveryCodesLeft)
	}
	c.add(auth.TOTPPeriod)
	if _, err := login(t, s, map[string]any{"password": pw, "totp_code": totpCode(t, secret, c.now())}); err != nil {
		t.Errorf("login with the next step's code: %v", err)
	}
}

// TestTOTPCodesCountInTheLoginLimit: five wrong codes with the right
// password lock the address out like five wrong passwords.
func TestTOTPCodesCountInTheLoginLimit(t *testing.T) {
	t.Parallel()
	s, c := totpSite(t)
	secret, _ := enrolOverRPC(t, s, c)
	cl := s.NewClient()
	cl.FetchCSRF(ctx)
	for i := 0; i < 5; i++ {
		err := cl.Call(ctx, "auth.login", map[string]string{"password": testsite.Password, "totp_code": "aaaa-aaaa"}, nil)
		codeErr(t, "wrong recovery code", err, "wrong or already used code")
	}
	err := cl.Call(ctx, "auth.login", map[string]string{"password": testsite.Password, "totp_code": totpCode(t, secret, c.now())}, nil)
	rpcErr(t, "the right code after 5 wrong ones", err, -32004, "rate_limited", 429)
}

func TestTOTPBadInput(t *testing.T) {
	t.Parallel()
	s, _ := totpSite(t)
	var setup totpSetup
	if err := s.Client.Call(ctx, "totp.setup", map[string]string{"password": testsite.Password}, &setup); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("1", 1000)
	for _, tc := range []struct {
		method string
		params string
		field  string
		msg    string // in the error message
	}{
		{"totp.verify", `{"code":"12345"}`, "code", "6-digit"},
		{"totp.verify", `{"code":"1234567"}`, "code", "6-digit"},
		{"totp.verify", `{"code":"12ab56"}`, "code", "6-digit"},
		{"totp.verify", `{"code":"` + long + `"}`, "code", "6-digit"},
		{"totp.verify", `{"code":123456}`, "code", "must be a string"},
		{"totp.verify", `{"code":null}`, "code", ""},
		{"totp.verify", `{"code":["123456"]}`, "code", "must be a string"},
		{"totp.verify", `{"kode":"123456"}`, "kode", "unknown"},
		{"totp.disable", `{"password":"` + testsite.Password + `","code":"` + long + `"}`, "code", "recovery code"},
		{"totp.disable", `{"password":1,"code":"123456"}`, "password", "must be a string"},
		{"sessions.revoke", `{"id":"xyz"}`, "id", "16 lower-case hex"},
		{"sessions.revoke", `{"id":12}`, "id", "must be a string"},
		{"auth.login", `{"password":"` + testsite.Password + `","totp_code":"` + long + `"}`, "totp_code", "recovery code"},
		{"auth.login", `{"password":"` + testsite.Password + `","totp_code":"12345"}`, "totp_code", "6-digit"},
		{"auth.login", `{"password":"` + testsite.Password + `","totp_code":123456}`, "totp_code", "must be a string"},
	} {
		status, _, v := raw(t, s, s.Client, "application/json", `{"jsonrpc":"2.0","method":"`+tc.method+`","params":`+tc.params+`,"id":1}`)
		msg, _ := field(v, "error", "message").(string)
		if status != 400 || field(v, "error", "data", "code") != "invalid" || field(v, "error", "data", "field") != tc.field ||
			!strings.Contains(msg, tc.msg) || len(msg) > 200 {
			t.Errorf("%s %.60s = %d %v; want 400 invalid on %s saying %q, briefly", tc.method, tc.params, status, field(v, "error"), tc.field, tc.msg)
		}
	}
	// None of that verified anything.
	var st totpStatus
	s.Client.Call(ctx, "totp.status", nil, &st)
	if st.Enabled {
		t.Error("bad input enabled two-factor login")
	}
}

func TestTOTPDisableOverRPC(t *testing.T) {
	t.Parallel()
	s, c := totpSite(t)
	secret, codes := enrolOverRPC(t, s, c)
	dis := func(pw, code string) error {
		return s.Client.Call(ctx, "totp.disable", map[string]string{"password": pw, "code": code}, nil)
	}
	now := totpCode(t, secret, c.now())
	for _, tc := range []struct {
		what, pw, code, field string
	}{
		{"no password", "", now, "password"},
		{"no code", testsite.Password, "", "code"},
		{"wrong password", "not the password", now, "password"},
		{"wrong code", testsite.Password, wrongCode(now), "code"},
		{"unknown recovery code", testsite.Password, "aaaa-aaaa", "code"},
	} {
		if e := rpcErr(t, "totp.disable, "+tc.what, dis(tc.pw, tc.code), -32602, "invalid", 400); e.Data.Field != tc.field {
			t.Errorf("totp.disable, %s: field %q; want %s", tc.what, e.Data.Field, tc.field)
		}
	}
	var st totpStatus
	if s.Client.Call(ctx, "totp.status", nil, &st); !st.Enabled {
		t.Fatal("two-factor login went off without both factors")
	}
	if err := dis(testsite.Password, codes[4]); err != nil {
		t.Fatalf("totp.disable with the password and a recovery code: %v", err)
	}
	if s.Client.Call(ctx, "totp.status", nil, &st); st != (totpStatus{}) {
		t.Errorf("totp.status after disable = %+v; want all off", st)
	}
	if _, err := login(t, s, map[string]any{"password": testsite.Password}); err != nil {
		t.Errorf("login without a code after disable: %v", err)
	}
	rpcErr(t, "totp.disable while off", dis(testsite.Password, now), -32002, "conflict", 409)
	// And on again with a new secret: the old one's codes are dead.
	secret2, _ := enrolOverRPC(t, s, c)
	if secret2 == secret {
		t.Fatal("re-enrolment reused the secret")
	}
	_, err := login(t, s, map[string]any{"password": testsite.Password, "totp_code": codes[5]})
	codeErr(t, "an old enrolment's recovery code", err, "wrong or already used code")
}

// TestTOTPSessionOnlyAndCSRF: changes to two-factor login and the sessions
// methods refuse bearer tokens, and with a session they need the CSRF
// header.
func TestTOTPSessionOnlyAndCSRF(t *testing.T) {
	t.Parallel()
	s, _ := totpSite(t)
	var tok struct{ Token string }
	if err := s.Client.Call(ctx, "tokens.create", map[string]string{"name": "script"}, &tok); err != nil {
		t.Fatal(err)
	}
	script := client.New(s.Server.URL)
	script.Token = tok.Token
	for _, tc := range []struct {
		method string
		params any
	}{
		{"totp.setup", map[string]string{"password": testsite.Password}}, {"totp.verify", map[string]string{"code": "123456"}},
		{"totp.disable", map[string]string{"password": testsite.Password, "code": "123456"}},
		{"sessions.list", nil}, {"sessions.revoke", map[string]string{"id": "0123456789abcdef"}}, {"sessions.revoke_others", nil},
	} {
		e := rpcErr(t, tc.method+" with a token", script.Call(ctx, tc.method, tc.params, nil), -32003, "forbidden", 403)
		if !strings.Contains(e.Message, "session") {
			t.Errorf("%s with a token: %q; want it to say a session is needed", tc.method, e.Message)
		}
	}
	if err := script.Call(ctx, "totp.status", nil, nil); err != nil {
		t.Errorf("totp.status with a token: %v; want it readable", err)
	}
	anon := s.NewClient()
	anon.FetchCSRF(ctx)
	for _, m := range []string{"totp.status", "totp.setup", "totp.verify", "totp.disable", "sessions.list", "sessions.revoke", "sessions.revoke_others"} {
		rpcErr(t, "anonymous "+m, anon.Call(ctx, m, map[string]any{}, nil), -32000, "unauthorized", 401)
	}
	for _, m := range []string{"totp.setup", "totp.verify", "totp.disable", "sessions.revoke", "sessions.revoke_others"} {
		status, _, v := rawNoCSRF(t, s, s.Client, `{"jsonrpc":"2.0","method":"`+m+`","params":{},"id":1}`)
		if status != 403 || field(v, "error", "data", "code") != "forbidden" {
			t.Errorf("%s with the session but no CSRF header = %d %v; want 403 forbidden", m, status, field(v, "error"))
		}
	}
	var st totpStatus
	if s.Client.Call(ctx, "totp.status", nil, &st); st.Pending {
		t.Error("a refused totp.setup started an enrolment")
	}
}

// TestNoTOTPSecretsInLogs: the secret and the recovery codes never reach
// a log line, whatever was tried with them.
func TestNoTOTPSecretsInLogs(t *testing.T) {
	t.Parallel()
	s, c := totpSite(t)
	secret, codes := enrolOverRPC(t, s, c)
	login(t, s, map[string]any{"password": testsite.Password, "totp_code": codes[0]})
	login(t, s, map[string]any{"password": testsite.Password, "totp_code": codes[0]})
	login(t, s, map[string]any{"password": testsite.Password, "totp_code": totpCode(t, secret, c.now())})
	s.Client.Call(ctx, "totp.disable", map[string]string{"password": "wrong", "code": codes[1]}, nil)
	logs := s.Logs.String()
	if !strings.Contains(logs, `"msg":"request"`) {
		t.Fatalf("no request log lines at all:\n%s", logs)
	}
	for _, x := range append([]string{secret, strings.ToLower(secret)}, codes...) {
		if strings.Contains(logs, x) {
			t.Errorf("the log contains a two-factor secret (%q…)", x[:4])
		}
	}
}

// TestSiteInfoSaysTOTPIsOn: site.info's totp_enabled follows the
// enrolment, for the owner only.
func TestSiteInfoSaysTOTPIsOn(t *testing.T) {
	t.Parallel()
	s, c := totpSite(t)
	enrolOverRPC(t, s, c)
	var info struct {
		TOTPEnabled *bool `json:"totp_enabled"`
	}
	if err := s.Client.Call(ctx, "site.info", nil, &info); err != nil || info.TOTPEnabled == nil || !*info.TOTPEnabled {
		t.Errorf("owner's site.info after enrolment: totp_enabled %v, %v; want true", info.TOTPEnabled, err)
	}
}

// TestTOTPSetupNeedsThePassword: a session alone cannot start an
// enrolment (a stolen one would enrol the thief's authenticator); a
// missing or wrong password is refused at its field and nothing is
// pending; wrong ones count in the login limit.
func TestTOTPSetupNeedsThePassword(t *testing.T) {
	t.Parallel()
	s, _ := totpSite(t)
	for _, params := range []any{nil, map[string]string{"password": ""}, map[string]string{"password": "wrong password"}} {
		ce := rpcErr(t, fmt.Sprintf("totp.setup %v", params), s.Client.Call(ctx, "totp.setup", params, nil), -32602, "invalid", 400)
		if ce.Data.Field != "password" {
			t.Errorf("totp.setup %v: field %q; want password", params, ce.Data.Field)
		}
	}
	var st totpStatus
	if err := s.Client.Call(ctx, "totp.status", nil, &st); err != nil || st.Pending || st.Enabled {
		t.Errorf("totp.status after refused setups = %+v, %v; want nothing pending", st, err)
	}
	var last error
	for range 10 {
		last = s.Client.Call(ctx, "totp.setup", map[string]string{"password": "still wrong"}, nil)
	}
	rpcErr(t, "the eleventh wrong password", last, -32004, "rate_limited", 429)
}

// TestTOTPDisableGuessesAreLimitedOverRPC: 40 totp.disable calls with the
// right password and a wrong code are not 40 answers about the code: the
// fifth locks the address (429 with Retry-After), the right code is then
// refused as well, and once the lockout has passed it works.
func TestTOTPDisableGuessesAreLimitedOverRPC(t *testing.T) {
	t.Parallel()
	s, c := totpSite(t)
	secret, _ := enrolOverRPC(t, s, c)
	right := totpCode(t, secret, c.now())
	dis := func(code string) error {
		return s.Client.Call(ctx, "totp.disable", map[string]string{"password": testsite.Password, "code": code}, nil)
	}
	for i := range 40 {
		err := dis(wrongCode(right))
		if i < auth.DefaultMaxFailures {
			if e := rpcErr(t, fmt.Sprintf("wrong code %d", i+1), err, -32602, "invalid", 400); e.Data.Field != "code" {
				t.Errorf("wrong code %d: field %q; want code", i+1, e.Data.Field)
			}
			continue
		}
		rpcErr(t, fmt.Sprintf("wrong code %d", i+1), err, -32004, "rate_limited", 429)
	}
	rpcErr(t, "the right code while locked", dis(right), -32004, "rate_limited", 429)
	status, h, _ := raw(t, s, s.Client, "application/json",
		`{"jsonrpc":"2.0","method":"totp.disable","params":{"password":"`+testsite.Password+`","code":"`+right+`"},"id":1}`)
	if status != 429 || h.Get("Retry-After") == "" {
		t.Errorf("locked totp.disable = %d, Retry-After %q; want 429 with Retry-After", status, h.Get("Retry-After"))
	}
	var st totpStatus
	if s.Client.Call(ctx, "totp.status", nil, &st); !st.Enabled {
		t.Fatal("two-factor login went off under the guesses")
	}
	c.add(auth.DefaultLockout)
	if err := dis(totpCode(t, secret, c.now())); err != nil {
		t.Errorf("totp.disable with both factors once the lockout passed: %v", err)
	}
}
