/**
 * Pure readings of stored transcript entries (the SDK's SessionStoreEntry payloads): the model calls of
 * a main thread (for the context curve) and the per-session figures the original's run analysis gave —
 * cache hit rate, tool use counts, subagent share of cost, spill savings.
 *
 * One model call is written as several `assistant` entries (one per content block) that share
 * `message.id` and carry the same usage (docs/sdk-facts.md §6), so calls are counted by message id.
 */

export interface ModelCall {
  /** message id (or the entry's uuid when the API gave none) */
  id: string;
  /** ISO time of the call's first entry ('' when unknown) */
  at: string;
  session: string;
  input: number;
  cacheCreation: number;
  cacheRead: number;
  output: number;
  /** main-thread context of the call: input + cache creation + cache read (docs/sdk-facts.md §6) */
  context: number;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The call an entry belongs to, or null for anything that is not a real model call with usage. */
export function callOf(e: unknown, session: string, { sidechainToo = false } = {}): ModelCall | null {
  if (!isRec(e) || e.type !== 'assistant' || e.isApiErrorMessage === true) return null;
  if (e.isSidechain === true && !sidechainToo) return null;
  const msg = e.message;
  if (!isRec(msg) || msg.model === '<synthetic>' || !isRec(msg.usage)) return null;
  const u = msg.usage;
  const input = num(u.input_tokens);
  const cacheCreation = num(u.cache_creation_input_tokens);
  const cacheRead = num(u.cache_read_input_tokens);
  const id = typeof msg.id === 'string' && msg.id ? msg.id : typeof e.uuid === 'string' ? e.uuid : '';
  return {
    id,
    at: typeof e.timestamp === 'string' ? e.timestamp : '',
    session,
    input,
    cacheCreation,
    cacheRead,
    output: num(u.output_tokens),
    context: input + cacheCreation + cacheRead,
  };
}

/**
 * Folds entries into calls, one per message id. `into` may hold the calls of earlier entries of the
 * same transcript (a live session is read incrementally): a block of the last call is merged, not added.
 */
export function foldCalls(entries: Iterable<unknown>, session: string, into: ModelCall[] = [], o: { sidechainToo?: boolean } = {}): ModelCall[] {
  const seen = new Set(into.slice(-8).map((c) => c.id));
  for (const e of entries) {
    const c = callOf(e, session, o);
    if (!c) continue;
    if (c.id && seen.has(c.id)) {
      // the last block carries the final output count
      const prev = into.findLast((x) => x.id === c.id);
      if (prev) prev.output = Math.max(prev.output, c.output);
      continue;
    }
    seen.add(c.id);
    into.push(c);
  }
  return into;
}

/** Calls whose time falls in [from, to] (to = null: still running). Calls without a time are kept. */
export function callsBetween(calls: readonly ModelCall[], from: string, to: string | null): ModelCall[] {
  const lo = Date.parse(from);
  const hi = to ? Date.parse(to) : Infinity;
  if (!Number.isFinite(lo)) return [...calls];
  return calls.filter((c) => {
    const t = Date.parse(c.at);
    return !Number.isFinite(t) || (t >= lo && t <= hi);
  });
}

/** Relative prices of the token kinds (input = 1): the same for every current Claude model. */
export const PRICE_WEIGHTS = { input: 1, cacheCreation: 1.25, cacheRead: 0.1, output: 5 } as const;

export function weight(c: Pick<ModelCall, 'input' | 'cacheCreation' | 'cacheRead' | 'output'>): number {
  return (
    c.input * PRICE_WEIGHTS.input + c.cacheCreation * PRICE_WEIGHTS.cacheCreation + c.cacheRead * PRICE_WEIGHTS.cacheRead + c.output * PRICE_WEIGHTS.output
  );
}

export interface Spill {
  chars: number;
  file: string;
  /** what the pointer put in the context instead */
  pointerChars: number;
}

// the spill guard's pointer line, English and Chinese (src/guards/messages.ts)
const SPILL = /\[(?:output spilled: (\d+) chars → (.+?) — use Read|输出过长,已转存:(\d+) 字符 → (.+?) —— 用 Read)/;

export function spillOf(text: string): Spill | null {
  const m = SPILL.exec(text);
  if (!m) return null;
  return { chars: Number(m[1] ?? m[3]), file: (m[2] ?? m[4])!, pointerChars: text.length };
}

export interface SessionFigures {
  calls: number;
  subagentCalls: number;
  /** cache read / all input tokens, main thread and subagents */
  cacheHitRate: number;
  tools: Record<string, number>;
  /** subagents' part of the cost, estimated from their tokens at relative prices */
  subagentCostShare: number;
  spills: number;
  /** characters kept out of the context by spilling */
  spillSavedChars: number;
  peakContext: number;
  lastContext: number;
}

function toolUses(entries: Iterable<unknown>, tools: Record<string, number>, seen: Set<string>): void {
  for (const e of entries) {
    if (!isRec(e) || e.type !== 'assistant' || !isRec(e.message) || !Array.isArray(e.message.content)) continue;
    for (const b of e.message.content) {
      if (!isRec(b) || b.type !== 'tool_use' || typeof b.name !== 'string') continue;
      const id = typeof b.id === 'string' ? b.id : '';
      if (id && seen.has(id)) continue;
      if (id) seen.add(id);
      tools[b.name] = (tools[b.name] ?? 0) + 1;
    }
  }
}

/** Text of a tool_result block's content (string or text blocks). */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c) => (isRec(c) && typeof c.text === 'string' ? c.text : '')).join('\n');
  return '';
}

