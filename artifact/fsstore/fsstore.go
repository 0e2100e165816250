// Package fsstore is the filesystem adapter of the artifact store: one
// folder, a plain file per artifact, which Apache serves directly in CGI
// mode and the resident server reads in serve mode.
//
// # Layout
//
// The body of key K is the regular file <root>/K, byte for byte, mode
// 0644 in folders of mode 0755 whatever the umask, so that Apache (often
// another user than murlog's) can read it and a rewrite rule can map a
// URL onto it without murlog running. Next to it sits the sidecar
// <root>/<dir>/.meta-<name>, a small JSON object holding what a reader
// must know without reading the body — content type, SHA-256 (the ETag
// is derived from it), length — and the identity of the body file it
// describes (inode, size, modification time in nanoseconds). Writers use
// temporary files named .tmp-<random> in the destination folder. Keys
// never have a segment starting with a dot (artifact.ParseKey), so no
// key can name a sidecar or a temp file, and the .htaccess that maps
// URLs onto this folder must refuse dot names (the sidecars are not
// secret, but they are not for serving).
//
// # Writing and reading
//
// Put writes the body to a temp file and the sidecar to another, fsyncs
// both, then renames the body into place and the sidecar after it. Both
// are synced before the renames: after a crash a body Apache serves must
// not be a file of the right size full of zeros, and a rename over a file
// whose data is not on disk yet makes ext4 write it out first, inside the
// window between the two renames (hundreds of milliseconds on a busy
// disk), where readers find the pair disagreeing. The folder is not
// synced: a rename it forgot after a crash only leaves the artifact old
// or its pair disagreeing — found and rendered again; an artifact is
// derived data. Each rename is atomic, so a reader (Apache
// included) sees a whole old body or a whole new one, never a part. The
// pair is not atomic: between the renames a reader may find a new body
// with the old sidecar. Get and Stat catch that with the identity the
// sidecar records — the body they opened must be the very file the
// sidecar describes — and look again; within one Store a per-key lock
// keeps readers out of that window altogether, and across processes
// (the CGI request and the spawned worker) the retry covers it, for up
// to a quarter of a second while the body is fresh (a writer in another
// process may be descheduled between its renames). A body
// that still does not match after the retries is corrupt: truncated,
// extended or replaced behind the store's back, or with a stale or no
// sidecar (a writer died between its renames, leaving a whole new body
// that Apache serves correctly meanwhile). Corrupt is reported, never
// served; the caller
// renders the artifact again. Copying the folder to another disk changes
// the inodes and so turns every artifact into a rebuild, which is the
// right answer for derived files of unknown provenance.
//
// The check reads no body, so a same-size rewrite in place that also
// restores the modification time passes it; artifact.Verify, which
// hashes the body, catches that too ("murlog artifacts check").
//
// # Taking turns
//
// Turn gives the renders of every process sharing the folder turns
// through an flock on the hidden file .turns (see turn.go): the store
// itself needs none, but what renders into it does (package prerender).
//
// Everything goes through an os.Root, so no key and no symbolic link
// planted inside the folder can make the store read or write outside it.
package fsstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/artifact"
)

const (
	tmpPrefix  = ".tmp-"
	metaPrefix = ".meta-"
	fileMode   = 0o644
	dirMode    = 0o755
	// spins is how many times a read looks again at once when the body
	// and its sidecar disagree: the window between a writer's two renames
	// is microseconds long when the writer runs. settle bounds the wait
	// after that, with short sleeps, for a writer in another process that
	// was descheduled between its renames (a loaded 2-core host does
	// that for milliseconds). Only a body written lately can be inside a
	// writer's window, so an older mismatch is corrupt at once.
	spins     = 16
	minSleeps = 8
	settle    = 250 * time.Millisecond
	recent    = 10 * time.Second
	stripes   = 64
)

// Store is an artifact store in one folder. It is safe for concurrent
// use by goroutines and by processes sharing the folder.
type Store struct {
	dir   string
	root  *os.Root
	locks [stripes]sync.RWMutex
	// settle is the package's settle; tests of damaged artifacts shorten it.
	settle time.Duration
}

var _ artifact.Store = (*Store)(nil)

