-- Recovery, verification and the courier (issue 17, part B).

-- Server keys that must be the same on every replica: `one_time_codes` keys the HMAC of recovery and verification
-- codes when AUTH_ENCRYPTION_KEY is not set (created on first use). No API relation exposes this table.
CREATE TABLE auth_server_keys (
  name text PRIMARY KEY,
  secret text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Every identity's email is a verified address: invited users' emails came from an administrator, and an email an
-- administrator sets later is trusted the same way. A person's own change goes through verification (the identity's
-- email changes only once the new address is verified, which leaves a verified row already). The verified rows of
-- other addresses go with an email change, so recovery reaches the current address only.
INSERT INTO identity_verifiable_addresses (person_id, value, verified, verified_at, status)
SELECT i.id, i.traits ->> 'email', true, i.created_at, 'completed'
FROM identities i JOIN people p ON p.id = i.id
WHERE coalesce(i.traits ->> 'email', '') <> ''
ON CONFLICT (person_id, lower(value)) DO NOTHING;

CREATE OR REPLACE FUNCTION identity_verified_address() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  email text := NEW.traits ->> 'email';
BEGIN
  IF coalesce(email, '') = '' THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'UPDATE' AND lower(coalesce(OLD.traits ->> 'email', '')) = lower(email) THEN
    RETURN NEW;
  END IF;
  INSERT INTO identity_verifiable_addresses (person_id, value, verified, verified_at, status)
  VALUES (NEW.id, email, true, now(), 'completed')
  ON CONFLICT (person_id, lower(value)) DO UPDATE
    SET verified = true, verified_at = coalesce(identity_verifiable_addresses.verified_at, now()), status = 'completed',
        updated_at = now();
  DELETE FROM identity_verifiable_addresses
  WHERE person_id = NEW.id AND verified AND lower(value) <> lower(email);
  RETURN NEW;
END $$;
CREATE TRIGGER identity_verified_address AFTER INSERT OR UPDATE OF traits ON identities
  FOR EACH ROW EXECUTE FUNCTION identity_verified_address();

-- The courier's claim looks for queued rows due and for 'processing' rows whose lease ran out (a crashed sender).
CREATE INDEX courier_messages_processing_idx ON courier_messages (next_attempt_at) WHERE status = 'processing';
-- Retention deletes expired single-use codes by age.
CREATE INDEX auth_one_time_codes_expires_at_idx ON auth_one_time_codes (expires_at);
