// A batch's items settled one by one, for the stores that gather deliveries in flight into one statement
// (delivery-store.ts, destination-store.ts).

export type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

// A batch that fails is retried one item at a time, so an item that cannot be written (or loaded)
// fails alone: before, one unstorable outcome failed its whole batch and every healthy event in it
// was delivered again.
export async function settleEach<T, R>(items: T[], all: (items: T[]) => Promise<R[]>): Promise<Settled<R>[]> {
  try {
    return (await all(items)).map((value): Settled<R> => ({ ok: true, value }));
  } catch (error) {
    if (items.length === 1) return [{ ok: false, error }];
    return Promise.all(
      items.map((item) =>
        all([item]).then(
          ([value]): Settled<R> => ({ ok: true, value: value as R }),
          (err: unknown): Settled<R> => ({ ok: false, error: err }),
        ),
      ),
    );
  }
}

export const unwrap = <R>(settled: Settled<R>): R => {
  if (settled.ok) return settled.value;
  throw settled.error;
};
