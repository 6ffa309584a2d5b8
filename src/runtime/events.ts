/**
 * Normalised events: every SDK message becomes zero or more FlowerEvents, so the terminal, the NDJSON
 * stream and tests read one shape. Main-thread assistant events carry the context size (input +
 * cache_creation + cache_read of that call) — the number that drives handoff; subagent events are
 * marked `subagent` and never drive it.
 */
export type EventKind =
  | 'text'
  | 'thinking'
  | 'prompt'
  | 'tool_call'
  | 'tool_result'
  | 'result'
  | 'error'
  | 'reset'
  | 'system'
  | 'task'
  | 'unknown'
  | 'ask'
  | 'mail'
  | 'retry'
  | 'step'
  | 'handoff';

export interface FlowerEvent {
  kind: EventKind;
  text: string;
  tool?: string;
  payload: Record<string, unknown>;
  /** true when the message came from a subagent (parent_tool_use_id set) */
  subagent: boolean;
  /** main-thread context size in tokens at this message, when known */
  context?: number;
  /** the step this event belongs to (set by the Runtime) */
  step?: string;
  raw?: unknown;
}

export type EventSink = (e: FlowerEvent) => void;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

export const TOOL_CALL_CHARS = 200;
export const TOOL_RESULT_CHARS = 500;

export function event(kind: EventKind, text = '', payload: Obj = {}, extra: Partial<FlowerEvent> = {}): FlowerEvent {
  return { kind, text, payload, subagent: false, ...extra };
}

/** input + cache_creation + cache_read of one API call's usage (docs/sdk-facts.md §6: never result.usage, a sum). */
export function contextOf(usage: unknown): number {
  if (!isObj(usage)) return 0;
  const total = num(usage.input_tokens) + num(usage.cache_creation_input_tokens) + num(usage.cache_read_input_tokens);
  // no model holds 10M tokens: such a reading is a broken usage field, and unknown beats a handoff every turn
  return total > MAX_CONTEXT_READING ? 0 : total;
}

/** The largest context reading believed (window.ts MAX_PLAUSIBLE_CONTEXT; kept here so events stays a leaf). */
const MAX_CONTEXT_READING = 10_000_000;

/** An assistant message the harness made up after an API failure (isApiErrorMessage / model "<synthetic>"). */
export function isSyntheticAssistant(m: Obj): boolean {
  const msg = isObj(m.message) ? m.message : {};
  return m.error !== undefined || m.is_api_error_message === true || msg.model === '<synthetic>';
}

function toolCallText(input: unknown): string {
  if (!isObj(input)) return '';
  const v = input.file_path ?? input.command ?? input.pattern ?? input.path ?? input.url ?? input.question ?? input.description ?? input.prompt;
  return str(v).slice(0, TOOL_CALL_CHARS);
}

export function textOfToolResult(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((b) => (isObj(b) && typeof b.text === 'string' ? b.text : '')).join('');
  return '';
}

export function normalize(message: unknown): FlowerEvent[] {
  if (!isObj(message)) return [event('unknown', '', {}, { raw: message })];
  const m = message;
  const subagent = m.parent_tool_use_id != null;
  const base = { subagent, raw: m } as const;
  switch (m.type) {
    case 'assistant': {
      const msg = isObj(m.message) ? m.message : {};
      const content = Array.isArray(msg.content) ? msg.content : [];
      if (isSyntheticAssistant(m)) {
        const text = content.map((b) => (isObj(b) ? str(b.text) : '')).join('');
        return [event('error', text, { synthetic: true, error: m.error }, base)];
      }
      const ctx = subagent ? undefined : contextOf(msg.usage);
      const out: FlowerEvent[] = [];
      for (const b of content) {
        if (!isObj(b)) continue;
        const extra: Partial<FlowerEvent> = ctx ? { ...base, context: ctx } : { ...base };
        if (b.type === 'text') out.push(event('text', str(b.text), {}, extra));
        else if (b.type === 'thinking') out.push(event('thinking', str(b.thinking), {}, extra));
        else if (b.type === 'tool_use') {
          out.push(event('tool_call', toolCallText(b.input), { id: b.id, input: b.input }, { ...extra, tool: str(b.name) }));
        }
      }
      return out;
    }
    case 'user': {
      const msg = isObj(m.message) ? m.message : {};
      const content = msg.content;
      if (typeof content === 'string') return [event('prompt', content, {}, base)];
      const out: FlowerEvent[] = [];
      for (const b of Array.isArray(content) ? content : []) {
        if (!isObj(b)) continue;
        if (b.type === 'tool_result') {
          out.push(
            event('tool_result', textOfToolResult(b.content).slice(0, TOOL_RESULT_CHARS), { tool_use_id: b.tool_use_id, is_error: b.is_error === true }, base),
          );
        } else if (b.type === 'text') out.push(event('prompt', str(b.text), {}, base));
      }
      return out;
    }
    case 'result':
      return [
        event(
          'result',
          str(m.result),
          {
            session_id: m.session_id,
            cost_usd: num(m.total_cost_usd),
            num_turns: num(m.num_turns),
            is_error: m.is_error === true,
            subtype: m.subtype,
          },
          base,
        ),
      ];
    case 'stream_event':
      return [];
    case 'system': {
      const sub = str(m.subtype);
      if (sub === 'compact_boundary') return [event('reset', 'compact', { ...(isObj(m.compact_metadata) ? m.compact_metadata : {}), subtype: sub }, base)];
      if (sub.startsWith('task_')) return [event('task', str(m.description ?? m.summary), { kind: sub, ...m }, base)];
      return [event('system', sub, { subtype: sub }, base)];
    }
    case 'tool_progress':
    case 'rate_limit_event':
    case 'auth_status':
      return [event('system', str(m.type), { subtype: m.type }, base)];
    default:
      return [event('unknown', str(m.type), {}, base)];
  }
}

/**
 * A sink whose result events also carry the run's cost so far in the manifest's terms (`run_cost_usd`,
 * and the attempt's own `attempt_cost_usd`): the binary's `cost_usd` counts from the session's start, so
 * a resumed attempt would count its earlier attempts again. `spent`: the run's cost before this attempt;
 * `before`: what the resumed session had cost already.
 */
export function costedSink(sink: EventSink, spent: number, before: number): EventSink {
  return (e) => {
    if (e.kind !== 'result') return sink(e);
    const net = Math.max(0, (Number(e.payload.cost_usd) || 0) - before);
    sink({ ...e, payload: { ...e.payload, attempt_cost_usd: net, run_cost_usd: spent + net } });
  };
}
