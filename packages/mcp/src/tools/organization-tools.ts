import { dataOf, type AnswerOf } from '@relay/client';
import { z } from 'zod';
import { defineTool, type AnyRelayTool } from '../tool-kit';
import { DOMAIN_TOOLS } from './domain-tools';
import { NOTIFICATION_TOOLS } from './notification-tools';

type AuditEntry = AnswerOf<'/api/audit', 'get'>['entries'][number];

/** Metadata longer than this is cut: a bulk action's metadata lists every id it touched. */
const DETAILS_MAX_CHARS = 300;

/** An entry's metadata as one short line: `key=value`, lists by their length, the credential left to its field. */
function detailsOf(metadata: Record<string, unknown>): string {
  const text = Object.entries(metadata)
    .filter(([key]) => key !== 'api_key_id')
    .map(([key, value]) =>
      Array.isArray(value) ? `${key}=[${value.length} items]` : `${key}=${JSON.stringify(value)}`,
    )
    .join(', ');
  return text.length > DETAILS_MAX_CHARS ? `${text.slice(0, DETAILS_MAX_CHARS)}…` : text;
}

/** The dashboard page of what an entry acted on (its list once it is gone); the access page otherwise. */
function pageOf(entry: AuditEntry): string {
  const gone = entry.action.endsWith('deleted');
  if (entry.resource_type === 'event') {
    return gone || entry.action.startsWith('events.bulk') ? '/events' : `/events/${entry.resource_id}`;
  }
  if (entry.resource_type === 'rule') return gone ? '/rules' : `/rules/${entry.resource_id}`;
  if (entry.resource_type === 'hook' && typeof entry.metadata.rule_id === 'string') {
    return `/rules/${entry.metadata.rule_id}`;
  }
  if (entry.resource_type === 'domain') return '/domains';
  return '/access';
}

const listAuditEntries = defineTool({
  name: 'list_audit_entries',
  title: 'List audit entries',
  description:
    'The audit log, newest first: who (a user, or an API key by its id) did what to which object and when, e.g. ' +
    'rule.created, event.retried, domain.verified. Paged: `page` from 1, `per_page` default 20, at most 100. Use it ' +
    'to answer "who changed this rule" or "what did this key do"; narrow with the filters (all given must hold).',
  operation: 'GET /api/audit',
  input: {
    page: z.number().int().min(1).max(10_000_000).optional().describe('Page number, from 1 (default).'),
    per_page: z.number().int().min(1).max(100).optional().describe('Entries per page: default 20, at most 100.'),
    action: z
      .string()
      .optional()
      .describe('Exact action, or several separated by commas (any of them), e.g. "rule.created,rule.deleted".'),
    actor_user_id: z.string().optional().describe("The actor's user id (an API key's act: its creator)."),
    actor_email: z.string().optional().describe("The actor's e-mail, exactly."),
    resource_type: z.string().optional().describe('Exact resource type, e.g. "rule", "api_key", "event".'),
    resource_id: z.string().optional().describe('The id of the object acted on.'),
    from: z.string().optional().describe('Created at or after (inclusive), ISO 8601 with a zone.'),
    to: z.string().optional().describe('Created before (exclusive), ISO 8601 with a zone.'),
  },
  output: {
    entries: z.array(
      z.object({
        id: z.string(),
        created_at: z.string(),
        actor_email: z.string(),
        api_key_id: z.string().nullable().describe('The API key that acted, if one did (its creator is the actor).'),
        action: z.string(),
        resource_type: z.string(),
        resource_id: z.string(),
        details: z.string().describe('The entry metadata in short; lists are given by their length.'),
        link: z.string(),
      }),
    ),
    total: z.number(),
    page: z.number(),
    per_page: z.number(),
    pages: z.number(),
  },
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run({ page, per_page, ...filters }, { client, link }) {
    const query = { ...filters, page: page ?? 1, per_page: per_page ?? 20 };
    const answer = await dataOf(client.GET('/api/audit', { params: { query } }));
    return {
      entries: answer.entries.map((entry) => ({
        id: entry.id,
        created_at: entry.created_at,
        actor_email: entry.actor_email,
        api_key_id: typeof entry.metadata.api_key_id === 'string' ? entry.metadata.api_key_id : null,
        action: entry.action,
        resource_type: entry.resource_type,
        resource_id: entry.resource_id,
        details: detailsOf(entry.metadata),
        link: link(pageOf(entry)),
      })),
      total: answer.total,
      page: answer.page,
      per_page: answer.per_page,
      pages: answer.pages,
    };
  },
});

export const ORGANIZATION_TOOLS: readonly AnyRelayTool[] = [listAuditEntries, ...DOMAIN_TOOLS, ...NOTIFICATION_TOOLS];
