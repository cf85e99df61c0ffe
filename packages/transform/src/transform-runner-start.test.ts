// A runner compiles QuickJS for its first sandbox thread, not when it is made (transform-runner.ts): the api and the
// workers make one at start whether or not any rule has a transform. Its own file: the compiled module is the
// process's (jest gives each file its own module registry, so no other test has compiled it here).
import { isQuickJSCompiled } from './quickjs-module';
import { createTransformRunner } from './transform-runner';

it('compiles no QuickJS module until its first call, then compiles it for the thread that runs the call', async () => {
  const runner = createTransformRunner();
  try {
    expect(isQuickJSCompiled()).toBe(false);
    await expect(runner.compile('function transform(request) { return request; }')).resolves.toEqual({ ok: true });
    expect(isQuickJSCompiled()).toBe(true);
  } finally {
    await runner.close();
  }
});
