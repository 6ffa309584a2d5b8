/** `flower once PROMPT` — one agent, no workflow, no lineage (resume it yourself with --resume). */
import { AgentSpec, Runtime, type FlowerEvent } from '../runtime/index.js';
import { CliExit, EXIT, type CliIO } from './io.js';
import { rescueOnSignals } from './signals.js';
import { security, type GlobalOptions } from './globals.js';
import { credentialGate } from './setup.js';
import { resolvePlugins } from './skills.js';
import { noteLines } from './screen/wrap.js';
import { sanitize, wrapWidth } from './term.js';
import { messages } from './messages.js';
import { detectLang } from '../config/index.js';

const clean = (t: string): string => sanitize(t, { keepColour: false });

export interface OnceOptions {
  instructions?: string;
  tools: string;
  permissionMode: 'default' | 'acceptEdits' | 'plan' | 'bypassPermissions';
  budget?: number;
  resume?: string;
  fork?: boolean;
  /** --window N: the context window in tokens */
  window?: number;
  /** false with --no-handoff (commander's negation default is true) */
  handoff?: boolean;
  /** --skills all|a,b: skills this agent may load */
  skills?: string;
}

export async function once(prompt: string, o: OnceOptions, g: GlobalOptions, io: CliIO): Promise<number> {
  if (o.fork && !o.resume) throw new CliExit(EXIT.usage, 'error: --fork needs --resume SID (it forks an existing session)');
  const tools = list(o.tools);
  const skills = o.skills === undefined ? undefined : o.skills.trim() === 'all' ? ('all' as const) : list(o.skills);
  // no credentials: offered setup on a terminal, else one line and exit 1 — before anything starts
  await credentialGate(io, { json: g.json });
  let spec = new AgentSpec({
    name: 'ad-hoc',
    ...(skills !== undefined ? { skills } : {}),
    instructions: o.instructions ?? '',
    allowedTools: tools,
    permissionMode: o.permissionMode,
    ...(o.budget !== undefined ? { maxBudgetUsd: o.budget } : {}),
  });
  const rt = new Runtime({
    workspace: g.workspace,
    runDir: g.runDir,
    env: io.env,
    plugins: resolvePlugins(g, io.cwd ?? process.cwd()),
    ...security(g),
    handoff: o.handoff !== false,
    ...(o.window !== undefined ? { window: o.window } : {}),
  });
  rt.request = prompt.trim() || undefined;
  // the plugins named on this command line are this one agent's
  const named = rt.skills.discovery.plugins.map((p) => p.name);
  if (named.length) spec = spec.with({ plugins: named });
  const unhook = rescueOnSignals(rt);
  if (g.verbose) io.stderr.write(noteLines(rt.describeLines(), wrapWidth(io.stderr, io.env)));
  // handoffs and the model-mismatch warning change what the run costs and where it continues: always shown
  const notices = messages(detectLang(io.env));
  const onEvent = (e: FlowerEvent) => {
    if (g.json) {
      const { raw: _raw, ...rest } = e;
      io.stdout.write(`${JSON.stringify({ t: new Date().toISOString(), ...rest })}\n`);
      return;
    }
    // model and tool text never reaches a terminal with its escapes
    if (e.kind === 'handoff') io.stderr.write(`# ${clean(e.text)}\n`);
    // the endpoint's reachability notice, as the default flow shows it (render.ts): at once, not after the wait
    else if (e.kind === 'retry' && (e.payload.offline === true || e.payload.online === true)) io.stderr.write(`${notices.offline(clean(e.text))}\n`);
    else if (e.kind === 'error' && (g.verbose || e.payload.model_mismatch === true)) io.stderr.write(`x ${clean(e.text)}\n`);
    else if (g.verbose && e.kind === 'tool_call') io.stderr.write(`${e.subagent ? '  | ' : ''}* ${clean(e.tool ?? '')} ${clean(e.text)}\n`);
  };
  try {
    const r = await rt.run(spec, prompt, {
      stepName: 'ad-hoc',
      ...(o.resume ? { resume: o.resume } : {}),
      ...(o.fork ? { fork: true } : {}),
      onEvent,
    });
    if (g.json) {
      io.stdout.write(`${JSON.stringify({ t: new Date().toISOString(), kind: 'step_result', ...r })}\n`);
      if (!r.ok) io.stderr.write(`x failed: ${clean(r.error ?? 'unknown error')}\n`);
      return r.ok ? EXIT.ok : EXIT.failure;
    }
    // the answer goes out as it is into a pipe (it is the product), sanitized on a terminal
    const text = io.stdout.isTTY ? clean(r.text) : r.text;
    if (text) io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    const retired = r.retired.length ? ` · handed off from ${r.retired.join(', ')}` : '';
    io.stdout.write(`-- session ${r.session_id ?? '(none)'} · $${r.cost_usd.toFixed(4)} · ${r.num_turns} turns${retired}\n`);
    if (!r.ok) {
      io.stderr.write(`x failed: ${clean(r.error ?? 'unknown error')}\n`);
      return EXIT.failure;
    }
    return EXIT.ok;
  } finally {
    unhook();
    rt.close();
  }
}

/** `a, b,,c` → `['a', 'b', 'c']` */
function list(v: string): string[] {
  return v
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}
