/**
 * The trace of one session, read from its transcripts (main thread and subagents) as flat rows: every
 * model call and tool call with its start and end (the timeline), the subagents with the task they were
 * given, and the files its Write / Edit / MultiEdit calls changed, each with what was there before when
 * the transcripts tell it (the Write's recorded `originalFile`, an earlier whole-file Read, an earlier
 * Write or Edit of the same path in the session).
 *
 * Rows are the few fields of an entry this needs (`rowOf` makes one from a whole entry; the SQLite
 * reader extracts them in SQL so big payloads never become JS strings). Pure: tested as tables.
 */
import { weight } from './transcript.js';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

export interface TraceBlock {
  type: string;
  id?: string;
  name?: string;
  toolUseId?: string;
  isError?: boolean;
  input?: unknown;
}

export interface TraceRow {
  seq: number;
  type: string;
  ts: string;
  /** message id of an assistant entry */
  mid: string;
  apiError: boolean;
  usage: Rec | null;
  blocks: TraceBlock[];
  /** the Agent tool's result names the subagent it ran (toolUseResult.agentId) */
  agentId: string;
  /** an agent_metadata row: the task and the Agent call it came from */
  description: string;
  toolUseId: string;
  /** a Write's recorded content before it (toolUseResult.originalFile), when the binary gives it */
  originalFile: string | null;
  /** a Read's whole-file content (toolUseResult.file, all lines) */
  readPath: string;
  readContent: string | null;
}

export function rowOf(seq: number, e: unknown): TraceRow {
  const r: TraceRow = {
    seq,
    type: '',
    ts: '',
    mid: '',
    apiError: false,
    usage: null,
    blocks: [],
    agentId: '',
    description: '',
    toolUseId: '',
    originalFile: null,
    readPath: '',
    readContent: null,
  };
  if (!isRec(e)) return r;
  r.type = str(e.type);
  r.ts = str(e.timestamp);
  r.apiError = e.isApiErrorMessage === true;
  r.description = str(e.description);
  r.toolUseId = str(e.toolUseId);
  const m = isRec(e.message) ? e.message : null;
  if (m) {
    r.mid = m.model === '<synthetic>' ? '' : str(m.id);
    r.usage = isRec(m.usage) && m.model !== '<synthetic>' ? m.usage : null;
    if (Array.isArray(m.content))
      r.blocks = m.content.filter(isRec).map((b) => ({
        type: str(b.type),
        id: str(b.id),
        name: str(b.name),
        toolUseId: str(b.tool_use_id),
        isError: b.is_error === true,
        ...(b.type === 'tool_use' ? { input: b.input } : {}),
      }));
  }
  const t = isRec(e.toolUseResult) ? e.toolUseResult : null;
  if (t) {
    r.agentId = str(t.agentId);
    if (typeof t.originalFile === 'string') r.originalFile = t.originalFile;
    const f = isRec(t.file) ? t.file : null;
    if (f && typeof f.content === 'string' && num(f.startLine) <= 1 && num(f.numLines) >= num(f.totalLines)) {
      r.readPath = str(f.filePath);
      r.readContent = f.content;
    }
  }
  return r;
}

export interface TimelineItem {
  kind: 'model' | 'tool';
  /** '' for the main thread, else the subagent's subpath */
  lane: string;
  label: string;
  /** the tool's name (tool calls) */
  tool: string;
  /** tool_use id (tool calls) */
  id: string;
  start: number;
  end: number;
  error: boolean;
}

export interface SubagentInfo {
  subpath: string;
  agentId: string;
  /** the Agent call's description: the task it was given */
  description: string;
  toolUseId: string;
  calls: number;
  /** tokens at relative prices (transcript.ts PRICE_WEIGHTS), for its share of the cost */
  weight: number;
  start: number;
  end: number;
}

