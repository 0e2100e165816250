package sqlite

import (
	"database/sql"
	"errors"
	"time"

	"github.com/murlog/murlog"
)

// twoFactor is store.TwoFactor over the totp and totp_recovery_codes
// tables (migration 010).
type twoFactor struct{ t *tx }

func (r twoFactor) Get() (*murlog.TOTP, error) {
	var s murlog.TOTP
	var enabled sql.NullInt64
	err := r.t.queryRow("SELECT secret, pending_secret, last_step, enabled_at FROM totp WHERE id = 1", nil,
		&s.Secret, &s.Pending, &s.LastStep, &enabled)
	if errors.Is(err, sql.ErrNoRows) {
		return &murlog.TOTP{}, nil
	}
	if err != nil {
		return nil, err
	}
	s.EnabledAt = fromNullMicros(enabled)
	return &s, nil
}

func (r twoFactor) Put(s *murlog.TOTP) error {
	_, err := r.t.exec(`INSERT INTO totp (id, secret, pending_secret, last_step, enabled_at) VALUES (1, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET secret = excluded.secret, pending_secret = excluded.pending_secret,
		last_step = excluded.last_step, enabled_at = excluded.enabled_at`,
		s.Secret, s.Pending, s.LastStep, nullMicros(s.EnabledAt))
	return err
}

func (r twoFactor) UseStep(step int64) (bool, error) {
	res, err := r.t.exec("UPDATE totp SET last_step = ?1 WHERE id = 1 AND secret <> '' AND last_step < ?1", step)
	n, err := rowsAffected(res, err)
	return n == 1, err
}

func (r twoFactor) ReplaceRecoveryCodes(hashes []string, at time.Time) error {
	if _, err := r.t.exec("DELETE FROM totp_recovery_codes"); err != nil {
		return err
	}
	for _, h := range hashes {
		if _, err := r.t.exec("INSERT INTO totp_recovery_codes (code_hash, created_at) VALUES (?, ?)", h, micros(at)); err != nil {
			return err
		}
	}
	return nil
}

func (r twoFactor) UseRecoveryCode(hash string, at time.Time) (bool, error) {
	res, err := r.t.exec("UPDATE totp_recovery_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL", micros(at), hash)
	n, err := rowsAffected(res, err)
	return n == 1, err
}

func (r twoFactor) RecoveryCodesLeft() (int, error) {
	var n int
	err := r.t.queryRow("SELECT count(*) FROM totp_recovery_codes WHERE used_at IS NULL", nil, &n)
	return n, mapErr(err)
}
