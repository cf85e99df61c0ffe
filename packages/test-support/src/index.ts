export * from './test-database';
export * from './target-server';
export * from './redis-server';
export * from './wait-for';
export * from './dns-server';
export * from './connect-proxy';
export * from './event-seed';
export * from './postgres-server';
