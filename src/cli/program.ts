/**
 * The command line. Global flags (-w, -r, -v) are accepted before or after the subcommand.
 * Usage errors exit 2 with usage; deliberate stops exit 1 with one clear line; never a stack trace
 * for a user error (set FLOWER_DEBUG=1 to see one).
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { FlowerError } from '../errors.js';
import { NAMES as N } from '../state/index.js';
import { CliExit, EXIT, type CliIO } from './io.js';
// commands are loaded when chosen: `flower --help` and `flower once` need not load the flow's modules
import type { GoOptions } from './go.js';
import type { OnceOptions } from './once.js';

export interface GlobalOptions {
  workspace: string;
  runDir: string;
  verbose: boolean;
  /** less on screen: no tool calls, no thinking, no worker activity */
  quiet?: boolean;
  /** NDJSON events on stdout instead of the terminal rendering */
  json?: boolean;
  /** plugin folders (`--plugin DIR`, repeatable) */
  plugins?: string[];
}

const VERSION = '0.1.0';

function positiveNumber(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`'${v}' is not a positive number.`);
  return n;
}

function integer(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n)) throw new InvalidArgumentError(`'${v}' is not a whole number.`);
  return n;
}

function seconds(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n)) throw new InvalidArgumentError(`'${v}' is not a number of seconds.`);
  return n;
}

function collect(v: string, prev: string[]): string[] {
  return [...prev, v];
}

function port(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError(`'${v}' is not a port (0-65535).`);
  return n;
}

