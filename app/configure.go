package app

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/admin"
	"github.com/murlog/murlog/config"
)

// configure is setup step 1: check the form's directories, create them,
// open the database in the data directory, and only then write murlog.ini,
// so a failure leaves no ini pointing at an unusable place. Whatever it
// created is removed again when a later part fails.
func (a *App) configure(ctx context.Context, values map[string]string) (err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	path := a.opts.ConfigPath
	if _, err := os.Stat(path); err == nil || a.inst.Load() != nil {
		return murlog.Errorf(murlog.EConflict, "murlog.ini already exists")
	}
	if values["data_dir"] == "" {
		return murlog.Required("data_dir")
	}
	if values["media_path"] == "" {
		return murlog.Required("media_path")
	}
	for _, k := range []string{"data_dir", "media_path", "web_dir"} {
		if config.HasControl(values[k]) {
			return &admin.DirError{Field: k, Reason: "dir.control"}
		}
	}
	draft, err := config.FromValues(path, values)
	if err != nil {
		var ke *config.KeyError
		if errors.As(err, &ke) {
			return murlog.Invalid(ke.Key, "%v", ke.Err)
		}
		return murlog.Internal(err)
	}
	iniDir := filepath.Dir(path)
	if err := checkPlace("data_dir", draft.DataDir, iniDir, true); err != nil {
		return err
	}
	if err := checkPlace("media_path", draft.MediaPath, iniDir, false); err != nil {
		return err
	}
	if values["web_dir"] != "" {
		if err := checkPlace("web_dir", draft.WebDir, iniDir, false); err != nil {
			return err
		}
	}
	var u undo
	defer func() {
		if err != nil {
			u.run()
		}
	}()
	// The data directory is private to murlog's user; media must stay
	// readable by Apache, which serves it directly.
	if err := u.mkdir("data_dir", draft.DataDir, 0o700); err != nil {
		return err
	}
	if err := u.mkdir("media_path", draft.MediaPath, 0o755); err != nil {
		return err
	}
	if err := config.Write(path, values); err != nil {
		if errors.Is(err, config.ErrExists) {
			return murlog.Errorf(murlog.EConflict, "murlog.ini already exists")
		}
		return &admin.DirError{Field: "data_dir", Reason: "dir.ini_unwritable", Args: []any{iniDir, os.Geteuid()}, Err: err}
	}
	u.add(path)
	// The file that was written is loaded back through the normal path,
	// environment overrides included, exactly as a restart would see it.
	cfg, err := config.Load(path, a.opts.Getenv)
	if err != nil {
		return murlog.Internal(err)
	}
	for _, f := range []string{"", "-wal", "-shm", "-journal"} {
		if _, serr := os.Lstat(cfg.DBPath() + f); errors.Is(serr, fs.ErrNotExist) {
			u.add(cfg.DBPath() + f)
		}
	}
	in, rt, err := a.open(ctx, cfg)
	if err != nil {
		return &admin.DirError{Field: "data_dir", Reason: "dir.db_failed", Args: []any{cfg.DataDir}, Err: err}
	}
	a.cfg.Store(cfg)
	a.inst.Store(in)
	if rt != nil {
		a.running.Store(rt)
	}
	return nil
}

// systemTrees are directories murlog never puts files in or under.
var systemTrees = []string{"/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc",
	"/run", "/sbin", "/sys", "/usr"}

// systemDirs may hold a folder for murlog, but are never one themselves.
var systemDirs = []string{"/", "/home", "/media", "/mnt", "/opt", "/root", "/srv", "/tmp", "/var", "/var/backups",
	"/var/cache", "/var/lib", "/var/local", "/var/lock", "/var/log", "/var/mail", "/var/opt", "/var/run",
	"/var/spool", "/var/tmp", "/var/www"}

