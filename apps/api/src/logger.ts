import { pino, type Logger } from 'pino';

// Secrets never reach the logs, whatever a caller puts in a log object.
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.secret',
  '*.signingSecret',
  '*.token',
];

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    { level, base: { service: 'api' }, redact: { paths: REDACT_PATHS, censor: '[redacted]' } },
    destination as never,
  );
}
