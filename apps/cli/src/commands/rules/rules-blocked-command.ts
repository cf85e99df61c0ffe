import { dataOf, type AnswerOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { formatTable } from '../../output/table';
import { ago, withExamples } from '../command-kit';

type Blocked = AnswerOf<'/rules/{id}/ordering', 'get'>;

/** The blocked keys as a table; the key '' (the whole source, or webhooks without a key) shows as "(source)". */
export function blockedKeysTable(answer: Blocked, now = Date.now()): string {
  if (answer.blocked_keys.length === 0) return 'No blocked keys: every ordering key of this rule is flowing.';
  return formatTable(answer.blocked_keys, [
    { header: 'key', value: (k) => (k.key === '' ? '(source)' : k.key), maxWidth: 40 },
    { header: 'head event', value: (k) => k.event_id },
    { header: 'status', value: (k) => k.status },
    { header: 'attempts', value: (k) => String(k.attempts) },
    { header: 'blocked since', value: (k) => `${k.blocked_since} (${ago(k.blocked_since, now)})` },
    { header: 'waiting', value: (k) => String(k.waiting) },
  ]);
}

/** `relay rules blocked <id>`: an ordered rule's keys held up by a failing event (docs/rules.md). */
export function registerBlocked(rules: Command, ctx: CommandContext): void {
  const blocked = rules
    .command('blocked <id>')
    .description("An ordered rule's blocked keys: each key's failing head event and how many events wait behind it")
    .action(async (id: string, _flags: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const answer = await dataOf(client.GET('/rules/{id}/ordering', { params: { path: { id } } }));
      out.result(answer, (a) => blockedKeysTable(a));
    });
  withExamples(blocked, 'relay rules blocked 0192f0c4-…', 'relay rules blocked 0192f0c4-… --json');
}
