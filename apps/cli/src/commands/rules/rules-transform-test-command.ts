import { dataOf, type AnswerOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { CliError } from '../../errors';
import { formatFields } from '../admin-kit';
import { withExamples } from '../command-kit';
import { destinationIdOf } from './destination-ref';
import { TRANSFORM_FLAG, transformFromFlags, type TransformFlags } from './transform-flags';

// `relay rules transform-test <id> --event <id>`: a transform run on one stored webhook of the rule in the relay's
// sandbox (POST /rules/{id}/transform-test), printing the request it returns or its error, and its console output.
// Nothing is sent or saved. A failed transform exits 1, so a script (or CI) can gate a change on it.

type TransformTest = AnswerOf<'/rules/{id}/transform-test', 'post'>;

interface TransformTestFlags extends TransformFlags {
  event?: string;
  destination?: string;
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');

const queryText = (query: Record<string, string | string[]>) =>
  new URLSearchParams(
    Object.entries(query).flatMap(([k, v]): [string, string][] =>
      Array.isArray(v) ? v.map((one) => [k, one]) : [[k, v]],
    ),
  ).toString();

/** The returned request (path, query, headers, body as JSON) or the failure, then the logs. */
export function transformTestText(test: TransformTest): string {
  const logs = test.logs ? `logs:\n${indent(test.logs.replace(/\n$/, ''))}` : 'logs: -';
  if (!test.ok) {
    const { message, line, cause } = test.error;
    const where = line === undefined ? '' : ` at line ${line}`;
    return `The transform failed${where} (${cause}): ${message}\n${logs}`;
  }
  const { body, headers, path, query } = test.request;
  const headerLines = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
  return [
    'The transform returns (nothing was sent):',
    formatFields([
      ['path', path || '-'],
      ['query', queryText(query) || '-'],
      ['headers', headerLines.length ? '' : '-'],
    ]),
    ...(headerLines.length ? [indent(headerLines.join('\n'))] : []),
    `body:\n${indent(JSON.stringify(body, null, 2) ?? 'null')}`,
    logs,
  ].join('\n');
}

export function registerTransformTest(rules: Command, ctx: CommandContext): void {
  const test = rules
    .command('transform-test <id>')
    .description("Run a transform on one of the rule's stored webhooks in the relay's sandbox (nothing is sent)")
    .requiredOption('--event <id>', 'the stored webhook of the rule to give the transform (`relay events list`)')
    .option(TRANSFORM_FLAG[0], `${TRANSFORM_FLAG[1]}; default: the saved transform`)
    .option('--destination <id|name>', "one of the rule's destinations: its saved transform, and its id in context")
    .action(async (id: string, flags: TransformTestFlags, cmd: Command) => {
      const out = ctx.output(cmd);
      const transform = await transformFromFlags(flags, ctx.deps.stdin);
      const { client } = await ctx.connect(cmd);
      const body = {
        event_id: flags.event!,
        ...(transform ? { transform } : {}),
        ...(flags.destination === undefined
          ? {}
          : { destination_id: await destinationIdOf(client, id, flags.destination) }),
      };
      const result = await dataOf(client.POST('/rules/{id}/transform-test', { params: { path: { id } }, body }));
      out.result(result, transformTestText);
      if (!result.ok) throw new CliError(`the transform failed (${result.error.cause})`);
    });
  withExamples(
    test,
    'relay rules transform-test 0192f0c4-… --event 0193a1b2-… --transform @github-to-chat.js',
    'relay rules transform-test 0192f0c4-… --event 0193a1b2-…   # the saved transform',
    'relay rules transform-test 0192f0c4-… --event 0193a1b2-… --destination chat --json',
    'cat transform.js | relay rules transform-test 0192f0c4-… --event 0193a1b2-… --transform -',
  );
}
