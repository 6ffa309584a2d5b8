/**
 * One transcript entry as a row of the session page. Only the conversation is shown by default —
 * user and assistant entries, and the system entries that say something about it (an API error and
 * its retry, a compaction): an allowlist, so a record type a newer binary adds (queue-operation,
 * attachment, atis-latch, tools-used, last-prompt, cost-state, …) is a harness record, hidden unless
 * asked for. Tool calls are shown by kind: a Write or Edit as a diff, Bash as its command, Read as the
 * path and range; the results under them; API errors and denials styled as such.
 */
import { isDenialEntry } from '../store/index.js';
import { diffHtml, diffLines, diffStat } from './diff.js';
import { cut, esc, tokens } from './sanitize.js';
import type { Change } from './trace.js';
import { resultText } from './transcript.js';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const TEXT_MAX = 4000;
const TOOL_MAX = 2000;

/** system entries that belong to the conversation */
const SYSTEM_SHOWN = new Set(['api_error', 'compact_boundary', 'informational']);

export function isConversation(e: unknown): boolean {
  if (!isRec(e)) return true; // an unreadable entry is shown as such
  if (e.type === 'user' || e.type === 'assistant') return true;
  return e.type === 'system' && SYSTEM_SHOWN.has(str(e.subtype));
}

export interface EntryContext {
  /** the session's file changes by tool_use id (Write before/after, Edit old/new) */
  changes: ReadonlyMap<string, Change>;
  /** tool names by tool_use id, for the results */
  tools: ReadonlyMap<string, string>;
}

function clip(s: string, max: number): string {
  const c = cut(s, max);
  return esc(c.text) + (c.omitted ? `<span class="omitted"> … ${c.omitted.toLocaleString('en')} more characters</span>` : '');
}

/** A change as a diff, with its counts; the anchor the "what changed" list links to. */
export function changeHtml(c: Change): string {
  const ops = diffLines(c.before ?? '', c.after);
  const st = diffStat(ops);
  const what =
    c.tool === 'Write' ? (c.known ? 'overwrote' : 'wrote (no earlier content in the transcripts: shown as new)') : `edited (${esc(c.tool)}: old → new)`;
  const head = `<code class="path">${esc(c.path)}</code> ${what} · <span class="d-stat"><span class="d-removed">−${st.removed}</span> <span class="d-added">+${st.added}</span></span>${c.failed ? ' · <span class="kind">failed</span>' : ''}`;
  // a change against what was there is open; a new file's whole content stays folded
  if (c.tool === 'Write' && !c.known)
    return `<details class="change new${c.failed ? ' failed' : ''}" id="change-${c.n}" data-key="change-${c.n}"><summary class="change-head">${head}</summary>${diffHtml(ops)}</details>`;
  return `<div class="change${c.failed ? ' failed' : ''}" id="change-${c.n}"><p class="change-head">${head}</p>${diffHtml(ops)}</div>`;
}

function toolUseHtml(b: Rec, ctx: EntryContext): string {
  const name = str(b.name);
  const i = isRec(b.input) ? b.input : {};
  const id = str(b.id);
  const change = ctx.changes.get(id);
  if (change) return `<div class="tool-use kind-edit"><span class="tool">${esc(name)}</span>${changeHtml(change)}</div>`;
  if (name === 'Bash')
    return `<div class="tool-use kind-bash"><span class="tool">Bash</span> <pre class="command">$ ${clip(str(i.command), TOOL_MAX)}</pre></div>`;
  if (name === 'Read') {
    const range =
      typeof i.offset === 'number' || typeof i.limit === 'number'
        ? ` lines ${Number(i.offset ?? 1)}–${i.limit ? Number(i.offset ?? 1) + Number(i.limit) - 1 : 'end'}`
        : ' (whole file)';
    return `<div class="tool-use kind-read"><span class="tool">Read</span> <code class="path">${esc(i.file_path)}</code><span class="range">${range}</span></div>`;
  }
  if (name === 'Agent' || name === 'Task')
    return `<div class="tool-use kind-agent"><span class="tool">${esc(name)}</span> <span class="task">${esc(i.description)}</span> <span class="note">${esc(i.subagent_type)}</span><details><summary>prompt</summary><pre>${clip(str(i.prompt), TOOL_MAX)}</pre></details></div>`;
  return `<details class="tool-use"><summary>tool call <code>${esc(name)}</code></summary><pre>${clip(JSON.stringify(b.input ?? null, null, 1), TOOL_MAX)}</pre></details>`;
}

