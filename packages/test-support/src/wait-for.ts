/**
 * Polls until `check` returns a value other than undefined/false, or fails after `timeoutMs`. The default is a hang
 * guard a busy CI machine meets (a test that took 5 s alone took over 30 s there beside the other suites).
 */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 30_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}` +
          (last ? `: ${last instanceof Error ? last.message : JSON.stringify(last)}` : ''),
      );
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
