package sqlite

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// TestLimitIsNeverABareParameter keeps the rule in db.go: no query of this
// package ends in LIMIT ? (or LIMIT ?N).
func TestLimitIsNeverABareParameter(t *testing.T) {
	t.Parallel()
	bare := regexp.MustCompile(`(?i)\b(LIMIT|OFFSET)\s+\?`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if bare.MatchString(line) && !strings.HasPrefix(strings.TrimSpace(line), "//") {
				t.Errorf("%s:%d: %s\n\twrite LIMIT CAST(? AS INTEGER): a bare LIMIT ? is compiled twice (see db.go)", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}

// TestBareLimitIsCompiledTwice shows the reason for the rule on the SQLite
// this binary links: a statement with LIMIT ? is prepared again on its
// first step, one with LIMIT CAST(? AS INTEGER) is not. Should a newer
// SQLite stop doing so, this fails and the rule can go.
func TestBareLimitIsCompiledTwice(t *testing.T) {
	t.Parallel()
	tls := libc.NewTLS()
	defer tls.Close()
	cstr := func(s string) uintptr {
		p, err := libc.CString(s)
		if err != nil {
			t.Fatal(err)
		}
		return p // freed with the process: a test
	}
	// Out-parameters live in the C heap, as the transpiled C expects; out
	// reads one (unsafe.Add of nil: the address is not a Go pointer).
	out := func(p uintptr) uintptr { return *(*uintptr)(unsafe.Add(nil, p)) }
	pdb := libc.Xmalloc(tls, 8)
	if rc := sqlite3.Xsqlite3_open_v2(tls, cstr(":memory:"), pdb, sqlite3.SQLITE_OPEN_READWRITE|sqlite3.SQLITE_OPEN_CREATE, 0); rc != sqlite3.SQLITE_OK {
		t.Fatalf("open: %d", rc)
	}
	db := out(pdb)
	defer sqlite3.Xsqlite3_close(tls, db)
	if rc := sqlite3.Xsqlite3_exec(tls, db, cstr("CREATE TABLE p (id INTEGER PRIMARY KEY, at INTEGER); CREATE INDEX p_at ON p (at); INSERT INTO p VALUES (1, 10), (2, 20), (3, 30)"), 0, 0, 0); rc != sqlite3.SQLITE_OK {
		t.Fatalf("schema: %d", rc)
	}
	reprepares := func(limit string) int32 {
		pst := libc.Xmalloc(tls, 8)
		q := "SELECT id FROM p WHERE at <= ?1 ORDER BY at DESC LIMIT " + limit
		if rc := sqlite3.Xsqlite3_prepare_v2(tls, db, cstr(q), -1, pst, 0); rc != sqlite3.SQLITE_OK {
			t.Fatalf("prepare %s: %d", q, rc)
		}
		st := out(pst)
		defer sqlite3.Xsqlite3_finalize(tls, st)
		sqlite3.Xsqlite3_bind_int64(tls, st, 1, 25)
		sqlite3.Xsqlite3_bind_int64(tls, st, 2, 1)
		rows := 0
		for sqlite3.Xsqlite3_step(tls, st) == sqlite3.SQLITE_ROW {
			rows++
		}
		if rows != 1 {
			t.Errorf("LIMIT %s: %d rows, want 1", limit, rows)
		}
		return sqlite3.Xsqlite3_stmt_status(tls, st, sqlite3.SQLITE_STMTSTATUS_REPREPARE, 0)
	}
	if n := reprepares("?2"); n != 1 {
		t.Errorf("LIMIT ?2 was prepared again %d times on its first step; the rule in db.go assumes once", n)
	}
	if n := reprepares("CAST(?2 AS INTEGER)"); n != 0 {
		t.Errorf("LIMIT CAST(?2 AS INTEGER) was prepared again %d times; want 0", n)
	}
}
