import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readingLoader, withReadingLoader } from '../../scripts/lib/prisma-wasm-loader.mjs';

// The app bundles compile Prisma's query compiler from its file instead of importing the module that holds it as a
// 2.3 MB string, which an import keeps in the heap for the life of the process (scripts/lib/prisma-wasm-loader.mjs).
const ROOT = path.resolve(__dirname, '../..');
const GENERATED = path.join(ROOT, 'packages/db/src/generated/prisma/internal/class.ts');
const SPECIFIER = /import\("(@prisma\/client\/runtime\/query_compiler_\w+\.postgresql\.wasm-base64\.js)"\)/;

/** Runs `body` as an async function in a plain Node process, with `require` resolving from packages/db. */
function runInNode(body: string) {
  const script = `
    import { createRequire } from 'node:module';
    const require = createRequire(${JSON.stringify(path.join(ROOT, 'packages/db/package.json'))});
    const AsyncFunction = (async () => {}).constructor;
    const module = await new AsyncFunction('require', ${JSON.stringify(body)})(require);
    console.log(JSON.stringify(WebAssembly.Module.exports(module).map((e) => e.name + ':' + e.kind)));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout) as string[];
}

describe("the bundles' loader of Prisma's query compiler", () => {
  const generated = readFileSync(GENERATED, 'utf8');
  const specifier = SPECIFIER.exec(generated)?.[1] ?? '';

  it('replaces the import of the base64 module in the generated client', () => {
    expect(specifier).not.toBe('');
    const replaced = withReadingLoader(generated, GENERATED);
    expect(replaced).not.toMatch(SPECIFIER);
    expect(replaced).toContain(`require.resolve(${JSON.stringify(specifier)})`);
    // Everything else of the generated client is left as it was.
    expect(replaced.replace(readingLoader(specifier), '')).toBe(
      generated.replace(/const \{ wasm \}[^\n]*\n\s*return await decodeBase64AsWasm\(wasm\)/, ''),
    );
  });

  it('fails the build when a Prisma upgrade changed the code it replaces', () => {
    expect(() => withReadingLoader(generated.replace(SPECIFIER, 'import("elsewhere")'), 'class.ts')).toThrow(
      /class\.ts: the query compiler's import was not found/,
    );
  });

  it("compiles the same WebAssembly module as the generated client's own loader", () => {
    const own = runInNode(
      `const { wasm } = await import(require.resolve(${JSON.stringify(specifier)}));
       return new WebAssembly.Module(Buffer.from(wasm, 'base64'));`,
    );
    const reading = runInNode(readingLoader(specifier) + ';');
    expect(own).toContain('querycompiler_compile:function');
    expect(reading).toEqual(own);
  });
});
