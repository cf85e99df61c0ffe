import { getHeapStatistics } from 'node:v8';
import { parseApiConfig } from './config';
import { heapNeededBytes, heapShortfall } from './heap-budget';

const MB = 1_048_576;
const defaults = parseApiConfig({ DATABASE_URL: 'postgresql://x@127.0.0.1/x', REDIS_URL: 'redis://127.0.0.1' });

describe('heap budget', () => {
  it('the default settings fit the 128 MB old space pnpm start and docker compose give the api', () => {
    expect(heapNeededBytes(defaults)).toBeLessThan(128 * MB);
    expect(heapShortfall(defaults, 128 * MB + 8 * MB)).toBeUndefined();
  });

  it('refuses 10 MB payloads in a 128 MB heap and says which flag to raise', () => {
    const large = { ...defaults, INGEST_MAX_BODY_BYTES: 10 * MB };
    const problem = heapShortfall(large, 136 * MB);
    expect(problem).toMatch(/INGEST_MAX_BODY_BYTES=10485760/);
    expect(problem).toMatch(/--max-old-space-size=\d+/);
    const flag = Number(/--max-old-space-size=(\d+)/.exec(problem!)![1]);
    expect(heapShortfall(large, flag * MB)).toBeUndefined();
  });

  it('this test process (no heap flag) runs the defaults', () => {
    expect(heapShortfall(defaults, getHeapStatistics().heap_size_limit)).toBeUndefined();
  });
});
