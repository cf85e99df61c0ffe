// The API's request and response schemas (zod), with no Express or database in sight: the api
// validates and documents with them, and the MCP server reuses them as tool schemas.
export * from './account.schemas';
export * from './common.schemas';
export * from './domains.schemas';
export * from './events.schemas';
export * from './identity.schemas';
export * from './idp.schemas';
export * from './limits.schemas';
export * from './identity-provider.schemas';
export * from './platform.schemas';
export * from './public.schemas';
export * from './rule-options.schemas';
export * from './rule-ordering.schemas';
export * from './rules.schemas';
export * from './send.schemas';
export * from './settings.schemas';
export * from './stats.schemas';
export * from './stream.schemas';
export * from './offboarding.schemas';
export * from './notifications.schemas';
export * from './rule-health.schemas';
export * from './routing-filter.schemas';
export * from './rule-dry-run.schemas';
export * from './destinations.schemas';
export * from './transform.schemas';
export * from './config.schemas';
