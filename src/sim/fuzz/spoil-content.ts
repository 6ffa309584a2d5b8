/**
 * Faults in what the answer says: a document with a field wrong, prose instead of the tool call, a tool
 * that is not there, the same call again (or stuck in a loop), a huge field, impossible usage numbers.
 * Each keeps the rest of the plausible turn, so what arrives still looks like that turn.
 */
import type { SimToolCall, SimUsage } from '../items.js';
import {
  briefMarkdown,
  filler,
  goalMarkdown,
  handoffMarkdown,
  verdictMarkdown,
  type BriefInput,
  type GoalInput,
  type HandoffInput,
  type VerdictInput,
} from './docs.js';
import { type FaultInput, type Faulted, hasCall, KIND_OF_ROLE, planItem } from './fault.js';
import type { FuzzRole } from './options.js';
import { messageCount, submitTool } from './read.js';
import type { Draw } from './rng.js';
import { documentFor } from './turns.js';

/** The tool call with a field missing / extra / wrong-typed / empty; a verdict also hollow, without evidence or partial. */
export function badFields(f: FaultInput): Faulted {
  const c = f.plan.calls[0]!;
  const verdict = c.name.endsWith('submit_verdict');
  const variant = f.draw.pick(
    verdict ? ['missing', 'extra', 'wrong_type', 'empty', 'hollow', 'no_evidence', 'partial'] : ['missing', 'extra', 'wrong_type', 'empty'],
  );
  return { variant, item: { type: 'tool_use', name: c.name, input: spoilFields(c.input ?? {}, variant, f.draw) } };
}

/** A 1–2 MB text answer, or the tool call with its longest field 1–2 MB long. */
export function huge(f: FaultInput): Faulted {
  const bytes = f.draw.int(f.limits.hugeBytes[0], f.limits.hugeBytes[1]);
  if (!hasCall(f) || f.draw.chance(0.5)) return { variant: `text:${bytes}`, item: { type: 'text', text: filler(bytes), chunks: 64 } };
  const c = f.plan.calls[0]!;
  return { variant: `input:${bytes}`, item: { type: 'tool_use', name: c.name, input: bloat(c.input ?? {}, filler(bytes)) as Record<string, unknown> } };
}

function wrongType(v: unknown): unknown {
  if (typeof v === 'string') return 42;
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join('; ');
  if (typeof v === 'boolean') return 'yes';
  if (typeof v === 'number') return 'many';
  return v === null ? 0 : 'see above';
}

function spoilFields(input: Record<string, unknown>, variant: string, draw: Draw): Record<string, unknown> {
  const out = structuredClone(input);
  const keys = Object.keys(out);
  const key = keys.length ? draw.pick(keys) : 'input';
  const checks = Array.isArray(out.checks) ? (out.checks as Array<Record<string, unknown>>) : [];
  switch (variant) {
    case 'missing':
      delete out[key];
      break;
    case 'extra':
      Object.assign(out, { confidence: 0.9, notes: 'a field the schema does not have' });
      break;
    case 'wrong_type':
      out[key] = wrongType(out[key]);
      break;
    case 'empty':
      out[key] = typeof out[key] === 'string' ? '' : Array.isArray(out[key]) ? [] : null;
      break;
    // the verdict-only ways to say "achieved" without having judged
    case 'hollow':
      return { state: 'achieved', reason: '', checks: [] };
    case 'no_evidence':
      return { ...out, state: 'achieved', reason: '', checks: checks.map((c) => ({ ...c, pass: true, evidence: '' })) };
    case 'partial':
      return { ...out, state: 'achieved', reason: '', checks: checks.slice(0, 1).map((c) => ({ ...c, pass: true })) };
  }
  return out;
}

