-- 0010: what a trace of a stored run needs to say what the live one said, written
-- with each request in its step's transaction: where the request went (scheme,
-- host and port, no credentials), the vendor's own id for the response (the
-- body's `id`, beside the header's request id) and the vendor's own stop reason
-- (`stop`, `end_turn`, …; `stop_reason` keeps the neutral name). NULL where an
-- older release recorded the request: a backfill then leaves the attribute out.
ALTER TABLE provider_calls ADD COLUMN endpoint TEXT;
ALTER TABLE provider_calls ADD COLUMN response_id TEXT;
ALTER TABLE provider_calls ADD COLUMN finish_reason TEXT;
