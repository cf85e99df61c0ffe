// Transformations: a rule's or destination's JavaScript, run in a hard sandbox (docs/transformations.md).
export { createTransformRunner } from './transform-runner';
export { isTransformUnavailable, TransformUnavailableError } from './transform-unavailable-error';
export type {
  TransformCompileResult,
  TransformContext,
  TransformFailure,
  TransformFailureCause,
  TransformInput,
  TransformRequest,
  TransformResult,
  TransformRunner,
  TransformRunnerOptions,
} from './transform-types';
