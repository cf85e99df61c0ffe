import { dataOf, ProblemError, type AnswerOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import type { Colors } from '../../output/colors';
import { formatTable } from '../../output/table';
import { confirmed } from '../admin-kit';
import { ago, withExamples } from '../command-kit';

type Domain = AnswerOf<'/api/domains', 'get'>['domains'][number];
interface RecordCheck {
  ok: boolean;
  name: string;
  expected: string;
  found: string[];
  problem: string | null;
}

const statusText = (colors: Colors, status: Domain['status']) =>
  status === 'active' ? colors.green(status) : colors.yellow(status);

const domainsTable = (domains: readonly Domain[], colors: Colors) =>
  domains.length === 0
    ? 'No custom domains: add one with `relay domains add hooks.example.com`.'
    : formatTable(domains, [
        { header: 'id', value: (d) => d.id },
        { header: 'domain', value: (d) => d.domain },
        { header: 'status', value: (d) => statusText(colors, d.status) },
        { header: 'verified', value: (d) => ago(d.verified_at) },
        { header: 'last check', value: (d) => d.last_check_error ?? ago(d.last_checked_at), maxWidth: 40 },
      ]);

/** The DNS records to create, as a block to copy into a DNS provider's form. */
export const recordsBlock = (domain: Domain) =>
  formatTable(domain.records, [
    { header: 'type', value: (r) => r.type },
    { header: 'name', value: (r) => r.name },
    { header: 'value', value: (r) => r.value },
  ])
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');

const checkLine = (label: string, check: RecordCheck) =>
  `  ${label.padEnd(5)} ${check.ok ? 'ok' : (check.problem ?? 'wrong')}: ${check.name} should be ${check.expected}` +
  (check.found.length ? `, found ${check.found.join(', ')}` : '');

function registerAddVerify(domains: Command, ctx: CommandContext) {
  const add = domains
    .command('add <hostname>')
    .description('Add a custom ingest domain and print the DNS records that prove it is yours')
    .action(async (hostname: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const domain = await dataOf(client.POST('/api/domains', { body: { domain: hostname } }));
      out.result(domain, (d) =>
        [
          `Added ${d.domain} (${d.status}), id ${d.id}.`,
          '',
          'Create these DNS records:',
          '',
          recordsBlock(d),
          '',
          `then run: relay domains verify ${d.id}`,
        ].join('\n'),
      );
    });
  withExamples(add, 'relay domains add hooks.example.com', 'relay domains add hooks.example.com --json');

  const verify = domains
    .command('verify <id>')
    .description('Check the CNAME and TXT records; when both are right the domain becomes active')
    .action(async (id: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      try {
        const domain = await dataOf(client.POST('/api/domains/{id}/verify', { params: { path: { id } } }));
        out.result(domain, (d) => `${d.domain} is ${d.status}: it receives webhooks now.`);
      } catch (error) {
        // The refusal says which record is missing or wrong: show both checks before the one-line error.
        const checks = error instanceof ProblemError ? error.problem.checks : undefined;
        if (checks && typeof checks === 'object') {
          const { cname, txt } = checks as { cname: RecordCheck; txt: RecordCheck };
          out.note(['DNS checks:', checkLine('CNAME', cname), checkLine('TXT', txt)].join('\n'));
        }
        throw error;
      }
    });
  withExamples(verify, 'relay domains verify 0192f0c4-…');
}

export function registerDomainsCommands(program: Command, ctx: CommandContext): void {
  const domains = program
    .command('domains')
    .description('Custom ingest domains: receive webhooks on a host of your own');
  withExamples(domains, 'relay domains list', 'relay domains add hooks.example.com');

  const list = domains
    .command('list')
    .alias('ls')
    .description('Custom domains and whether they are verified')
    .action(async (_: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      out.result(await dataOf(client.GET('/api/domains')), (a) => domainsTable(a.domains, out.colors));
    });
  withExamples(list, 'relay domains list', 'relay domains list --json');

  registerAddVerify(domains, ctx);

  const remove = domains
    .command('delete <id>')
    .alias('rm')
    .description('Remove a domain: it stops receiving webhooks at once (asks first unless --yes)')
    .action(async (id: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      if (!(await confirmed(out, `Delete domain ${id}? Webhooks sent to it are refused from now on.`))) return;
      await dataOf(client.DELETE('/api/domains/{id}', { params: { path: { id } } }));
      out.result({ id, deleted: true }, () => `Deleted domain ${id}.`);
    });
  withExamples(remove, 'relay domains delete 0192f0c4-… --yes');
}
