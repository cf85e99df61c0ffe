import { Command, Option } from 'commander';
import { version } from '../package.json';
import { registerAccessCommands } from './commands/access-commands';
import { registerAuditCommand } from './commands/audit/audit-command';
import { registerAuthCommands } from './commands/auth/auth-commands';
import { registerConfigCommands } from './commands/config/config-commands';
import { registerConfigCodeCommands } from './commands/config-code/config-code-commands';
import { withExamples } from './commands/command-kit';
import { registerDomainsCommands } from './commands/domains/domains-commands';
import { registerEventsCommands } from './commands/events/events-commands';
import { registerHooksCommands } from './commands/hooks/hooks-commands';
import { registerOrgCommands } from './commands/org/org-commands';
import { registerPlatformCommands } from './commands/platform/platform-commands';
import { registerRulesCommands } from './commands/rules/rules-commands';
import { registerSendCommand } from './commands/send/send-command';
import { registerStatsCommands } from './commands/stats/stats-commands';
import { registerListenCommand } from './listen/listen-command';
import { registerMcpCommand } from './mcp/mcp-command';
import { registerPasswordCommand } from './commands/auth/password-command';
import { registerTuiCommand } from './tui/tui-command';
import type { CommandContext } from './context';

/** The `relay` command tree. Options declared here apply to every command (before or after its name). */
export function buildProgram(ctx: CommandContext): Command {
  const program = new Command('relay')
    .description('The webhook relay from your terminal: inspect, retry and forward webhooks, manage the relay.')
    .version(version, '-V, --version')
    .option('--url <url>', 'the relay to talk to (default: the profile, RELAY_URL, else http://localhost:3000)')
    .option('--token <token>', 'an API key or personal token (default: RELAY_TOKEN, else the profile)')
    .option('-p, --profile <name>', 'the configuration profile (default: RELAY_PROFILE, else the current one)')
    .option('--json', 'print JSON for scripts (one document; JSON lines for streams)')
    .option('-q, --quiet', 'print only results: no notes, spinners or progress')
    .option('-y, --yes', 'do not ask before destructive actions')
    .addOption(new Option('--no-color', 'no colours (also NO_COLOR=1)'))
    .showHelpAfterError('(run with --help for usage)')
    // Every command's --help lists the options it takes from the program too (--json, --yes, --profile, …).
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.deps.stdout.write(text),
      writeErr: (text) => ctx.deps.stderr.write(text),
    });
  withExamples(
    program,
    'relay login --url https://relay.example.com',
    'relay events list --status failed',
    'relay events retry 0192f0c4-…',
    'relay listen --forward-to http://localhost:8080/webhooks',
    'relay tui',
  );
  for (const register of [
    registerAuthCommands,
    registerPasswordCommand,
    registerEventsCommands,
    registerSendCommand,
    registerListenCommand,
    registerRulesCommands,
    registerHooksCommands,
    registerStatsCommands,
    registerAccessCommands,
    registerAuditCommand,
    registerDomainsCommands,
    registerConfigCommands,
    registerConfigCodeCommands,
    registerOrgCommands,
    registerPlatformCommands,
    registerTuiCommand,
    registerMcpCommand,
  ])
    register(program, ctx);
  // Every command and group throws on a usage error rather than exiting the process.
  const walk = (cmd: Command) => {
    cmd.exitOverride();
    cmd.commands.forEach(walk);
  };
  walk(program);
  return program;
}
