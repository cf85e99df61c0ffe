// What a transform returned, checked before anything is sent: the body must fit the size a webhook may have,
// headers are strings, the path a string, the query strings or lists of strings.
import type { TransformRequest, TransformResult } from './transform-types';

type Failure = Extract<TransformResult, { ok: false }>['error'];

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const invalid = (message: string): Failure => ({ cause: 'invalid_output', message });

/** What the sandbox returned: the request's parts but its body, and the body as the JSON text to be sent. */
export type SandboxOutput =
  { invalid: string } | { tooLarge: true } | { meta: Record<string, unknown>; bodyJson: string };

export type ValidOutput = { ok: true; request: TransformRequest; bodyJson: string };

// The body is checked by its size only (the sandbox made it with JSON.stringify): it is parsed only if the caller reads
// `request.body`, and never serialised again here.
export function validateOutput(
  output: SandboxOutput,
  maxOutputBytes: number,
): ValidOutput | { ok: false; error: Failure } {
  if ('invalid' in output) return { ok: false, error: invalid(output.invalid) };
  if ('tooLarge' in output)
    return {
      ok: false,
      error: { cause: 'too_large', message: `the returned request is over ${maxOutputBytes} bytes` },
    };
  const { meta: request, bodyJson } = output;
  if (!isRecord(request)) return { ok: false, error: invalid('the handler must return the request object') };
  const bodyBytes = Buffer.byteLength(bodyJson);
  if (bodyBytes > maxOutputBytes)
    return {
      ok: false,
      error: { cause: 'too_large', message: `the returned body is ${bodyBytes} bytes, over ${maxOutputBytes}` },
    };
  const headers = request.headers ?? {};
  if (!isRecord(headers)) return { ok: false, error: invalid('request.headers must be an object of strings') };
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name))
      return { ok: false, error: invalid(`header name ${JSON.stringify(name)} is not valid`) };
    if (typeof value !== 'string')
      return {
        ok: false,
        error: invalid(`header ${name} must be a string, not ${value === null ? 'null' : typeof value}`),
      };
    if (!HEADER_VALUE.test(value)) return { ok: false, error: invalid(`header ${name} holds a control character`) };
  }
  const path = request.path ?? '';
  if (typeof path !== 'string') return { ok: false, error: invalid('request.path must be a string') };
  const query = request.query ?? {};
  if (!isRecord(query)) return { ok: false, error: invalid('request.query must be an object') };
  for (const [name, value] of Object.entries(query)) {
    const ok = typeof value === 'string' || (Array.isArray(value) && value.every((v) => typeof v === 'string'));
    if (!ok) return { ok: false, error: invalid(`query ${name} must be a string or a list of strings`) };
  }
  return { ok: true, bodyJson, request: withLazyBody(bodyJson, headers, path, query) };
}

// The returned request, its `body` parsed from the JSON text on first read only: a delivery sends the text and never
// reads it (one parse, and its garbage, less per delivery); transform-test shows it. It reads, serialises and compares
// as a plain property.
function withLazyBody(
  bodyJson: string,
  headers: Record<string, unknown>,
  path: string,
  query: Record<string, unknown>,
): TransformRequest {
  let body: unknown;
  let parsed = false;
  const request = {} as TransformRequest;
  Object.defineProperty(request, 'body', {
    enumerable: true,
    configurable: true,
    get() {
      if (!parsed) {
        body = JSON.parse(bodyJson) as unknown;
        parsed = true;
      }
      return body;
    },
    set(value: unknown) {
      body = value;
      parsed = true;
    },
  });
  return Object.assign(request, { headers, path, query });
}
