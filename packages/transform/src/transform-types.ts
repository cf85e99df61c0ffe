// The shapes of a transform call: Hookdeck's `addHandler('transform', (request, context) => request)`.

/** The webhook as the transform sees it, and as it must return it. */
export interface TransformRequest {
  /** The parsed JSON body. */
  body: unknown;
  headers: Record<string, string>;
  path: string;
  query: Record<string, string | string[]>;
}

export interface TransformContext {
  event_id: string;
  source: string;
  rule_id: string;
  destination_id?: string;
}

/** Why a call failed: its time or memory limit, the code's own error, an output that cannot be sent, a size. */
export type TransformFailureCause = 'timeout' | 'memory' | 'error' | 'invalid_output' | 'too_large';

export type TransformResult =
  | { ok: true; request: TransformRequest; logs: string }
  | { ok: false; error: { message: string; line?: number; cause: TransformFailureCause }; logs: string };

export interface TransformRunnerOptions {
  /** Wall time of one call (TRANSFORM_TIMEOUT_MS). */
  timeoutMs?: number;
  /** The hard cap of one sandbox's WebAssembly memory (TRANSFORM_MEMORY_MB). */
  memoryMb?: number;
  /** Sandboxes (worker threads) running at once; further calls wait their turn (TRANSFORM_CONCURRENCY). */
  concurrency?: number;
  maxCodeBytes?: number;
  /** The returned body's JSON size limit (INGEST_MAX_BODY_BYTES). */
  maxOutputBytes?: number;
  /** console output kept per call. */
  maxLogBytes?: number;
}

export interface TransformRunner {
  run(code: string, request: TransformRequest, context: TransformContext): Promise<TransformResult>;
  /** Ends every sandbox thread; calls still waiting fail. */
  close(): Promise<void>;
}
