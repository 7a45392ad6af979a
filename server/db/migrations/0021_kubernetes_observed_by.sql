-- Which replica (its Lease identity, POD_NAME) last wrote a kubernetes_objects row: with several replicas only the
-- leader writes, and this says which one did.
ALTER TABLE kubernetes_objects ADD COLUMN observed_by text;
