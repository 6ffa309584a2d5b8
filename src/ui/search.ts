/**
 * Search across a run's sessions (`/search?run=<id>&q=…`): every session a step of the run used (its
 * current one and those it retired by handoff), main threads and subagents, matched server-side (a LIKE
 * over the stored text, wildcards escaped); each hit links to its entry on the session page.
 */
import { href, page, type PageContext } from './layout.js';
import { PAGE_SIZE, laneNamer } from './session.js';
import { esc } from './sanitize.js';
import type { UiSource } from './source.js';
import { SEARCH_MAX, hitsHtml, searchForm } from './trace-view.js';

export async function runSearch(source: UiSource, ctx: PageContext, run: string, q: string): Promise<string> {
  const snap = await source.snapshot();
  const rows = snap.rows.filter((r) => r.run === run);
  const sessions = [...new Set(rows.flatMap((r) => [...(r.retired ?? []), ...(r.session_id ? [r.session_id] : [])]))];
  const out: string[] = [`<h1>search run <code>${esc(run)}</code></h1>`, searchForm(ctx, '/search', q, { run }, 'search this run')];
  if (!rows.length) out.push(`<p class="note">no run ${esc(run)} in this run dir</p>`);
  if (q) {
    let total = 0;
    for (const sid of sessions) {
      if (total >= SEARCH_MAX) break;
      const hits = await source.sessions.search(sid, q, SEARCH_MAX - total);
      total += hits.length;
      if (!hits.length) continue;
      const steps = rows.filter((r) => r.session_id === sid || (r.retired ?? []).includes(sid)).map((r) => r.step);
      const lane = laneNamer(await source.sessions.trace(sid));
      out.push(
        `<section class="search-results" data-session="${esc(sid)}"><h2>${esc(steps.join(', '))} · <a href="${esc(href(ctx, `/session/${encodeURIComponent(sid)}`))}"><code>${esc(sid.slice(0, 8))}</code></a>: ${hits.length}</h2>${hitsHtml(ctx, sid, hits, q, PAGE_SIZE, lane)}</section>`,
      );
    }
    if (!total) out.push(`<p class="no-hits">nothing matches <q>${esc(q)}</q></p>`);
  }
  return page(ctx, { title: `search ${run} — flower ui`, heading: `search · <a href="${esc(href(ctx, '/'))}">all runs</a>`, body: out.join('\n') });
}
