/**
 * The trace parts of a session page: which step of which run it belongs to, the step's attempts with
 * their failures, its handoff generations, the subagents as a tree named by their tasks, what the step
 * changed (each file linking to its diff), and search results.
 */
import { changeHtml, isConversation } from './entries.js';
import { href, type PageContext } from './layout.js';
import { duration, esc, money } from './sanitize.js';
import type { SearchHit, UiRow } from './source.js';
import type { Trace } from './trace.js';

const link = (ctx: PageContext, sid: string, params: Record<string, string | number | undefined> = {}, hash = ''): string =>
  esc(href(ctx, `/session/${encodeURIComponent(sid)}`, params) + hash);

/** the manifest rows of a session: its own rows, and rows that retired it by handoff */
export function rowsOfSession(rows: readonly UiRow[], sid: string): UiRow[] {
  return rows.filter((r) => r.session_id === sid || (r.retired ?? []).includes(sid));
}

const failureHtml = (f: { kind: string; status?: number; retryable: boolean; message: string }): string =>
  `<span class="kind">${esc(f.kind)}</span>${f.status ? ` <span class="status">${esc(f.status)}</span>` : ''} ${f.retryable ? '(retryable)' : '(not retryable)'} <span class="why">${esc(f.message.split('\n')[0] ?? '')}</span>`;

function attemptsHtml(r: UiRow): string {
  const typed = r.attempt_failures ?? [];
  const errs = r.errors ?? [];
  // rows that record each retried attempt's typed failure name its kind; older rows have only the texts
  const items = typed.length
    ? typed.map((f) => `<li class="attempt failed"><span class="n">attempt ${esc(f.attempt)}</span> ${failureHtml(f)}</li>`)
    : errs.map(
        (e, i) =>
          `<li class="attempt failed"><span class="n">attempt ${i + 1}</span> <span class="kind">failed</span> <span class="why">${esc(e.split('\n')[0] ?? '')}</span></li>`,
      );
  const last = r.ok
    ? `<li class="attempt ok"><span class="n">attempt ${r.attempts}</span> ok</li>`
    : r.failure
      ? `<li class="attempt failed final"><span class="n">attempt ${r.attempts}</span> ${failureHtml(r.failure)}</li>`
      : r.ended_at
        ? `<li class="attempt failed final"><span class="n">attempt ${r.attempts}</span> failed <span class="why">${esc(r.error ?? '')}</span></li>`
        : `<li class="attempt running"><span class="n">attempt ${r.attempts}</span> not finished</li>`;
  // the errors list holds every failed attempt; a final failure is also its last entry
  const shown = !typed.length && !r.ok && r.failure && items.length >= r.attempts ? items.slice(0, -1) : items;
  return `<ol class="attempts">${[...shown, last].join('')}</ol>`;
}

export function stepHtml(ctx: PageContext, rows: readonly UiRow[], sid: string): string {
  if (!rows.length) return '<p class="step-of note">no step of this run dir names this session</p>';
  return rows
    .map((r) => {
      const chain = [...(r.retired ?? []), r.session_id ?? ''].filter(Boolean);
      const gens =
        chain.length > 1
          ? `<p class="generations">handoff generations: ${chain.map((s) => (s === sid ? `<strong><code>${esc(s.slice(0, 8))}</code></strong>` : `<a href="${link(ctx, s)}"><code>${esc(s.slice(0, 8))}</code></a>`)).join(' → ')}</p>`
          : '';
      return `<section class="step-of" data-step="${esc(r.step)}" data-run="${esc(r.run)}"><h2>step <span class="step-name">${esc(r.step)}</span> of run <a class="run" href="${esc(href(ctx, '/'))}#run-${esc(r.run)}"><code>${esc(r.run)}</code></a></h2>
<p class="step-meta"><a class="run-search" href="${esc(href(ctx, '/search', { run: r.run }))}">search this run</a> · ${r.ok ? 'ok' : r.ended_at ? 'failed' : 'not finished'} · ${money(r.cost_usd)} · ${r.num_turns} turns · ${duration(r.duration_s)} · ${r.attempts} attempt${r.attempts === 1 ? '' : 's'}</p>${attemptsHtml(r)}${gens}</section>`;
    })
    .join('');
}

