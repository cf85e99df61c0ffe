// esbuild plugin for the app bundles: the generated Prisma client loads its query compiler (WebAssembly) by
// importing a module whose only export is the compiler as a 2.3 MB base64 string. Imported, that text stays in the
// heap for the life of the process twice (the module's source and the string), 4.6 MB of every process's live heap,
// which the heap's growing factor multiplies into its peak RSS (docs/performance.md, "What an idle process holds").
// The bundles read the same file instead and compile the module from it, so nothing of the text outlives the load.
// The build fails if the generated code no longer has the import this replaces (a Prisma upgrade changed it).
import { readFile } from 'node:fs/promises';

const GENERATED = /[\\/]generated[\\/]prisma[\\/]internal[\\/]class\.ts$/;
const IMPORT =
  /const \{ wasm \} = await import\("(@prisma\/client\/runtime\/query_compiler_\w+\.postgresql\.wasm-base64\.js)"\)\s*\n\s*return await decodeBase64AsWasm\(wasm\)/;

/** The code that replaces the import: `require` is the bundle's own (its banner creates it). */
export function readingLoader(specifier) {
  return (
    `const { readFile } = await import('node:fs/promises');\n` +
    `    const text = await readFile(require.resolve(${JSON.stringify(specifier)}), 'latin1');\n` +
    `    const base64 = text.slice(text.indexOf('"') + 1, text.lastIndexOf('"'));\n` +
    `    return new WebAssembly.Module(Buffer.from(base64, 'base64'))`
  );
}

/** The generated client's source with the import replaced; throws when the import is not there. */
export function withReadingLoader(source, file) {
  const match = IMPORT.exec(source);
  if (!match)
    throw new Error(`${file}: the query compiler's import was not found (scripts/lib/prisma-wasm-loader.mjs)`);
  return source.replace(IMPORT, readingLoader(match[1]));
}

export function prismaWasmLoader() {
  return {
    name: 'prisma-wasm-loader',
    setup(b) {
      b.onLoad({ filter: GENERATED }, async (args) => ({
        contents: withReadingLoader(await readFile(args.path, 'utf8'), args.path),
        loader: 'ts',
      }));
    },
  };
}
