import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { precompressDir } from '../../apps/dashboard/vite-precompress';

// The dashboard's Vite build leaves `.br` and `.gz` copies beside its text files; the api serves them as they are.
describe('the dashboard build precompressed', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'relay-precompress-'));
    mkdirSync(path.join(dir, 'assets'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes brotli and gzip copies of every text file worth it, and of nothing else', async () => {
    const script = `export const words = ${JSON.stringify('relay '.repeat(1000))};`;
    const style = 'a { color: blue; }\n'.repeat(100);
    const files: Record<string, string | Buffer> = {
      'index.html': `<!doctype html>${'<p>hello</p>'.repeat(200)}`,
      'assets/index-abc.js': script,
      'assets/index-abc.css': style,
      'assets/tiny-abc.js': 'export {};',
      'assets/logo-abc.png': Buffer.alloc(4096, 7),
    };
    for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);

    await precompressDir(dir);

    for (const name of ['index.html', 'assets/index-abc.js', 'assets/index-abc.css']) {
      const original = readFileSync(path.join(dir, name));
      const br = readFileSync(path.join(dir, `${name}.br`));
      const gz = readFileSync(path.join(dir, `${name}.gz`));
      expect(br.length).toBeLessThan(original.length);
      expect(brotliDecompressSync(br)).toEqual(original);
      expect(gunzipSync(gz)).toEqual(original);
    }
    for (const name of ['assets/tiny-abc.js', 'assets/logo-abc.png']) {
      expect(existsSync(path.join(dir, `${name}.br`))).toBe(false);
      expect(existsSync(path.join(dir, `${name}.gz`))).toBe(false);
    }
  });

  it('is part of the Vite build', () => {
    const config = readFileSync(path.resolve(__dirname, '../../apps/dashboard/vite.config.ts'), 'utf8');
    expect(config).toMatch(/plugins: \[[^\]]*precompress\(\)/);
  });
});
