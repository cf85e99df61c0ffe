import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startTargetServer, type TargetServer } from '@relay/test-support';
import supertest from 'supertest';
import { createHealthServer } from '../../apps/delivery-worker/src/health-server';
import { startPipeline, type Pipeline } from './harness';
import { parseExposition } from './metrics-text';

const DASHBOARD = path.resolve(__dirname, '../../deploy/grafana/relay-dashboard.json');

interface Panel {
  type: string;
  title: string;
  targets?: { expr?: string }[];
  panels?: Panel[];
}

// PromQL words that are not metric names.
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless']);
const VALUES = new Set(['bool', 'inf', 'nan']);

/** The metric names a PromQL expression reads: identifiers that are not functions, keywords, labels or values. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // label values
    .replace(/\{[^}]*\}/g, '') // label matchers
    .replace(/\[[^\]]*\]/g, '') // ranges such as [$__rate_interval]
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ') // label lists
    .replace(/\$\{?\w+\}?/g, ' ') // Grafana variables
    .replace(/\boffset\s+\S+/g, ' ')
    .replace(/(?<![\w:])\d[\w.]*/g, ' '); // numbers and durations
  const names: string[] = [];
  for (const match of bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const word = match[0];
    const rest = bare.slice(match.index + word.length);
    if (/^\s*\(/.test(rest)) continue; // a function call
    if (KEYWORDS.has(word) || VALUES.has(word.toLowerCase())) continue;
    names.push(word);
  }
  return names;
}

let pipeline: Pipeline;
let target: TargetServer;

beforeAll(async () => {
  target = await startTargetServer();
  pipeline = await startPipeline({
    api: { DEFAULT_TARGET_URL: `${target.url}/hook` },
    worker: { RETENTION_DAYS: '1' },
  });
});
afterAll(async () => {
  await pipeline.close();
  await target.close();
});

describe('the Grafana dashboard (deploy/grafana/relay-dashboard.json)', () => {
  it('reads the names of its queries right', () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (le) (rate(relay_ingest_duration_seconds_bucket{outcome="accepted"}[$__rate_interval])))',
      ),
    ).toEqual(['relay_ingest_duration_seconds_bucket']);
    expect(metricNames('sum(rate(a_sum[5m])) / sum(rate(b_count[5m] offset 1h)) > bool 0')).toEqual([
      'a_sum',
      'b_count',
    ]);
    expect(metricNames('max by (queue) (relay_queue_jobs{state=~"wait.*"})')).toEqual(['relay_queue_jobs']);
  });

  it('parses, and every metric its queries name appears in /metrics after a known sequence', async () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { uid: string; panels: Panel[] };
    expect(dashboard.uid).toBe('webhook-relay');
    const panels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
    const exprs = panels.flatMap((panel) => (panel.targets ?? []).map((t) => t.expr ?? ''));
    expect(exprs.length).toBeGreaterThan(10);
    const names = new Set(exprs.flatMap(metricNames));
    expect(names.size).toBeGreaterThan(10);

    // The sequence: a webhook delivered, one refused, a failed login, a retention run that deletes
    // the delivered event.
    const id = (await pipeline.http.post('/github').set('content-type', 'application/json').send('{}').expect(202)).body
      .id as string;
    await pipeline.http.post('/github').set('content-type', 'application/json').send('nope').expect(400);
    await pipeline.http.post('/api/auth/login').send({ username: 'nobody', password: 'wrong' }).expect(401);
    await pipeline.waitForStatus(id, 'delivered');
    const worker = pipeline.worker!;
    const retention = await worker.retentionNow(new Date(Date.now() + 3 * 86_400_000));
    expect(retention.events).toBe(1);

    const api = parseExposition((await pipeline.http.get('/metrics').expect(200)).text);
    const healthServer = createHealthServer(worker.health, { registry: worker.metrics.registry, token: undefined });
    const scraped = parseExposition((await supertest(healthServer).get('/metrics').expect(200)).text);
    healthServer.close();
    const exposed = new Set([...api.samples, ...scraped.samples].map((sample) => sample.name));

    const missing = [...names].filter((name) => !exposed.has(name));
    expect(missing).toEqual([]);
    // Histogram series are named by their family: the family must be a histogram.
    for (const name of names) {
      const family = name.replace(/_(bucket|sum|count)$/, '');
      if (family !== name && (api.types.has(family) || scraped.types.has(family))) {
        expect([api.types.get(family), scraped.types.get(family)]).toContain('histogram');
      }
    }
  });
});
