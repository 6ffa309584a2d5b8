/**
 * The command line. Global flags (-w, -r, -v) are accepted before or after the subcommand.
 * Usage errors exit 2 with usage; deliberate stops exit 1 with one clear line; never a stack trace
 * for a user error (set FLOWER_DEBUG=1 to see one).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { detectLang, type Lang } from '../config/lang.js';
import { FlowerError } from '../errors.js';
import { NAMES as N } from '../state/layout.js';
import { parseNet, type NetPolicy } from '../guards/sandbox.js';
import { parseBudget, parseDeadline, RunLimits } from '../runtime/limits.js';
import { webhookUrl } from '../notify/settings.js';
import { addCommands } from './commands.js';
import type { GlobalOptions } from './globals.js';
import { CliExit, EXIT, type CliIO } from './io.js';
import { collect, envName, parsers } from './parsers.js';
import { commanderError, translateCommander, usageTexts, type UsageTexts } from './usage.js';
import { watchLifeline } from './lifeline.js';

export { COMMANDS } from './commands.js';

// one version: package.json's (src/cli and dist/cli are both two levels below it)
const VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/** The whole command line: the root with its global flags, then every command (src/cli/commands.ts). */
export function buildProgram(io: CliIO, settle: (p: Promise<number>) => void, o: { json?: boolean } = {}): Command {
  const lang = detectLang(io.env);
  const u = usageTexts(lang);
  const program = root(io, lang, u);
  addGlobalFlags(program, io, u);
  addCommands({ program, io, u, p: parsers(u), settle, globals: () => readGlobals(program, io) });
  styleErrors(program, lang, io, o.json === true);
  return program;
}

/**
 * commander's own error lines in flower's style, each naming the help of the command that raised it;
 * with --json none on stderr (report() prints the error as JSON on stdout).
 */
function styleErrors(cmd: Command, lang: Lang, io: CliIO, json: boolean, name = 'flower'): void {
  cmd.configureOutput({ outputError: (s) => (json ? undefined : io.stderr.write(commanderError(s, lang, name))) });
  // `flower --x` is parsed by the default command (go), and reads as flower's own
  const fallback = (cmd as unknown as { _defaultCommandName?: string })._defaultCommandName;
  for (const sub of cmd.commands) styleErrors(sub, lang, io, json, sub.name() === fallback ? name : `${name} ${sub.name()}`);
}

/** The root command: name, version, help, and commander's output in the terminal's language. */
function root(io: CliIO, lang: Lang, u: UsageTexts): Command {
  const program = new Command('flower')
    .description(u.program)
    .version(VERSION, '-V, --version', u.version)
    .helpOption('-h, --help', u.help)
    // `flower <cmd> --help` lists the global flags too (-w, -r, --json, … work after any command)
    .configureHelp({ showGlobalOptions: true })
    // three commands a newcomer can type as they are
    .addHelpText('after', `\n${u.examples}`)
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
  return program;
}

/**
 * The global flags, accepted before or after the subcommand. To add one: declare it here, read it in
 * readGlobals below, and name it in GlobalOptions (globals.ts), which every command receives.
 */
function addGlobalFlags(program: Command, io: CliIO, u: UsageTexts): void {
  const inCwd = (v: string) => path.resolve(io.cwd ?? process.cwd(), v);
  program
    .option('-w, --workspace <dir>', u.workspace, '.')
    .option('-r, --run-dir <dir>', u.runDir, N.runDir)
    .option('-v, --verbose', u.verbose, false)
    .option('-q, --quiet', u.quiet, false)
    .option('--json', u.json, false)
    .option('--plugin <dir>', u.plugin, collect, [])
    .option('--store <url>', u.store)
    .option('--budget <usd>', u.runBudget, (v: string) => asArgument(() => parseBudget(v)))
    .option('--deadline <when>', u.runDeadline, (v: string) => asArgument(() => parseDeadline(v)))
    .option('--notify <url>', u.notify, (v: string) => asArgument(() => webhookUrl(v, '--notify')))
    .option('--notify-cmd <cmd>', u.notifyCmd)
    .option('--no-bequest', u.noBequest)
    .option('--no-sandbox', u.noSandbox)
    .option('--net <on|off|hosts>', u.net, (v: string) => {
      try {
        return parseNet(v);
      } catch (e) {
        throw new InvalidArgumentError((e as Error).message);
      }
    })
    .option('--pass-env <name>', u.passEnv, (v: string, prev: string[]) => [...prev, envName(v)], [])
    .option('--allow-read <path>', u.allowRead, (v: string, prev: string[]) => [...prev, inCwd(v)], [])
    .option('--deny-read <path>', u.denyRead, (v: string, prev: string[]) => [...prev, inCwd(v)], []);
}

