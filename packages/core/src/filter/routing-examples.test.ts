import { readFileSync } from 'node:fs';
import path from 'node:path';
import { storableHeaders } from '../forward-headers';
import { compileFilter, matches } from './compile-filter';
import { filterSubjectOf } from './filter-subject';
import type { FilterSubject } from './filter-types';

// docs/routing.md's "Worked examples" (GitHub, Stripe, Shopify) are read from the page itself: the rule and
// destinations its curl calls create, the CEL variants of its CLI calls, the sample webhooks it sends and the
// table of what happens to each. Every filter goes through compileFilter/matches as the worker's would, so the
// page cannot promise a routing the relay does not do.
const DOC = readFileSync(path.resolve(__dirname, '../../../../docs/routing.md'), 'utf8');
const RELAY = 'https://relay.example.com';

interface Route {
  name: string;
  target: string;
  filter: unknown;
  source?: string;
}
interface Example {
  title: string;
  rule: Route;
  destinations: Route[];
  cli: Route[];
  samples: { source: string; subject: FilterSubject }[];
  table: string[][];
}

function section(doc: string, heading: string): string {
  const start = doc.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/routing.md has no "${heading}"`);
  const end = doc.indexOf('\n## ', start + heading.length + 2);
  return doc.slice(start, end < 0 ? undefined : end);
}

/**
 * The commands of the example's ```sh blocks: continuation lines joined, and a line break inside single quotes
 * (a JSON body spread over lines) kept inside its command; comment lines dropped.
 */
function commands(text: string): string[] {
  const blocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const lines = blocks.flatMap((b) => b.replace(/\\\n\s*/g, ' ').split('\n'));
  const joined: string[] = [];
  let open = '';
  for (const line of lines) {
    if (!open && line.trim().startsWith('#')) continue;
    open = open ? `${open}\n${line}` : line;
    if ((open.match(/'/g) ?? []).length % 2 === 0) {
      joined.push(open.trim());
      open = '';
    }
  }
  if (open) throw new Error(`unclosed quote in docs/routing.md: ${open}`);
  return joined.filter((line) => line !== '');
}

const quoted = (line: string, flag: string): string | undefined => new RegExp(`${flag} '([^']*)'`).exec(line)?.[1];
const word = (line: string, flag: string): string | undefined => new RegExp(`${flag} (\\S+)`).exec(line)?.[1];

function parseExample(text: string): Example {
  const title = text.slice(0, text.indexOf('\n')).trim();
  let rule: Route | undefined;
  const destinations: Route[] = [];
  const cli: Route[] = [];
  const samples: Example['samples'] = [];
  for (const line of commands(text)) {
    if (line.startsWith('relay rules ')) {
      const cel = quoted(line, '--filter-cel');
      const json = quoted(line, '--filter');
      cli.push({
        name: word(line, '--name')!,
        target: word(line, '--target')!,
        filter: cel !== undefined ? { cel } : json !== undefined ? JSON.parse(json) : null,
        ...(line.startsWith('relay rules create') ? { source: word(line, '--source')! } : {}),
      });
      continue;
    }
    const url = new URL(/https:\/\/relay\.example\.com\/[^\s'"]*/.exec(line)![0]);
    const data = JSON.parse(quoted(line, '-d')!) as Record<string, unknown>;
    if (url.pathname === '/rules') {
      rule = {
        name: data.name as string,
        source: data.source as string,
        target: data.target_url as string,
        filter: data.filter ?? null,
      };
    } else if (url.pathname.endsWith('/destinations')) {
      destinations.push({ name: data.name as string, target: data.target_url as string, filter: data.filter ?? null });
    } else {
      // A webhook to the ingest: /<source>[/path][?query], with its headers as the relay stores them.
      const [, source, ...rest] = url.pathname.split('/');
      const headers = Object.fromEntries([...line.matchAll(/-H '([^:']+):\s*([^']*)'/g)].map((m) => [m[1]!, m[2]!]));
      samples.push({
        source: source!,
        subject: filterSubjectOf({
          body: Buffer.from(quoted(line, '-d')!),
          headers: storableHeaders(headers),
          path: rest.length ? `/${rest.join('/')}` : '',
          query: Object.fromEntries(url.searchParams),
        }),
      });
    }
  }
  const table = text
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    )
    .filter((cells) => !cells.every((c) => /^-+$/.test(c)));
  if (!rule) throw new Error(`${title}: no rule created with POST ${RELAY}/rules`);
  return { title, rule, destinations, cli, samples, table };
}

function matcher(filter: unknown): (subject: FilterSubject) => boolean {
  if (filter === null) return () => true;
  const compiled = compileFilter(filter);
  if (!compiled.ok) throw new Error(`${JSON.stringify(filter)}: ${JSON.stringify(compiled.errors)}`);
  return (subject) => matches(compiled.filter, subject);
}

const examples = section(DOC, '## Worked examples').split('\n### ').slice(1).map(parseExample);

describe('docs/routing.md worked examples', () => {
  it('has the GitHub, Stripe and Shopify examples the issue asks for', () => {
    expect(examples.map((e) => e.title.split(':')[0])).toEqual(['GitHub', 'Stripe', 'Shopify']);
    for (const e of examples) {
      expect(e.samples.length).toBeGreaterThanOrEqual(3);
      expect(e.destinations.length).toBeGreaterThanOrEqual(1);
    }
  });

  describe.each(examples.map((e) => [e.title, e] as const))('%s', (_title, example) => {
    const { rule, destinations, samples, table } = example;

    it('sends every sample to the rule’s source', () => {
      for (const s of samples) expect(s.source).toBe(rule.source);
    });

    it('gives each webhook the outcome its table says', () => {
      const [header, ...rows] = table;
      expect(header![0]).toBe('Webhook');
      expect(header![1]).toMatch(/^primary\b/);
      expect(header!.slice(2)).toEqual(destinations.map((d) => d.name));
      expect(rows).toHaveLength(samples.length);
      const primary = matcher(rule.filter);
      const routes = destinations.map((d) => matcher(d.filter));
      const computed = samples.map((s, i) => [
        rows[i]![0],
        primary(s.subject) ? 'delivered' : 'ignored',
        ...routes.map((match) => (match(s.subject) ? 'delivered' : 'no delivery')),
      ]);
      expect(computed).toEqual(rows);
    });

    it('shows CLI calls creating the same rule and destinations, with filters that decide alike', () => {
      const created = [rule, ...destinations];
      expect(example.cli.map((c) => [c.name, c.target])).toEqual(created.map((c) => [c.name, c.target]));
      expect(example.cli[0]!.source).toBe(rule.source);
      for (const [i, variant] of example.cli.entries()) {
        const original = created[i]!;
        expect(variant.filter === null).toBe(original.filter === null);
        const a = matcher(original.filter);
        const b = matcher(variant.filter);
        for (const s of samples) expect([variant.name, b(s.subject)]).toEqual([variant.name, a(s.subject)]);
      }
    });
  });

  it('Shopify: a JSON comparison with a number never matches its string prices (why the example is CEL)', () => {
    const shopify = examples.find((e) => e.title.startsWith('Shopify'))!;
    const overHundred = matcher({ body: { total_price: { $gt: 100 } } });
    const asText = matcher({ body: { total_price: { $gt: '100' } } });
    const prices = shopify.samples.map((s) => (s.subject.body as { total_price: string }).total_price);
    expect(prices).toContain('250.00');
    for (const s of shopify.samples) expect(overHundred(s.subject)).toBe(false);
    // Text order is not number order: "45.50" sorts after "100".
    const small = shopify.samples.find((s) => (s.subject.body as { total_price: string }).total_price === '45.50')!;
    expect(asText(small.subject)).toBe(true);
  });
});
