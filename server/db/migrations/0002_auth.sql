-- Sign-in: an auto-renewing access token is extended by the lifetime it was created with.
ALTER TABLE access_tokens ADD COLUMN renew_interval interval;

-- Login looks people up by lower(email) or lower(name).
CREATE INDEX people_lower_email_idx ON people (lower(email)) WHERE deleted_at IS NULL;
CREATE INDEX people_lower_name_idx ON people (lower(name)) WHERE deleted_at IS NULL;
CREATE INDEX access_tokens_created_by_idx ON access_tokens (created_by);
