import { dataOf, ProblemError, type AnswerOf } from '@relay/client';
import { z } from 'zod';
import { defineTool, type AnyRelayTool } from '../tool-kit';

// Custom ingest domains (`/api/domains`): hosts of the organization's own that receive its webhooks once their
// DNS records are verified.

type Domain = AnswerOf<'/api/domains', 'get'>['domains'][number];
type Checks = AnswerOf<'/api/domains/{id}/verify', 'post'>['checks'];
type RecordCheck = Checks['cname'];

const domainSummary = z.object({
  id: z.string(),
  domain: z.string(),
  status: z.enum(['pending', 'active']).describe('Only an active domain receives webhooks.'),
  records: z
    .array(z.object({ type: z.enum(['CNAME', 'TXT']), name: z.string(), value: z.string() }))
    .describe('The DNS records the domain needs before verify_domain can activate it.'),
  verified_at: z.string().nullable(),
  last_checked_at: z.string().nullable(),
  last_check_error: z.string().nullable(),
  link: z.string(),
});

const domainView = (d: Domain, link: (path: string) => string): z.infer<typeof domainSummary> => ({
  id: d.id,
  domain: d.domain,
  status: d.status,
  records: d.records,
  verified_at: d.verified_at,
  last_checked_at: d.last_checked_at,
  last_check_error: d.last_check_error,
  link: link('/domains'),
});

/** One record's outcome in words an assistant can pass on to whoever edits the DNS zone. */
function outcomeOf(type: 'CNAME' | 'TXT', check: RecordCheck): string {
  const record = `${type} ${check.name}`;
  if (check.ok) return `${record}: ok (${check.expected}).`;
  if (check.problem === 'missing') return `${record}: missing; add it with the value ${check.expected}.`;
  if (check.problem === 'wrong') {
    return `${record}: wrong; it is ${check.found.join(', ') || 'empty'}, expected ${check.expected}.`;
  }
  return `${record}: the DNS lookup failed (${check.problem}); try again later.`;
}

const checksView = (checks: Checks) => [
  { record: 'CNAME' as const, ok: checks.cname.ok, outcome: outcomeOf('CNAME', checks.cname) },
  { record: 'TXT' as const, ok: checks.txt.ok, outcome: outcomeOf('TXT', checks.txt) },
];

const listDomains = defineTool({
  name: 'list_domains',
  title: 'List custom domains',
  description:
    "The organization's custom ingest domains (e.g. hooks.example.com), pending or active, with the DNS records " +
    'each needs and the outcome of its last check. Use verify_domain to check a pending one again.',
  operation: 'GET /api/domains',
  input: {},
  output: { domains: z.array(domainSummary) },
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run(_args, { client, link }) {
    const { domains } = await dataOf(client.GET('/api/domains'));
    return { domains: domains.map((domain) => domainView(domain, link)) };
  },
});

const verifyDomain = defineTool({
  name: 'verify_domain',
  title: 'Verify a custom domain',
  description:
    "Checks a domain's DNS now: its CNAME must point at the relay's ingest host and its TXT record must hold the " +
    'verification token. Both valid: the domain becomes active and receives webhooks. Otherwise it stays pending ' +
    'and the result says, per record, what is missing or wrong. Safe to call again after DNS changes.',
  operation: 'POST /api/domains/{id}/verify',
  input: { id: z.uuid().describe('The domain id (from list_domains).') },
  output: {
    domain: domainSummary,
    verified: z.boolean(),
    checks: z.array(z.object({ record: z.enum(['CNAME', 'TXT']), ok: z.boolean(), outcome: z.string() })),
    summary: z.string(),
  },
  annotations: { destructiveHint: false, idempotentHint: true },
  async run({ id }, { client, link }) {
    try {
      const verified = await dataOf(client.POST('/api/domains/{id}/verify', { params: { path: { id } } }));
      return {
        domain: domainView(verified, link),
        verified: true,
        checks: checksView(verified.checks),
        summary: `${verified.domain} is active: it receives webhooks now.`,
      };
    } catch (error) {
      // A failed check is an answer, not an error: the API keeps the domain pending and says why, per record.
      if (!(error instanceof ProblemError) || error.code !== 'domain_verification_failed') throw error;
      const { checks, domain } = error.problem as unknown as { checks: Checks; domain: Domain };
      return {
        domain: domainView(domain, link),
        verified: false,
        checks: checksView(checks),
        summary: `${domain.domain} stays pending: ${error.detail ?? 'a DNS record is missing or wrong'}.`,
      };
    }
  },
});

export const DOMAIN_TOOLS: readonly AnyRelayTool[] = [listDomains, verifyDomain];
