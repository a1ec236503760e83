-- 0003: what each stdio MCP server stated it may reach (SQLite's 0003).
ALTER TABLE runs ADD COLUMN IF NOT EXISTS mcp_declared_json JSONB;
