import type { IncomingMessage } from 'node:http';
import { AppError } from '@relay/core';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;

/** `application/json` and any `application/<x>+json`; parameters such as charset are ignored. */
export function isJsonContentType(header: string | undefined): boolean {
  const mediaType = header?.split(';')[0]?.trim();
  return mediaType !== undefined && JSON_TYPE.test(mediaType);
}

// Reads the raw body with the size limit applied as bytes arrive, so an oversized upload is cut off
// without buffering it, and keeps the exact bytes: what is delivered is what was received.
export function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
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
      try {
        JSON.parse(body.toString('utf8'));
      } catch {
        reject(new AppError('invalid_json', 'The body is not valid JSON.'));
        return;
      }
      resolve(body);
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
