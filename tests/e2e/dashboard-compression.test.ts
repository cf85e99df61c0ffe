import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { startPipeline, type Pipeline } from './harness';
import { parseExposition, valueOf } from './metrics-text';

const INDEX = `<!doctype html><html><head><link rel="icon" href="/app/favicon.svg"></head><body>${'x'.repeat(2000)}</body>`;
const ASSET = `console.log(${JSON.stringify('dashboard '.repeat(500))});`;
const STYLE = `body { color: red; }\n`.repeat(200);
const ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32"/></svg>';

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

// A plain request, so the bytes on the wire are read as sent (supertest would decompress them).
function rawGet(server: Server, urlPath: string, headers: Record<string, string> = {}): Promise<Raw> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: urlPath, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

// A fake build as the dashboard's Vite build leaves it: `.br` and `.gz` copies beside each text file
// (apps/dashboard/vite-precompress.ts), except the ones too small to gain.
describe('the dashboard files served compressed', () => {
  let pipeline: Pipeline;
  let server: Server;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'relay-dashboard-compressed-'));
    mkdirSync(path.join(dir, 'assets'));
    const write = (name: string, text: string, compressed = true) => {
      writeFileSync(path.join(dir, name), text);
      if (!compressed) return;
      writeFileSync(path.join(dir, `${name}.br`), brotliCompressSync(text));
      writeFileSync(path.join(dir, `${name}.gz`), gzipSync(text));
    };
    write('index.html', INDEX);
    write('assets/app-abc123.js', ASSET);
    write('assets/app-abc123.css', STYLE);
    write('assets/tiny-abc123.js', 'export {};', false);
    write('favicon.svg', ICON, false);
    pipeline = await startPipeline({ worker: false, api: { DASHBOARD_DIR: dir } });
    server = createServer(pipeline.api.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await pipeline.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends brotli to a browser that accepts it, whatever the order it lists codings in', async () => {
    const res = await rawGet(server, '/app/assets/app-abc123.js', { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(Number(res.headers['content-length'])).toBe(res.body.length);
    expect(res.body.length).toBeLessThan(ASSET.length);
    expect(brotliDecompressSync(res.body).toString()).toBe(ASSET);
  });

  it('sends gzip when brotli is not accepted', async () => {
    for (const accept of ['gzip', 'br;q=0, gzip', 'deflate, gzip;q=0.5']) {
      const res = await rawGet(server, '/app/assets/app-abc123.css', { 'accept-encoding': accept });
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(res.headers['content-type']).toMatch(/^text\/css/);
      expect(gunzipSync(res.body).toString()).toBe(STYLE);
    }
  });

  it('sends the file as it is when the browser accepts neither, or the build left no copy', async () => {
    for (const accept of [undefined, 'identity', 'deflate', 'br;q=0, gzip;q=0']) {
      const res = await rawGet(server, '/app/assets/app-abc123.js', accept ? { 'accept-encoding': accept } : {});
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(res.body.toString()).toBe(ASSET);
    }
    const tiny = await rawGet(server, '/app/assets/tiny-abc123.js', { 'accept-encoding': 'br, gzip' });
    expect(tiny.headers['content-encoding']).toBeUndefined();
    expect(tiny.body.toString()).toBe('export {};');
  });

  it('serves index.html compressed too, never cached, for every route of the app', async () => {
    for (const route of ['/app/', '/app/events']) {
      const res = await rawGet(server, route, { 'accept-encoding': 'br' });
      expect(res.headers['content-encoding']).toBe('br');
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(brotliDecompressSync(res.body).toString()).toBe(INDEX);
    }
  });

  it('answers /favicon.ico with the icon, and counts no refused webhook', async () => {
    const ingestRequests = async () => {
      const metrics = parseExposition((await pipeline.http.get('/metrics').expect(200)).text);
      return valueOf(metrics, 'relay_ingest_requests_total') ?? 0;
    };
    const before = await ingestRequests();
    const redirect = await rawGet(server, '/favicon.ico');
    expect(redirect.status).toBe(301);
    expect(redirect.headers.location).toBe('/app/favicon.svg');
    const icon = await rawGet(server, redirect.headers.location!);
    expect(icon.status).toBe(200);
    expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(icon.body.toString()).toBe(ICON);
    expect(await ingestRequests()).toBe(before);
    // A POST there is no webhook either: `favicon.ico` is reserved, as every route of the relay's is.
    const post = await pipeline.http.post('/favicon.ico').set('content-type', 'application/json').send('{}');
    expect(post.status).toBe(404);
    expect(post.body).toMatchObject({ code: 'not_found' });
    // Refused as not_found, as a POST to /metrics is.
    expect(await ingestRequests()).toBe(before + 1);
    const endpoint = await pipeline.http.get('/config/endpoint').expect(200);
    expect(endpoint.body.reserved_sources).toContain('favicon.ico');
  });
});
