-- Rules (providers): which inbound headers a rule forwards beyond the default set (Authorization is
-- withheld unless listed), and the signing secret being rotated out with the end of its window.
-- Secrets in these columns are sealed with SECRET_ENCRYPTION_KEYS (enc:v1:<key id>:...). Rows
-- written before are plaintext and are re-sealed when the api starts with a key.
ALTER TABLE "providers"
    ADD COLUMN "outbound_headers" JSONB NOT NULL DEFAULT '{}',
    ADD COLUMN "previous_signing_secret" TEXT,
    ADD COLUMN "previous_secret_expires_at" TIMESTAMP(3);