export interface Change {
  /** position in the session's changes, for anchors */
  n: number;
  toolUseId: string;
  tool: string;
  path: string;
  lane: string;
  at: number;
  /** Write: the content before (null: a new file, or nothing in the transcripts tells) */
  before: string | null;
  after: string;
  /** Write: was a previous content known; Edit: always true (old → new) */
  known: boolean;
  failed: boolean;
}

export interface Trace {
  items: TimelineItem[];
  subagents: SubagentInfo[];
  changes: Change[];
  /** the main thread's weight (tokens at relative prices) */
  mainWeight: number;
  /** the first main-thread entry read (> 0: a long transcript's trace covers its newest entries only) */
  from: number;
}

const time = (ts: string): number => {
  const t = Date.parse(ts);
  return Number.isFinite(t) ? t : Number.NaN;
};

function toolLabel(name: string, input: unknown): string {
  const i = isRec(input) ? input : {};
  const detail = str(i.file_path) || str(i.command) || str(i.description) || str(i.pattern) || str(i.url);
  return detail ? `${name} ${detail.split('\n')[0]!.slice(0, 80)}` : name;
}

/** One transcript's timeline items (model calls by message id; tool calls from tool_use to tool_result). */
function laneItems(rows: readonly TraceRow[], lane: string, out: TimelineItem[]): { calls: number; weight: number; start: number; end: number } {
  let prev = Number.NaN;
  const calls = new Map<string, TimelineItem>();
  const tools = new Map<string, TimelineItem>();
  let w = 0;
  let start = Number.NaN;
  let end = Number.NaN;
  for (const r of rows) {
    if (r.type !== 'user' && r.type !== 'assistant') continue;
    const t = time(r.ts);
    if (!Number.isFinite(t)) continue;
    if (!Number.isFinite(start)) start = t;
    end = Math.max(Number.isFinite(end) ? end : t, t);
    if (r.type === 'assistant') {
      const key = r.mid || (r.apiError ? `api-${r.seq}` : '');
      if (key) {
        const c = calls.get(key);
        if (c) c.end = Math.max(c.end, t);
        else {
          const item: TimelineItem = {
            kind: 'model',
            lane,
            label: r.apiError ? 'API error' : 'model call',
            tool: '',
            id: key,
            start: Number.isFinite(prev) ? Math.min(prev, t) : t,
            end: t,
            error: r.apiError,
          };
          calls.set(key, item);
          out.push(item);
          if (r.usage)
            w += weight({
              input: num(r.usage.input_tokens),
              cacheCreation: num(r.usage.cache_creation_input_tokens),
              cacheRead: num(r.usage.cache_read_input_tokens),
              output: num(r.usage.output_tokens),
            });
        }
      }
      for (const b of r.blocks) {
        if (b.type !== 'tool_use' || !b.id || tools.has(b.id)) continue;
        const item: TimelineItem = {
          kind: 'tool',
          lane,
          label: toolLabel(b.name ?? 'tool', b.input),
          tool: b.name ?? '',
          id: b.id,
          start: t,
          end: t,
          error: false,
        };
        tools.set(b.id, item);
        out.push(item);
      }
    } else {
      for (const b of r.blocks) {
        if (b.type !== 'tool_result' || !b.toolUseId) continue;
        const item = tools.get(b.toolUseId);
        if (item) {
          item.end = Math.max(item.start, t);
          item.error = b.isError === true;
        }
      }
    }
    prev = t;
  }
  return { calls: [...calls.values()].filter((c) => !c.error).length, weight: w, start, end };
}

export interface TraceInput {
  main: readonly TraceRow[];
  /** the first entry `main` holds (default 0) */
  from?: number;
  subs: ReadonlyArray<{ subpath: string; rows: readonly TraceRow[] }>;
}

