/**
 * `flower report`'s analysis, pure: one run's manifest rows and the stored transcripts of their
 * sessions in, a `RunReport` out — the original's run analysis (context curve, cache hits, tool counts,
 * denied coordinator calls, the coordinator's own Bash commands, spill savings).
 *
 * The figures come from the ui's readers of transcript entries (src/ui/transcript.ts): model calls are
 * folded by message id there, so a call written as several entries is counted once. A session that a
 * later run continued holds that run's entries too, so only entries inside a row's time span count.
 */
import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';
import type { ManifestRow } from '../state/index.js';
import { isDenialEntry } from '../store/index.js';
import { callsBetween, figuresOf, foldCalls, resultText, type ModelCall } from '../ui/transcript.js';

/** The stored transcripts of one session: the main thread and each subagent's. */
export interface SessionEntries {
  main: readonly unknown[];
  subagents: ReadonlyArray<readonly unknown[]>;
}

export interface ReportInput {
  run: string;
  /** the run's manifest rows, in order */
  rows: readonly ManifestRow[];
  /** transcripts by session id (a session with no transcript is simply absent) */
  sessions: Readonly<Record<string, SessionEntries>>;
}

export interface TokenSums {
  calls: number;
  input: number;
  cacheCreation: number;
  cacheRead: number;
  output: number;
}

export interface StepReport {
  step: string;
  ok: boolean;
  cost_usd: number;
  duration_s: number;
  /** the sessions of the row, oldest first: those retired by handoff, then the one it ended in */
  sessions: string[];
  /** sessions named by the row that have no transcript in the store */
  missing: string[];
  /** main-thread context per model call, in order */
  curve: number[];
  peak: number;
  last: number;
  /** indexes into `curve` where a successor session took over (a handoff) */
  handoffs: number[];
  tokens: TokenSums;
}

export interface DeniedCall {
  step: string;
  tool: string;
  reason: string;
}

export interface BashCommand {
  step: string;
  command: string;
  denied: boolean;
}

export interface RunReport {
  run: string;
  started_at: string;
  ended_at: string | null;
  ok: boolean;
  cost_usd: number;
  steps: StepReport[];
  /** every model call of the run, main threads and subagents */
  tokens: TokenSums;
  /** cache_read / (input + cache_creation + cache_read) over the run's model calls; 0 with no calls */
  cache_hit_rate: number;
  tools: { main: Record<string, number>; subagents: Record<string, number> };
  denied: DeniedCall[];
  bash: BashCommand[];
  /** tool results the spill guard moved to a file, and the characters that kept out of the context */
  spills: { count: number; saved_chars: number };
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

const zero = (): TokenSums => ({ calls: 0, input: 0, cacheCreation: 0, cacheRead: 0, output: 0 });

function sum(calls: readonly ModelCall[], into: TokenSums = zero()): TokenSums {
  for (const c of calls) {
    into.calls++;
    into.input += c.input;
    into.cacheCreation += c.cacheCreation;
    into.cacheRead += c.cacheRead;
    into.output += c.output;
  }
  return into;
}

/** The cache hit rate of token sums: what part of the input was read from the cache. */
export function cacheHitRate(t: TokenSums): number {
  const all = t.input + t.cacheCreation + t.cacheRead;
  return all > 0 ? t.cacheRead / all : 0;
}

/** Entries whose time is inside [from, to] (to = null: the row never ended); entries without a time are kept. */
export function entriesBetween(entries: readonly unknown[], from: string, to: string | null): unknown[] {
  const lo = Date.parse(from);
  const hi = to ? Date.parse(to) : Infinity;
  if (!Number.isFinite(lo)) return [...entries];
  return entries.filter((e) => {
    const t = isRec(e) && typeof e.timestamp === 'string' ? Date.parse(e.timestamp) : NaN;
    return !Number.isFinite(t) || (t >= lo && t <= hi);
  });
}

const blocks = (e: unknown): Rec[] => (isRec(e) && isRec(e.message) && Array.isArray(e.message.content) ? e.message.content.filter(isRec) : []);

// what the model reads after a PreToolUse hook denied a call (docs/sdk-facts.md §2)
const HOOK_DENIAL = /^PreToolUse:(\S+) hook error: ([\s\S]*)$/;

/** The main thread's tool calls by id, and the denials among their results (by marker or by the hook's text). */
function mainThreadCalls(entries: readonly unknown[], step: string): { denied: DeniedCall[]; bash: BashCommand[] } {
  const uses = new Map<string, { name: string; input: unknown }>();
  const order: string[] = [];
  const deniedIds = new Map<string, string>();
  for (const e of entries) {
    if (!isRec(e) || e.isSidechain === true) continue;
    for (const b of blocks(e)) {
      if (e.type === 'assistant' && b.type === 'tool_use' && typeof b.id === 'string' && typeof b.name === 'string' && !uses.has(b.id)) {
        uses.set(b.id, { name: b.name, input: b.input });
        order.push(b.id);
      }
      if (e.type !== 'user' || b.type !== 'tool_result' || typeof b.tool_use_id !== 'string') continue;
      const text = resultText(b.content).trim();
      const hook = HOOK_DENIAL.exec(text);
      if (hook || isDenialEntry(e as SessionStoreEntry)) deniedIds.set(b.tool_use_id, (hook?.[2] ?? text).trim().split('\n')[0] ?? '');
    }
  }
  const denied: DeniedCall[] = [];
  const bash: BashCommand[] = [];
  for (const id of order) {
    const u = uses.get(id)!;
    const reason = deniedIds.get(id);
    if (reason !== undefined) denied.push({ step, tool: u.name, reason });
    if (u.name === 'Bash' && isRec(u.input) && typeof u.input.command === 'string') bash.push({ step, command: u.input.command, denied: reason !== undefined });
  }
  return { denied, bash };
}

function add(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [k, n] of Object.entries(from)) into[k] = (into[k] ?? 0) + n;
}

