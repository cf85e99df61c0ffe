import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { openApiPath } from '../../apps/api/src/openapi/openapi-document';
import { FAST_HASH_ENV, startPipeline, type Pipeline } from './harness';

const run = promisify(execFile);

// The validator is an ES module; it runs in a plain node process (Node 24 loads it natively).
async function validateOpenApi(document: unknown): Promise<{ valid: boolean; errors?: unknown }> {
  const file = path.join(await mkdtemp(path.join(tmpdir(), 'openapi-')), 'openapi.json');
  await writeFile(file, JSON.stringify(document));
  const script = `import('@seriousme/openapi-schema-validator').then(async ({ Validator }) => {
    const result = await new Validator().validate(
      JSON.parse(require('node:fs').readFileSync(${JSON.stringify(file)}, 'utf8')),
    );
    process.stdout.write(JSON.stringify(result));
  });`;
  const { stdout } = await run(process.execPath, ['-e', script], { cwd: path.resolve(__dirname, '../..') });
  return JSON.parse(stdout) as { valid: boolean; errors?: unknown };
}

type Layer = { route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } };

function registeredRoutes(pipeline: Pipeline): string[] {
  const found: string[] = [];
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route)
        for (const method of Object.keys(layer.route.methods)) found.push(`${method} ${layer.route.path}`);
      else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((pipeline.api.app as unknown as { router: { stack: Layer[] } }).router.stack);
  return found;
}

describe('OpenAPI document and docs UI', () => {
  let pipeline: Pipeline;
  beforeAll(async () => {
    pipeline = await startPipeline({ api: FAST_HASH_ENV, worker: false });
  });
  afterAll(() => pipeline.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    const res = await pipeline.http
      .get('/openapi.json')
      .expect(200)
      .expect('content-type', /application\/json/);
    expect(res.body.openapi).toBe('3.1.0');
    const result = await validateOpenApi(res.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes every route the app registers, with its method', async () => {
    const document = (await pipeline.http.get('/openapi.json').expect(200)).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = new Set(
      Object.entries(document.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`)),
    );
    // The catch-all ingest route is documented as POST / and POST /{source}; the initializer script
    // is an asset of the docs page, and the dashboard's files are documented by GET /app.
    const routes = registeredRoutes(pipeline)
      .filter((r) => r !== 'get /docs/swagger-initializer.js' && r !== 'get /app/{*path}')
      .flatMap((r) => (r === 'post /{*path}' ? ['post /', 'post /:source'] : [r]));
    expect(routes.length).toBeGreaterThan(15);
    const missing = routes.filter((r) => {
      const [method, route] = r.split(' ') as [string, string];
      return !documented.has(`${method} ${openApiPath(route)}`);
    });
    expect(missing).toEqual([]);
  });

  it('documents the access rule and problem answers of guarded operations', async () => {
    const document = (await pipeline.http.get('/openapi.json').expect(200)).body;
    const op = document.paths['/api/api-keys'].post;
    expect(op['x-required-role']).toBe('admin');
    expect(op['x-api-key-scope']).toBe('organization:manage');
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403']));
    expect(op.requestBody.content['application/json'].schema.properties.scopes.items.enum).toContain('events:read');
  });

  it('documents a body that may be left out as optional (retry and ack act on the primary without one)', async () => {
    const document = (await pipeline.http.get('/openapi.json').expect(200)).body;
    for (const path of ['/events/{id}/retry', '/events/{id}/ack']) {
      const body = document.paths[path].post.requestBody;
      expect(body.required).toBe(false);
      expect(body.content['application/json'].schema.properties.destination_id.format).toBe('uuid');
    }
    expect(document.paths['/events/bulk/retry'].post.requestBody.required).toBe(true);
  });

  it('serves Swagger UI from node_modules, pointed at /openapi.json, with no CDN', async () => {
    await pipeline.http.get('/docs').expect(301).expect('location', '/docs/');
    const page = await pipeline.http
      .get('/docs/')
      .expect(200)
      .expect('content-type', /text\/html/);
    expect(page.text).toContain('swagger-ui-bundle.js');
    expect(page.text).not.toMatch(/src="https?:|href="https?:/);
    await pipeline.http
      .get('/docs/swagger-ui-bundle.js')
      .expect(200)
      .expect('content-type', /javascript/);
    const init = await pipeline.http.get('/docs/swagger-initializer.js').expect(200);
    expect(init.text).toContain("url: '../openapi.json'");
    expect(init.text).not.toContain('petstore');
  });
});
