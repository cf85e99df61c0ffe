import { createDomainService } from './domains/domain.service';
import type { ModuleContext } from './module-context';

/** Every module's service, as operation handlers receive them. */
export function createServices(ctx: ModuleContext) {
  return {
    domains: createDomainService({
      repositories: ctx.repositories,
      canonicalHost: ctx.hosts.canonicalHost,
      verify: ctx.verifyDomain,
    }),
  };
}

export type ApiServices = ReturnType<typeof createServices>;
