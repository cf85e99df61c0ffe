-- Configuration as code (issue 34): beside each sealed secret, a keyed hash of its plaintext
-- (HMAC-SHA-256 under a key derived from SECRET_ENCRYPTION_KEYS, `h1:<key id>:<base64url>`). `relay apply`
-- sends secret values, and the api compares them with what is stored through this hash, so an unchanged
-- secret plans nothing without the sealed value ever being opened. Rows written before this migration
-- have no hash: their secret counts as changed at the first apply, which writes the hash.
ALTER TABLE "providers" ADD COLUMN "signing_secret_hash" TEXT;
ALTER TABLE "providers" ADD COLUMN "verification_secret_hash" TEXT;
ALTER TABLE "destinations" ADD COLUMN "signing_secret_hash" TEXT;
ALTER TABLE "organizations" ADD COLUMN "notification_secret_hash" TEXT;
