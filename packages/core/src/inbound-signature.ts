import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';
import { DEFAULT_SIGNATURE_TOLERANCE_SECONDS, type VerificationOption } from './rule-options';
import { standardWebhookKeyObject } from './signing';

// Inbound signature verification (issue 18): each preset follows its sender's documented scheme,
// over the raw body bytes as received. Comparisons are constant time over equal-length buffers, so
// a forger learns nothing from timing; a length mismatch is a plain failure, never a throw.

export type InboundSignatureFailure = 'missing_signature' | 'mismatch' | 'timestamp_out_of_tolerance' | 'malformed';
export type InboundSignatureResult = { ok: true } | { ok: false; reason: InboundSignatureFailure };

export interface InboundSignatureInput {
  option: VerificationOption;
  /** Current first, then the replaced one while its rotation window lasts; any that matches verifies. */
  secrets: readonly string[];
  body: Uint8Array;
  /** Lower-cased names, as Node's IncomingMessage gives them. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  nowSeconds: number;
}

const OK: InboundSignatureResult = { ok: true };
const fail = (reason: InboundSignatureFailure): InboundSignatureResult => ({ ok: false, reason });

function headerOf(headers: InboundSignatureInput['headers'], name: string): string | undefined {
  const value = headers[name];
  const text = Array.isArray(value) ? value.join(', ') : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

/** Constant-time equality of two byte strings; unequal lengths are unequal without a timing-dependent compare. */
export function safeEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

type Algorithm = 'sha1' | 'sha256' | 'sha512';
const hmac = (algorithm: Algorithm, key: string | KeyObject, ...parts: (string | Uint8Array)[]) => {
  const mac = createHmac(algorithm, key);
  for (const part of parts) mac.update(part);
  return mac.digest();
};

const HEX = /^[0-9a-f]+$/i;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** The digest a header carries, decoded; undefined when it is not valid text of that encoding. */
function decoded(text: string, encoding: 'hex' | 'base64'): Buffer | undefined {
  if (encoding === 'hex') return HEX.test(text) && text.length % 2 === 0 ? Buffer.from(text, 'hex') : undefined;
  return BASE64.test(text) ? Buffer.from(text, 'base64') : undefined;
}

const anyMatches = (candidates: readonly Buffer[], expected: readonly Buffer[]) => {
  // Every pair is compared (no early exit) so the time does not say which secret or signature matched.
  let matched = false;
  for (const c of candidates) for (const e of expected) matched = safeEqual(c, e) || matched;
  return matched;
};

function timestampCheck(text: string, nowSeconds: number, toleranceSeconds: number): InboundSignatureResult {
  if (!/^\d{1,12}$/.test(text)) return fail('malformed');
  return Math.abs(nowSeconds - Number(text)) <= toleranceSeconds ? OK : fail('timestamp_out_of_tolerance');
}

type Verifier = (input: InboundSignatureInput, tolerance: number) => InboundSignatureResult;

// GitHub: X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, body)>.
const github: Verifier = ({ headers, secrets, body }) =>
  genericHmac(headers, secrets, body, { header: 'x-hub-signature-256', prefix: 'sha256=' });

// Shopify: X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256(secret, body)>.
const shopify: Verifier = ({ headers, secrets, body }) =>
  genericHmac(headers, secrets, body, { header: 'x-shopify-hmac-sha256', encoding: 'base64' });

// Stripe: Stripe-Signature: t=<unix>,v1=<hex>[,v1=…]; HMAC-SHA256(secret, "<t>.<body>"), whsec_… used as given.
const stripe: Verifier = ({ headers, secrets, body, nowSeconds }, tolerance) => {
  const header = headerOf(headers, 'stripe-signature');
  if (header === undefined) return fail('missing_signature');
  const pairs = header.split(',').map((item) => item.trim().split('='));
  const timestamps = pairs.filter(([k]) => k === 't').map(([, v]) => v ?? '');
  const signatures = pairs.filter(([k]) => k === 'v1').map(([, v]) => decoded(v ?? '', 'hex'));
  if (timestamps.length !== 1 || signatures.length === 0 || signatures.some((s) => s === undefined))
    return fail('malformed');
  const t = timestamps[0]!;
  const fresh = timestampCheck(t, nowSeconds, tolerance);
  if (!fresh.ok) return fresh;
  const expected = secrets.map((s) => hmac('sha256', s, `${t}.`, body));
  return anyMatches(signatures as Buffer[], expected) ? OK : fail('mismatch');
};

// Slack: X-Slack-Signature: v0=<hex HMAC-SHA256(secret, "v0:<X-Slack-Request-Timestamp>:<body>")>.
const slack: Verifier = ({ headers, secrets, body, nowSeconds }, tolerance) => {
  const header = headerOf(headers, 'x-slack-signature');
  const timestamp = headerOf(headers, 'x-slack-request-timestamp');
  if (header === undefined || timestamp === undefined) return fail('missing_signature');
  const signature = header.startsWith('v0=') ? decoded(header.slice(3), 'hex') : undefined;
  if (signature === undefined) return fail('malformed');
  const fresh = timestampCheck(timestamp, nowSeconds, tolerance);
  if (!fresh.ok) return fresh;
  const expected = secrets.map((s) => hmac('sha256', s, `v0:${timestamp}:`, body));
  return anyMatches([signature], expected) ? OK : fail('mismatch');
};

// Standard Webhooks: webhook-signature: "v1,<base64> v1,<base64>" over "<webhook-id>.<webhook-timestamp>.<body>",
// keyed by the base64 bytes after whsec_ (standardWebhookKeyObject, as the relay signs its own deliveries).
const standardWebhooks: Verifier = ({ headers, secrets, body, nowSeconds }, tolerance) => {
  const id = headerOf(headers, 'webhook-id');
  const timestamp = headerOf(headers, 'webhook-timestamp');
  const header = headerOf(headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || header === undefined) return fail('missing_signature');
  // Other versions (v1a: asymmetric) may sit beside v1; only v1 is verified.
  const signatures = header
    .split(' ')
    .filter((item) => item.startsWith('v1,'))
    .map((item) => decoded(item.slice(3), 'base64'));
  if (signatures.length === 0 || signatures.some((s) => s === undefined)) return fail('malformed');
  const fresh = timestampCheck(timestamp, nowSeconds, tolerance);
  if (!fresh.ok) return fresh;
  const expected = secrets.map((s) => hmac('sha256', standardWebhookKeyObject(s), `${id}.${timestamp}.`, body));
  return anyMatches(signatures as Buffer[], expected) ? OK : fail('mismatch');
};

interface HmacScheme {
  header: string;
  algorithm?: Algorithm;
  encoding?: 'hex' | 'base64';
  prefix?: string;
}

function genericHmac(
  headers: InboundSignatureInput['headers'],
  secrets: readonly string[],
  body: Uint8Array,
  { header: name, algorithm = 'sha256', encoding = 'hex', prefix = '' }: HmacScheme,
): InboundSignatureResult {
  const header = headerOf(headers, name);
  if (header === undefined) return fail('missing_signature');
  // The prefix is matched case-insensitively (sha256= vs SHA256=); the digest keeps its case rules.
  if (header.slice(0, prefix.length).toLowerCase() !== prefix.toLowerCase()) return fail('malformed');
  const signature = decoded(header.slice(prefix.length), encoding);
  if (signature === undefined) return fail('malformed');
  return anyMatches(
    [signature],
    secrets.map((s) => hmac(algorithm, s, body)),
  )
    ? OK
    : fail('mismatch');
}

const hmacPreset: Verifier = ({ option, headers, secrets, body }) =>
  option.header === undefined
    ? fail('malformed')
    : genericHmac(headers, secrets, body, {
        header: option.header.toLowerCase(),
        ...(option.algorithm ? { algorithm: option.algorithm } : {}),
        ...(option.encoding ? { encoding: option.encoding } : {}),
        ...(option.prefix !== undefined ? { prefix: option.prefix } : {}),
      });

const VERIFIERS: Record<VerificationOption['preset'], Verifier> = {
  github,
  stripe,
  shopify,
  slack,
  standard_webhooks: standardWebhooks,
  hmac: hmacPreset,
};

/** Whether the webhook carries a valid signature of the rule's scheme under one of the secrets. */
export function verifyInboundSignature(input: InboundSignatureInput): InboundSignatureResult {
  // No secret (not expected: the API refuses verification without one): nothing can verify.
  if (input.secrets.length === 0) return fail('mismatch');
  const tolerance = input.option.tolerance_seconds ?? DEFAULT_SIGNATURE_TOLERANCE_SECONDS;
  return VERIFIERS[input.option.preset](input, tolerance);
}
