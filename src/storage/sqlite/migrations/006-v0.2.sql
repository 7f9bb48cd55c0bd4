-- v0.2: an optional idempotency key per message, unique within its session.
ALTER TABLE messages ADD COLUMN idempotency_key TEXT;
CREATE UNIQUE INDEX IF NOT EXISTS messages_idempotency_key ON messages (session_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
