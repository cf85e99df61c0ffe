// The sandbox itself failed, not the transform: a thread that did not start (or not in time), one that died of
// something other than the call's own limits, a runner closed under the call. Thrown rather than answered as a
// failure, because it says nothing about the code: the delivery worker treats it as a relay fault (deferred and
// tried again, no attempt counted), never as the transform's error (docs/transformations.md).
export class TransformUnavailableError extends Error {
  override readonly name = 'TransformUnavailableError';
  readonly code = 'transform_unavailable';
}

/** Whether an error (possibly from another copy of this package) is the sandbox being unavailable. */
export const isTransformUnavailable = (error: unknown): error is TransformUnavailableError =>
  error instanceof Error && (error as { code?: unknown }).code === 'transform_unavailable';
