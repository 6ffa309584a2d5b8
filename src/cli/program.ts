/**
 * The command line. Global flags (-w, -r, -v) are accepted before or after the subcommand.
 * Usage errors exit 2 with usage; deliberate stops exit 1 with one clear line; never a stack trace
 * for a user error (set FLOWER_DEBUG=1 to see one).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { detectLang } from '../config/index.js';
import { FlowerError } from '../errors.js';
import { NAMES as N } from '../state/index.js';
import { parseNet, type NetPolicy } from '../guards/sandbox.js';
import type { GlobalOptions } from './globals.js';
import { CliExit, EXIT, type CliIO } from './io.js';
import { addInboxCommands } from './inbox-commands.js';
import { nearMiss } from './nearmiss.js';
import { translateCommander, usageTexts, type UsageTexts } from './usage.js';
// commands are loaded when chosen: `flower --help` and `flower once` need not load the flow's modules
import type { GoOptions } from './go.js';
import type { OnceOptions } from './once.js';

/** `--pass-env NAME`: a variable name, nothing else. */
function envName(v: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) throw new InvalidArgumentError(`--pass-env takes a variable name (letters, digits, _), got ${JSON.stringify(v)}`);
  return v;
}

// one version: package.json's (src/cli and dist/cli are both two levels below it)
const VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/** The option parsers, each with its error in the terminal's language. */
function parsers(u: UsageTexts) {
  return {
    positiveNumber(v: string): number {
      const n = Number(v);
      if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(u.notPositive(v));
      return n;
    },
    integer(v: string): number {
      const n = Number(v);
      if (!Number.isInteger(n)) throw new InvalidArgumentError(u.notWhole(v));
      return n;
    },
    positiveInteger(v: string): number {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(u.notPositiveWhole(v));
      return n;
    },
    tokenCount(v: string): number {
      if (!/^\d+$/.test(v.trim()) || Number(v) <= 0) throw new InvalidArgumentError(u.notTokens(v));
      return Number(v);
    },
    seconds(v: string): number {
      const n = Number(v);
      if (!Number.isFinite(n)) throw new InvalidArgumentError(u.notSeconds(v));
      return n;
    },
    port(v: string): number {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError(u.notPort(v));
      return n;
    },
  };
}

function collect(v: string, prev: string[]): string[] {
  return [...prev, v];
}

/** Every command name, for telling a typo (`flower statsu`) from a one-word request. */
export const COMMANDS = ['go', 'once', 'demo', 'run', 'setup', 'skills', 'status', 'log', 'store', 'ui', 'sim', 'answer', 'say', 'stop', 'help'] as const;

