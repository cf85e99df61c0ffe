import type { OrgId } from '@relay/core';
import type pg from 'pg';
import type { DbClient } from '../client';

/** Where an organization's notices go; the secret stays sealed here (enc:v1:…). */
export interface NotificationSettingsRecord {
  url: string | null;
  secretSealed: string | null;
  /** Keyed hash of the secret (core secret-hash.ts); null: no secret, or one written before hashes were kept. */
  secretHash?: string | null;
}

/** The organization columns behind GET/PUT /api/organization/notifications (Prisma, inside transactions). */
export function createNotificationSettingsRepository(prisma: DbClient) {
  return {
    async find(orgId: OrgId): Promise<NotificationSettingsRecord | null> {
      const row = await prisma.organization.findUnique({
        where: { id: orgId },
        select: { notificationUrl: true, notificationSecret: true, notificationSecretHash: true },
      });
      return row
        ? { url: row.notificationUrl, secretSealed: row.notificationSecret, secretHash: row.notificationSecretHash }
        : null;
    },

    /**
     * Saves both; `digestFrom` (when given) is where the failure digest starts, so turning notices on
     * does not report every failure the organization ever had.
     */
    async save(orgId: OrgId, settings: NotificationSettingsRecord, digestFrom?: Date | null): Promise<void> {
      await prisma.organization.update({
        where: { id: orgId },
        data: {
          notificationUrl: settings.url,
          notificationSecret: settings.secretSealed,
          // A secret saved without its hash (kept, or cleared) keeps the hash only while the secret is kept.
          notificationSecretHash: settings.secretSealed === null ? null : settings.secretHash,
          ...(digestFrom !== undefined ? { failureDigestUntil: digestFrom } : {}),
        },
      });
    },
  };
}

export type NotificationSettingsRepository = ReturnType<typeof createNotificationSettingsRepository>;

/** An organization that receives notices, and where its failure digest stopped. */
export interface DigestOrganization {
  id: OrgId;
  digestUntil: Date | null;
}

/** A newly failed event as a digest lists it. */
export interface FailedEventSummary {
  id: string;
  source: string;
  failureReason: string | null;
  lastError: string | null;
}

const at = (n: number) => `($${n}::timestamptz AT TIME ZONE 'UTC')`;

// Failures the digest reports: failed in (since, until], not acknowledged (an admin has seen those). A failed
// event is not delivered, so event_open (20261207000000_event_open) holds it with its status, acknowledged_at and
// updated_at; its (organization_id, updated_at) index answers the window (events' own one,
// events_organization_id_updated_at_idx, was dropped by 20261207100000_hot_outcomes).
const FAILED_IN_WINDOW = `organization_id = $1 AND updated_at > ${at(2)} AND updated_at <= ${at(3)}
  AND status = 'failed' AND acknowledged_at IS NULL`;
const COUNT_FAILED = `SELECT count(*)::int AS n FROM event_open WHERE ${FAILED_IN_WINDOW}`;
// The first $4 in event_open, then only those looked up in events (by primary key, scoped to the organization as
// every read of a tenant's rows is) for what the digest shows.
const LIST_FAILED = `
SELECT e.id, e.source, e.failure_reason, e.last_error
FROM (SELECT id, updated_at FROM event_open WHERE ${FAILED_IN_WINDOW} ORDER BY updated_at, id LIMIT $4) f
JOIN events e ON e.id = f.id AND e.organization_id = $1
ORDER BY f.updated_at, f.id`;

/** The digest's statements, for the tests of their plans. */
export const FAILED_STATEMENTS = { COUNT_FAILED, LIST_FAILED } as const;

// The worker's side (raw pg): the digest reads across organizations (ids and times only) and each
// notice reads its organization's URL and sealed secret.
export function createNotificationRepository(pool: pg.Pool) {
  return {
    async target(orgId: OrgId): Promise<NotificationSettingsRecord | null> {
      const { rows } = await pool.query<{ notification_url: string | null; notification_secret: string | null }>(
        'SELECT notification_url, notification_secret FROM organizations WHERE id = $1',
        [orgId],
      );
      const row = rows[0];
      return row ? { url: row.notification_url, secretSealed: row.notification_secret } : null;
    },

    async digestOrganizations(): Promise<DigestOrganization[]> {
      const { rows } = await pool.query<{ id: string; failure_digest_until: Date | null }>(
        'SELECT id, failure_digest_until FROM organizations WHERE notification_url IS NOT NULL ORDER BY id',
      );
      return rows.map((r) => ({ id: r.id as OrgId, digestUntil: r.failure_digest_until }));
    },

    /** How many events failed in (since, until], and the first `limit` of them, oldest change first. */
    async failedBetween(
      orgId: OrgId,
      since: Date,
      until: Date,
      limit: number,
    ): Promise<{ count: number; events: FailedEventSummary[] }> {
      const params = [orgId, since.toISOString(), until.toISOString()];
      const [count, list] = await Promise.all([
        pool.query<{ n: number }>(COUNT_FAILED, params),
        pool.query<{ id: string; source: string; failure_reason: string | null; last_error: string | null }>(
          LIST_FAILED,
          [...params, limit],
        ),
      ]);
      return {
        count: count.rows[0]?.n ?? 0,
        events: list.rows.map((r) => ({
          id: r.id,
          source: r.source,
          failureReason: r.failure_reason,
          lastError: r.last_error,
        })),
      };
    },

    /**
     * Moves the digest mark from `from` to `to` only if it is still at `from`: of two runs of one slot
     * (or a PUT that changed it meanwhile) one wins, so no failure is reported twice.
     */
    async advanceDigest(orgId: OrgId, from: Date | null, to: Date): Promise<boolean> {
      const { rowCount } = await pool.query(
        `UPDATE organizations SET failure_digest_until = ${at(2)}
         WHERE id = $1 AND failure_digest_until IS NOT DISTINCT FROM ($3::timestamptz AT TIME ZONE 'UTC')`,
        [orgId, to.toISOString(), from?.toISOString() ?? null],
      );
      return rowCount === 1;
    },
  };
}

export type NotificationRepository = ReturnType<typeof createNotificationRepository>;
