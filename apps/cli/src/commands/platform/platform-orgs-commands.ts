import { dataOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { readSecretFromStdin, type BodyOf } from '../admin-kit';
import { positiveInt, withExamples } from '../command-kit';
import { organizationDetail, organizationsTable } from './platform-views';

interface ListFlags {
  search?: string;
  page: number;
  perPage: number;
}

interface CreateFlags {
  slug: string;
  name: string;
  adminUsername: string;
  adminEmail: string;
  subscriberName?: string;
  billingName?: string;
  billingEmail?: string;
}

function registerList(orgs: Command, ctx: CommandContext) {
  const list = orgs
    .command('list')
    .alias('ls')
    .description('Organizations, newest first')
    .option('--search <text>', 'text in the name or slug')
    .option('--page <n>', 'which page (from 1)', positiveInt, 1)
    .option('--per-page <n>', 'organizations per page (at most 200)', positiveInt, 50)
    .action(async (flags: ListFlags, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const query = { page: flags.page, per_page: flags.perPage, ...(flags.search ? { search: flags.search } : {}) };
      const answer = await dataOf(client.GET('/api/platform/organizations', { params: { query } }));
      out.result(answer, (a) => organizationsTable(a.organizations, out.colors));
      if (answer.page < answer.pages)
        out.note(`Page ${answer.page} of ${answer.pages} (${answer.total}): --page ${answer.page + 1} for more.`);
    });
  withExamples(list, 'relay platform orgs list', 'relay platform orgs list --search acme --json');
}

function registerCreate(orgs: Command, ctx: CommandContext) {
  const create = orgs
    .command('create')
    .description('Create an organization and its first admin (the password is read from stdin)')
    .requiredOption('--slug <slug>', 'its short name; it receives webhooks on <slug>.<INGEST_CANONICAL_HOST>')
    .requiredOption('--name <name>', 'its display name')
    .requiredOption('--admin-username <username>', 'the first admin')
    .requiredOption('--admin-email <email>', "the first admin's e-mail")
    .requiredOption('--admin-password-stdin', "read the first admin's password from stdin")
    .option('--subscriber-name <name>', 'who subscribes (default: --name)')
    .option('--billing-name <name>', 'the billing contact (default: the subscriber)')
    .option('--billing-email <email>', "the billing contact's e-mail (default: --admin-email)")
    .action(async (flags: CreateFlags, cmd: Command) => {
      const out = ctx.output(cmd);
      const password = await readSecretFromStdin(ctx.deps.stdin, 'admin password');
      const { client } = await ctx.connect(cmd);
      const subscriber = flags.subscriberName ?? flags.name;
      const body: BodyOf<'postApiPlatformOrganizations'> = {
        slug: flags.slug,
        name: flags.name,
        username: flags.adminUsername,
        email: flags.adminEmail,
        password,
        subscriber_name: subscriber,
        billing_contact_name: flags.billingName ?? subscriber,
        billing_contact_email: flags.billingEmail ?? flags.adminEmail,
      };
      const created = await dataOf(client.POST('/api/platform/organizations', { body }));
      out.result(created, (c) =>
        [
          `Created organization ${c.organization.slug} (${c.organization.id}) with admin ${c.admin.username}.`,
          c.ingest_urls.length ? `It receives webhooks at ${c.ingest_urls.join(', ')}` : '',
        ]
          .filter(Boolean)
          .join('\n'),
      );
    });
  withExamples(
    create,
    'relay platform orgs create --slug acme --name "Acme Inc" --admin-username acme-admin \\\n' +
      '      --admin-email admin@acme.example --admin-password-stdin < password.txt',
  );
}

export function registerPlatformOrgsCommands(platform: Command, ctx: CommandContext): void {
  const orgs = platform.command('orgs').description('Hosted organizations');
  withExamples(orgs, 'relay platform orgs list', 'relay platform orgs show 0192f0c4-…');
  registerList(orgs, ctx);

  const show = orgs
    .command('show <id>')
    .description('One organization: subscription, users, events, domains')
    .action(async (id: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const org = await dataOf(client.GET('/api/platform/organizations/{id}', { params: { path: { id } } }));
      out.result(org, (o) => organizationDetail(o, out.colors));
    });
  withExamples(show, 'relay platform orgs show 0192f0c4-…');

  registerCreate(orgs, ctx);
}
