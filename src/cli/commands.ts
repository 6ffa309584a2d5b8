/**
 * The subcommands: one function per command, each declaring its options and loading its module only
 * when chosen (`flower --help` and `flower once` need not load the flow's modules).
 *
 * To add a command: name it in COMMANDS (help lists the commands in that order) and give it a function
 * in REGISTER; the type makes the two agree.
 */
import { type Command, Option } from 'commander';
import type { GlobalOptions } from './globals.js';
import { withUpdateNotice } from './update-notice.js';
import type { GoOptions } from './go.js';
import { CliExit, type CliIO, EXIT } from './io.js';
import { nearMiss } from './nearmiss.js';
import type { OnceOptions } from './once.js';
import type { Parsers } from './parsers.js';
import type { UsageTexts } from './usage.js';

/** Every command name, for telling a typo (`flower statsu`) from a one-word request. */
export const COMMANDS = [
  'go',
  'once',
  'demo',
  'run',
  'setup',
  'skills',
  'status',
  'log',
  'report',
  'answer',
  'say',
  'stop',
  'bequest',
  'store',
  'fleet',
  'ui',
  'sim',
  'help',
] as const;

/** What a command's function needs: the root program, the texts and parsers, and how to hand back its run. */
export interface CommandContext {
  program: Command;
  io: CliIO;
  u: UsageTexts;
  p: Parsers;
  /** hands the command's promise to main(), which awaits it for the exit code */
  settle: (p: Promise<number>) => void;
  /** the global flags as parsed (read when the command runs, so flags after the subcommand count) */
  globals: () => GlobalOptions;
}

type Registered = Exclude<(typeof COMMANDS)[number], 'help'>; // commander adds `help` itself

const REGISTER: { readonly [K in Registered]: (c: CommandContext) => void } = {
  go: goCommand,
  once: onceCommand,
  demo: demoCommand,
  run: runCommand,
  setup: setupCommand,
  skills: skillsCommand,
  status: statusCommand,
  log: logCommand,
  report: reportCommand,
  // the durable inbox: reach a flower running in this folder from anywhere
  answer: answerCommand,
  say: sayCommand,
  stop: stopCommand,
  // the hand-over block for the next tool in CLAUDE.md / AGENTS.md (src/cli/bequest.ts)
  bequest: bequestCommand,
  store: storeCommand,
  // tasks on PostgreSQL's queue engine, worked by many hosts (src/cli/fleet.ts, src/fleet/)
  fleet: fleetCommand,
  ui: uiCommand,
  sim: simCommand,
};

/** Adds every command to the program, in COMMANDS' order. */
export function addCommands(c: CommandContext): void {
  for (const name of COMMANDS) if (name !== 'help') REGISTER[name](c);
}

// ---- the commands ----

function goCommand({ program, io, u, p, settle, globals }: CommandContext): void {
  program
    .command('go', { isDefault: true })
    .description(u.go)
    .argument('[ask...]', u.goAsk)
    .option('--asks <n>', u.asks, p.integer, -1)
    .option('--rounds <n>', u.rounds, p.integer, 3)
    .option('--no-goal', u.noGoal)
    .option('--judge-can-run', u.judgeCanRun, false)
    .option('--timeout <sec>', u.timeout, p.seconds)
    .option('--new', u.goNew, false)
    .option('--clarify-only', u.clarifyOnly, false)
    .option('--no-trim', u.noTrim)
    .option('--window <n>', u.window, p.integer)
    .option('--no-handoff', u.noHandoff)
    .option('--isolate', u.isolate, false)
    .option('--wait', u.wait, false)
    .exitOverride()
    .action((ask: string[], o: GoOptions) => {
      // `flower statsu`: one bare word a command's typo away is not a request (no model call, nothing
      // created); `flower go statsu` and any sentence still run
      const typed = program.args[0] === 'go';
      const meant = typed ? null : nearMiss(ask, COMMANDS);
      if (meant) throw new CliExit(EXIT.usage, `x ${u.nearMiss(ask[0]!, meant)}`);
      // the lock and the request first, before the flow's modules load (a kill in that second is continued)
      settle(
        withUpdateNotice(io, globals().json, () =>
          import('./early.js')
            .then((e) => e.holdAndRecord(ask, o, globals(), io))
            .then(async (held) => {
              try {
                return await (await import('./go.js')).go(ask, { ...o, ...(held ? { held } : {}) }, globals(), io);
              } finally {
                await held?.release(); // idempotent: also when go stopped before it took over the lock
              }
            }),
        ),
      );
    });
}

