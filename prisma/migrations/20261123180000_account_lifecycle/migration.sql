-- Account lifecycle and identity-provider login: users without a password (identity provider only), disabled
-- users, sessions ended by a password change, identities linked by (issuer, subject), one-time set-password
-- codes, and hosted organizations' own identity providers.
ALTER TABLE "users"
    ALTER COLUMN "password_hash" DROP NOT NULL,
    ADD COLUMN "disabled_at" TIMESTAMP(3),
    ADD COLUMN "sessions_valid_after" TIMESTAMP(3),
    ADD COLUMN "role_managed_by_idp" BOOLEAN NOT NULL DEFAULT false;

ALTER TABLE "platform_operators" ADD COLUMN "sessions_valid_after" TIMESTAMP(3);

CREATE TABLE "user_identities" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "issuer" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "email" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_login_at" TIMESTAMP(3),
    CONSTRAINT "user_identities_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "user_identities_issuer_subject_key" ON "user_identities"("issuer", "subject");
CREATE INDEX "user_identities_user_id_idx" ON "user_identities"("user_id");
ALTER TABLE "user_identities" ADD CONSTRAINT "user_identities_user_id_fkey"
    FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "password_resets" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "code_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "used_at" TIMESTAMP(3),
    "created_by_id" UUID,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "password_resets_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "password_resets_code_hash_key" ON "password_resets"("code_hash");
CREATE INDEX "password_resets_user_id_idx" ON "password_resets"("user_id");
ALTER TABLE "password_resets" ADD CONSTRAINT "password_resets_user_id_fkey"
    FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "organization_identity_providers" (
    "organization_id" UUID NOT NULL,
    "issuer_url" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "client_secret_sealed" TEXT,
    "scopes" TEXT NOT NULL DEFAULT 'openid email profile',
    "button_label" TEXT,
    "provisioning" TEXT NOT NULL DEFAULT 'off',
    "allowed_domains" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "role_mapping" JSONB,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "organization_identity_providers_pkey" PRIMARY KEY ("organization_id")
);
ALTER TABLE "organization_identity_providers" ADD CONSTRAINT "organization_identity_providers_organization_id_fkey"
    FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
