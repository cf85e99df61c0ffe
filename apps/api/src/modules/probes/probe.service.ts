import { checkReadiness, type Readiness } from '@relay/service-kit';

// Readiness asks every dependency at once; a process that is shutting down is never ready, so the
// load balancer stops sending to it while it finishes what is in flight.
export function createProbeService(deps: Readiness & { timeoutMs?: number }) {
  return {
    async readiness(): Promise<{ ready: boolean; reason: string | null; checks: Record<string, string> }> {
      const report = await checkReadiness(deps, deps.timeoutMs);
      const reason = report.shuttingDown ? 'Shutting down.' : report.ready ? null : 'A dependency is unavailable.';
      return { ready: report.ready, reason, checks: report.checks };
    },
  };
}
