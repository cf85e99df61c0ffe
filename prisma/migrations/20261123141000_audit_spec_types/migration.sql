-- Audit entries always carry the types of the spec: actor_user_id and resource_id are UUID strings
-- and actor_email a string. Existing entries without them are attributed as the api now does: an
-- act of an API key to the creator of the key, an operator to `<username>@operator.invalid`,
-- anything else to the system actor. An entry about no stored resource names itself.
UPDATE "audit_entries" a
   SET "actor_user_id" = u."id", "actor_email" = u."email"
  FROM "api_keys" k JOIN "users" u ON u."id" = k."created_by_id"
 WHERE a."actor_user_id" IS NULL AND k."id"::text = a."metadata"->>'api_key_id';
UPDATE "audit_entries" a
   SET "actor_email" = o."username" || '@operator.invalid'
  FROM "platform_operators" o
 WHERE a."actor_email" IS NULL AND a."actor_user_id" = o."id";
UPDATE "audit_entries"
   SET "actor_user_id" = '00000000-0000-7000-8000-000000000000', "actor_email" = 'system@relay.invalid'
 WHERE "actor_user_id" IS NULL;
UPDATE "audit_entries" SET "actor_email" = 'system@relay.invalid' WHERE "actor_email" IS NULL;
UPDATE "audit_entries" SET "resource_id" = "id"::text WHERE "resource_id" IS NULL;

ALTER TABLE "audit_entries"
    ALTER COLUMN "actor_user_id" SET NOT NULL,
    ALTER COLUMN "actor_email" SET NOT NULL,
    ALTER COLUMN "resource_id" SET NOT NULL;
