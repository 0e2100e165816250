package dbstat

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
)

// Log is the file every process adds its counts to: a line "<class>
// <n>\n" per class per flush, appended under a shared lock (appends of a
// few dozen bytes with O_APPEND do not interleave), and folded into one
// line per class under an exclusive lock once it passes compactAt bytes,
// so a site serving a million CGI requests keeps a file of a few hundred
// bytes, not megabytes.
type Log struct {
	Path    string
	Counter *Counter
}

// compactAt is the size past which a flush folds the file.
var compactAt int64 = 16 << 10 // a variable for the tests

// Flush appends what Counter counted since the last flush. On failure
// the counts stay in the Counter for the next flush (and /metrics still
// shows them through Totals).
func (l *Log) Flush() error {
	if l == nil || l.Path == "" || l.Counter == nil {
		return nil
	}
	m, d, ev := l.Counter.take(), l.Counter.takeDrops(), l.Counter.ev.lines(true)
	if len(m) == 0 && len(d) == 0 && len(ev) == 0 {
		return nil
	}
	size, err := l.appendLocked(format(m, d, ev))
	if err != nil {
		l.Counter.giveBack(m, d)
		l.Counter.ev.add(ev)
		return fmt.Errorf("dbstat: %w", err)
	}
	if size > compactAt {
		if err := l.compact(); err != nil {
			return fmt.Errorf("dbstat: fold %s: %w", l.Path, err)
		}
	}
	return nil
}

// appendLocked appends b under a shared lock and returns the file's size
// after. A compaction that renamed a folded file over Path between the
// open and the lock is noticed (the inode changed) and the append goes
// to the new file.
func (l *Log) appendLocked(b []byte) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(l.Path), 0o700); err != nil {
		return 0, err
	}
	for range 256 { // each retry means another process folded the file meanwhile
		f, err := os.OpenFile(l.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return 0, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
			f.Close()
			return 0, err
		}
		if !samePath(f, l.Path) {
			f.Close() // folded away meanwhile: append to the new one
			continue
		}
		_, werr := f.Write(b)
		st, serr := f.Stat()
		cerr := f.Close() // releases the lock
		if err := errors.Join(werr, serr, cerr); err != nil {
			return 0, err
		}
		return st.Size(), nil
	}
	return 0, errors.New("the counts file keeps being replaced")
}

// samePath reports whether f is still the file at path.
func samePath(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// compact folds the file into one line per class, under an exclusive
// lock, by writing the sums to a temporary file renamed over it.
func (l *Log) compact() error {
	f, err := os.Open(l.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	if !samePath(f, l.Path) {
		return nil // another process folded it first
	}
	sums, drops, ev, err := read(f)
	if err != nil {
		return err
	}
	b := format(sums, drops, ev)
	tmp, err := os.CreateTemp(filepath.Dir(l.Path), ".dbstat-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(b)
	if err := errors.Join(werr, tmp.Close()); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), l.Path)
}

// Totals returns the file's sums plus what this process has not flushed.
// A missing file is zero counts.
func (l *Log) Totals() (map[Class]uint64, error) {
	out := l.Counter.Counts()
	sums, _, _, err := l.readLocked()
	for c, v := range sums {
		out[c] += v
	}
	return out, err
}

// DropTotals is Totals for the shields' drops.
func (l *Log) DropTotals() (map[Shield]uint64, error) {
	out := l.Counter.DropCounts()
	_, drops, _, err := l.readLocked()
	for s, v := range drops {
		out[s] += v
	}
	return out, err
}

// EventTotals is Totals for the events.
func (l *Log) EventTotals() (EventCounts, error) {
	var all eventCounts
	all.add(l.Counter.ev.lines(false))
	_, _, ev, err := l.readLocked()
	all.add(ev)
	return all.counts(), err
}

// readLocked sums the file under a shared lock; a missing file is empty.
func (l *Log) readLocked() (map[Class]uint64, map[Shield]uint64, map[string]uint64, error) {
	f, err := os.Open(l.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("dbstat: %w", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
		return nil, nil, nil, fmt.Errorf("dbstat: %w", err)
	}
	sums, drops, ev, err := read(f)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("dbstat: %s: %w", l.Path, err)
	}
	return sums, drops, ev, nil
}

// format writes counts as the file's lines: "<class> <n>" for statements,
// "shield:<name> <n>" for drops, and the events' lines (events.go).
func format(m map[Class]uint64, d map[Shield]uint64, ev map[string]uint64) []byte {
	var b bytes.Buffer
	for _, c := range Classes() {
		if v := m[c]; v > 0 {
			fmt.Fprintf(&b, "%s %d\n", c, v)
		}
	}
	for _, sh := range Shields() {
		if v := d[sh]; v > 0 {
			fmt.Fprintf(&b, "shield:%s %d\n", sh, v)
		}
	}
	names := make([]string, 0, len(ev))
	for n := range ev {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, "%s %d\n", n, ev[n])
	}
	return b.Bytes()
}

// read sums a counts file. A line it cannot read (a class a newer murlog
// added, a torn write after a crash) is skipped, not fatal: counters are
// for watching, and one lost line must not hide all the others.
func read(f *os.File) (map[Class]uint64, map[Shield]uint64, map[string]uint64, error) {
	sums, drops, ev := map[Class]uint64{}, map[Shield]uint64{}, map[string]uint64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, num, ok := bytes.Cut(sc.Bytes(), []byte(" "))
		if !ok {
			continue
		}
		v, err := strconv.ParseUint(string(num), 10, 64)
		if err != nil {
			continue
		}
		if sh, isShield := bytes.CutPrefix(name, []byte("shield:")); isShield {
			if s, ok := parseShield(string(sh)); ok {
				drops[s] += v
			}
			continue
		}
		if c, ok := parse(string(name)); ok {
			sums[c] += v
			continue
		}
		if bytes.HasPrefix(name, []byte("event:")) || bytes.HasPrefix(name, []byte("rebuild_")) {
			ev[string(name)] += v
		}
	}
	return sums, drops, ev, sc.Err()
}
