package api

import (
	"context"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/auth"
	"github.com/murlog/murlog/qr"
)

// totpStatusView is totp.status's answer.
type totpStatusView struct {
	Enabled           bool `json:"enabled"`
	Pending           bool `json:"pending"`
	RecoveryCodesLeft int  `json:"recovery_codes_left"`
}

// totpSetupView is totp.setup's answer: the secret to type in, the URI to
// scan and its QR code as an SVG data URI (the SPA's CSP allows data:
// images; the SVG is murlog's own drawing, no script in it).
type totpSetupView struct {
	Secret     string `json:"secret"`
	OTPAuthURI string `json:"otpauth_uri"`
	QRSVG      string `json:"qr_svg"`
}

// registerTOTP adds two-factor login. Changing it is session-only, like a
// password change: a leaked API token must not be able to turn the owner's
// second factor off, nor enrol the thief's authenticator.
func (s *Server) registerTOTP() {
	register(s, "totp.status", owner, false, func(ctx context.Context, _ *noParams) (any, error) {
		st, err := s.deps.Auth.TOTPStatus(ctx)
		if err != nil {
			return nil, err
		}
		return &totpStatusView{Enabled: st.Enabled, Pending: st.Pending, RecoveryCodesLeft: st.RecoveryCodesLeft}, nil
	})
	register(s, "totp.setup", owner, true, func(ctx context.Context, p *struct {
		Password string `json:"password"`
	}) (any, error) {
		if err := sessionOnly(ctx, "totp.setup"); err != nil {
			return nil, err
		}
		me, err := s.deps.Personas.Primary(ctx)
		if err != nil {
			return nil, err
		}
		setup, err := s.deps.Auth.SetupTOTP(ctx, auth.SetupTOTPInput{Account: me.Username + "@" + s.deps.Site.Domain,
			Password: p.Password, ClientKey: murlog.CallerFrom(ctx).ClientKey})
		if err != nil {
			return nil, err
		}
		img, err := qr.DataURI(setup.URI)
		if err != nil {
			return nil, murlog.Internal(err)
		}
		return &totpSetupView{Secret: setup.Secret, OTPAuthURI: setup.URI, QRSVG: img}, nil
	})
	register(s, "totp.verify", owner, true, func(ctx context.Context, p *struct {
		Code string `json:"code"`
	}) (any, error) {
		if err := sessionOnly(ctx, "totp.verify"); err != nil {
			return nil, err
		}
		codes, err := s.deps.Auth.VerifyTOTP(ctx, p.Code)
		if err != nil {
			return nil, err
		}
		return map[string]any{"enabled": true, "recovery_codes": codes}, nil
	})
	register(s, "totp.disable", owner, true, func(ctx context.Context, p *struct {
		Password string `json:"password"`
		Code     string `json:"code"`
	}) (any, error) {
		if err := sessionOnly(ctx, "totp.disable"); err != nil {
			return nil, err
		}
		return nil, s.deps.Auth.DisableTOTP(ctx, auth.DisableTOTPInput{Password: p.Password, Code: p.Code,
			ClientKey: murlog.CallerFrom(ctx).ClientKey})
	})
}
