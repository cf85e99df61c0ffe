import { dirname, resolve as resolvePath } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, stringify, type Node } from 'yaml';
import { UsageError } from '../../errors';

// The configuration file of `relay apply` (docs/config-as-code.md): YAML or JSON (JSON is YAML), read with line
// positions so that an error the api names by JSON path (`/rules/2/target_url`) is told at the file's line.

export interface ConfigFile {
  /** The document as written: secrets still as references. */
  document: unknown;
  /** The line (from 1) of the value at a JSON pointer, or of the nearest enclosing value the file has. */
  lineOf(pointer: string): number | undefined;
}

const unescape = (segment: string) => segment.replaceAll('~1', '/').replaceAll('~0', '~');

export function parseConfigFile(text: string, name: string): ConfigFile {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const [error] = doc.errors;
  if (error) {
    const line = lineCounter.linePos(error.pos[0]).line;
    throw new UsageError(`${name}${line ? `:${line}` : ''}: not valid YAML or JSON (${error.message.split('\n')[0]})`);
  }
  const lineOf = (pointer: string) => {
    const segments = pointer === '' ? [] : pointer.slice(1).split('/').map(unescape);
    let node: Node | null | undefined = doc.contents;
    let line = node?.range ? lineCounter.linePos(node.range[0]).line : undefined;
    for (const segment of segments) {
      if (isSeq(node)) node = node.items[Number(segment)] as Node | undefined;
      else if (isMap(node)) {
        const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === segment);
        // The key's line: a missing value (`target_url:` left empty) still has its key.
        if (pair && isScalar(pair.key) && pair.key.range) line = lineCounter.linePos(pair.key.range[0]).line;
        node = pair?.value as Node | undefined;
        if (!pair) break;
        continue;
      } else break;
      if (!node) break;
      if (node.range) line = lineCounter.linePos(node.range[0]).line;
    }
    return line;
  };
  return { document: doc.toJS() as unknown, lineOf };
}

/** What resolving a reference may read: the environment and files (relative to the configuration file). */
export interface SecretSources {
  env: Record<string, string | undefined>;
  readFile(path: string): string;
  /** The configuration file's own path: `${file:./x}` is relative to its folder. */
  configPath: string;
}

const REFERENCE = /^\$\{(env|file):([^}]+)\}$/;

/**
 * The document with every `${env:NAME}` and `${file:./path}` replaced by the secret it names (a file's trailing
 * newline dropped). Only string values that are a whole reference are resolved; an error names the reference and
 * where it is, never a value.
 */
export function resolveSecrets(document: unknown, sources: SecretSources, file: ConfigFile, name: string): unknown {
  const walk = (value: unknown, pointer: string): unknown => {
    if (Array.isArray(value)) return value.map((v, i) => walk(v, `${pointer}/${i}`));
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, `${pointer}/${k}`)]));
    if (typeof value !== 'string') return value;
    const match = REFERENCE.exec(value);
    if (!match) return value;
    const where = `${name}:${file.lineOf(pointer) ?? '?'}`;
    const [, kind, ref] = match as unknown as [string, 'env' | 'file', string];
    if (kind === 'env') {
      const found = sources.env[ref];
      if (found === undefined || found === '') throw new UsageError(`${where}: ${value}: ${ref} is not set`);
      return found;
    }
    const path = resolvePath(dirname(sources.configPath), ref);
    try {
      return sources.readFile(path).replace(/\r?\n$/, '');
    } catch (error) {
      throw new UsageError(
        `${where}: ${value}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  };
  return walk(document, '');
}

/** The export as a file: YAML (the default) or JSON. */
export const formatConfig = (document: unknown, format: 'yaml' | 'json') =>
  format === 'json' ? `${JSON.stringify(document, null, 2)}\n` : stringify(document, { lineWidth: 0 });
