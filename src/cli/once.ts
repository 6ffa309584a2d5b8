/** `flower once PROMPT` — one agent, no workflow, no lineage (resume it yourself with --resume). */
import { AgentSpec, Runtime, type FlowerEvent } from '../runtime/index.js';
import { CliExit, EXIT, type CliIO } from './io.js';
import { rescueOnSignals } from './signals.js';
import type { GlobalOptions } from './program.js';

export interface OnceOptions {
  instructions?: string;
  tools: string;
  permissionMode: 'default' | 'acceptEdits' | 'plan' | 'bypassPermissions';
  budget?: number;
  resume?: string;
  fork?: boolean;
}

export async function once(prompt: string, o: OnceOptions, g: GlobalOptions, io: CliIO): Promise<number> {
  if (o.fork && !o.resume) throw new CliExit(EXIT.usage, 'error: --fork needs --resume SID (it forks an existing session)');
  const tools = o.tools.split(',').map((t) => t.trim()).filter(Boolean);
  const spec = new AgentSpec({
    name: 'ad-hoc',
    instructions: o.instructions ?? '',
    allowedTools: tools,
    permissionMode: o.permissionMode,
    ...(o.budget !== undefined ? { maxBudgetUsd: o.budget } : {}),
  });
  const rt = new Runtime({ workspace: g.workspace, runDir: g.runDir, env: io.env });
  const unhook = rescueOnSignals(rt);
  const onEvent = g.verbose ? (e: FlowerEvent) => {
    if (e.kind === 'tool_call') io.stderr.write(`${e.subagent ? '  | ' : ''}* ${e.tool ?? ''} ${e.text}\n`);
    else if (e.kind === 'error') io.stderr.write(`x ${e.text}\n`);
  } : undefined;
  try {
    const r = await rt.run(spec, prompt, {
      stepName: 'ad-hoc',
      ...(o.resume ? { resume: o.resume } : {}),
      ...(o.fork ? { fork: true } : {}),
      ...(onEvent ? { onEvent } : {}),
    });
    if (r.text) io.stdout.write(r.text.endsWith('\n') ? r.text : `${r.text}\n`);
    io.stdout.write(`-- session ${r.session_id ?? '(none)'} · $${r.cost_usd.toFixed(4)} · ${r.num_turns} turns\n`);
    if (!r.ok) {
      io.stderr.write(`x failed: ${r.error ?? 'unknown error'}\n`);
      return EXIT.failure;
    }
    return EXIT.ok;
  } finally {
    unhook();
    rt.close();
  }
}
