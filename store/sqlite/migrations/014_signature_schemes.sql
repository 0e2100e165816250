-- 014: the HTTP signature scheme each remote domain accepted (the
-- outbound double-knock's memory). It lived in each process's memory, so
-- under CGI, where every worker is a new process, each worker knocked
-- with RFC 9421 first again and a cavage-only peer refused one delivery
-- per worker.
CREATE TABLE signature_schemes (
    domain     TEXT PRIMARY KEY,
    scheme     TEXT NOT NULL,
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;
