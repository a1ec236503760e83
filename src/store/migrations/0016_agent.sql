-- 0016: the roster agent a spawned child runs as (`[[agent]] name`), so the
-- Sources and Run panes say which agent searched; NULL for a root run and for
-- runs recorded before 0016.
ALTER TABLE runs ADD COLUMN agent TEXT;
