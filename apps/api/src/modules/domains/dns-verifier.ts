import { Resolver } from 'node:dns/promises';

export interface RecordCheck {
  ok: boolean;
  /** The name that was looked up. */
  name: string;
  expected: string;
  found: string[];
  /** Why it failed: `missing` (no such record), `wrong` (other values), or a DNS error code. */
  problem: 'missing' | 'wrong' | (string & {}) | null;
}

export interface DomainCheck {
  ok: boolean;
  cname: RecordCheck;
  txt: RecordCheck;
}

export type DomainVerifier = (domain: string, token: string) => Promise<DomainCheck>;

export const verificationRecordName = (domain: string) => `_relay-verification.${domain}`;
const bare = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** `DNS_SERVERS=host:port,...` (unset: the system's resolvers). */
export function parseDnsServers(value: string | undefined): string[] | undefined {
  if (!value) return undefined;
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

// Looks up both records the domain setup asks for: CNAME <domain> → INGEST_CANONICAL_HOST and TXT
// _relay-verification.<domain> = the token. Answers what was found for each, so the caller can say
// which one is missing or wrong.
export function createDnsVerifier(options: {
  canonicalHost: string;
  servers?: string[] | undefined;
  timeoutMs?: number;
}): DomainVerifier {
  const resolver = new Resolver({ timeout: options.timeoutMs ?? 2_000, tries: 2 });
  if (options.servers) resolver.setServers(options.servers);
  const canonical = bare(options.canonicalHost);

  async function lookup(run: () => Promise<string[]>): Promise<{ found: string[]; error: string | null }> {
    try {
      return { found: await run(), error: null };
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'DNS_ERROR';
      return { found: [], error: code === 'ENODATA' || code === 'ENOTFOUND' ? 'missing' : code };
    }
  }

  return async (domain, token) => {
    const [cname, txt] = await Promise.all([
      lookup(() => resolver.resolveCname(domain)),
      lookup(async () => (await resolver.resolveTxt(verificationRecordName(domain))).map((chunks) => chunks.join(''))),
    ]);
    const cnameOk = cname.found.some((v) => bare(v) === canonical);
    const txtOk = txt.found.includes(token);
    return {
      ok: cnameOk && txtOk,
      cname: {
        ok: cnameOk,
        name: domain,
        expected: canonical,
        found: cname.found.map(bare),
        problem: cnameOk ? null : (cname.error ?? 'wrong'),
      },
      txt: {
        ok: txtOk,
        name: verificationRecordName(domain),
        expected: token,
        found: txt.found,
        problem: txtOk ? null : (txt.error ?? 'wrong'),
      },
    };
  };
}
