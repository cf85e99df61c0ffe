import type { Command } from 'commander';
import type { CommandContext } from '../context';
import { registerKeysCommands } from './keys/keys-commands';
import { registerTokensCommands } from './tokens/tokens-commands';
import { registerUsersCommands } from './users/users-commands';

/** Who may call the relay: API keys, personal tokens and users. */
export function registerAccessCommands(program: Command, ctx: CommandContext): void {
  registerKeysCommands(program, ctx);
  registerTokensCommands(program, ctx);
  registerUsersCommands(program, ctx);
}