export function buildProgram(io: CliIO, settle: (p: Promise<number>) => void): Command {
  const lang = detectLang(io.env);
  const u = usageTexts(lang);
  const p = parsers(u);
  const program = new Command('flower')
    .description(u.program)
    .version(VERSION, '-V, --version', u.version)
    .helpOption('-h, --help', u.help)
    .option('-w, --workspace <dir>', u.workspace, '.')
    .option('-r, --run-dir <dir>', u.runDir, N.runDir)
    .option('-v, --verbose', u.verbose, false)
    .option('-q, --quiet', u.quiet, false)
    .option('--json', u.json, false)
    .option('--plugin <dir>', u.plugin, collect, [])
    .option('--store <url>', u.store)
    .option('--no-sandbox', u.noSandbox)
    .option('--net <on|off|hosts>', u.net, (v: string) => {
      try {
        return parseNet(v);
      } catch (e) {
        throw new InvalidArgumentError((e as Error).message);
      }
    })
    .option('--pass-env <name>', u.passEnv, (v: string, prev: string[]) => [...prev, envName(v)], [])
    .option('--allow-read <path>', u.allowRead, (v: string, prev: string[]) => [...prev, path.resolve(io.cwd ?? process.cwd(), v)], [])
    .option('--deny-read <path>', u.denyRead, (v: string, prev: string[]) => [...prev, path.resolve(io.cwd ?? process.cwd(), v)], [])
    .showHelpAfterError(u.afterError)
    .configureOutput({
      writeOut: (s) => io.stdout.write(translateCommander(s, lang)),
      writeErr: (s) => io.stderr.write(translateCommander(s, lang)),
    })
    .exitOverride()
    // --store wins over FLOWER_STORE from the environment or a .env file: every command (and the
    // Runtime, which reads the resolved env) sees it as FLOWER_STORE
    .hook('preAction', () => {
      const url = program.opts<{ store?: string }>().store;
      if (url !== undefined) io.env.FLOWER_STORE = url;
    });

  const globals = (): GlobalOptions => {
    const o = program.opts<{
      workspace: string;
      runDir: string;
      verbose: boolean;
      quiet: boolean;
      json: boolean;
      plugin: string[];
      sandbox: boolean;
      net?: NetPolicy;
      passEnv: string[];
      allowRead: string[];
      denyRead: string[];
    }>();
    return {
      workspace: o.workspace,
      runDir: o.runDir,
      verbose: o.verbose,
      quiet: o.quiet,
      json: o.json,
      plugins: o.plugin ?? [],
      sandbox: o.sandbox,
      ...(o.net !== undefined ? { net: o.net } : {}),
      passEnv: o.passEnv ?? [],
      allowRead: o.allowRead ?? [],
      denyRead: o.denyRead ?? [],
      workspaceGiven: program.getOptionValueSource('workspace') !== 'default',
      runDirGiven: program.getOptionValueSource('runDir') !== 'default',
    };
  };

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
        import('./early.js')
          .then((e) => e.holdAndRecord(ask, o, globals(), io))
          .then(async (held) => {
            try {
              return await (await import('./go.js')).go(ask, { ...o, ...(held ? { held } : {}) }, globals(), io);
            } finally {
              await held?.release(); // idempotent: also when go stopped before it took over the lock
            }
          }),
      );
    });

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
    .action((prompt: string, o: OnceOptions) => settle(import('./once.js').then((m) => m.once(prompt, o, globals(), io))));

  program
    .command('demo')
    .description(u.demo)
    .option('--dir <folder>', u.demoDir)
    .exitOverride()
    .action((o: { dir?: string }) => settle(import('./demo/index.js').then((m) => m.demo(o, globals(), io))));

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
      settle(import('./run.js').then((m) => m.run(target, { ...o, ask }, globals(), io))),
    );

  program
    .command('setup')
    .description(u.setup)
    .option('-y, --yes', u.setupYes, false)
    .exitOverride()
    .action((o: { yes: boolean }) => settle(import('./setup.js').then((m) => m.setup(io, { yes: o.yes, json: globals().json ?? false }))));

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

  program
    .command('status')
    .description(u.status)
    .exitOverride()
    .action(() => settle(import('./status.js').then((m) => m.status({ json: globals().json ?? false }, globals(), io))));

  program
    .command('log')
    .description(u.log)
    .option('-n, --limit <n>', u.limit, p.positiveInteger, 30)
    .exitOverride()
    .action((o: { limit: number }) => settle(import('./status.js').then((m) => m.log({ ...o, json: globals().json ?? false }, globals(), io))));

  // the durable inbox: reach a flower running in this folder from anywhere (src/cli/answer.ts)
  addInboxCommands(program, u, (p) => settle(p), globals, io);

  const store = program.command('store').description(u.storeCmd).exitOverride();
  store
    .command('copy')
    .description(u.storeCopy)
    .requiredOption('--from <store>', u.storeFrom)
    .requiredOption('--to <store>', u.storeTo)
    .exitOverride()
    .action((o: { from: string; to: string }) => settle(import('./store.js').then((m) => m.storeCopy(o, globals(), io))));

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

  program
    .command('sim')
    .description(u.sim)
    .requiredOption('--script <file>', u.script)
    .option('--port <n>', u.port, p.port, 0)
    .exitOverride()
    .action((o: { script: string; port: number }) => settle(import('./sim.js').then((m) => m.sim(o, globals(), io))));

  return program;
}

/** Run the CLI in-process. Resolves to the exit code. */
export async function main(argv: string[], io: CliIO): Promise<number> {
  let pending: Promise<number> | undefined;
  const program = buildProgram(io, (p) => {
    pending = p;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    if (!pending) {
      program.outputHelp();
      return EXIT.usage;
    }
    return await pending;
  } catch (e) {
    return report(e, io);
  }
}

function report(e: unknown, io: CliIO): number {
  if (e instanceof CommanderError) {
    // help and version are not errors; everything else commander raises is a usage error
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return EXIT.ok;
    return EXIT.usage;
  }
  if (e instanceof CliExit) {
    if (e.message) io.stderr.write(`${e.message}\n`);
    return e.code;
  }
  if (FlowerError.is(e)) {
    io.stderr.write(`x ${e.message}\n`);
    if (io.env.FLOWER_DEBUG) io.stderr.write(`${e.stack ?? ''}\n`);
    return EXIT.failure;
  }
  io.stderr.write(`x ${usageTexts(detectLang(io.env)).internal(e instanceof Error ? e.message : String(e))}\n`);
  if (io.env.FLOWER_DEBUG && e instanceof Error) io.stderr.write(`${e.stack ?? ''}\n`);
  return EXIT.failure;
}
