package app

import (
	"context"
	"errors"
	"os"

	"golang.org/x/sys/unix"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/config"
)

// configure is setup step 1: check the form's directories, create them,
// open the database in the data directory, and only then write murlog.ini,
// so a failure leaves no ini pointing at an unusable place.
func (a *App) configure(ctx context.Context, values map[string]string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	path := a.opts.ConfigPath
	if _, err := os.Stat(path); err == nil || a.rt.Load() != nil {
		return murlog.Errorf(murlog.EConflict, "murlog.ini already exists")
	}
	if values["data_dir"] == "" {
		return murlog.Invalid("data_dir", "is required")
	}
	if values["media_path"] == "" {
		return murlog.Invalid("media_path", "is required")
	}
	draft, err := config.FromValues(path, values)
	if err != nil {
		var ke *config.KeyError
		if errors.As(err, &ke) {
			return murlog.Invalid(ke.Key, "%v", ke.Err)
		}
		return murlog.Internal(err)
	}
	if err := usableDir("data_dir", draft.DataDir, 0o700); err != nil {
		return err
	}
	if err := usableDir("media_path", draft.MediaPath, 0o755); err != nil {
		return err
	}
	// The file that will be written is loaded back through the normal path,
	// environment overrides included, exactly as a restart would see it.
	if err := config.Write(path, values); err != nil {
		if errors.Is(err, config.ErrExists) {
			return murlog.Errorf(murlog.EConflict, "murlog.ini already exists")
		}
		return murlog.Invalid("data_dir", "cannot write %s: %v", path, unwrapPath(err))
	}
	cfg, err := config.Load(path, a.opts.Getenv)
	if err == nil {
		var rt *runtime
		if rt, err = a.open(ctx, cfg); err == nil {
			a.cfg.Store(cfg)
			a.rt.Store(rt)
			return nil
		}
	}
	// Opening failed after all: take the ini back so the wizard can be
	// used again rather than leaving a half-configured site.
	os.Remove(path)
	return murlog.Invalid("data_dir", "cannot open the database there: %v", err)
}

// usableDir creates dir if needed and checks this process can write to it.
func usableDir(field, dir string, mode os.FileMode) error {
	if err := os.MkdirAll(dir, mode); err != nil {
		return murlog.Invalid(field, "cannot create %s: %v", dir, unwrapPath(err))
	}
	if err := unix.Access(dir, unix.W_OK|unix.X_OK); err != nil {
		return murlog.Invalid(field, "%s is not writable by this process (user id %d)", dir, os.Geteuid())
	}
	return nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
