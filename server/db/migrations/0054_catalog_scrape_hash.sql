-- The scrape engine's fingerprint of each item (issue 12, "Performance"): the md5 of the columns and config it last
-- wrote or found equal, and the row version (xmin) that was. An unchanged re-scrape compares one hash per item instead
-- of reading every stored column and config back. The fingerprint holds only while the row is that version: any other
-- write to the item (a deletion, an edit through /api/db) changes xmin, and the engine compares the row itself again.
-- Ours, not the reference's: not exposed by /api/db.
CREATE TABLE config_items_scrape_hash (
  config_id uuid PRIMARY KEY CONSTRAINT config_items_scrape_hash_config_id_fkey REFERENCES config_items (id) ON DELETE CASCADE,
  hash text NOT NULL,
  item_xmin xid NOT NULL
);