/** The global flags as commander parsed them (the names addGlobalFlags declares). */
interface GlobalFlags {
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
  budget?: number;
  deadline?: number;
  notify?: string;
  notifyCmd?: string;
  bequest: boolean;
}

/** What every command receives from the global flags. */
function readGlobals(program: Command, io: CliIO): GlobalOptions {
  const o = program.opts<GlobalFlags>();
  let limits: RunLimits | undefined;
  return {
    // read when a command makes its Runtime: a bad FLOWER_BUDGET stops a run, never `flower status`
    limits: () => (limits ??= runLimits(o, io.env)),
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
    ...(o.notify !== undefined ? { notify: o.notify } : {}),
    ...(o.notifyCmd !== undefined ? { notifyCmd: o.notifyCmd } : {}),
    ...(o.bequest === false ? { bequest: false } : {}),
    workspaceGiven: program.getOptionValueSource('workspace') !== 'default',
    runDirGiven: program.getOptionValueSource('runDir') !== 'default',
  };
}

/**
 * This wake's limits, one object shared by every Runtime the command makes: the flags win over
 * FLOWER_BUDGET / FLOWER_DEADLINE (a duration there counts from this start).
 */
function runLimits(o: GlobalFlags, env: Readonly<Record<string, string | undefined>>): RunLimits {
  const fromEnv = <T>(name: string, parse: (v: string) => T): T | undefined => {
    const v = env[name]?.trim();
    if (!v) return undefined;
    try {
      return parse(v);
    } catch (e) {
      throw new CliExit(EXIT.usage, `x ${(e as Error).message}`);
    }
  };
  return new RunLimits({
    budgetUsd: o.budget ?? fromEnv('FLOWER_BUDGET', (v) => parseBudget(v, 'FLOWER_BUDGET')),
    deadlineAt: o.deadline ?? fromEnv('FLOWER_DEADLINE', (v) => parseDeadline(v, Date.now(), 'FLOWER_DEADLINE')),
  });
}

/** A parser's ConfigError as commander's usage error (exit 2, the flag named). */
function asArgument<T>(parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}

/** Run the CLI in-process. Resolves to the exit code. */
export async function main(argv: string[], io: CliIO): Promise<number> {
  // started by a fleet worker: end with it (src/cli/lifeline.ts)
  watchLifeline(io.env);
  let pending: Promise<number> | undefined;
  // --json before any `--`: an error is then a JSON object on stdout too
  const end = argv.indexOf('--');
  const json = (end < 0 ? argv : argv.slice(0, end)).includes('--json');
  const program = buildProgram(
    io,
    (p) => {
      pending = p;
    },
    { json },
  );
  try {
    await program.parseAsync(argv, { from: 'user' });
    if (!pending) {
      program.outputHelp();
      return EXIT.usage;
    }
    return await pending;
  } catch (e) {
    const r = report(e, io);
    if (json && r.message) io.stdout.write(`${JSON.stringify({ error: { code: r.code, message: r.message, exit: r.exit } })}\n`);
    return r.exit;
  }
}

/** How a failure ends: its exit code, and (for --json) a stable code and the one line it printed. */
interface Reported {
  exit: number;
  code: string;
  message: string;
}

function report(e: unknown, io: CliIO): Reported {
  if (e instanceof CommanderError) {
    // help and version are not errors; everything else commander raises is a usage error
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return { exit: EXIT.ok, code: '', message: '' };
    const line = commanderError(e.message, detectLang(io.env), 'flower');
    return { exit: EXIT.usage, code: e.code.replace(/^commander\./, 'usage.'), message: line.replace(/^x /, '').replace(/ —+ (?:see|见) .*$/s, '') };
  }
  if (e instanceof CliExit) {
    if (e.message) io.stderr.write(`${e.message}\n`);
    return { exit: e.code, code: e.code === EXIT.usage ? 'usage' : 'stopped', message: e.message.replace(/^x /, '') };
  }
  if (FlowerError.is(e)) {
    io.stderr.write(`x ${e.message}\n`);
    if (io.env.FLOWER_DEBUG) io.stderr.write(`${e.stack ?? ''}\n`);
    return { exit: EXIT.failure, code: e.code, message: e.message };
  }
  const line = usageTexts(detectLang(io.env)).internal(e instanceof Error ? e.message : String(e));
  io.stderr.write(`x ${line}\n`);
  if (io.env.FLOWER_DEBUG && e instanceof Error) io.stderr.write(`${e.stack ?? ''}\n`);
  return { exit: EXIT.failure, code: 'internal', message: line };
}
