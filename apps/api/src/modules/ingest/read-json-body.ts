import type { IncomingMessage } from 'node:http';
import { AppError, jsonTextDepth } from '@relay/core';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;

/** `application/json` and any `application/<x>+json`; parameters such as charset are ignored. */
export function isJsonContentType(header: string | undefined): boolean {
  const mediaType = header?.split(';')[0]?.trim();
  return mediaType !== undefined && JSON_TYPE.test(mediaType);
}

export interface JsonBodyLimits {
  maxBytes: number;
  /** Deepest nesting of objects and arrays accepted (MAX_PAYLOAD_DEPTH). */
  maxDepth: number;
}

// Strict: a byte sequence that is not UTF-8 is refused here, before batching. Decoding leniently
// would store bytes Postgres cannot read as text (the search column), failing the whole batch.
// The BOM is kept, so JSON.parse refuses it as before.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Checks the complete body: UTF-8, then nesting depth (before parsing anything deep), then JSON. */
function refusalOf(body: Buffer, maxDepth: number): AppError | undefined {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return new AppError('invalid_encoding', 'The body is not valid UTF-8.');
  }
  if (jsonTextDepth(body, maxDepth) > maxDepth) {
    return new AppError('payload_too_deep', `The JSON is nested deeper than ${maxDepth} levels.`, {
      limit_depth: maxDepth,
    });
  }
  try {
    JSON.parse(text);
  } catch {
    return new AppError('invalid_json', 'The body is not valid JSON.');
  }
  return undefined;
}

// Reads the raw body with the size limit applied as bytes arrive, so an oversized upload is cut off
// without buffering it, and keeps the exact bytes: what is delivered is what was received.
export function readJsonBody(req: IncomingMessage, { maxBytes, maxDepth }: JsonBodyLimits): Promise<Buffer> {
  if (!isJsonContentType(req.headers['content-type'])) {
    return Promise.reject(new AppError('unsupported_media_type', 'Send the webhook as application/json.'));
  }
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
    return Promise.reject(
      new AppError('unsupported_content_encoding', `Content-Encoding ${encoding} is not accepted.`),
    );
  }
  const tooLarge = () =>
    new AppError('payload_too_large', `The body is larger than ${maxBytes} bytes.`, { limit_bytes: maxBytes });
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.reject(tooLarge());

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        req.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      const refusal = refusalOf(body, maxDepth);
      if (refusal) reject(refusal);
      else resolve(body);
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
