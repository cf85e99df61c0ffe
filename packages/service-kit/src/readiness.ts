export interface Readiness {
  checks: Record<string, () => Promise<void>>;
  isShuttingDown: () => boolean;
}

export interface ReadinessReport {
  ready: boolean;
  shuttingDown: boolean;
  /** Each dependency: `ok` or `unavailable: <why>`. */
  checks: Record<string, string>;
}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Runs every dependency check at once, each bounded so a hung dependency cannot hang the probe. */
export async function checkReadiness(readiness: Readiness, timeoutMs = 2_000): Promise<ReadinessReport> {
  const entries = await Promise.all(
    Object.entries(readiness.checks).map(async ([name, check]) => {
      try {
        await within(check(), timeoutMs);
        return [name, 'ok'] as const;
      } catch (err) {
        return [name, `unavailable: ${(err as Error).message}`] as const;
      }
    }),
  );
  const shuttingDown = readiness.isShuttingDown();
  const ready = !shuttingDown && entries.every(([, state]) => state === 'ok');
  return { ready, shuttingDown, checks: Object.fromEntries(entries) };
}
