import type { Command } from 'commander';
import type { CommandContext } from '../context';
import { CliError } from '../errors';
import { withExamples } from '../commands/command-kit';

export function registerMcpCommand(program: Command, ctx: CommandContext): void {
  const mcp = program
    .command('mcp')
    .description("Serve the relay's MCP tools on stdio, for an assistant (Claude Desktop, an IDE) to start")
    .action(async (_: unknown, cmd: Command) => {
      const connection = await ctx.connect(cmd);
      if (!connection.headers.authorization)
        throw new CliError('relay mcp needs a token (RELAY_TOKEN, --token, or a profile logged in as a member)');
      // Loaded only for this command: the SDK is a large part of the bundle.
      const { runStdioServer } = await import('./stdio-server');
      await runStdioServer(connection.client, ctx.deps);
    });
  withExamples(
    mcp,
    'relay mcp                                        # with the current profile',
    'RELAY_URL=https://relay.example.com RELAY_TOKEN=ts_… relay mcp',
  );
}
