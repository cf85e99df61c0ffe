import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

export const root = path.resolve(__dirname, '../..');
export const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

export interface ComposeService {
  image?: string;
  build?: string | { context: string; args?: Record<string, string> };
  environment?: Record<string, string>;
  entrypoint?: string[];
  env_file?: unknown;
  [key: string]: unknown;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  configs?: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

/** A compose file as Compose reads it before interpolation: YAML 1.1 merge keys (`<<: *relay-env`) resolved. */
export function readCompose(file: string): ComposeFile {
  return parse(read(file), { merge: true }) as ComposeFile;
}

const REFERENCE = /\$(?:\$|\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g;

/** Compose's interpolation of one string: `${NAME:-default}`, `${NAME-default}`, `${NAME}`, `$NAME`, and `$$` for `$`. */
export function interpolateText(text: string, env: Record<string, string | undefined>): string {
  return text.replace(REFERENCE, (whole, braced?: string, fallback?: string, bare?: string) => {
    if (whole === '$$') return '$';
    const name = braced ?? bare!;
    const value = env[name];
    const colon = whole.includes(':-');
    if (value === undefined || (colon && value === '')) return fallback ?? '';
    return value;
  });
}

/** The whole file interpolated, every string scalar (keys stay as written, as Compose does). */
export function interpolate<T>(value: T, env: Record<string, string | undefined>): T {
  if (typeof value === 'string') return interpolateText(value, env) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => interpolate(item, env)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item, env)])) as T;
  }
  return value;
}

/** `NAME=value` lines of .env.example, commented-out examples (`# NAME=value`) included. */
export function exampleSettings(): Map<string, string> {
  return new Map(
    read('.env.example')
      .split('\n')
      .map((line) => /^(?:# )?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );
}
