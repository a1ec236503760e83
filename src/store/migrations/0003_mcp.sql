-- 0003: what each stdio MCP server stated it may reach, recorded with the run
-- (declared to this process, not enforced by it).
ALTER TABLE runs ADD COLUMN mcp_declared_json TEXT;
