import http from 'node:http';
import https from 'node:https';
import { createGuardedLookup, type AttemptOutcome, type TargetPolicy } from '@relay/core';
import got from 'got';
import { createTunnelAgents, type OutboundProxy } from './outbound-proxy';

export const RESPONSE_EXCERPT_BYTES = 64 * 1024;

export interface SendRequest {
  url: string;
  body: Buffer;
  headers: Record<string, string>;
  /** This request's time-out (a rule's delivery policy); absent: the sender's own (DELIVERY_TIMEOUT_MS). */
  timeoutMs?: number | undefined;
}

export interface SendResult {
  outcome: AttemptOutcome;
  responseBody: string | null;
  durationMs: number;
}

export interface SenderOptions {
  timeoutMs: number;
  policy: TargetPolicy;
  maxSockets?: number;
  /** OUTBOUND_PROXY_URL: every request goes through a CONNECT tunnel of this proxy. */
  proxy?: OutboundProxy | undefined;
}

// One HTTP client per worker process: keep-alive agents created once, the target policy checked on
// the address actually dialled, no redirects (a 3xx is the target's answer), no retries (the
// retry policy in core decides, BullMQ keeps time).
export function createSender(options: SenderOptions) {
  const lookup = createGuardedLookup(options.policy);
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 256, lookup };
  // Through a proxy the tunnel resolves and checks the target itself (outbound-proxy.ts).
  const agent = options.proxy
    ? createTunnelAgents({ proxy: options.proxy, lookup, timeoutMs: options.timeoutMs }, agentOptions)
    : { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  const client = got.extend({
    agent,
    retry: { limit: 0 },
    followRedirect: false,
    throwHttpErrors: false,
    timeout: { request: options.timeoutMs },
  });

  function send(request: SendRequest): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise((resolve) => {
      const stream = client.stream.post(request.url, {
        body: request.body,
        headers: request.headers,
        ...(request.timeoutMs !== undefined ? { timeout: { request: request.timeoutMs } } : {}),
      });
      const chunks: Buffer[] = [];
      let kept = 0;
      let status: number | undefined;
      let retryAfter: string | undefined;
      let settled = false;
      const finish = (outcome: AttemptOutcome) => {
        if (settled) return;
        settled = true;
        const responseBody = status === undefined ? null : Buffer.concat(chunks).toString('utf8');
        resolve({ outcome, responseBody, durationMs: elapsed() });
      };
      stream.on('response', (res: http.IncomingMessage) => {
        status = res.statusCode;
        const header = res.headers['retry-after'];
        retryAfter = Array.isArray(header) ? (header[0] as string | undefined) : header;
      });
      stream.on('data', (chunk: Buffer) => {
        if (kept < RESPONSE_EXCERPT_BYTES) {
          const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept);
          chunks.push(part);
          kept += part.length;
        }
        // The rest of a huge answer is not worth reading: the status is what counts.
        if (kept >= RESPONSE_EXCERPT_BYTES) {
          stream.destroy();
          finish({ kind: 'response', status: status ?? 0, retryAfter });
        }
      });
      stream.on('end', () => finish({ kind: 'response', status: status ?? 0, retryAfter }));
      stream.on('error', (err: Error & { code?: string }) => {
        if (status !== undefined) return finish({ kind: 'response', status, retryAfter });
        const cause = (err as { cause?: Error & { code?: string } }).cause;
        const code = err.code ?? cause?.code ?? 'ERR_NETWORK';
        if (code === 'ERR_TARGET_BLOCKED' || cause?.code === 'ERR_TARGET_BLOCKED') {
          return finish({ kind: 'blocked', message: cause?.message ?? err.message });
        }
        if (code === 'ERR_INVALID_URL') return finish({ kind: 'invalid_target', message: err.message });
        finish({ kind: 'network', code, message: err.message });
      });
    });
  }

  return {
    send,
    close() {
      agent.http.destroy();
      agent.https.destroy();
    },
  };
}

export type Sender = ReturnType<typeof createSender>;
