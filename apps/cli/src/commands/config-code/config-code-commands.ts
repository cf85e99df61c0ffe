import { readFileSync, writeFileSync } from 'node:fs';
import { dataOf, ProblemError } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { CliError, UsageError } from '../../errors';
import { withExamples } from '../command-kit';
import { formatConfig, parseConfigFile, resolveSecrets, type ConfigFile } from './config-file';
import { planText, type ConfigPlan } from './plan-text';

// Configuration as code (docs/config-as-code.md): `relay export` writes the organization's configuration,
// `relay apply` plans a file against it and applies the plan with --yes.

/** A refusal of the api, each error at the line of the file its JSON path names. */
export function refusalAtLines(error: ProblemError, file: ConfigFile, name: string): CliError {
  const lines = error.errors.map((e) => {
    const line = e.path !== undefined ? file.lineOf(e.path) : undefined;
    return `${name}${line !== undefined ? `:${line}` : ''}: ${e.field || '(document)'}: ${e.message}`;
  });
  const head = `${error.detail ?? error.title} [${error.code}]`;
  return new CliError(lines.length > 0 ? `${head}\n${lines.join('\n')}` : head);
}

function readConfig(path: string): { text: string; name: string } {
  try {
    return { text: readFileSync(path, 'utf8'), name: path };
  } catch (error) {
    throw new UsageError(`cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

interface ApplyFlags {
  file: string;
  prune?: boolean;
}

export function registerConfigCodeCommands(program: Command, ctx: CommandContext): void {
  const exportCommand = program
    .command('export')
    .description("Write the organization's configuration as a file: rules, destinations, hooks, default target")
    .option('--format <format>', 'yaml or json', 'yaml')
    .option('-o, --output <file>', 'write to this file instead of standard output')
    .action(async (flags: { format: string; output?: string }, cmd: Command) => {
      if (flags.format !== 'yaml' && flags.format !== 'json') throw new UsageError('--format is yaml or json');
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const document = await dataOf(client.GET('/api/config/export'));
      const text = formatConfig(document, flags.format);
      if (flags.output === undefined) return void ctx.deps.stdout.write(text);
      writeFileSync(flags.output, text);
      out.note(`Wrote ${flags.output}: secrets are \${env:…} references, set them before relay apply.`);
    });
  withExamples(exportCommand, 'relay export > relay.yaml', 'relay export --format json -o relay.json');

  const apply = program
    .command('apply')
    .description('Plan a configuration file against the organization; apply the plan with --yes')
    .requiredOption('-f, --file <file>', 'the configuration file (YAML or JSON)')
    .option('--prune', 'also delete the rules, destinations and hooks the file no longer names')
    .action(async (flags: ApplyFlags, cmd: Command) => {
      const out = ctx.output(cmd);
      const { text, name } = readConfig(flags.file);
      const file = parseConfigFile(text, name);
      const document = resolveSecrets(
        file.document,
        { env: ctx.deps.variables ?? {}, readFile: (p) => readFileSync(p, 'utf8'), configPath: flags.file },
        file,
        name,
      );
      const { client } = await ctx.connect(cmd);
      const call = (dryRun: boolean): Promise<ConfigPlan> =>
        dataOf(
          client.POST('/api/config/apply', {
            params: { query: { dry_run: dryRun ? 'true' : 'false', prune: flags.prune ? 'true' : 'false' } },
            body: document as never,
          }),
        ).catch((error: unknown) => {
          throw error instanceof ProblemError ? refusalAtLines(error, file, name) : error;
        });
      const plan = await call(true);
      const yes = ctx.options(cmd).yes;
      if (plan.changes.length === 0 || !yes) {
        out.result(plan, planText);
        if (plan.changes.length > 0) out.note('Not applied: run again with --yes to apply this plan.');
        return;
      }
      const applied = await call(false);
      out.result(applied, (p) => `${planText(p)}\nApplied.`);
    });
  withExamples(
    apply,
    'relay apply -f relay.yaml',
    'relay apply -f relay.yaml --yes',
    'relay apply -f relay.yaml --prune --yes',
  );
}
