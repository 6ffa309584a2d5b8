/**
 * The commands of the durable inbox, registered on the program: `answer`, `say`, `stop --after-step`.
 * Their modules load only when chosen (src/cli/answer.ts), like every other command's.
 */
import type { Command } from 'commander';
import type { GlobalOptions } from './globals.js';
import type { CliIO } from './io.js';
import type { UsageTexts } from './usage.js';

export function addInboxCommands(program: Command, u: UsageTexts, settle: (p: Promise<number>) => void, globals: () => GlobalOptions, io: CliIO): void {
  program
    .command('answer')
    .description(u.answer)
    .argument('[text...]', u.answerText)
    .option('--id <id>', u.answerId)
    .exitOverride()
    .action((text: string[], o: { id?: string }) => settle(import('./answer.js').then((m) => m.answer(text, o, globals(), io))));
  program
    .command('say')
    .description(u.say)
    .argument('<text...>', u.sayText)
    .exitOverride()
    .action((text: string[]) => settle(import('./answer.js').then((m) => m.say(text, globals(), io))));
  program
    .command('stop')
    .description(u.stop)
    .option('--after-step', u.stopAfterStep, false)
    .exitOverride()
    .action((o: { afterStep: boolean }) => settle(import('./answer.js').then((m) => m.stop(o, globals(), io))));
}
