import { hash, verify } from '@node-rs/argon2';

// @node-rs/argon2's Algorithm is a const enum (not importable under isolatedModules): 2 = Argon2id.
const ARGON2ID = 2;

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
}

// argon2id. Cost is a setting so tests can run cheaply; the defaults follow OWASP's guidance
// (19 MiB, 2 passes). A hash made with other costs still verifies: they are encoded in it.
export function createPasswordHasher(options: { memoryKib: number; timeCost: number }): PasswordHasher {
  return {
    hash: (password) =>
      hash(password, {
        algorithm: ARGON2ID,
        memoryCost: options.memoryKib,
        timeCost: options.timeCost,
        parallelism: 1,
      }),
    verify: async (stored, password) => {
      try {
        return await verify(stored, password);
      } catch {
        return false;
      }
    },
  };
}
