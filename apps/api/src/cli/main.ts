// `pnpm relay-server admin create --username NAME --email ADDRESS [--role admin|viewer] [--password-stdin]`
// Works on the database directly, for installs that have no admin yet (or lost access).
// Without --password-stdin the password is read from RELAY_ADMIN_PASSWORD.
import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { newUserSchema } from '@relay/contracts';
import { createDatabase, createRepositories } from '@relay/db';
import { parseArgs } from 'node:util';
import { parseApiConfig } from '../config';
import { createPasswordHasher } from '../auth/passwords';
import { createUser } from '../modules/users/create-user';

const usage =
  'usage: relay-server admin create --username NAME --email ADDRESS [--role admin|viewer] [--password-stdin]';

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text.replace(/\r?\n$/, '');
}

async function run(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      username: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string', default: 'admin' },
      'password-stdin': { type: 'boolean', default: false },
    },
  });
  if (positionals.join(' ') !== 'admin create') throw new Error(usage);
  const password = values['password-stdin'] ? await readStdin() : process.env.RELAY_ADMIN_PASSWORD;
  const parsed = newUserSchema.safeParse({
    username: values.username,
    email: values.email,
    password,
    role: values.role,
  });
  if (!parsed.success)
    throw new Error(
      `${parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('\n')}\n${usage}`,
    );
  const config = parseApiConfig(process.env);
  const db = createDatabase({ url: config.DATABASE_URL, poolSize: 2 });
  try {
    const deps = {
      repositories: createRepositories(db, {
        defaultTargetUrl: config.DEFAULT_TARGET_URL,
        sensitiveHeaders: config.SENSITIVE_HEADERS,
      }),
      passwords: createPasswordHasher({
        memoryKib: config.PASSWORD_HASH_MEMORY_KIB,
        timeCost: config.PASSWORD_HASH_TIME_COST,
      }),
    };
    const user = await createUser(deps, DEFAULT_ORGANIZATION_ID, parsed.data, { source: 'cli' });
    console.log(`created ${user.role} ${user.username} (${user.id}) in the default organization`);
  } finally {
    await db.close();
  }
}

run().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
