-- The whole-fleet summary (/api/canary/api/summary) is built as JSON text by PostgreSQL and sent as is. row_to_json
-- writes compact JSON (no spaces, unlike json_build_object) and turns composite columns into nested objects, so the
-- `uptime` and `latency` objects of a CheckSummary are these two row types, field names and order as the contract.
CREATE TYPE health_summary_uptime AS (passed bigint, failed bigint, last_pass timestamptz, last_fail timestamptz);
CREATE TYPE health_summary_latency AS (p95 double precision, p97 double precision, p99 double precision,
                                       avg double precision, rolling1h integer);
