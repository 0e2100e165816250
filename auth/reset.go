package auth

import (
	"bufio"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// ResetTTL is how long a reset file stays usable after `murlog reset`.
const ResetTTL = time.Hour

// WriteResetFile writes a new one-time reset secret to path (mode 0600),
// replacing any earlier one, and returns the secret. The file holds the
// secret and its creation time; whoever can read it can set the password,
// which is the point: it proves shell access to the host.
func WriteResetFile(path string, now time.Time) (string, error) {
	secret := newSecret()
	body := fmt.Sprintf("%s\n%s\n", secret, now.UTC().Format(time.RFC3339Nano))
	tmp, err := os.CreateTemp(filepath.Dir(path), ".murlog.reset-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return "", err
	}
	if _, err := tmp.WriteString(body); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", err
	}
	return secret, nil
}

func readResetFile(path string) (secret string, created time.Time, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", time.Time{}, murlog.Errorf(murlog.EForbidden, "no password reset was requested: run `murlog reset` on the server first")
	}
	if err != nil {
		return "", time.Time{}, murlog.Internal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var lines []string
	for sc.Scan() && len(lines) < 2 {
		lines = append(lines, strings.TrimSpace(sc.Text()))
	}
	if len(lines) < 2 {
		return "", time.Time{}, murlog.Errorf(murlog.EForbidden, "the reset file is damaged: run `murlog reset` again")
	}
	created, err = time.Parse(time.RFC3339Nano, lines[1])
	if err != nil {
		return "", time.Time{}, murlog.Errorf(murlog.EForbidden, "the reset file is damaged: run `murlog reset` again")
	}
	return lines[0], created, nil
}

// ResetInput is a submitted reset form.
type ResetInput struct {
	Path      string // the reset file
	Secret    string
	Password  string
	ClientKey string // rate-limit key, shared with login
}

// ResetPassword accepts the secret from the reset file once, within
// ResetTTL of its creation: it sets the new password, records
// last_password_reset_at, ends every session and deletes the file. A file
// older than the last reset is ignored, so a copy that survived (or was put
// back) cannot be replayed. Wrong secrets count against the login limit.
func (s *Service) ResetPassword(ctx context.Context, in ResetInput) error {
	if err := ValidatePassword("password", in.Password); err != nil {
		return err
	}
	secret, created, err := readResetFile(in.Path)
	if err != nil {
		return err
	}
	newHash, err := HashPassword(in.Password)
	if err != nil {
		return murlog.Internal(err)
	}
	var wrong bool
	err = s.store.Update(ctx, func(tx store.Tx) error {
		now := tx.Now()
		if err := s.countAttempt(tx, in.ClientKey); err != nil {
			return err
		}
		if v, err := tx.Settings().Get(murlog.SettingLastPasswordReset); err == nil {
			if last, perr := time.Parse(time.RFC3339Nano, v); perr == nil && !created.After(last) {
				return murlog.Errorf(murlog.EForbidden, "this reset file was already used: run `murlog reset` again")
			}
		} else if murlog.ErrorCode(err) != murlog.ENotFound {
			return err
		}
		if now.Sub(created) > ResetTTL {
			return murlog.Errorf(murlog.EForbidden, "the reset secret expired (it is valid for one hour): run `murlog reset` again")
		}
		if subtle.ConstantTimeCompare([]byte(secret), []byte(strings.TrimSpace(in.Secret))) != 1 {
			wrong = true
			return nil // commit the counted attempt
		}
		if err := tx.LoginAttempts().Delete(in.ClientKey); err != nil {
			return err
		}
		if err := tx.Settings().Set(murlog.SettingPasswordHash, newHash); err != nil {
			return err
		}
		if err := tx.Settings().Set(murlog.SettingLastPasswordReset, now.Format(time.RFC3339Nano)); err != nil {
			return err
		}
		return tx.Sessions().DeleteAllExcept("")
	})
	if err != nil {
		return err
	}
	if wrong {
		return murlog.Invalid("secret", "does not match the reset file")
	}
	// If removal fails the password is still changed, and the file is
	// already useless: last_password_reset_at is newer than it.
	os.Remove(in.Path)
	return nil
}
