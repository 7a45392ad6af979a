-- Connections with secret-capable fields (issue 11). username, password, certificate and the secret keys of
-- properties hold a static value, `secret://<name>/<key>` or `configmap://<name>/<key>` (helm:// and
-- serviceaccount:// come from Connection CRs). What the API shows of them is decided here, once: a static value reads
-- `***`, a reference as written, empty as empty (the reference's connection_details). /api/db applies the same
-- functions to the `connections` table's masked columns (server/modules/db/registry.ts `masked`), so filters and
-- order work on what is shown, never on the secret.

-- A secret-capable text as shown.
CREATE FUNCTION connection_secret_masked(v text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN v IS NULL OR v = '' OR v ~* '^(secret|configmap|helm|serviceaccount)://' THEN v ELSE '***' END
$$;

-- A url as shown: a static password in its userinfo (scheme://user:pass@host) reads `***`; a $(password)
-- placeholder is shown as written.
CREATE FUNCTION connection_url_masked(v text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT regexp_replace(v, '^([A-Za-z][A-Za-z0-9+.-]*://[^/?#@:]*:)(?!\$\()[^/?#@]+@', '\1***@')
$$;

-- Whether a properties key holds a secret. The same pattern is SECRET_PROPERTY_PATTERN in
-- server/lib/connection-hydrate.ts (a test holds them together).
CREATE FUNCTION connection_secret_property(k text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT k ~* '(password|passwd|secret|token|apikey|api_key|accesskey|access_key|privatekey|private_key|credential|webhook)'
$$;

-- properties as shown: a secret key's static value reads "***" (any JSON type), references and empty values as written.
CREATE FUNCTION connection_properties_masked(p jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(p) = 'object' THEN coalesce((
    SELECT jsonb_object_agg(k, CASE
      WHEN connection_secret_property(k) AND v NOT IN ('null'::jsonb, '""'::jsonb)
        AND NOT (jsonb_typeof(v) = 'string' AND connection_secret_masked(v #>> '{}') IS DISTINCT FROM '***')
      THEN '"***"'::jsonb ELSE v END)
    FROM jsonb_each(p) AS e(k, v)), '{}'::jsonb) ELSE p END
$$;

-- Writing `***` back keeps the stored value (the reference's connection_before_update), whatever path writes the row.
CREATE FUNCTION connection_keep_masked() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  k text;
BEGIN
  IF NEW.username = '***' THEN NEW.username := OLD.username; END IF;
  IF NEW.password = '***' THEN NEW.password := OLD.password; END IF;
  IF NEW.certificate = '***' THEN NEW.certificate := OLD.certificate; END IF;
  IF jsonb_typeof(NEW.properties) = 'object' THEN
    FOR k IN SELECT e.key FROM jsonb_each(NEW.properties) e WHERE e.value = '"***"'::jsonb LOOP
      IF jsonb_typeof(OLD.properties) = 'object' AND OLD.properties ? k THEN
        NEW.properties := jsonb_set(NEW.properties, ARRAY[k], OLD.properties -> k);
      END IF;
    END LOOP;
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER connection_before_update BEFORE UPDATE ON connections FOR EACH ROW EXECUTE FUNCTION connection_keep_masked();

-- The reference's connection_details: live connections with their secrets masked, and the category
-- ('notification' for the notification types, else the type).
CREATE VIEW connection_details AS
SELECT c.id, c.name, c.namespace, c.type,
  CASE WHEN c.type IN ('discord', 'email', 'google_chat', 'ifttt', 'mattermost', 'matrix', 'ntfy', 'opsgenie', 'pushbullet',
    'pushover', 'rocketchat', 'slack', 'teams', 'telegram', 'zulip_chat', 'generic_webhook') THEN 'notification' ELSE c.type END AS category,
  connection_url_masked(c.url) AS url,
  connection_secret_masked(c.username) AS username,
  connection_secret_masked(c.password) AS password,
  connection_secret_masked(c.certificate) AS certificate,
  c.insecure_tls, connection_properties_masked(c.properties) AS properties, c.labels, c.source, c.created_by,
  c.created_at, c.updated_at
FROM connections c
WHERE c.deleted_at IS NULL;
