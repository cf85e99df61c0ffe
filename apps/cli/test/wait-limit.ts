/**
 * How long a test waits for something it expects (a frame on screen, a connection, a message) before it fails.
 * Generous: a loaded 2-core machine (a second suite beside this one) stretches every step, and waiting longer
 * only slows a test that fails anyway. Below vitest's testTimeout (vitest.config.ts), so a wait that gives up
 * reports what it waited for rather than a bare time-out.
 */
export const WAIT_LIMIT_MS = 30_000;