// checkPlace refuses a directory step 1 must not use: a system directory,
// the home directory itself, the folder of murlog.ini (under CGI, the
// document root) or one containing it, and an existing directory that is
// not this user's, is writable by others or (for data_dir) holds other
// files. A missing directory is fine: step 1 creates it.
func checkPlace(field, dir, iniDir string, data bool) error {
	real := resolve(dir)
	// Both the path as given and where its links lead must be outside.
	if isSystem(filepath.Clean(dir)) || isSystem(real) {
		return &admin.DirError{Field: field, Reason: "dir.system", Args: []any{dir}}
	}
	for _, h := range homeDirs() {
		if real == resolve(h) {
			return &admin.DirError{Field: field, Reason: "dir.home", Args: []any{dir}}
		}
	}
	if field == "web_dir" {
		return nil // not created by step 1; built assets are put there later
	}
	if root := resolve(iniDir); real == root || strings.HasPrefix(root, strings.TrimSuffix(real, "/")+"/") {
		return &admin.DirError{Field: field, Reason: "dir.docroot", Args: []any{dir}}
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case errors.Is(err, syscall.ENOTDIR):
		return &admin.DirError{Field: field, Reason: "dir.not_dir", Args: []any{dir}}
	case err != nil:
		return dirErr(field, dir, err)
	case !st.IsDir():
		return &admin.DirError{Field: field, Reason: "dir.not_dir", Args: []any{dir}}
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Geteuid() {
		return &admin.DirError{Field: field, Reason: "dir.not_owned", Args: []any{dir, os.Geteuid()}}
	}
	if st.Mode().Perm()&0o022 != 0 {
		return &admin.DirError{Field: field, Reason: "dir.shared", Args: []any{dir}}
	}
	if data && !onlyMurlogFiles(dir) {
		return &admin.DirError{Field: field, Reason: "dir.not_empty", Args: []any{dir}}
	}
	return nil
}

func isSystem(p string) bool {
	for _, t := range systemTrees {
		if p == t || strings.HasPrefix(p, t+"/") {
			return true
		}
	}
	return slices.Contains(systemDirs, p)
}

// resolve returns dir with symbolic links resolved as far as it exists, so
// a link cannot smuggle a system directory past checkPlace.
func resolve(dir string) string {
	dir = filepath.Clean(dir)
	rest := ""
	for p := dir; ; p = filepath.Dir(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		if p == filepath.Dir(p) {
			return dir
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

func homeDirs() []string {
	var out []string
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		out = append(out, h)
	}
	// Under CGI $HOME is often unset; the password database still knows.
	if u, err := user.Current(); err == nil && u.HomeDir != "" {
		out = append(out, u.HomeDir)
	}
	return out
}

// onlyMurlogFiles reports whether dir holds nothing but what murlog keeps
// in a data directory (a site set up before whose ini was removed).
func onlyMurlogFiles(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		switch n := e.Name(); {
		case strings.HasPrefix(n, "murlog.db"), n == "backups", strings.HasSuffix(n, ".lock"):
		default:
			return false
		}
	}
	return true
}

// undo removes, in reverse order, what a failed step 1 created.
type undo struct{ paths []string }

func (u *undo) add(p string) { u.paths = append(u.paths, p) }

func (u *undo) run() {
	for i := len(u.paths) - 1; i >= 0; i-- {
		os.RemoveAll(u.paths[i])
	}
}

// mkdir creates dir and its missing parents with mode (not subject to the
// umask: the media folder must be readable by Apache although murlog runs
// with umask 0077), recording each for undo, and checks that this process
// can write to it. An existing data directory is made private.
func (u *undo) mkdir(field, dir string, mode os.FileMode) error {
	var missing []string
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil || p == filepath.Dir(p) {
			break
		}
		missing = append(missing, p)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		p := missing[i]
		if err := os.Mkdir(p, mode); err != nil {
			return dirErr(field, dir, err)
		}
		u.add(p)
		if err := os.Chmod(p, mode); err != nil {
			return dirErr(field, dir, err)
		}
	}
	if st, err := os.Stat(dir); err == nil && len(missing) == 0 && mode == 0o700 && st.Mode().Perm()&0o077 != 0 {
		// Only take others' access away: adding the owner's own write
		// bit would hide a folder the owner meant to be read-only.
		if err := os.Chmod(dir, st.Mode().Perm()&0o700); err != nil {
			return dirErr(field, dir, err)
		}
	}
	if err := unix.Access(dir, unix.W_OK|unix.X_OK); err != nil {
		return &admin.DirError{Field: field, Reason: "dir.not_writable", Args: []any{dir, os.Geteuid()}, Err: err}
	}
	return nil
}

// dirErr names an OS error's cause in words the page can translate.
func dirErr(field, dir string, err error) error {
	reason, args := "dir.cannot_create", []any{dir}
	switch {
	case errors.Is(err, fs.ErrPermission):
		reason, args = "dir.denied", []any{dir, os.Geteuid()}
	case errors.Is(err, syscall.ENOTDIR), errors.Is(err, fs.ErrExist):
		reason = "dir.not_dir"
	case errors.Is(err, syscall.EROFS):
		reason = "dir.readonly_fs"
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		reason = "dir.no_space"
	}
	return &admin.DirError{Field: field, Reason: reason, Args: args, Err: err}
}

// checkModes keeps an existing install's secrets private: a data directory
// that others can enter is made 0700 (one log line), and an ini readable by
// others is reported. The database files are tightened by the store.
// A data directory that holds murlog.ini (under CGI: the document root,
// which Apache must read) is reported rather than changed.
func (a *App) checkModes(cfg *config.Config) {
	if st, err := os.Stat(cfg.DataDir); err == nil && st.Mode().Perm()&0o077 != 0 {
		iniDir := filepath.Dir(cfg.Path)
		if rel, err := filepath.Rel(cfg.DataDir, iniDir); err == nil && !strings.HasPrefix(rel, "..") {
			a.log.Warn("data_dir is readable by other users and holds murlog.ini; move data_dir to its own folder", "data_dir", cfg.DataDir, "mode", st.Mode().Perm().String())
		} else if err := os.Chmod(cfg.DataDir, 0o700); err != nil {
			a.log.Warn("data_dir is readable by other users and cannot be made private", "data_dir", cfg.DataDir, "mode", st.Mode().Perm().String(), "err", err)
		} else {
			a.log.Info("made data_dir private (mode 0700)", "data_dir", cfg.DataDir, "was", st.Mode().Perm().String())
		}
	}
	if st, err := os.Stat(cfg.Path); err == nil && st.Mode().Perm()&0o044 != 0 {
		a.log.Warn("murlog.ini is readable by other users; run chmod 600 on it", "config", cfg.Path, "mode", st.Mode().Perm().String())
	}
}
