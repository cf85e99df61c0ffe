import path from 'node:path';

/** A precompressed copy of a built file: `Content-Encoding` and the suffix the build gave it (vite-precompress.ts). */
export interface Encoding {
  coding: 'br' | 'gzip';
  suffix: '.br' | '.gz';
}

/** Brotli first (smaller), then gzip; identity when the browser accepts neither. */
const PREFERENCE: readonly Encoding[] = [
  { coding: 'br', suffix: '.br' },
  { coding: 'gzip', suffix: '.gz' },
];

/** The build compresses text files only; anything else is served as it is, never looked up twice. */
const PRECOMPRESSED = new Set(['.js', '.mjs', '.css', '.html', '.svg', '.json', '.txt', '.map']);

export const mayBePrecompressed = (file: string) => PRECOMPRESSED.has(path.extname(file).toLowerCase());

/** The q-value of each coding an `Accept-Encoding` header names (RFC 9110 §12.5.3); `*` stands for the rest. */
function qualities(header: string): Map<string, number> {
  const map = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().split(';');
    const coding = name.trim().toLowerCase();
    if (coding === '') continue;
    const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
    map.set(coding, q === undefined ? 1 : Number(q));
  }
  return map;
}

/**
 * The codings to try for a request, best first: those the client accepts (q > 0), by the server's preference
 * rather than the header's order, as browsers list gzip before br while br is the smaller.
 */
export function acceptedEncodings(header: string | undefined): Encoding[] {
  if (header === undefined || header.trim() === '') return [];
  const q = qualities(header);
  const wildcard = q.get('*') ?? 0;
  return PREFERENCE.filter(({ coding }) => (q.get(coding) ?? wildcard) > 0);
}
