import { Writable } from 'node:stream';
import { createLogger } from './logger';

describe('logger', () => {
  it('redacts auth headers, cookies and secrets', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger('api', 'info', sink);
    logger.info(
      {
        req: { headers: { authorization: 'Bearer ts_secret', cookie: 'sid=abc', 'x-api-key': 'k' } },
        rule: { signingSecret: 'whsec_x' },
      },
      'request',
    );
    const text = lines.join('');
    expect(text).not.toMatch(/ts_secret|sid=abc|whsec_x/);
    expect(JSON.parse(text).req.headers).toEqual({
      authorization: '[redacted]',
      cookie: '[redacted]',
      'x-api-key': '[redacted]',
    });
  });
});
