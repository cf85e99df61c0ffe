import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

declare module 'http' {
  interface IncomingMessage {
    id: string;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

// Request ids come from a trusted proxy's X-Request-Id when it looks sane, otherwise are made here,
// and are echoed so a client can quote them. Failures are logged where they are handled (the error
// handler); an access line per request is written only at debug level: at ingest rates a log line
// per webhook would cost more than the webhook.
export function requestLogger(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    req.id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    if (logger.isLevelEnabled('debug')) {
      const started = performance.now();
      res.on('finish', () => {
        logger.debug(
          {
            requestId: req.id,
            method: req.method,
            url: req.originalUrl,
            status: res.statusCode,
            ms: Math.round(performance.now() - started),
          },
          'request',
        );
      });
    }
    next();
  };
}