interface StepPart {
  step: StepReport;
  calls: ModelCall[];
  denied: DeniedCall[];
  bash: BashCommand[];
  tools: RunReport['tools'];
  spills: RunReport['spills'];
}

/** One row: its sessions' entries inside its time span, read by the ui's figures. */
function stepOf(row: ManifestRow, sessions: ReportInput['sessions']): StepPart {
  const sids = [...row.retired.filter((s) => s !== row.session_id), ...(row.session_id ? [row.session_id] : [])];
  const part: StepPart = {
    step: {
      step: row.step,
      ok: row.ok,
      cost_usd: row.cost_usd,
      duration_s: row.duration_s,
      sessions: sids,
      missing: [],
      curve: [],
      peak: 0,
      last: 0,
      handoffs: [],
      tokens: zero(),
    },
    calls: [],
    denied: [],
    bash: [],
    tools: { main: {}, subagents: {} },
    spills: { count: 0, saved_chars: 0 },
  };
  for (const sid of sids) {
    const s = sessions[sid];
    if (!s) {
      part.step.missing.push(sid);
      continue;
    }
    const main = entriesBetween(s.main, row.started_at, row.ended_at);
    const subs = s.subagents.map((x) => entriesBetween(x, row.started_at, row.ended_at));
    const mainCalls = callsBetween(foldCalls(main, sid), row.started_at, row.ended_at);
    if (part.step.curve.length > 0 && mainCalls.length > 0) part.step.handoffs.push(part.step.curve.length);
    part.step.curve.push(...mainCalls.map((c) => c.context));
    part.calls.push(...mainCalls, ...subs.flatMap((x) => foldCalls(x, sid, [], { sidechainToo: true })));
    add(part.tools.main, figuresOf(main, [], sid).tools);
    add(part.tools.subagents, figuresOf([], subs, sid).tools);
    const f = figuresOf(main, subs, sid);
    part.spills.count += f.spills;
    part.spills.saved_chars += f.spillSavedChars;
    const calls = mainThreadCalls(main, row.step);
    part.denied.push(...calls.denied);
    part.bash.push(...calls.bash);
  }
  part.step.tokens = sum(part.calls);
  part.step.peak = Math.max(0, ...part.step.curve);
  part.step.last = part.step.curve.at(-1) ?? 0;
  return part;
}

/** The report of one run from its rows and its sessions' transcripts. */
export function analyseRun(i: ReportInput): RunReport {
  const parts = i.rows.map((r) => stepOf(r, i.sessions));
  const tokens = sum(parts.flatMap((p) => p.calls));
  const tools: RunReport['tools'] = { main: {}, subagents: {} };
  const spills = { count: 0, saved_chars: 0 };
  for (const p of parts) {
    add(tools.main, p.tools.main);
    add(tools.subagents, p.tools.subagents);
    spills.count += p.spills.count;
    spills.saved_chars += p.spills.saved_chars;
  }
  return {
    run: i.run,
    started_at: i.rows[0]?.started_at ?? '',
    ended_at: i.rows.at(-1)?.ended_at ?? null,
    ok: i.rows.every((r) => r.ok),
    cost_usd: i.rows.reduce((a, r) => a + (r.cost_usd || 0), 0),
    steps: parts.map((p) => p.step),
    tokens,
    cache_hit_rate: cacheHitRate(tokens),
    tools,
    denied: parts.flatMap((p) => p.denied),
    bash: parts.flatMap((p) => p.bash),
    spills,
  };
}
