package sqlite

import (
	"time"

	"github.com/murlog/murlog/store"
)

// domainFailures implements store.DomainFailures over the domain_failures
// table. The table holds one row per failing domain, a few hundred at
// most, so every query may scan it.
type domainFailures struct{ t *tx }

func (r domainFailures) RecordFailure(domain string, at time.Time, reason string) error {
	_, err := r.t.exec(`INSERT INTO domain_failures (domain, failure_count, first_failure_at, last_failure_at, last_error)
		VALUES (?, 1, ?, ?, ?)
		ON CONFLICT (domain) DO UPDATE SET failure_count = failure_count + 1,
		last_failure_at = excluded.last_failure_at, last_error = excluded.last_error`,
		domain, micros(at), micros(at), truncateRunes(reason, store.MaxDomainError))
	return err
}

func (r domainFailures) RecordSuccess(domain string) error {
	_, err := r.t.exec("DELETE FROM domain_failures WHERE domain = ?", domain)
	return err
}

const domainFailureCols = "domain, failure_count, first_failure_at, last_failure_at, last_error"

func scanDomainFailure(sc interface{ Scan(...any) error }) (*store.DomainFailure, error) {
	var f store.DomainFailure
	var first, last int64
	if err := sc.Scan(&f.Domain, &f.FailureCount, &first, &last, &f.LastError); err != nil {
		return nil, err
	}
	f.FirstFailureAt, f.LastFailureAt = fromMicros(first), fromMicros(last)
	return &f, nil
}

func (r domainFailures) Get(domain string) (*store.DomainFailure, error) {
	return one(r.t, "domain", "SELECT "+domainFailureCols+" FROM domain_failures WHERE domain = ?", scanDomainFailure, domain)
}

func (r domainFailures) Dead(now time.Time, threshold int, window time.Duration) ([]string, error) {
	rows, err := r.t.query("SELECT domain FROM domain_failures WHERE failure_count >= ? AND last_failure_at > ? ORDER BY domain",
		threshold, micros(now.Add(-window)))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			return nil, mapErr(err)
		}
		out = append(out, d)
	}
	return out, mapErr(rows.Err())
}

func (r domainFailures) List() ([]*store.DomainFailure, error) {
	rows, err := r.t.query("SELECT " + domainFailureCols + " FROM domain_failures ORDER BY failure_count DESC, last_failure_at DESC, domain")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*store.DomainFailure
	for rows.Next() {
		f, err := scanDomainFailure(rows)
		if err != nil {
			return nil, mapErr(err)
		}
		out = append(out, f)
	}
	return out, mapErr(rows.Err())
}

func (r domainFailures) Reset(domain string) error {
	res, err := r.t.exec("DELETE FROM domain_failures WHERE domain = ?", domain)
	return affected(res, err, "domain")
}

// truncateRunes cuts s to at most n characters without splitting one.
func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s // n bytes are at most n characters
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}

// signatureSchemes implements store.SignatureSchemes over the
// signature_schemes table: one row per remote domain delivered to.
type signatureSchemes struct{ t *tx }

func (r signatureSchemes) Get(domain string) (string, error) {
	return one(r.t, "signature scheme", "SELECT scheme FROM signature_schemes WHERE domain = ?",
		func(sc interface{ Scan(...any) error }) (string, error) {
			var s string
			err := sc.Scan(&s)
			return s, err
		}, domain)
}

func (r signatureSchemes) Put(domain, scheme string, at time.Time) error {
	_, err := r.t.exec(`INSERT INTO signature_schemes (domain, scheme, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (domain) DO UPDATE SET scheme = excluded.scheme, updated_at = excluded.updated_at`,
		domain, scheme, micros(at))
	return err
}
