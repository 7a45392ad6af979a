-- Topology links (issue 13): selectors read labels (`labelSelector: app=web` is `labels @> '{"app":"web"}'`) and names
-- of components and checks, once per selector of every component on every run: without these each is a scan of the
-- whole table. (Apart from 0061 so a database that applied 0061 as first written takes them too.)
CREATE INDEX components_labels_idx ON components USING gin (labels);
CREATE INDEX components_name_idx ON components (name) WHERE deleted_at IS NULL;
CREATE INDEX checks_labels_idx ON checks USING gin (labels);
CREATE INDEX checks_name_idx ON checks (name) WHERE deleted_at IS NULL;
