// The `relay` executable: the relay's command-line client. The only file that reads the environment.
import { parseCliEnv } from './cli-env';
import { runCli } from './run-cli';

try {
  process.exitCode = await runCli(process.argv.slice(2), {
    env: parseCliEnv(process.env),
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    fetch: globalThis.fetch,
    variables: process.env,
    // `relay tui` has checked that it runs on a terminal; a CI variable left in a developer's shell must not turn
    // ink's live rendering off (ink decides from the environment when it loads).
    beforeLiveTerminal: () => {
      delete process.env.CI;
      delete process.env.CONTINUOUS_INTEGRATION;
    },
  });
} catch (error) {
  process.stderr.write(`relay: ${(error as Error).message}\n`);
  process.exitCode = 2;
}
