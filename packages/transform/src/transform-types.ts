// The shapes of a transform call: Hookdeck's `addHandler('transform', (request, context) => request)`.

/** The webhook as the transform sees it, and as it must return it. */
export interface TransformRequest {
  /** The parsed JSON body. */
  body: unknown;
  headers: Record<string, string>;
  path: string;
  query: Record<string, string | string[]>;
}

/**
 * What run() is given: the request, or the request with its body as JSON text (a stored webhook's bytes as they
 * are), which then crosses into the sandbox as it is, never parsed nor serialised on the host. Text that is not JSON
 * (a row stored before ingest took only JSON) reaches the transform as that string, an empty one as null.
 */
export type TransformInput = TransformRequest | (Omit<TransformRequest, 'body'> & { bodyJson: string });

export interface TransformContext {
  event_id: string;
  source: string;
  rule_id: string;
  destination_id?: string;
}

/** Why a call failed: its time or memory limit, the code's own error, an output that cannot be sent, a size. */
export type TransformFailureCause = 'timeout' | 'memory' | 'error' | 'invalid_output' | 'too_large';

export interface TransformFailure {
  message: string;
  /** The line of the transform's own code, when the error names one. */
  line?: number;
  cause: TransformFailureCause;
}

/** On success `bodyJson` is the returned body as the JSON text to send (what `request.body` was parsed from). */
export type TransformResult =
  | { ok: true; request: TransformRequest; bodyJson: string; logs: string }
  | { ok: false; error: TransformFailure; logs: string };

/** A dry compile: whether the code parses and compiles as a script (it is not run). */
export type TransformCompileResult = { ok: true } | { ok: false; error: TransformFailure };

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
  /** How long a new sandbox thread may take to start before the call reports the sandbox unavailable. */
  startTimeoutMs?: number;
}

/** run() and compile() throw TransformUnavailableError when the sandbox itself failed (not the code). */
export interface TransformRunner {
  run(code: string, request: TransformInput, context: TransformContext): Promise<TransformResult>;
  /** Parses and compiles the code in a sandbox without running it (a SyntaxError, with its line, or too large). */
  compile(code: string): Promise<TransformCompileResult>;
  /** Ends every sandbox thread; calls still waiting fail. */
  close(): Promise<void>;
}
