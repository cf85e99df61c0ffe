import { AppError } from '@relay/core';
import { TransformUnavailableError } from '@relay/transform';
import { checkTransform } from './transform-pacing';

// A sandbox that fails on its own says nothing about the code: saving answers 503 (try again), never a 400 about the
// transform nor a 500.
describe('the transform check at save', () => {
  it('answers service_unavailable when the sandbox itself is unavailable', async () => {
    const compiler = {
      compile: () => Promise.reject(new TransformUnavailableError('the sandbox did not start: it did not start')),
    };
    const error = await checkTransform(compiler, "addHandler('transform', (r) => r);").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'service_unavailable' });
  });

  it('lets any other error through as it is', async () => {
    const compiler = { compile: () => Promise.reject(new Error('something else')) };
    await expect(checkTransform(compiler, 'x')).rejects.toThrow('something else');
  });
});
