import { AppError } from '@relay/core';
import { createInFlightLimit } from './in-flight-limit';

// A work that stays in flight until the test settles it.
function pending() {
  let settle!: (ok: boolean) => void;
  const promise = new Promise<string>((resolve, reject) => {
    settle = (ok) => (ok ? resolve('done') : reject(new Error('failed')));
  });
  return { work: () => promise, settle };
}

describe('the in-flight limit of ingest (INGEST_MAX_IN_FLIGHT)', () => {
  it('refuses the webhook past the bound without running it, and frees a slot when one settles', async () => {
    const limit = createInFlightLimit(2);
    const [a, b] = [pending(), pending()];
    const first = limit.run(a.work);
    const second = limit.run(b.work);
    expect(limit.count).toBe(2);

    let ran = false;
    const refused = await limit
      .run(async () => {
        ran = true;
      })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'ingest_overloaded', details: { limit: 2, retry_after_seconds: 1 } });
    expect(ran).toBe(false);
    expect(limit.count).toBe(2);

    // A failed webhook gives its slot back as a stored one does.
    b.settle(false);
    await expect(second).rejects.toThrow('failed');
    expect(limit.count).toBe(1);
    await expect(limit.run(async () => 'third')).resolves.toBe('third');
    a.settle(true);
    await expect(first).resolves.toBe('done');
    expect(limit.count).toBe(0);
  });

  it('has no bound at 0', async () => {
    const limit = createInFlightLimit(0);
    const works = Array.from({ length: 50 }, () => pending());
    const runs = works.map((w) => limit.run(w.work));
    expect(limit.count).toBe(50);
    for (const w of works) w.settle(true);
    await expect(Promise.all(runs)).resolves.toHaveLength(50);
    expect(limit.count).toBe(0);
  });
});