function spills(entries: Iterable<unknown>, out: Spill[]): void {
  for (const e of entries) {
    if (!isRec(e) || e.type !== 'user' || !isRec(e.message) || !Array.isArray(e.message.content)) continue;
    for (const b of e.message.content) {
      if (!isRec(b) || b.type !== 'tool_result') continue;
      const s = spillOf(resultText(b.content));
      if (s) out.push(s);
    }
  }
}

export function figuresOf(main: readonly unknown[], subagents: ReadonlyArray<readonly unknown[]>, session: string): SessionFigures {
  const mainCalls = foldCalls(main, session);
  const subCalls = subagents.flatMap((s) => foldCalls(s, session, [], { sidechainToo: true }));
  const all = [...mainCalls, ...subCalls];
  const inTokens = all.reduce((a, c) => a + c.context, 0);
  const read = all.reduce((a, c) => a + c.cacheRead, 0);
  const wMain = mainCalls.reduce((a, c) => a + weight(c), 0);
  const wSub = subCalls.reduce((a, c) => a + weight(c), 0);
  const tools: Record<string, number> = {};
  const seen = new Set<string>();
  toolUses(main, tools, seen);
  for (const s of subagents) toolUses(s, tools, seen);
  const sp: Spill[] = [];
  spills(main, sp);
  for (const s of subagents) spills(s, sp);
  return {
    calls: mainCalls.length,
    subagentCalls: subCalls.length,
    cacheHitRate: inTokens > 0 ? read / inTokens : 0,
    tools,
    subagentCostShare: wMain + wSub > 0 ? wSub / (wMain + wSub) : 0,
    spills: sp.length,
    spillSavedChars: sp.reduce((a, s) => a + Math.max(0, s.chars - s.pointerChars), 0),
    peakContext: mainCalls.reduce((a, c) => Math.max(a, c.context), 0),
    lastContext: mainCalls.at(-1)?.context ?? 0,
  };
}

/** The submit_verdict call of a judge's transcript: its state, reason and per-check evidence. */
export interface VerdictCall {
  state: string;
  reason: string;
  checks: Array<{ item: string; pass: boolean | null; evidence: string }>;
}

export function verdictCallOf(entries: readonly unknown[]): VerdictCall | null {
  let found: VerdictCall | null = null;
  for (const e of entries) {
    if (!isRec(e) || e.type !== 'assistant' || e.isSidechain === true || !isRec(e.message) || !Array.isArray(e.message.content)) continue;
    for (const b of e.message.content) {
      if (!isRec(b) || b.type !== 'tool_use' || typeof b.name !== 'string' || !/submit_verdict$/.test(b.name) || !isRec(b.input)) continue;
      const i = b.input;
      found = {
        state: typeof i.state === 'string' ? i.state : '',
        reason: typeof i.reason === 'string' ? i.reason : '',
        checks: (Array.isArray(i.checks) ? i.checks : []).filter(isRec).map((c) => ({
          item: typeof c.item === 'string' ? c.item : '',
          pass: typeof c.pass === 'boolean' ? c.pass : null,
          evidence: typeof c.evidence === 'string' ? c.evidence : '',
        })),
      };
    }
  }
  return found;
}
