-- 0011: the search suggestions a vendor asks to be shown beside a grounded answer
-- (Google Search suggestions: Gemini's `searchEntryPoint.renderedContent`, HTML
-- as Google sent it), kept with the step that got them, in its transaction.
-- NULL where the vendor sent none, and for every step recorded before.
ALTER TABLE steps ADD COLUMN search_suggestions TEXT;
