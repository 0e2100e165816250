-- 012: job leases. A claim holds its job until lease_until (micros), which
-- the worker renews while the job runs; a running job whose lease ran out
-- belonged to a worker that died and is recovered about a minute later,
-- not after a fixed five minutes of running.
ALTER TABLE queue_jobs ADD COLUMN lease_until INTEGER;

-- Jobs claimed before this version get the lease their claim would have.
UPDATE queue_jobs SET lease_until = started_at + 60000000 WHERE state = 'running';

-- Running jobs by lease: recovery (every half lease per worker) and the
-- check a CGI request makes before spawning a worker find expired leases
-- without a scan. Only running rows are in it, a worker's few dozen.
CREATE INDEX queue_jobs_lease ON queue_jobs (lease_until) WHERE state = 'running';
