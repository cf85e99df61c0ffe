import { metricsAccessAllowed } from '@relay/service-kit';
import type { ApiMetrics } from './api-metrics';

// Prometheus scrapes: the registry's text, for the bearer of METRICS_TOKEN (anyone while it is unset).
export function createMetricsService(deps: { metrics: ApiMetrics; token: string | undefined }) {
  return {
    /** The exposition text, or undefined when the scrape is refused (no or wrong METRICS_TOKEN). */
    async scrape(authorization: string | undefined): Promise<string | undefined> {
      if (!metricsAccessAllowed(authorization, deps.token)) return undefined;
      return deps.metrics.registry.metrics();
    },
    contentType: deps.metrics.registry.contentType,
  };
}