function changesOf(input: TraceInput): Change[] {
  type Ev = { at: number; seq: number; lane: string; row: TraceRow };
  const evs: Ev[] = [];
  for (const row of input.main) evs.push({ at: time(row.ts), seq: row.seq, lane: '', row });
  for (const s of input.subs) for (const row of s.rows) evs.push({ at: time(row.ts), seq: row.seq, lane: s.subpath, row });
  // one time order across transcripts (a subagent's writes happen inside its Agent call)
  evs.sort((a, b) => (a.at || 0) - (b.at || 0) || a.seq - b.seq);
  const known = new Map<string, string>();
  const pending = new Map<string, { change: Change; next: string | null }>();
  const out: Change[] = [];
  for (const { at, lane, row } of evs) {
    if (row.readPath && row.readContent !== null && !known.has(row.readPath)) known.set(row.readPath, row.readContent);
    for (const b of row.blocks) {
      if (b.type === 'tool_result' && b.toolUseId) {
        const p = pending.get(b.toolUseId);
        if (!p) continue;
        pending.delete(b.toolUseId);
        if (b.isError) p.change.failed = true;
        else if (p.next !== null) known.set(p.change.path, p.next);
        if (p.change.tool === 'Write' && row.originalFile !== null && !p.change.known) {
          p.change.before = row.originalFile;
          p.change.known = true;
        }
        continue;
      }
      if (b.type !== 'tool_use' || !isRec(b.input)) continue;
      const i = b.input;
      const path = str(i.file_path);
      if (!path || !(b.name === 'Write' || b.name === 'Edit' || b.name === 'MultiEdit')) continue;
      const prior = known.get(path) ?? null;
      let change: Change;
      let next: string | null;
      if (b.name === 'Write') {
        const content = str(i.content);
        change = { n: out.length, toolUseId: b.id ?? '', tool: 'Write', path, lane, at, before: prior, after: content, known: prior !== null, failed: false };
        next = content;
      } else {
        const edits = b.name === 'MultiEdit' && Array.isArray(i.edits) ? i.edits.filter(isRec) : [i];
        const before = edits.map((e) => str(e.old_string)).join('\n…\n');
        const after = edits.map((e) => str(e.new_string)).join('\n…\n');
        change = { n: out.length, toolUseId: b.id ?? '', tool: b.name, path, lane, at, before, after, known: true, failed: false };
        next = prior;
        if (next !== null)
          for (const e of edits)
            next = e.replace_all === true ? next.split(str(e.old_string)).join(str(e.new_string)) : next.replace(str(e.old_string), () => str(e.new_string));
      }
      out.push(change);
      if (change.toolUseId) pending.set(change.toolUseId, { change, next });
    }
  }
  return out;
}

export function traceOf(input: TraceInput): Trace {
  const items: TimelineItem[] = [];
  const main = laneItems(input.main, '', items);
  // the Agent calls of the main thread: description by tool_use id, and the subagent each one ran
  const descById = new Map<string, string>();
  const toolByAgent = new Map<string, string>();
  for (const r of input.main) {
    for (const b of r.blocks)
      if (b.type === 'tool_use' && (b.name === 'Agent' || b.name === 'Task') && b.id && isRec(b.input)) descById.set(b.id, str(b.input.description));
    if (r.agentId) for (const b of r.blocks) if (b.type === 'tool_result' && b.toolUseId) toolByAgent.set(r.agentId, b.toolUseId);
  }
  const subagents: SubagentInfo[] = input.subs.map((s) => {
    const meta = s.rows.find((r) => r.type === 'agent_metadata');
    const agentId = s.subpath.replace(/^.*\/agent-/, '');
    const toolUseId = meta?.toolUseId || toolByAgent.get(agentId) || '';
    const lane = laneItems(s.rows, s.subpath, items);
    return {
      subpath: s.subpath,
      agentId,
      description: descById.get(toolUseId) || meta?.description || '',
      toolUseId,
      calls: lane.calls,
      weight: lane.weight,
      start: lane.start,
      end: lane.end,
    };
  });
  items.sort((a, b) => a.start - b.start);
  return { items, subagents, changes: changesOf(input), mainWeight: main.weight, from: input.from ?? 0 };
}