function onceCommand({ program, io, u, p, settle, globals }: CommandContext): void {
  program
    .command('once')
    .description(u.once)
    .argument('<prompt>', u.onceprompt)
    .option('-i, --instructions <text>', u.instructions)
    .option('-t, --tools <list>', u.tools, 'Read,Glob,Grep')
    .addOption(new Option('-p, --permission-mode <mode>', u.permissionMode).choices(['default', 'acceptEdits', 'plan', 'bypassPermissions']).default('default'))
    .option('-b, --budget <usd>', u.budget, p.positiveNumber)
    .option('--resume <sid>', u.resume)
    .option('--fork', u.fork, false)
    .option('--window <n>', u.onceWindow, p.tokenCount)
    .option('--no-handoff', u.onceNoHandoff)
    .option('--skills <list>', u.skills)
    .exitOverride()
    .action((prompt: string, o: OnceOptions) =>
      settle(withUpdateNotice(io, globals().json, () => import('./once.js').then((m) => m.once(prompt, o, globals(), io)))),
    );
}

function demoCommand({ program, io, u, settle, globals }: CommandContext): void {
  program
    .command('demo')
    .description(u.demo)
    .option('--dir <folder>', u.demoDir)
    .exitOverride()
    .action((o: { dir?: string }) => settle(import('./demo/index.js').then((m) => m.demo(o, globals(), io))));
}

function runCommand({ program, io, u, p, settle, globals }: CommandContext): void {
  program
    .command('run')
    .description(u.run)
    .argument('<target>', u.runTarget)
    .argument('[ask...]', u.runAsk)
    .option('--new', u.runNew, false)
    .option('-W, --workbench', u.runWorkbench)
    .option('--no-workbench', u.runNoWorkbench)
    .option('-T, --trim', u.runTrim)
    .option('--no-trim', u.noTrim)
    .option('--timeout <sec>', u.runTimeout, p.seconds)
    .option('--wait', u.wait, false)
    .exitOverride()
    .action((target: string, ask: string[], o: { new: boolean; workbench?: boolean; trim?: boolean; timeout?: number; wait?: boolean }) =>
      settle(withUpdateNotice(io, globals().json, () => import('./run.js').then((m) => m.run(target, { ...o, ask }, globals(), io)))),
    );
}

function setupCommand({ program, io, u, settle, globals }: CommandContext): void {
  program
    .command('setup')
    .description(u.setup)
    .option('-y, --yes', u.setupYes, false)
    .exitOverride()
    .action((o: { yes: boolean }) => settle(import('./setup.js').then((m) => m.setup(io, { yes: o.yes, json: globals().json ?? false }))));
}

function skillsCommand({ program, io, u, settle, globals }: CommandContext): void {
  const skills = program
    .command('skills')
    .description(u.skillsCmd)
    .exitOverride()
    .action(() => settle(import('./skills.js').then((m) => m.skillsList(globals(), io))));
  skills
    .command('new')
    .description(u.skillsNew)
    .argument('<name>', u.skillsName)
    .exitOverride()
    .action((name: string) => settle(import('./skills.js').then((m) => m.skillsNew(name, globals(), io))));
}

function statusCommand({ program, io, u, settle, globals }: CommandContext): void {
  program
    .command('status')
    .description(u.status)
    .exitOverride()
    .action(() => settle(import('./status.js').then((m) => m.status({ json: globals().json ?? false }, globals(), io))));
}

function logCommand({ program, io, u, p, settle, globals }: CommandContext): void {
  program
    .command('log')
    .description(u.log)
    .option('-n, --limit <n>', u.limit, p.positiveInteger, 30)
    .exitOverride()
    .action((o: { limit: number }) => settle(import('./status.js').then((m) => m.log({ ...o, json: globals().json ?? false }, globals(), io))));
}

function reportCommand({ program, io, u, settle, globals }: CommandContext): void {
  program
    .command('report')
    .description(u.report)
    .argument('[run]', u.reportRun)
    .exitOverride()
    .action((run: string | undefined) => settle(import('./report.js').then((m) => m.report(run, { json: globals().json ?? false }, globals(), io))));
}

// the durable inbox: reach a flower running in this folder from anywhere (src/cli/answer.ts)

function answerCommand({ program, io, u, settle, globals }: CommandContext): void {
  program
    .command('answer')
    .description(u.answer)
    .argument('[text...]', u.answerText)
    .option('--id <id>', u.answerId)
    .option('--task <id>', u.answerTask)
    .exitOverride()
    .action((text: string[], o: { id?: string; task?: string }) => settle(import('./answer.js').then((m) => m.answer(text, o, globals(), io))));
}

