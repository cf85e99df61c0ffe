import type { Command } from 'commander';
import { UsageError } from '../errors';

/** Adds an "Examples:" block to a command's --help (every command has one). */
export function withExamples(cmd: Command, ...examples: string[]): Command {
  return cmd.addHelpText('after', `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n`);
}

/** A positive integer option value (commander passes strings). */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`expected a positive integer, got "${value}"`);
  return n;
}

/** An option that repeats (`--id a --id b`) or takes a comma-separated list. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').filter(Boolean)];
}

/** Short, readable relative time ("3m ago"). */
export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '-';
  const seconds = Math.round((now - new Date(iso).getTime()) / 1000);
  if (seconds < 60) return `${Math.max(seconds, 0)}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}
