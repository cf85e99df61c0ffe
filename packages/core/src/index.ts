export * from './ids';
export * from './errors';
export * from './signing';
export * from './retry-policy';
export * from './forward-headers';
export * from './event';
export * from './source';
export * from './config-schema';