function sayCommand({ program, io, u, settle, globals }: CommandContext): void {
  program
    .command('say')
    .description(u.say)
    .argument('<text...>', u.sayText)
    .exitOverride()
    .action((text: string[]) => settle(import('./answer.js').then((m) => m.say(text, globals(), io))));
}

function stopCommand({ program, io, u, settle, globals }: CommandContext): void {
  program
    .command('stop')
    .description(u.stop)
    .option('--after-step', u.stopAfterStep, false)
    .exitOverride()
    .action((o: { afterStep: boolean }) => settle(import('./answer.js').then((m) => m.stop(o, globals(), io))));
}

function bequestCommand({ program, io, u, settle, globals }: CommandContext): void {
  program
    .command('bequest')
    .description(u.bequest)
    .option('--remove', u.bequestRemove, false)
    .exitOverride()
    .action((o: { remove: boolean }) => settle(import('./bequest.js').then((m) => m.bequest(o, globals(), io))));
}

function storeCommand({ program, io, u, settle, globals }: CommandContext): void {
  const store = program.command('store').description(u.storeCmd).exitOverride();
  store
    .command('copy')
    .description(u.storeCopy)
    .requiredOption('--from <store>', u.storeFrom)
    .requiredOption('--to <store>', u.storeTo)
    .exitOverride()
    .action((o: { from: string; to: string }) => settle(import('./store.js').then((m) => m.storeCopy(o, globals(), io))));
}

function fleetCommand({ program, io, u, p, settle, globals }: CommandContext): void {
  const fleet = program.command('fleet').description(u.fleet).exitOverride();
  const load = () => import('./fleet.js');
  fleet
    .command('add')
    .description(u.fleetAdd)
    .argument('[request...]', u.fleetRequest)
    .option('--repo <url|path>', u.fleetRepo)
    .option('--branch <base>', u.fleetBranch)
    .option('--name <name>', u.fleetName)
    .option('--budget <usd>', u.fleetBudget, p.positiveNumber)
    .option('--deadline <when>', u.fleetDeadline)
    .option('--file <tasks>', u.fleetFile)
    .exitOverride()
    .action((words: string[], o: import('./fleet.js').AddOptions) => settle(load().then((m) => m.fleetAdd(words, o, globals(), io))));
  fleet
    .command('work')
    .description(u.fleetWork)
    .option('--slots <n>', u.fleetSlots, p.positiveInteger, 1)
    .option('--drain', u.fleetDrain, false)
    .option('--workdir <dir>', u.fleetWorkdir)
    .option('--lease <sec>', u.fleetLease, p.positiveNumber)
    .option('--heartbeat <sec>', u.fleetHeartbeat, p.positiveNumber)
    .option('--supervise <sec>', u.fleetSupervise, p.positiveNumber)
    .option('--poll <sec>', u.fleetPoll, p.positiveNumber)
    .option('--timeout <sec>', u.fleetTimeout, p.seconds)
    .exitOverride()
    .action((o: import('./fleet.js').WorkOptions) => settle(load().then((m) => m.fleetWork(o, globals(), io))));
  fleet
    .command('status')
    .description(u.fleetStatus)
    .exitOverride()
    .action(() => settle(load().then((m) => m.fleetStatusCommand(globals(), io))));
  fleet
    .command('cancel')
    .description(u.fleetCancel)
    .argument('<id>', u.fleetId)
    .exitOverride()
    .action((id: string) => settle(load().then((m) => m.fleetCancel(id, globals(), io))));
  fleet
    .command('retry')
    .description(u.fleetRetry)
    .argument('<id>', u.fleetId)
    .exitOverride()
    .action((id: string) => settle(load().then((m) => m.fleetRetryCommand(id, globals(), io))));
}

function uiCommand({ program, io, u, p, settle, globals }: CommandContext): void {
  program
    .command('ui')
    .description(u.ui)
    .option('--port <n>', u.port, p.port, 0)
    .option('--host <host>', u.uiHost, '127.0.0.1')
    .option('--open', u.uiOpen, false)
    .exitOverride()
    .action((o: { port: number; host: string; open: boolean }) =>
      settle(import('./ui.js').then((m) => m.ui({ ...o, runDirGiven: program.getOptionValueSource('runDir') !== 'default' }, globals(), io))),
    );
}

function simCommand({ program, io, u, p, settle, globals }: CommandContext): void {
  program
    .command('sim')
    .description(u.sim)
    .requiredOption('--script <file>', u.script)
    .option('--port <n>', u.port, p.port, 0)
    .exitOverride()
    .action((o: { script: string; port: number }) => settle(import('./sim.js').then((m) => m.sim(o, globals(), io))));
}
