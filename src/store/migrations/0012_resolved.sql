-- 0012: where a redirecting cited link led when check-sources followed it (a
-- Gemini citation's Google grounding redirect, resolved hop by hop under the
-- policy), kept beside the link as cited. NULL for a link fetched as cited and
-- for every verdict recorded before.
ALTER TABLE citation_checks ADD COLUMN resolved_url TEXT;
