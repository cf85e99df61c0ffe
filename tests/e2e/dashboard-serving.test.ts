import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startApiReplica, startPipeline, type Pipeline } from './harness';
import supertest from 'supertest';

const INDEX = '<!doctype html><html><head><script type="module" src="/app/assets/x-abc123.js"></script></head></html>';
const ASSET = 'console.log("dashboard");';

// The api serves the dashboard's build from DASHBOARD_DIR: here a fake build in a temporary folder.
describe('the dashboard served at /app/', () => {
  let pipeline: Pipeline;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'relay-dashboard-'));
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'index.html'), INDEX);
    writeFileSync(path.join(dir, 'assets', 'x-abc123.js'), ASSET);
    writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    writeFileSync(path.join(dir, '.env'), 'SECRET=1');
    pipeline = await startPipeline({ worker: false, api: { DASHBOARD_DIR: dir } });
  });
  afterAll(async () => {
    await pipeline.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is where / and /app lead', async () => {
    expect((await pipeline.http.get('/').expect(302)).headers.location).toBe('/app/');
    expect((await pipeline.http.get('/app').expect(301)).headers.location).toBe('/app/');
  });

  it('serves index.html uncached, with a CSP that allows no inline script', async () => {
    const res = await pipeline.http.get('/app/').expect(200);
    expect(res.text).toBe(INDEX);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(csp).toContain("frame-ancestors 'none'");
    // Plain http: nothing that would force https on a local install.
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(res.headers['strict-transport-security']).toBeUndefined();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  it('caches hashed assets for a year', async () => {
    const res = await pipeline.http.get('/app/assets/x-abc123.js').expect(200);
    expect(res.text).toBe(ASSET);
    expect(res.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const other = await pipeline.http.get('/app/favicon.svg').expect(200);
    expect(other.headers['cache-control']).toBe('no-cache');
  });

  it("answers index.html for the app's own routes, and 404 for a missing asset", async () => {
    for (const route of ['/app/events', '/app/events/0196f1d2-aaaa-7000-8000-000000000001', '/app/rules?x=1']) {
      const res = await pipeline.http.get(route).expect(200);
      expect(res.text).toBe(INDEX);
      expect(res.headers['cache-control']).toBe('no-cache');
    }
    const missing = await pipeline.http.get('/app/assets/gone-123.js').expect(404);
    expect(missing.body).toMatchObject({ code: 'not_found' });
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('never serves a file outside the build or a hidden one', async () => {
    for (const sneaky of ['/app/.env', '/app/%2e%2e/%2e%2e/package.json', '/app/assets%2F..%2F..%2Fpackage.json']) {
      const res = await pipeline.http.get(sneaky);
      expect(res.text).not.toContain('SECRET');
      expect(res.text).not.toContain('"name"');
      expect([200, 404]).toContain(res.status);
    }
  });

  it('is GET only: `app` is no webhook source', async () => {
    const res = await pipeline.http.post('/app/x').set('content-type', 'application/json').send('{}');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'not_found', detail: 'No route for POST /app/x.' });
    // A source merely starting with the word is still a source.
    await pipeline.http.post('/apps').set('content-type', 'application/json').send('{}').expect(202);
  });

  it('sends HSTS and upgrades requests only over TLS (a trusted proxy)', async () => {
    const api = startApiReplica(pipeline, { DASHBOARD_DIR: dir, TRUST_PROXY: 'loopback' });
    try {
      const res = await supertest(api.app).get('/app/').set('x-forwarded-proto', 'https').expect(200);
      expect(res.headers['content-security-policy']).toContain('upgrade-insecure-requests');
      expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
    } finally {
      await api.close();
    }
  });
});

describe('the dashboard before it is built', () => {
  it('answers a 503 problem that says to run pnpm build', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'relay-dashboard-empty-'));
    const pipeline = await startPipeline({ worker: false, api: { DASHBOARD_DIR: path.join(empty, 'dist') } });
    try {
      for (const route of ['/app/', '/app/events']) {
        const res = await pipeline.http.get(route).expect(503);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.body).toMatchObject({ status: 503, code: 'dashboard_not_built' });
        expect(res.body.detail).toContain('pnpm build');
      }
      expect((await pipeline.http.get('/').expect(302)).headers.location).toBe('/app/');
    } finally {
      await pipeline.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
