/**
 * The one writable corner of `flower ui`: the question the running flower waits on, on top of the page
 * with its options and a text box, and "say" / "stop after this step" — each a POST into the run's
 * durable inbox (src/state/inbox-format.ts), applied by the running flower exactly as `flower answer`,
 * `flower say` and `flower stop --after-step` are.
 *
 * A POST must carry the page's token (401 without, 403 wrong — checked before this module runs), come
 * from the page's own origin (an `Origin` other than the page's or a `Sec-Fetch-Site` other than
 * `same-origin`: 403) and be JSON (a plain HTML form from another site cannot send that). Everything
 * shown is escaped; the page's script builds nothing from strings.
 */
import type { InboxItemBody, RunInbox, WaitingSet } from '../state/index.js';
import { esc } from './sanitize.js';

export interface InboxRequest {
  /** request headers, lower-case names */
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface InboxReply {
  status: number;
  type: string;
  body: string;
}

/** How long a POST waits for the running flower to apply what it posted (it looks every second). */
export const UI_APPLY_WAIT_MS = 30_000;
const MAX_TEXT = 20_000;

const json = (status: number, v: Record<string, unknown>): InboxReply => ({ status, type: 'application/json; charset=utf-8', body: JSON.stringify(v) });
const head = (h: InboxRequest['headers'], k: string): string | undefined => {
  const v = h[k];
  return Array.isArray(v) ? v[0] : v;
};

/** Same origin only: the Origin a browser sends must be this page's (`http://` + the Host it asked for). */
export function sameOrigin(h: InboxRequest['headers']): boolean {
  const site = head(h, 'sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = head(h, 'origin');
  if (origin === undefined) return site === 'same-origin' || site === undefined;
  const host = head(h, 'host');
  return host !== undefined && origin === `http://${host}`;
}

/** The panel on top of the landing page; '' when no inbox is known. */
export function inboxPanel(w: WaitingSet | null, inbox: RunInbox | undefined): string {
  if (!inbox) return '';
  const q = w?.questions[0];
  const ask = q
    ? `<section id="ask" class="ask" data-qid="${esc(q.id)}"><h2>flower is asking <code>${esc(q.id)}</code> <span class="since">since ${esc(q.asked_at.replace('T', ' ').slice(0, 19))}</span></h2>
<p class="question">${esc(q.question)}</p>
<form class="inbox" data-kind="answer" data-id="${esc(q.id)}" data-owner="${esc(w!.owner)}">${
        q.options.length
          ? `<ol class="options">${q.options.map((o, i) => `<li><button type="submit" name="pick" value="${i + 1}">${esc(o)}</button></li>`).join('')}</ol>`
          : ''
      }<input name="text" type="text" autocomplete="off" aria-label="your answer" placeholder="${q.options.length ? 'or answer in words' : 'your answer'}"> <button type="submit">answer</button></form></section>`
    : `<section id="ask" class="ask idle" data-qid=""><p class="note">${w ? 'The running flower is not asking anything.' : 'No flower is running here.'}</p></section>`;
  const tell = `<section class="tell"><form class="inbox" data-kind="mail"><input name="text" type="text" autocomplete="off" aria-label="a remark for the agents" placeholder="tell the agents something (goes into the brief too)"> <button type="submit">say</button></form>
<form class="inbox" data-kind="stop-after-step"><button type="submit">stop after this step</button></form>
<p id="inbox-result" class="inbox-result" aria-live="polite"></p></section>`;
  return `<div id="ask-slot">${ask}${tell}</div>`;
}

function parse(body: string): { kind: InboxItemBody['kind']; text: string; id?: string; owner?: string } | string {
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch {
    return 'the body is not JSON';
  }
  if (typeof v !== 'object' || v === null) return 'the body is not a JSON object';
  const o = v as Record<string, unknown>;
  const kind = o.kind;
  if (kind !== 'answer' && kind !== 'mail' && kind !== 'stop-after-step') return 'kind must be answer, mail or stop-after-step';
  const text = typeof o.text === 'string' ? o.text.trim() : '';
  if (text.length > MAX_TEXT) return `the text is over ${MAX_TEXT} characters`;
  if (kind !== 'stop-after-step' && text === '') return 'the text is empty';
  return { kind, text, ...(typeof o.id === 'string' ? { id: o.id } : {}), ...(typeof o.owner === 'string' ? { owner: o.owner } : {}) };
}

async function outcome(inbox: RunInbox, id: string, waitMs: number): Promise<InboxReply> {
  const end = Date.now() + waitMs;
  for (;;) {
    const s = await inbox.state(id);
    if (s.state === 'done') {
      if (s.outcome.state === 'too-late') return json(409, { ok: false, state: 'too-late', message: `Too late: ${s.outcome.detail ?? 'it had ended'}` });
      const what = s.outcome.question ? `${s.outcome.question} answered: ${s.outcome.answer ?? ''}` : 'Given to the running flower.';
      return json(200, { ok: true, state: 'applied', message: what });
    }
    if (Date.now() > end) return json(202, { ok: true, state: 'posted', message: 'Posted; the running flower has not taken it yet.' });
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** POST /api/inbox (the token already checked). */
export async function postInbox(inbox: RunInbox | undefined, req: InboxRequest, o: { waitMs?: number } = {}): Promise<InboxReply> {
  if (!sameOrigin(req.headers)) return json(403, { ok: false, message: 'refused: not from this page (cross-origin)' });
  if (!(head(req.headers, 'content-type') ?? '').startsWith('application/json')) return json(415, { ok: false, message: 'send JSON' });
  if (!inbox) return json(404, { ok: false, message: 'no inbox here' });
  const p = parse(req.body);
  if (typeof p === 'string') return json(400, { ok: false, message: p });
  const w = await inbox.readWaiting();
  const posted_at = new Date().toISOString();
  const from = 'flower ui';
  let body: InboxItemBody;
  if (p.kind === 'answer') {
    const q = w?.questions.find((x) => x.id === p.id);
    // the page showed a question that has ended since: nothing is posted
    if (!w || !q || p.owner !== w.owner)
      return json(409, { ok: false, state: 'too-late', message: `Too late: ${p.id ?? 'that question'} is no longer waiting.` });
    body = { version: 1, kind: 'answer', to: { owner: w.owner, id: q.id }, text: p.text, posted_at, from };
  } else if (p.kind === 'mail') body = { version: 1, kind: 'mail', text: p.text, posted_at, from };
  else body = { version: 1, kind: 'stop-after-step', posted_at, from };
  const id = await inbox.post(body);
  if (!w) return json(202, { ok: true, state: 'posted', message: 'No flower is running here; the next one started here gets it.' });
  return outcome(inbox, id, o.waitMs ?? UI_APPLY_WAIT_MS);
}
