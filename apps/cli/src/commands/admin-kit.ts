import type { operations } from '@relay/client';
import type { Output } from '../output/output';
import { UsageError } from '../errors';

/**
 * A secret read from stdin (`--…-stdin` flags): secrets never go on the command line, where `ps` and the shell
 * history would keep them. One trailing newline is dropped (`echo secret | relay …`).
 */
export async function readSecretFromStdin(stdin: NodeJS.ReadableStream, what: string): Promise<string> {
  let text = '';
  for await (const chunk of stdin) text += String(chunk);
  const secret = text.replace(/\r?\n$/, '');
  if (!secret) throw new UsageError(`expected the ${what} on stdin, got nothing`);
  return secret;
}

/** Asks before a destructive action; answers false (and says "Cancelled.") when the user declines. */
export async function confirmed(out: Output, question: string): Promise<boolean> {
  if (await out.confirm(question)) return true;
  out.note('Cancelled.');
  return false;
}

/** Key/value lines for one record ("source:  github"); an empty label continues the line above. */
export function formatFields(fields: [label: string, value: string][]): string {
  const width = Math.max(...fields.map(([label]) => label.length)) + 1;
  return fields.map(([label, value]) => `${(label ? `${label}:` : '').padEnd(width + 1)}${value}`).join('\n');
}

/** An enumerated option value, refused with the allowed list (commander passes strings). */
export function oneOf<T extends string>(allowed: readonly T[], what: string) {
  return (value: string): T => {
    if (!(allowed as readonly string[]).includes(value))
      throw new UsageError(`${what} must be one of ${allowed.join(', ')}, got "${value}"`);
    return value as T;
  };
}

/** The JSON body an operation takes, from the generated types (`BodyOf<'postRules'>`). */
export type BodyOf<K extends keyof operations> = operations[K] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;