/** The subagents under the main thread, each named by its Agent call's description. */
export function treeHtml(ctx: PageContext, sid: string, t: Trace, cost: number, sub: string | undefined): string {
  if (!t.subagents.length) return '';
  const all = t.mainWeight + t.subagents.reduce((a, s) => a + s.weight, 0);
  const items = t.subagents.map((s) => {
    const share = all > 0 ? s.weight / all : 0;
    const secs = Number.isFinite(s.start) && Number.isFinite(s.end) ? (s.end - s.start) / 1000 : Number.NaN;
    const name = s.description || s.agentId;
    const cur = s.subpath === sub ? ' current' : '';
    return `<li class="subagent${cur}" data-agent="${esc(s.agentId)}"><a class="task" href="${link(ctx, sid, { sub: s.subpath })}">${esc(name)}</a> <code class="agent-id">${esc(s.agentId)}</code> <span class="sub-figures">≈${money(cost * share)} · ${s.calls} turn${s.calls === 1 ? '' : 's'} · ${esc(duration(secs))}</span></li>`;
  });
  const main = sub ? `<a href="${link(ctx, sid)}">main thread</a>` : '<strong>main thread</strong>';
  return `<section class="tree"><h2>who did what</h2><ul class="tree"><li class="main">${main}<ul>${items.join('')}</ul></li></ul><p class="note">subagent cost: the step's cost shared by tokens at relative prices</p></section>`;
}

export const CHANGES_MAX = 60;

/** What the step changed: each file with its changes, linking to the diffs below it. */
export function changesHtml(t: Trace, laneName: (lane: string) => string): string {
  if (!t.changes.length) return '';
  const byPath = new Map<string, number[]>();
  for (const c of t.changes) byPath.set(c.path, [...(byPath.get(c.path) ?? []), c.n]);
  const list = [...byPath].map(
    ([p, ns]) =>
      `<li class="changed-file"><code class="path">${esc(p)}</code> ${ns.map((n) => `<a href="#change-${n}">${esc(t.changes[n]!.tool)} by ${esc(laneName(t.changes[n]!.lane))}</a>`).join(' · ')}</li>`,
  );
  const shown = t.changes.slice(-CHANGES_MAX);
  const more = t.changes.length > shown.length ? `<p class="note">the last ${shown.length} of ${t.changes.length} changes</p>` : '';
  return `<section class="changes"><h2>what changed</h2><ul class="changed">${list.join('')}</ul>${more}${shown.map(changeHtml).join('')}</section>`;
}

/** The text around the first match of `q` in an entry, with the match marked. */
export function snippet(entry: unknown, q: string, around = 80): string {
  const text = JSON.stringify(entry) ?? '';
  const at = text.toLowerCase().indexOf(q.toLowerCase());
  if (at < 0) return esc(text.slice(0, around * 2));
  const from = Math.max(0, at - around);
  return `${from > 0 ? '…' : ''}${esc(text.slice(from, at))}<mark>${esc(text.slice(at, at + q.length))}</mark>${esc(text.slice(at + q.length, at + q.length + around))}…`;
}

export const SEARCH_MAX = 100;

export function hitsHtml(ctx: PageContext, sid: string, hits: readonly SearchHit[], q: string, pageSize: number, laneName: (lane: string) => string): string {
  const items = hits.map((h) => {
    const params = { sub: h.sub || undefined, from: Math.floor(h.seq / pageSize) * pageSize, harness: isConversation(h.entry) ? undefined : 1 };
    return `<li class="hit"><a href="${link(ctx, sid, params, `#e-${h.seq}`)}">${esc(laneName(h.sub))} · entry ${h.seq + 1}</a> <span class="snippet">${snippet(h.entry, q)}</span></li>`;
  });
  return `<ol class="hits">${items.join('')}</ol>${hits.length >= SEARCH_MAX ? `<p class="note">the first ${SEARCH_MAX} matches</p>` : ''}`;
}

/** A search box: a plain GET form (works without the script), the token (and a task's page its task) carried as hidden fields. */
export function searchForm(ctx: PageContext, action: string, q: string, hidden: Record<string, string> = {}, label = 'search this session'): string {
  const fields = Object.entries({ ...hidden, ...(ctx.project ? { project: ctx.project } : {}), token: ctx.token })
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
    .join('');
  return `<form class="search" method="get" action="${esc(action)}" role="search">${fields}<input type="search" name="q" value="${esc(q)}" aria-label="${esc(label)}" placeholder="${esc(label)}"> <button type="submit">search</button></form>`;
}
