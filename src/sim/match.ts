/**
 * Request matching: which scripted item may answer a given model call.
 *
 * Matching reads text the way a person writing a scenario thinks of it: the words of a message,
 * including tool results, not its JSON encoding. Only `bodyIncludes` looks at the raw JSON.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { MessagesRequest, Needle, SimCall, SimMatch, SimMatchSpec, SimScriptItem, SimItem } from './items.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Plain text of a message `content` (or a tool_result's `content`): text blocks, tool_result
 * contents (recursively) and tool_use name + input, one block per line. Thinking and images
 * contribute nothing.
 */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block === 'string') parts.push(block);
    else if (isRecord(block)) {
      if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
      else if (block.type === 'tool_result') parts.push(contentText(block.content));
      else if (block.type === 'tool_use') parts.push(`${String(block.name ?? '')} ${JSON.stringify(block.input ?? {})}`);
    }
  }
  return parts.join('\n');
}

function messagesOf(body: unknown): Array<Record<string, unknown>> {
  if (!isRecord(body) || !Array.isArray(body.messages)) return [];
  return body.messages.filter(isRecord);
}

function userMessages(body: unknown): Array<Record<string, unknown>> {
  return messagesOf(body).filter((m) => m.role === 'user');
}

export const firstUserText = (body: unknown): string => contentText(userMessages(body)[0]?.content);
export const lastUserText = (body: unknown): string => contentText(userMessages(body).at(-1)?.content);

export function systemText(body: unknown): string {
  if (!isRecord(body)) return '';
  return contentText(body.system);
}

export function offeredTools(body: unknown): string[] {
  if (!isRecord(body) || !Array.isArray(body.tools)) return [];
  return body.tools.flatMap((t) => (isRecord(t) && typeof t.name === 'string' ? [t.name] : []));
}

export interface ToolResultSeen {
  tool_use_id: string;
  /** The result text as the model received it (the harness may append a system-reminder). */
  content: string;
  is_error: boolean;
}

/** Every tool_result block in a request, in order: what the model was told its tools returned. */
export function toolResultsOf(body: unknown): ToolResultSeen[] {
  const out: ToolResultSeen[] = [];
  for (const m of messagesOf(body)) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content) {
      if (isRecord(b) && b.type === 'tool_result') {
        out.push({ tool_use_id: String(b.tool_use_id ?? ''), content: contentText(b.content), is_error: b.is_error === true });
      }
    }
  }
  return out;
}

/** Build the view matchers and computed items receive. */
export function toSimCall(n: number, body: unknown, raw: string, headers: IncomingHttpHeaders = {}): SimCall {
  const request: MessagesRequest = isRecord(body) ? (body as MessagesRequest) : {};
  return {
    n,
    body: request,
    headers,
    stream: request.stream === true,
    system: systemText(body),
    firstUser: firstUserText(body),
    lastUser: lastUserText(body),
    tools: offeredTools(body),
    raw,
  };
}

const needles = (n: Needle): readonly string[] => (typeof n === 'string' ? [n] : n);
const includesAll = (haystack: string, n: Needle | undefined): boolean => n === undefined || needles(n).every((x) => haystack.includes(x));

/** Does `match` accept `call`? An absent matcher accepts everything. */
export function matches(match: SimMatch | undefined, call: SimCall): boolean {
  if (match === undefined) return true;
  if (typeof match === 'function') return match(call) === true;
  return (
    includesAll(call.system, match.systemIncludes) &&
    includesAll(call.firstUser, match.firstUserIncludes) &&
    includesAll(call.lastUser, match.lastUserIncludes) &&
    includesAll(call.raw, match.bodyIncludes) &&
    (match.toolsInclude === undefined || needles(match.toolsInclude).every((t) => call.tools.includes(t))) &&
    (match.not === undefined || !matches(match.not, call))
  );
}

const clip = (s: string, max = 40): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

export function describeMatch(match: SimMatch | undefined): string {
  if (match === undefined) return '';
  if (typeof match === 'function') return '(predicate)';
  const parts = (Object.keys(match) as Array<keyof SimMatchSpec>).flatMap((k) => {
    const v = match[k];
    if (v === undefined) return [];
    if (k === 'not') return [`not ${describeMatch(v as SimMatch)}`];
    return [`${k} ${JSON.stringify(v)}`];
  });
  return `{${parts.join(', ')}}`;
}

/** One-line description of an item for logs and errors, e.g. `tool_use Write [label] {match}`. */
export function summarizeItem(item: SimScriptItem | SimItem): string {
  if (typeof item === 'function') return `(computed item${item.name ? ` ${item.name}` : ''})`;
  let head: string = item.type;
  switch (item.type) {
    case 'text':
      head += ` ${JSON.stringify(clip(item.text))}`;
      break;
    case 'tool_use':
    case 'drop_mid': {
      const names = item.tools ? item.tools.map((t) => t.name).join('+') : item.name;
      if (names) head += ` ${names}`;
      if (item.type === 'drop_mid') head += ` after ${item.afterEvents ?? 2} events${item.stall ? ' (stall)' : ''}`;
      break;
    }
    case 'error':
      head += ` ${item.status ?? 500}`;
      break;
    case 'raw':
      head += ` ${item.status ?? 200}`;
      break;
    case 'sse':
      head += ` ${item.events.length} events${item.end === 'drop' ? ' (cut)' : ''}`;
      break;
  }
  if (item.label) head += ` [${item.label}]`;
  if (item.match) head += ` ${describeMatch(item.match)}`;
  return head;
}
