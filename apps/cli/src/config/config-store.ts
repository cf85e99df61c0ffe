import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

// What `relay login` keeps per profile. A personal token for members of an organization; a platform operator's
// API is session-only, so theirs is the session cookie with its expiry. Never a password.
const profileSchema = z.object({
  url: z.string(),
  username: z.string().optional(),
  token: z.string().optional(),
  token_id: z.string().optional(),
  session_cookie: z.string().optional(),
  session_expires_at: z.string().optional(),
  kind: z.enum(['user', 'operator']).optional(),
  organization: z.string().optional(),
});
const configSchema = z.object({
  current_profile: z.string().optional(),
  profiles: z.record(z.string(), profileSchema).default({}),
});

export type Profile = z.infer<typeof profileSchema>;
export type CliConfigFile = z.infer<typeof configSchema>;

export const DEFAULT_PROFILE = 'default';

/** The config file: read leniently (missing → empty), written atomically with mode 0600 in a 0700 folder. */
export interface ConfigStore {
  readonly file: string;
  read(): Promise<CliConfigFile>;
  write(config: CliConfigFile): Promise<void>;
}

export function createConfigStore(file: string): ConfigStore {
  return {
    file,
    async read() {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
        throw error;
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new Error(`${file} is not valid JSON; fix or delete it and run \`relay login\` again`);
      }
      const parsed = configSchema.safeParse(json);
      if (!parsed.success) throw new Error(`${file} is not a relay config file; fix or delete it`);
      return parsed.data;
    },
    async write(config) {
      const folder = path.dirname(file);
      await mkdir(folder, { recursive: true, mode: 0o700 });
      // mkdir's mode applies only to a folder it creates: one that already existed wider (0755) is tightened,
      // as the file holds tokens and the folder its temporary copies.
      await chmod(folder, 0o700).catch((error: Error) => {
        throw new Error(`cannot make ${folder} private (mode 0700), where relay keeps its tokens: ${error.message}`);
      });
      // A temporary file then rename: a crash mid-write never leaves half a config (and half a token).
      const temporary = `${file}.${process.pid}.tmp`;
      await writeFile(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
      await chmod(temporary, 0o600);
      await rename(temporary, file);
    },
  };
}