export function buildProgram(io: CliIO, settle: (p: Promise<number>) => void): Command {
  const program = new Command('flower')
    .description('A long-horizon agent framework on the Claude Agent SDK.')
    .version(VERSION, '-V, --version')
    .option('-w, --workspace <dir>', "the agents' working directory (created if missing)", '.')
    .option('-r, --run-dir <dir>', `${N.sessionsDb}, ${N.manifest}, ${N.lineage} — relative to the current directory, not the workspace`, N.runDir)
    .option('-v, --verbose', 'more on screen: tool names and results, worker prose, whole thinking, the effective configuration', false)
    .option('-q, --quiet', 'less on screen: prose, questions, step lines and verdicts only (no tool calls, thinking or worker activity)', false)
    .option('--json', 'print the run as NDJSON events on stdout (one JSON object per line) instead of the terminal view', false)
    .option('--plugin <dir>', 'load a plugin folder (skills, MCP servers) for the roles that declare it; repeatable (also FLOWER_PLUGINS)', collect, [])
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .exitOverride();

  const globals = (): GlobalOptions => {
    const o = program.opts<{ workspace: string; runDir: string; verbose: boolean; quiet: boolean; json: boolean; plugin: string[] }>();
    return { workspace: o.workspace, runDir: o.runDir, verbose: o.verbose, quiet: o.quiet, json: o.json, plugins: o.plugin ?? [] };
  };

  program
    .command('go', { isDefault: true })
    .description(`the default flow: clarify the request (${N.brief}), set a goal (${N.goal}), work, and let a fresh judge decide — \`flower "…"\` is \`flower go "…"\`; run it again in the same folder to continue`)
    .argument('[ask...]', 'what to do (one sentence); on a folder already in progress, a remark to add')
    .option('--asks <n>', 'how many questions the agents may ask you (negative = unlimited)', integer, -1)
    .option('--rounds <n>', 'total work rounds, each judged (reset on every wake)', integer, 3)
    .option('--no-goal', 'no goal step and no judge')
    .option('--judge-can-run', 'let the judge run commands (stronger verdicts; it can touch the workspace)', false)
    .option('--timeout <sec>', 'how long to wait for your answer (≤ 0 = fully automatic; default 1800 on a terminal, 0 otherwise)', seconds)
    .option('--new', `archive ${N.lineage}, ${N.brief} and ${N.goal} into ${N.workbenchDir}/${N.notes}/${N.archive}/<ts>/ and start something else`, false)
    .option('--clarify-only', `only pin the requirement down (${N.brief})`, false)
    .option('--no-trim', 'keep old large tool results in the resumed context')
    .option('--window <n>', 'the model\'s context window in tokens (handoff threshold follows)', integer)
    .option('--no-handoff', "use the SDK's own compaction instead of handoff")
    .option('--isolate', `each worker in its own git worktree (the workspace must be a git repository; the workbench moves to <parent>/${N.workbenchDir}-<name>)`, false)
    .exitOverride()
    .action((ask: string[], o: GoOptions) => settle(import('./go.js').then((m) => m.go(ask, o, globals(), io))));

  program
    .command('once')
    .description('run one agent on PROMPT: no workflow, no lineage; prints the answer, the session id, cost and turns')
    .argument('<prompt>', 'what to do')
    .option('-i, --instructions <text>', 'rules appended to the Claude Code system prompt')
    .option('-t, --tools <list>', 'comma-separated tools that need no approval', 'Read,Glob,Grep')
    .addOption(new Option('-p, --permission-mode <mode>', 'permission mode').choices(['default', 'acceptEdits', 'plan', 'bypassPermissions']).default('default'))
    .option('-b, --budget <usd>', 'stop when the cost reaches this many USD', positiveNumber)
    .option('--resume <sid>', 'continue this session')
    .option('--fork', 'with --resume: continue under a new session id, leaving the original untouched', false)
    .option('--window <n>', "the model's context window in tokens (the handoff threshold follows; default FLOWER_WINDOW, then calibration, then the model name)", (v: string) => {
      if (!/^\d+$/.test(v.trim()) || Number(v) <= 0) throw new InvalidArgumentError(`'${v}' is not a positive whole number of tokens.`);
      return Number(v);
    })
    .option('--no-handoff', "let the harness compact the context itself instead of handing off to a fresh session")
    .option('--skills <list>', "skills this agent may load: 'all' or comma-separated names (project: .flower/skills/, yours: ~/.config/flower/skills/)")
    .exitOverride()
    .action((prompt: string, o: OnceOptions) => settle(import('./once.js').then((m) => m.once(prompt, o, globals(), io))));

  program
    .command('demo')
    .description('run the whole flow on the embedded scripted model — no API key, no network — in a fresh temp folder, then wake it once')
    .option('--dir <folder>', 'run in this folder instead of a new temp folder')
    .exitOverride()
    .action((o: { dir?: string }) => settle(import('./demo/index.js').then((m) => m.demo(o, globals(), io))));

  program
    .command('run')
    .description('run your own Workflow: FILE is an ES module exporting a Workflow, or a function returning one (called with { channel, flower, ask, workspace, runDir }); the terminal answers its questions as in `flower`')
    .argument('<target>', 'FILE[:EXPORT] (EXPORT defaults to default, then workflow)')
    .argument('[ask...]', 'words handed to a factory export as `ask` (see examples/team.mjs)')
    .option('--new', `archive ${N.lineage}, ${N.brief} and ${N.goal} into ${N.workbenchDir}/${N.notes}/${N.archive}/<ts>/ and start fresh`, false)
    .option('-W, --workbench', 'the workbench on (.flower/: big outputs spill to files, new sessions get its index) — default: on when a step\'s spec wants it')
    .option('--no-workbench', 'the workbench off')
    .option('-T, --trim', 'on resume, archive old large tool results to spill files (the default)')
    .option('--no-trim', 'keep old large tool results in the resumed context')
    .option('--timeout <sec>', 'how long a question waits for your answer (≤ 0 = fully automatic; default 1800 on a terminal, 0 otherwise)', seconds)
    .exitOverride()
    .action((target: string, ask: string[], o: { new: boolean; workbench?: boolean; trim?: boolean; timeout?: number }) => settle(import('./run.js').then((m) => m.run(target, { ...o, ask }, globals(), io))));

  program
    .command('setup')
    .description('store your API key or gateway token (and optional gateway URL and model) in ~/.config/flower/.env, private (0600)')
    .exitOverride()
    .action(() => settle(import('./setup.js').then((m) => m.setup(io))));

  const skills = program
    .command('skills')
    .description('the skills and plugins a run here loads: .flower/skills/ (project), ~/.config/flower/skills/ (yours), --plugin DIR / FLOWER_PLUGINS')
    .exitOverride()
    .action(() => settle(import('./skills.js').then((m) => m.skillsList(globals(), io))));
  skills
    .command('new')
    .description('start a project skill: writes .flower/skills/NAME/SKILL.md from a template')
    .argument('<name>', 'lowercase letters, digits and hyphens, e.g. deploy-checklist')
    .exitOverride()
    .action((name: string) => settle(import('./skills.js').then((m) => m.skillsNew(name, globals(), io))));

  program
    .command('status')
    .description('what this folder remembers: brief, goal, wake count, step sessions and their context, spend — read-only, no model call')
    .exitOverride()
    .action(() => settle(import('./status.js').then((m) => m.status({ json: globals().json ?? false }, globals(), io))));

  program
    .command('log')
    .description('the manifest, one line per step run (newest last)')
    .option('-n, --limit <n>', 'how many rows', (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`'${v}' is not a positive whole number.`);
      return n;
    }, 30)
    .exitOverride()
    .action((o: { limit: number }) => settle(import('./status.js').then((m) => m.log({ ...o, json: globals().json ?? false }, globals(), io))));

  program
    .command('ui')
    .description('a local, read-only web view of the runs: steps, verdicts, costs, context curves, handoffs, transcripts — prints a URL with an access token')
    .option('--port <n>', 'port to listen on (0 = any free port)', port, 0)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--open', 'open the page in a browser', false)
    .exitOverride()
    .action((o: { port: number; host: string; open: boolean }) => settle(import('./ui.js').then((m) => m.ui({ ...o, runDirGiven: program.getOptionValueSource('runDir') !== 'default' }, globals(), io))));

  program
    .command('sim')
    .description('serve a scripted model (Anthropic Messages API) on 127.0.0.1 — test workflows offline against the real harness')
    .requiredOption('--script <file>', 'a JSON scenario (see docs/sim.md)')
    .option('--port <n>', 'port to listen on (0 = any free port)', port, 0)
    .exitOverride()
    .action((o: { script: string; port: number }) => settle(import('./sim.js').then((m) => m.sim(o, globals(), io))));

  return program;
}

/** Run the CLI in-process. Resolves to the exit code. */
export async function main(argv: string[], io: CliIO): Promise<number> {
  let pending: Promise<number> | undefined;
  const program = buildProgram(io, (p) => { pending = p; });
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
  io.stderr.write(`x internal error: ${e instanceof Error ? e.message : String(e)} (set FLOWER_DEBUG=1 for the stack)\n`);
  if (io.env.FLOWER_DEBUG && e instanceof Error) io.stderr.write(`${e.stack ?? ''}\n`);
  return EXIT.failure;
}
