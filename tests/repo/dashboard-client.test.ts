import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const sources = path.resolve(__dirname, '../../apps/dashboard/src');

// The dashboard talks to the API only through the typed client (`client` in app/api-client.ts, paths and answers
// from the OpenAPI document): no untyped wrapper beside it that fetches a path written as a string.
describe('the dashboard', () => {
  it('fetches only through the typed client', () => {
    const calls = readdirSync(sources, { recursive: true, encoding: 'utf8' })
      .filter((file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file))
      .flatMap((file) =>
        readFileSync(path.join(sources, file), 'utf8')
          .split('\n')
          .filter((line) => /\bfetch\(/.test(line))
          .map((line) => `${file}: ${line.trim()}`),
      );
    // The one fetch is the typed client's own (looked up per call so tests can stub the global).
    expect(calls).toEqual([
      `${path.join('app', 'api-client.ts')}: export const client = createRelayClient({ baseUrl: origin, fetch: (request) => globalThis.fetch(request) });`,
    ]);
  });
});