function toolResultHtml(b: Rec, ctx: EntryContext, denied: boolean): string {
  const t = resultText(b.content);
  const tool = ctx.tools.get(str(b.tool_use_id)) ?? '';
  const err = b.is_error === true;
  const cls = `tool-result${denied ? ' denied' : err ? ' error' : ''}`;
  const label = denied ? 'denied' : err ? 'error' : tool === 'Bash' ? 'output' : 'result';
  // a command's output is what one reads; other results stay folded
  if (tool === 'Bash' || denied || err) return `<div class="${cls}"><span class="label">${label}</span><pre>${clip(t, TOOL_MAX)}</pre></div>`;
  return `<details class="${cls}"><summary>${tool ? `${esc(tool)} ` : ''}result · ${t.length.toLocaleString('en')} chars</summary><pre>${clip(t, TOOL_MAX)}</pre></details>`;
}

function blockHtml(b: unknown, ctx: EntryContext, denied: boolean): string {
  if (typeof b === 'string') return `<pre class="text">${clip(b, TEXT_MAX)}</pre>`;
  if (!isRec(b)) return '';
  switch (b.type) {
    case 'text':
      return `<pre class="text">${clip(str(b.text), TEXT_MAX)}</pre>`;
    case 'thinking':
      return `<details class="thinking"><summary>thinking</summary><pre>${clip(str(b.thinking), TEXT_MAX)}</pre></details>`;
    case 'tool_use':
      return toolUseHtml(b, ctx);
    case 'tool_result':
      return toolResultHtml(b, ctx, denied);
    default:
      return `<span class="block">[${esc(b.type ?? 'block')}]</span>`;
  }
}

const when = (e: Rec): string => {
  const ts = str(e.timestamp);
  return /^\d{4}-\d\d-\d\dT(\d\d:\d\d:\d\d)/.test(ts) ? ` <time datetime="${esc(ts)}">${esc(ts.slice(11, 19))}</time>` : '';
};

export function entryHtml(seq: number, e: unknown, ctx: EntryContext): string {
  if (!isRec(e)) return `<li class="entry other" id="e-${seq}" value="${seq + 1}">(unreadable entry)</li>`;
  const type = str(e.type) || '?';
  const msg = isRec(e.message) ? e.message : null;
  if ((type === 'user' || type === 'assistant') && msg) {
    const content = Array.isArray(msg.content) ? msg.content : [msg.content];
    const apiError = type === 'assistant' && e.isApiErrorMessage === true;
    const denied = isDenialEntry(e as never);
    const usage =
      type === 'assistant' && isRec(msg.usage) && !apiError
        ? ` <span class="usage">context ${tokens(Number(msg.usage.input_tokens ?? 0) + Number(msg.usage.cache_creation_input_tokens ?? 0) + Number(msg.usage.cache_read_input_tokens ?? 0))}</span>`
        : '';
    const cls = `entry ${type}${e.isSidechain === true ? ' sidechain' : ''}${apiError ? ' api-error' : ''}${denied ? ' denial' : ''}`;
    const role = apiError ? 'API error' : denied ? 'denied' : type;
    return `<li class="${cls}" id="e-${seq}" value="${seq + 1}"><span class="role">${role}</span>${when(e)}${usage}${content.map((b) => blockHtml(b, ctx, denied)).join('')}</li>`;
  }
  if (type === 'system' && e.subtype === 'api_error') {
    const err = isRec(e.error) ? e.error : {};
    const retry = typeof e.retryAttempt === 'number' ? ` · retry ${e.retryAttempt}/${esc(e.maxRetries)} in ${esc(e.retryInMs)} ms` : '';
    return `<li class="entry system api-error" id="e-${seq}" value="${seq + 1}"><span class="role">API error</span>${when(e)} <span class="status">${esc(err.status)}</span> ${esc(str(err.formatted) || str(err.message))}${retry}</li>`;
  }
  if (type === 'system')
    return `<li class="entry system" id="e-${seq}" value="${seq + 1}"><span class="role">system</span>${when(e)} <span class="subtype">${esc(e.subtype)}</span> ${clip(str(e.content), TEXT_MAX)}</li>`;
  return `<li class="entry other harness" id="e-${seq}" value="${seq + 1}"><span class="role">${esc(type)}</span>${when(e)}</li>`;
}
