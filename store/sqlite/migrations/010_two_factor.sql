-- 010: two-factor login (RFC 6238 TOTP) for the owner. One owner, so one
-- row. The secrets are base32 text: HMAC needs the key itself, so it
-- cannot be hashed like a password.
CREATE TABLE totp (
    id             INTEGER PRIMARY KEY CHECK (id = 1),
    secret         TEXT NOT NULL DEFAULT '', -- the key in force; '' while off
    pending_secret TEXT NOT NULL DEFAULT '', -- the key being enrolled, until verified
    last_step      INTEGER NOT NULL DEFAULT 0, -- time step of the last accepted code
    enabled_at     INTEGER -- NULL while off
);

-- Recovery codes, each usable once instead of a TOTP code. Only hashes are
-- kept (hex SHA-256: each code is 40 random bits).
CREATE TABLE totp_recovery_codes (
    code_hash  TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL,
    used_at    INTEGER -- NULL: unused
) WITHOUT ROWID;
