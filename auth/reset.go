package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// resetSecretLen is the length of the secret WriteResetFile writes: 32
// random bytes, base64url without padding. The reader accepts nothing
// else, so a hand-made file cannot carry a short or empty secret.
const resetSecretLen = 43

// resetFile is a reset file that passed every check that needs no clock.
type resetFile struct {
	secret  string
	stated  time.Time // the time written in the file
	created time.Time // the earlier of stated and the file's mtime
}

func damaged(why string) error {
	return murlog.Errorf(murlog.EForbidden, "the reset file is not one murlog reset wrote (%s): run murlog reset again", why)
}

// readResetFile opens the reset file and accepts it only if it is exactly
// what WriteResetFile writes, in a regular file that no one but its owner
// may read or write, owned by the owner of ownerRef (murlog.ini; "" means
// this process's user). Each refusal says what is wrong, and none of them
// reveals anything about the secret.
func readResetFile(path, ownerRef string) (*resetFile, error) {
	lst, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, murlog.Errorf(murlog.EForbidden, "no password reset was requested: run murlog reset on the server first")
	}
	if err != nil {
		return nil, murlog.Internal(err)
	}
	// Only a regular file: a link could borrow another file's mode and
	// owner, and opening a FIFO would hang the request. O_NOFOLLOW and
	// O_NONBLOCK close the gap if the name is swapped after Lstat.
	if !lst.Mode().IsRegular() {
		return nil, damaged("not a regular file")
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, damaged("not a regular file")
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, murlog.Internal(err)
	}
	if !os.SameFile(st, lst) || !st.Mode().IsRegular() {
		return nil, damaged("not a regular file")
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return nil, murlog.Errorf(murlog.EForbidden,
			"the reset file can be read or written by other users (mode %#o; it must be 0600): run murlog reset again", perm)
	}
	want := os.Geteuid()
	if ownerRef != "" {
		if want, err = fileOwner(ownerRef); err != nil {
			return nil, murlog.Internal(err)
		}
	}
	if got, err := ownerOf(st); err != nil || got != want {
		return nil, murlog.Errorf(murlog.EForbidden, "the reset file belongs to another user than murlog.ini: run murlog reset again as that user")
	}
	// One byte more than the longest valid file tells "too long" apart.
	b, err := io.ReadAll(io.LimitReader(f, int64(resetSecretLen+len(time.RFC3339Nano)+3)))
	if err != nil {
		return nil, murlog.Internal(err)
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) != 3 || lines[2] != "" {
		return nil, damaged("want two lines")
	}
	secret, stamp := lines[0], lines[1]
	if raw, err := base64.RawURLEncoding.Strict().DecodeString(secret); len(secret) != resetSecretLen || err != nil || len(raw) != 32 {
		return nil, damaged("the secret must be 256 random bits")
	}
	stated, err := time.Parse(time.RFC3339Nano, stamp)
	if err != nil || stated.Location() != time.UTC || stated.Format(time.RFC3339Nano) != stamp {
		return nil, damaged("bad time")
	}
	// A file can claim any time; its mtime says when it was really
	// written (or last changed), so a claimed time later than that cannot
	// stretch its life past the hour.
	created := stated
	if m := st.ModTime(); m.Before(created) {
		created = m
	}
	return &resetFile{secret: secret, stated: stated, created: created}, nil
}

func fileOwner(path string) (int, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return ownerOf(st)
}

func ownerOf(st fs.FileInfo) (int, error) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, errors.New("auth: file owner unknown on this system")
	}
	return int(sys.Uid), nil
}

// ResetInput is a submitted reset form.
type ResetInput struct {
	Path string // the reset file
	// OwnerRef is the file (murlog.ini) whose owner must own the reset
	// file; "" means the user this process runs as.
	OwnerRef  string
	Secret    string
	Password  string
	ClientKey string // rate-limit key, shared with login
}

// ResetPassword accepts the secret from the reset file once, within
// ResetTTL of its creation: it sets the new password, records
// last_password_reset_at, ends every session, revokes every API token,
// turns two-factor login off and deletes the file. A file older than the
// last reset is ignored, so a copy that survived (or was put back) cannot
// be replayed. Every submission with a valid file counts against the
// login limit, and the cheap checks (lock, file, time, secret) all come
// before the new password is hashed.
func (s *Service) ResetPassword(ctx context.Context, in ResetInput) error {
	if err := ValidatePassword("password", in.Password); err != nil {
		return err
	}
	submitted := strings.TrimSpace(in.Secret)
	if submitted == "" {
		return murlog.Required("secret")
	}
	rf, err := readResetFile(in.Path, in.OwnerRef)
	if err != nil {
		return err
	}
	var wrong bool
	err = s.store.Update(ctx, func(tx store.Tx) error {
		now := tx.Now()
		if err := s.countAttempt(tx, in.ClientKey); err != nil {
			return err
		}
		if err := checkResetTime(tx, rf, now); err != nil {
			return err
		}
		// Comparing digests keeps the comparison constant-time whatever
		// the submitted length.
		a, b := sha256.Sum256([]byte(rf.secret)), sha256.Sum256([]byte(submitted))
		wrong = subtle.ConstantTimeCompare(a[:], b[:]) != 1
		return nil // commit the counted attempt
	})
	if err != nil {
		return err
	}
	if wrong {
		return murlog.Invalid("secret", "does not match the reset file")
	}
	newHash, err := s.hash(ctx, in.Password)
	if err != nil {
		return err
	}
	err = s.store.Update(ctx, func(tx store.Tx) error {
		now := tx.Now()
		// Again: a parallel submission may have used the file meanwhile.
		if err := checkResetTime(tx, rf, now); err != nil {
			return err
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
		if _, err := tx.Tokens().DeleteAll(); err != nil {
			return err
		}
		// The reset file proves shell access, which is what a lost phone
		// and lost recovery codes leave: two-factor login goes too.
		if err := turnOffTOTP(tx); err != nil {
			return err
		}
		_, err := tx.Sessions().DeleteAllExcept("")
		return err
	})
	if err != nil {
		return err
	}
	// If removal fails the password is still changed, and the file is
	// already useless: last_password_reset_at is newer than it.
	os.Remove(in.Path)
	return nil
}

// checkResetTime refuses a file dated in the future, one not newer than
// the last reset, and one older than ResetTTL.
func checkResetTime(tx store.Tx, rf *resetFile, now time.Time) error {
	if rf.stated.After(now) {
		return murlog.Errorf(murlog.EForbidden, "the reset file is dated in the future: run murlog reset again")
	}
	if v, err := tx.Settings().Get(murlog.SettingLastPasswordReset); err == nil {
		if last, perr := time.Parse(time.RFC3339Nano, v); perr == nil && !rf.created.After(last) {
			return murlog.Errorf(murlog.EForbidden, "this reset file was already used: run murlog reset again")
		}
	} else if murlog.ErrorCode(err) != murlog.ENotFound {
		return err
	}
	if now.Sub(rf.created) > ResetTTL {
		return murlog.Errorf(murlog.EForbidden, "the reset secret expired (it is valid for one hour): run murlog reset again")
	}
	return nil
}
