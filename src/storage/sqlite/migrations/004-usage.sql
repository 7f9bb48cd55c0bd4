-- LLM token usage and summary runs.
SELECT 1;
