import { dataOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { readSecretFromStdin } from '../admin-kit';
import { withExamples } from '../command-kit';
import { durationSeconds } from './delivery-option-flags';
import { ruleDetail } from './rule-views';

/**
 * `relay rules rotate-verification-secret`: the sender and the relay cannot switch secrets at the same instant,
 * so the replaced one is still accepted for a while.
 */
export function registerRotateVerification(rules: Command, ctx: CommandContext): void {
  const rotate = rules
    .command('rotate-verification-secret <id>')
    .description('Rotate the secret verifying inbound signatures (read from stdin); the old one is accepted a while')
    .option('--keep-previous <duration>', 'how long the replaced secret is still accepted (default 24h; 0: not at all)')
    .action(async (id: string, flags: { keepPrevious?: string }, cmd: Command) => {
      const out = ctx.output(cmd);
      const keep =
        flags.keepPrevious === undefined
          ? 86_400
          : flags.keepPrevious === '0'
            ? 0
            : durationSeconds(flags.keepPrevious);
      const secret = await readSecretFromStdin(ctx.deps.stdin, 'new verification secret');
      const { client } = await ctx.connect(cmd);
      const rule = await dataOf(
        client.POST('/rules/{id}/verification-secret/rotate', {
          params: { path: { id } },
          body: { verification_secret: secret, previous_secret_valid_for_seconds: keep },
        }),
      );
      out.result(rule, (r) => `Rotated the verification secret of rule ${r.id}.\n${ruleDetail(r, out.colors)}`);
    });
  withExamples(rotate, 'relay rules rotate-verification-secret 0192f0c4-… < new-secret.txt --keep-previous 1h');
}
