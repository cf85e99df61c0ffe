import { pino, type Logger } from 'pino';

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'delivery-worker' },
      redact: {
        paths: ['*.signingSecret', '*.secret', 'headers.authorization', 'headers.cookie'],
        censor: '[redacted]',
      },
    },
    destination as never,
  );
}
