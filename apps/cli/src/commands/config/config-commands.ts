import { dataOf, type AnswerOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { UsageError } from '../../errors';
import { formatFields } from '../admin-kit';
import { withExamples } from '../command-kit';

type DefaultTarget = AnswerOf<'/config/default-target', 'get'>;
type Endpoint = AnswerOf<'/config/endpoint', 'get'>;

const defaultTargetText = (state: DefaultTarget) =>
  formatFields([
    ['organization default', state.target_url ?? '(none)'],
    [
      'in effect',
      state.effective_target_url
        ? `${state.effective_target_url}${state.effective_from === 'install' ? ' (the install default, DEFAULT_TARGET_URL)' : ''}`
        : '(none: events without a rule are kept, not delivered)',
    ],
  ]);

const endpointText = (endpoint: Endpoint) => {
  const fields: [string, string][] = [];
  if (endpoint.organization) fields.push(['organization', endpoint.organization.slug]);
  fields.push(
    ['ingest URL', endpoint.ingest_url ?? '(none: this organization cannot receive webhooks now)'],
    ['per source', endpoint.source_url_template ?? '-'],
  );
  endpoint.ingest_urls.forEach((url, i) => fields.push([i === 0 ? 'all hosts' : '', url]));
  fields.push(['reserved', endpoint.reserved_sources.join(', ')]);
  return formatFields(fields);
};

function registerDefaultTarget(config: Command, ctx: CommandContext) {
  const command = config
    .command('default-target [action] [url]')
    .description('Where events without a rule go: show it (get), set <url>, or clear it')
    .action(async (action: string | undefined, url: string | undefined, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const verb = action ?? 'get';
      if (!['get', 'set', 'clear'].includes(verb))
        throw new UsageError(`unknown action "${verb}": use get, set <url> or clear`);
      if (verb === 'set' && !url) throw new UsageError('missing the URL: relay config default-target set <url>');
      if (verb !== 'set' && url) throw new UsageError(`"${verb}" takes no URL`);
      const { client } = await ctx.connect(cmd);
      const state =
        verb === 'get'
          ? await dataOf(client.GET('/config/default-target'))
          : await dataOf(client.POST('/config/default-target', { body: { target_url: url ?? null } }));
      const said = verb === 'set' ? 'Default target set.\n' : verb === 'clear' ? 'Default target cleared.\n' : '';
      out.result(state, (s) => `${said}${defaultTargetText(s)}`);
    });
  withExamples(
    command,
    'relay config default-target',
    'relay config default-target set https://catch-all.example.com/hooks',
    'relay config default-target clear',
  );
}

export function registerConfigCommands(program: Command, ctx: CommandContext): void {
  const config = program.command('config').description("The organization's settings: default target, ingest URLs");
  withExamples(config, 'relay config default-target', 'relay config endpoint');
  registerDefaultTarget(config, ctx);

  const endpoint = config
    .command('endpoint')
    .description("The organization's public ingest URLs: where to point webhook senders")
    .action(async (_: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      // Public, but the credentials in effect pick the organization whose URLs these are.
      const { client } = await ctx.connect(cmd, { anonymous: true });
      out.result(await dataOf(client.GET('/config/endpoint')), endpointText);
    });
  withExamples(endpoint, 'relay config endpoint', 'relay config endpoint --json | jq -r .ingest_url');
}
