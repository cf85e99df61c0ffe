import { pino, type Logger } from 'pino';

// One redaction list for every process: secrets never reach the logs, whatever a caller puts in a
// log object (request headers, rule records, login bodies).
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

/** The JSON logger of a process, `service` naming it in every line. */
export function createLogger(service: string, level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    { level, base: { service }, redact: { paths: REDACT_PATHS, censor: '[redacted]' } },
    destination as never,
  );
}
