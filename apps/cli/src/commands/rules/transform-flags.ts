import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { UsageError } from '../../errors';

// The transform (docs/transformations.md) as a flag: `--transform @file.js`, `--transform -` (stdin) or the code
// itself, and `--no-transform` on update. Shared by `rules create|update`, `rules destinations add|update` and
// `rules transform-test`. The API checks the code (size, addHandler, compiles) and names `transform` when it refuses.

export interface TransformFlags {
  /** `@path`, `-` for stdin, or the code; false from --no-transform. */
  transform?: string | false;
}

export const TRANSFORM_FLAG = [
  '--transform <@file|->',
  "JavaScript calling addHandler('transform', (request, context) => request): @file.js, - for stdin, or the code",
] as const;

/** Adds --transform (clearing: true adds --no-transform too); `what` names the owner in the help. */
export function addTransformFlags(cmd: Command, what: 'rule' | 'destination', clearing: boolean): Command {
  cmd.option(...TRANSFORM_FLAG);
  if (clearing) cmd.option('--no-transform', `remove the transform: the ${what}'s webhooks go as received`);
  return cmd;
}

/** Whether the flags read the transform from stdin (which then holds nothing else, such as a secret). */
export const transformFromStdin = (flags: TransformFlags): boolean => flags.transform === '-';

async function readAll(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stdin) text += String(chunk);
  return text;
}

/** The code the flags give: the code, null (--no-transform) or undefined (none given). */
export async function transformFromFlags(
  flags: TransformFlags,
  stdin: NodeJS.ReadableStream,
): Promise<string | null | undefined> {
  const value = flags.transform;
  if (value === false) return null;
  if (value === undefined) return undefined;
  let code = value;
  let where = '--transform';
  if (value === '-') {
    where = 'stdin';
    code = await readAll(stdin);
  } else if (value.startsWith('@')) {
    where = value.slice(1);
    code = await readFile(where, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot read ${where}: ${error.code ?? error.message}`);
    });
  }
  if (!code.trim()) throw new UsageError(`the transform from ${where} is empty (--no-transform removes one)`);
  return code;
}
