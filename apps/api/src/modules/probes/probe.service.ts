import { checkReadiness, type Readiness } from '@relay/service-kit';

// Readiness asks every dependency at once; a process that is shutting down is never ready, so the
// load balancer stops sending to it while it finishes what is in flight.
// A process is not ready either before its start-up work (the initial admin) is done: a load
// balancer would otherwise send logins for an admin that does not exist yet.
export function createProbeService(deps: Readiness & { isStarted: () => boolean; timeoutMs?: number }) {
  return {
    async readiness(): Promise<{ ready: boolean; reason: string | null; checks: Record<string, string> }> {
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
      return { ready, reason, checks: report.checks };
    },
  };
}
