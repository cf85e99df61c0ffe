export * from './job-catalog';
export * from './redis-connection';
export * from './delivery-queue';
export * from './hook-queue';
export * from './event-feed';
export * from './notification-queue';
export * from './rule-changes';
