import { CommanderError } from 'commander';
import { ProblemError } from '@relay/client';
import { createCommandContext, type CliDeps } from './context';
import { describeError, EXIT_OK, EXIT_USAGE } from './errors';
import { buildProgram } from './program';

/** Runs one command line and answers its exit code (0 done, 1 failed, 2 bad usage); never throws. */
export async function runCli(argv: string[], deps: CliDeps): Promise<number> {
  const ctx = createCommandContext(deps);
  const program = buildProgram(ctx);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT_OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end with code 0; everything else commander refuses is a usage error.
      if (['commander.helpDisplayed', 'commander.version'].includes(error.code)) return EXIT_OK;
      return EXIT_USAGE;
    }
    const { message, exitCode } = describeError(error, ctx.baseUrl ?? program.opts<{ url?: string }>().url);
    const hint = error instanceof ProblemError && error.status === 401 ? ' (log in again: relay login)' : '';
    deps.stderr.write(`error: ${message}${hint}\n`);
    return exitCode;
  }
}
