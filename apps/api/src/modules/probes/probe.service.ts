import type { replicaReadinessSchema } from '@relay/contracts';
import type { ReplicaState } from '@relay/db';
import { checkReadiness, type Readiness } from '@relay/service-kit';
import type { z } from 'zod';

type ReplicaReadiness = z.output<typeof replicaReadinessSchema>;

const replicaView = (state: ReplicaState): ReplicaReadiness => ({
  status: state.status,
  reads: state.reads,
  lag_seconds: state.lagSeconds,
  lag_bytes: state.lagBytes,
  ...(state.error === undefined ? {} : { error: state.error }),
});

// Readiness asks every dependency at once; a process that is shutting down is never ready, so the
// load balancer stops sending to it while it finishes what is in flight.
// A process is not ready either before its start-up work (the initial admin) is done: a load
// balancer would otherwise send logins for an admin that does not exist yet.
// The read replica is a detail, not a check: while it lags or is away reads go to the primary, so the process serves.
export function createProbeService(
  deps: Readiness & { isStarted: () => boolean; timeoutMs?: number; replica?: () => ReplicaState },
) {
  return {
    async readiness(): Promise<{
      ready: boolean;
      reason: string | null;
      checks: Record<string, string>;
      replica?: ReplicaReadiness;
    }> {
      const report = await checkReadiness(deps, deps.timeoutMs);
      const started = deps.isStarted();
      const ready = report.ready && started;
      const reason = report.shuttingDown
        ? 'Shutting down.'
        : !report.ready
          ? 'A dependency is unavailable.'
          : started
            ? null
            : 'Start-up work (the initial admin) is not done yet.';
      const replica = deps.replica ? { replica: replicaView(deps.replica()) } : {};
      return { ready, reason, checks: report.checks, ...replica };
    },
  };
}