/** The longest string anywhere in `v` replaced by `text` (a Write's content, a brief's goal, an evidence). */
function bloat(v: unknown, text: string): unknown {
  let best: { path: Array<string | number>; len: number } = { path: [], len: -1 };
  const walk = (x: unknown, at: Array<string | number>): void => {
    if (typeof x === 'string' && x.length > best.len) best = { path: at, len: x.length };
    else if (Array.isArray(x))
      x.forEach((y, i) => {
        walk(y, [...at, i]);
      });
    else if (typeof x === 'object' && x !== null) for (const [k, y] of Object.entries(x)) walk(y, [...at, k]);
  };
  walk(v, []);
  if (best.path.length === 0) return { ...(v as object), text };
  const out = structuredClone(v) as Record<string | number, unknown>;
  let cur = out;
  for (const k of best.path.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  cur[best.path.at(-1)!] = text;
  return out;
}

const NOT_OFFERED: ReadonlyArray<[string, (ws: string) => Record<string, unknown>]> = [
  ['Write', (ws) => ({ file_path: `${ws}/NOTE.txt`, content: 'written by a role that may not write\n' })],
  ['Edit', (ws) => ({ file_path: `${ws}/md2html.mjs`, old_string: 'md', new_string: 'markdown' })],
  ['Bash', () => ({ command: 'ls -la', description: 'look around' })],
  ['Agent', () => ({ description: 'help', subagent_type: 'general-purpose', prompt: 'Do the task.' })],
  ['WebFetch', () => ({ url: 'https://example.com/markdown-spec', prompt: 'summarize the spec' })],
];

export function unknownTool(f: FaultInput): Faulted {
  const { ctx, draw } = f;
  const own = KIND_OF_ROLE[ctx.role];
  const others = (['brief', 'goal', 'verdict', 'handoff'] as const).filter((k) => k !== own && submitTool(ctx.call, k));
  const absent = NOT_OFFERED.filter(([name]) => !ctx.call.tools.includes(name));
  const variant = draw.pick(['nonexistent', 'not_offered', 'other_role'] as const);
  if (variant === 'other_role' && others.length > 0) {
    const kind = draw.pick(others);
    return { variant: `other_role:${kind}`, item: { type: 'tool_use', name: submitTool(ctx.call, kind)!, input: documentFor(ctx, kind) } };
  }
  if (variant !== 'nonexistent' && absent.length > 0) {
    const [name, input] = draw.pick(absent);
    return { variant: `not_offered:${name}`, item: { type: 'tool_use', name, input: input(ctx.ws) } };
  }
  const name = own ? `mcp__human__submit_${own}_v2` : 'write_file';
  const input = f.plan.calls[0]?.input ?? { path: `${ctx.ws}/out.txt`, content: f.plan.text ?? '' };
  return { variant: 'nonexistent', item: { type: 'tool_use', name, input } };
}

export function prose(f: FaultInput): Faulted {
  const call = f.plan.calls[0];
  const own = KIND_OF_ROLE[f.ctx.role];
  if (own && call?.name.endsWith(`submit_${own}`) && f.draw.chance(0.5)) {
    const input = call.input ?? {};
    const md =
      own === 'brief'
        ? briefMarkdown(input as unknown as BriefInput)
        : own === 'goal'
          ? goalMarkdown(input as unknown as GoalInput)
          : own === 'verdict'
            ? verdictMarkdown(input as unknown as VerdictInput)
            : handoffMarkdown(input as unknown as HandoffInput);
    return { variant: 'markdown', item: { type: 'text', text: md } };
  }
  const claims: Partial<Record<FuzzRole, string>> = {
    clarify: 'The request is clear enough as it stands; I will not ask anything.',
    goal: 'The goal is simply to do what was asked.',
    judge: 'It looks done to me.',
    coordinator: 'The work is done.',
    worker: 'Done.',
  };
  return { variant: 'chat', item: { type: 'text', text: claims[f.ctx.role] ?? 'Done.' } };
}

export function repeat(f: FaultInput): Faulted {
  const last = f.ctx.all.at(-1);
  if (!hasCall(f) || (last && f.draw.chance(0.5))) {
    return { variant: 'again', item: { type: 'tool_use', name: last!.name, input: last!.input } };
  }
  const n = f.draw.int(2, 5);
  const c = f.plan.calls[0]!;
  return {
    variant: `parallel:${n}`,
    item: { type: 'tool_use', tools: Array.from({ length: n }, (): SimToolCall => ({ name: c.name, input: c.input ?? {} })) },
  };
}

/** Stuck: the last call of the conversation made again, with the same input, whatever came back. */
export function stuck(f: FaultInput): Faulted {
  const last = f.ctx.all.at(-1)!;
  return {
    variant: `again:${f.ctx.all.filter((c) => c.name === last.name && JSON.stringify(c.input) === JSON.stringify(last.input)).length}`,
    item: { type: 'tool_use', name: last.name, input: last.input },
  };
}

export function usage(f: FaultInput): Faulted {
  const variant = f.draw.pick(['zero', 'huge', 'decreasing'] as const);
  const big = 1_000_000_000;
  const u: Partial<SimUsage> =
    variant === 'zero'
      ? { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
      : variant === 'huge'
        ? f.draw.pick([{ input_tokens: big }, { output_tokens: big }, { cache_read_input_tokens: big }])
        : // shrinks as the conversation grows: a gateway that reports per-chunk or resets its counters
          { input_tokens: Math.max(1, 150_000 - 7_000 * messageCount(f.ctx.call)), cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  return { variant: variant === 'huge' ? `huge:${Object.keys(u)[0]}` : variant, item: planItem(f.plan, { usage: u }) };
}
