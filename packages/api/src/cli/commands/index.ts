/** Every subcommand, in the order of the main help. A new command is one file and one line here. */
import type { Command } from '../command.js';
import { recipients } from './recipients.js';
import { scimUsers } from './scim-users.js';

export const COMMANDS: readonly Command[] = [recipients, scimUsers];
