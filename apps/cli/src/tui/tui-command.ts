import type { Command } from 'commander';
import type { CommandContext } from '../context';
import { UsageError } from '../errors';
import { withExamples } from '../commands/command-kit';

export function registerTuiCommand(program: Command, ctx: CommandContext): void {
  const tui = program
    .command('tui')
    .description('Full-screen terminal UI: the live event list, details, retry, acknowledge, delete, stats')
    .action(async (_: unknown, cmd: Command) => {
      const { stdin, stdout, stderr } = ctx.deps;
      if (!stdout.isTTY || !stdin.isTTY)
        throw new UsageError('relay tui needs a terminal (stdin and stdout); for scripts use `relay events …`');
      const out = ctx.output(cmd);
      const connection = await ctx.connect(cmd);
      ctx.deps.beforeLiveTerminal?.();
      // ink and React load only here: esbuild puts them in a chunk that the other commands never read.
      const { runTui } = await import('./tui-app');
      await runTui({
        connection,
        color: out.colors.enabled,
        stdin: stdin as NodeJS.ReadStream,
        stdout: stdout as NodeJS.WriteStream,
        stderr: stderr as NodeJS.WriteStream,
      });
    });
  withExamples(tui, 'relay tui', 'relay --profile staging tui', 'NO_COLOR=1 relay tui');
}
