export * from './database';
export * from './repositories/event.repository';
export * from './repositories/event-sweep.repository';
export * from './repositories/attempt.repository';
export * from './repositories/provider.repository';
export * from './repositories/organization.repository';
export * from './target-resolver';