// New opens the artifact folder dir, creating it (mode 0755) when it is
// missing, and checks that it can be read and written: the error names
// the folder and what failed, so the owner can fix its permissions.
func New(dir string) (*Store, error) {
	unavailable := func(what string, err error) error {
		return &murlog.Error{Code: murlog.EUnavailable, Message: fmt.Sprintf("artifact folder %s %s", dir, what), Err: err}
	}
	if dir == "" {
		return nil, murlog.Required("artifact folder")
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		// Created here, so 0755 whatever the umask; a folder that exists
		// keeps the mode its owner gave it.
		if err := os.MkdirAll(dir, dirMode); err != nil {
			return nil, unavailable("cannot be created", err)
		}
		if err := os.Chmod(dir, dirMode); err != nil {
			return nil, unavailable("cannot be created", err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, unavailable("cannot be opened for reading", err)
	}
	s := &Store{dir: dir, root: root, settle: settle}
	if _, err := readDir(root, "."); err != nil {
		root.Close()
		return nil, unavailable("cannot be read", err)
	}
	probe := tmpName("")
	f, err := root.OpenFile(probe, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	if err == nil {
		f.Close()
		err = root.Remove(probe)
	}
	if err != nil {
		root.Close()
		return nil, unavailable("cannot be written", err)
	}
	return s, nil
}

// Close releases the folder.
func (s *Store) Close() error { return s.root.Close() }

// Dir returns the folder the store is rooted at.
func (s *Store) Dir() string { return s.dir }

// sidecar is the JSON of a .meta- file. Ino, Size and MTime identify the
// body file it describes.
type sidecar struct {
	Type   string `json:"type"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	MTime  int64  `json:"mtime_ns"`
	Ino    uint64 `json:"ino"`
}

func (m sidecar) meta() artifact.Meta {
	return artifact.Meta{ContentType: m.Type, ETag: artifact.ETagOf(m.SHA256), SHA256: m.SHA256, Length: m.Size, ModTime: time.Unix(0, m.MTime).UTC()}
}

// describes reports whether m describes the file st.
func (m sidecar) describes(st fs.FileInfo) bool {
	return st.Size() == m.Size && st.ModTime().UnixNano() == m.MTime && ino(st) == m.Ino
}

func metaName(key string) string {
	dir, name := path.Split(key)
	return dir + metaPrefix + name
}

func tmpName(dir string) string {
	var b [8]byte
	rand.Read(b[:])
	return path.Join(dir, tmpPrefix+hex.EncodeToString(b[:]))
}

func (s *Store) lock(key string) *sync.RWMutex {
	h := fnv.New32a()
	h.Write([]byte(key))
	return &s.locks[h.Sum32()%stripes]
}

// Get returns the body of key as an open file, after checking that its
// sidecar describes it. The body is not read; artifact.Verify reads it.
func (s *Store) Get(ctx context.Context, key artifact.Key) (io.ReadSeekCloser, artifact.Meta, error) {
	f, m, err := s.open(ctx, key, true)
	if err != nil {
		return nil, artifact.Meta{}, err
	}
	return f, m.meta(), nil
}

// Stat returns the metadata of key, checking its sidecar against the
// body file's attributes without reading it.
func (s *Store) Stat(ctx context.Context, key artifact.Key) (artifact.Meta, error) {
	_, m, err := s.open(ctx, key, false)
	if err != nil {
		return artifact.Meta{}, err
	}
	return m.meta(), nil
}

// open finds key's body and the sidecar that describes it, looking again
// while they disagree (a writer between its two renames). With keep, it
// returns the body open; otherwise it only stats it.
func (s *Store) open(ctx context.Context, key artifact.Key, keep bool) (*os.File, sidecar, error) {
	if key.IsZero() {
		return nil, sidecar{}, murlog.Required("key")
	}
	name := key.String()
	mu := s.lock(name)
	var why string
	var deadline time.Time
	pause := 50 * time.Microsecond
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return nil, sidecar{}, err
		}
		mu.RLock()
		f, st, m, err := s.try(name, keep)
		mu.RUnlock()
		switch {
		case err != nil && errors.Is(err, fs.ErrNotExist):
			return nil, sidecar{}, murlog.NotFound("artifact " + name)
		case err != nil && !errors.Is(err, errSidecar):
			return nil, sidecar{}, s.ioError("read", name, err)
		case err == nil && m.describes(st):
			return f, m, nil
		case err == nil:
			why = fmt.Sprintf("body is %d bytes (inode %d, mtime %d), sidecar describes %d bytes (inode %d, mtime %d)", st.Size(), ino(st), st.ModTime().UnixNano(), m.Size, m.Ino, m.MTime)
		default:
			why = err.Error()
		}
		if f != nil {
			f.Close()
		}
		now := time.Now()
		if deadline.IsZero() {
			deadline = now.Add(s.settle)
		}
		// The deadline counts only after a few sleeps: on a host so loaded
		// that one sleep oversleeps the whole settle time, a look or two
		// is no wait at all.
		if now.Sub(st.ModTime()) > recent || (now.After(deadline) && i >= spins+minSleeps) {
			return nil, sidecar{}, artifact.Corrupt(key, "%s", why)
		}
		if i < spins {
			runtime.Gosched()
			continue
		}
		time.Sleep(min(pause, deadline.Sub(now)))
		pause = min(2*pause, 5*time.Millisecond)
	}
}

var errSidecar = errors.New("sidecar")

// try opens (or stats) the body, then reads the sidecar. A body that is
// not a regular file (a folder of other keys) is not an artifact.
func (s *Store) try(name string, keep bool) (*os.File, fs.FileInfo, sidecar, error) {
	// The folder is resolved once for both files: each os.Root lookup
	// walks the path a segment at a time.
	dir, base := path.Split(name)
	folder := s.root
	if dir != "" {
		sub, err := s.root.OpenRoot(dir)
		if err != nil {
			return nil, nil, sidecar{}, err
		}
		defer sub.Close()
		folder = sub
	}
	var f *os.File
	var st fs.FileInfo
	var err error
	if keep {
		if f, err = folder.Open(base); err == nil {
			st, err = f.Stat()
		}
	} else {
		st, err = folder.Stat(base)
	}
	if err == nil && !st.Mode().IsRegular() {
		err = fs.ErrNotExist
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		return nil, nil, sidecar{}, err
	}
	var m sidecar
	b, err := readFile(folder, metaPrefix+base)
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		// Missing or unreadable: the sidecar does not describe this body.
		return f, st, m, fmt.Errorf("%w: %s: %v", errSidecar, metaName(name), err)
	}
	return f, st, m, nil
}

func readFile(root *os.Root, name string) ([]byte, error) {
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 4096))
}

func readDir(root *os.Root, name string) ([]fs.DirEntry, error) {
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// Put writes body under key: body and sidecar to temp files, synced,
// then the body renamed into place, then the sidecar.
// Nothing is written when the arguments are invalid.
func (s *Store) Put(ctx context.Context, key artifact.Key, contentType string, body []byte) (artifact.Meta, error) {
	if err := artifact.CheckPut(key, contentType, body); err != nil {
		return artifact.Meta{}, err
	}
	if err := ctx.Err(); err != nil {
		return artifact.Meta{}, err
	}
	name := key.String()
	dir := path.Dir(name)
	if err := s.mkdirs(dir); err != nil {
		return artifact.Meta{}, err
	}
	tmpBody, st, err := s.writeTemp(dir, body, true)
	if err != nil {
		return artifact.Meta{}, s.ioError("write", dir, err)
	}
	m := sidecar{Type: contentType, SHA256: artifact.Sum(body), Size: st.Size(), MTime: st.ModTime().UnixNano(), Ino: ino(st)}
	js, _ := json.Marshal(m)
	tmpMeta, _, err := s.writeTemp(dir, js, true)
	if err != nil {
		s.root.Remove(tmpBody)
		return artifact.Meta{}, s.ioError("write", dir, err)
	}
	mu := s.lock(name)
	mu.Lock()
	err = s.root.Rename(tmpBody, name)
	if err == nil {
		err = s.root.Rename(tmpMeta, metaName(name))
	}
	mu.Unlock()
	if err != nil {
		s.root.Remove(tmpBody)
		s.root.Remove(tmpMeta)
		if fi, serr := s.root.Lstat(name); serr == nil && fi.IsDir() {
			return artifact.Meta{}, murlog.Errorf(murlog.EConflict, "artifact %s is a folder of other artifacts", name)
		}
		return artifact.Meta{}, s.ioError("rename into", dir, err)
	}
	return m.meta(), nil
}

// writeTemp writes b to a new temp file in dir, mode 0644 whatever the
// umask, synced when sync is set, and returns its name and attributes.
func (s *Store) writeTemp(dir string, b []byte, sync bool) (string, fs.FileInfo, error) {
	name := tmpName(dir)
	f, err := s.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	if err != nil {
		return "", nil, err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Chmod(fileMode) // the umask narrowed OpenFile's mode
	}
	if err == nil && sync {
		err = f.Sync()
	}
	var st fs.FileInfo
	if err == nil {
		st, err = f.Stat()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		s.root.Remove(name)
		return "", nil, err
	}
	return name, st, nil
}

// mkdirs creates dir and its parents inside the root, each 0755 whatever
// the umask. A segment that exists as a file is a conflict: that key is
// an artifact, not a folder.
func (s *Store) mkdirs(dir string) error {
	if dir == "." {
		return nil
	}
	p := ""
	for _, seg := range strings.Split(dir, "/") {
		p = path.Join(p, seg)
		err := s.root.Mkdir(p, dirMode)
		switch {
		case err == nil:
			if err := s.chmodDir(p); err != nil {
				return s.ioError("create", p, err)
			}
		case errors.Is(err, fs.ErrExist):
			if fi, serr := s.root.Stat(p); serr == nil && !fi.IsDir() {
				return murlog.Errorf(murlog.EConflict, "artifact %s exists, so it cannot be a folder", p)
			}
		default:
			return s.ioError("create", p, err)
		}
	}
	return nil
}

// chmodDir sets a folder's mode through an open handle, not a path a
// symbolic link could redirect.
func (s *Store) chmodDir(p string) error {
	f, err := s.root.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Chmod(dirMode | fs.ModeDir)
}

// Delete removes key's body, then its sidecar (a crash between leaves a
// sidecar without a body, which reads as absent and Sweep removes).
func (s *Store) Delete(ctx context.Context, key artifact.Key) error {
	if key.IsZero() {
		return murlog.Required("key")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	name := key.String()
	mu := s.lock(name)
	mu.Lock()
	defer mu.Unlock()
	if fi, err := s.root.Lstat(name); err == nil && !fi.IsDir() {
		if err := s.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return s.ioError("delete", name, err)
		}
	}
	if err := s.root.Remove(metaName(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return s.ioError("delete", name, err)
	}
	return nil
}

// List calls fn with every key under prefix: every regular file whose
// path is a valid key, including bodies without a sidecar (so a check
// finds them corrupt). Temp files, sidecars, other dot names, symbolic
// links and files whose names are not keys are skipped.
func (s *Store) List(ctx context.Context, prefix string, fn func(artifact.Key) error) error {
	if err := artifact.CheckPrefix(prefix); err != nil {
		return err
	}
	start := "."
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		start = prefix[:i]
	}
	var stopped error // fn's error, returned as it is
	err := fs.WalkDir(s.root.FS(), start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == start && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == start {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if !strings.HasPrefix(p+"/", prefix) && !strings.HasPrefix(prefix, p+"/") {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !strings.HasPrefix(p, prefix) {
			return nil
		}
		key, err := artifact.ParseKey(p)
		if err != nil {
			return nil // not ours (a name no key can have)
		}
		if err := fn(key); err != nil {
			stopped = err
			return fs.SkipAll
		}
		return nil
	})
	switch {
	case stopped != nil:
		return stopped
	case err != nil && ctx.Err() == nil:
		return s.ioError("list", start, err)
	}
	return err
}

// Sweep removes what crashed writers and deleters left behind: temp
// files, and sidecars without a body, last modified before before. A
// live write lasts milliseconds, so before should be a few minutes ago
// (the caller's clock). It returns how many files it removed.
func (s *Store) Sweep(ctx context.Context, before time.Time) (int, error) {
	n := 0
	err := fs.WalkDir(s.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		name := d.Name()
		tmp := strings.HasPrefix(name, tmpPrefix)
		orphan := false
		if body, ok := strings.CutPrefix(name, metaPrefix); ok {
			_, serr := s.root.Lstat(path.Join(path.Dir(p), body))
			orphan = errors.Is(serr, fs.ErrNotExist)
		}
		if !tmp && !orphan {
			return nil
		}
		fi, err := d.Info()
		if err != nil || !fi.ModTime().Before(before) {
			return nil
		}
		if err := s.root.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		n++
		return nil
	})
	if err != nil && ctx.Err() == nil {
		return n, s.ioError("sweep", ".", err)
	}
	return n, err
}

// ioError turns a filesystem failure into the project's vocabulary: a
// permission or full disk is EUnavailable naming the folder and the
// operation (the owner must fix the folder; murlog keeps serving by
// rendering), anything else EInternal with the absolute path for the log.
func (s *Store) ioError(op, rel string, err error) error {
	abs := filepath.Join(s.dir, filepath.FromSlash(rel))
	cause := fmt.Errorf("%s %s: %w", op, abs, err)
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EDQUOT) {
		return &murlog.Error{Code: murlog.EUnavailable, Message: fmt.Sprintf("artifact folder: cannot %s %s", op, rel), Err: cause}
	}
	return murlog.Internal(cause)
}
