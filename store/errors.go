package store

import (
	"time"

	"github.com/murlog/murlog"
)

// ErrDiskFull is the one error every adapter gives (wrapped, with the
// engine's own error beside it) when a write finds no room: the disk, the
// quota or the database's size limit is full. Adapters map their engine's
// condition to it (store/sqlite's mapErr maps SQLITE_FULL), as GoToSocial's
// db/sqlite/errors.go maps driver errors to db's sentinels, so what is
// above the store tests errors.Is(err, ErrDiskFull) and names no engine.
// It is a murlog.Error, EUnavailable with a safe message, so every edge
// answers it the same way through its one code table (httpd/errors.go):
// 503 / -32005 "the disk is full" with Retry-After, never "internal
// error". The write's transaction is rolled back whole; reads go on.
var ErrDiskFull = &murlog.Error{Code: murlog.EUnavailable, Message: "the disk is full", RetryAfter: DiskFullRetry}

// DiskFullRetry is the Retry-After of ErrDiskFull: room comes back when
// someone frees it, not in a second.
const DiskFullRetry = time.Minute
