/**
 * The page's static files, shipped inside the compiled package (dist/) so `flower ui` needs no build
 * step and no asset folder next to it. Served only with the token, like everything else.
 */

/*
 * ---- the landing page's overview, run cards and fleet (src/ui/overview.ts, src/ui/landing.ts, src/ui/fleet.ts) ----
 * Kept as its own block so the other pages' rules stay as they are.
 */
const LANDING_CSS = `
.table-scroll { max-width: 100%; overflow-x: auto; }
table.overview { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); border-radius: 6px; margin: 8px 0 4px; }
table.overview th, table.overview td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: middle; }
table.overview th { color: var(--muted); font-weight: normal; font-size: 12px; }
table.overview td.request { max-width: 28em; overflow-wrap: anywhere; }
table.overview td.request a { color: inherit; text-decoration: none; }
table.overview td.started, table.overview td.dur, table.overview td.cost { white-space: nowrap; color: var(--muted); font-size: 13px; }
table.overview td.spark svg.curve { display: block; background: none; }
.state-badge { display: inline-block; border-radius: 10px; padding: 0 8px; font-size: 12px; white-space: nowrap; border: 1px solid transparent; }
.state-badge.state-running { color: #1565c0; background: #e3f2fd; }
.state-badge.state-running::before { content: ""; display: inline-block; width: 7px; height: 7px; border-radius: 50%; background: #1565c0; margin-right: 5px; vertical-align: 1px; animation: flower-pulse 1.6s ease-in-out infinite; }
.state-badge.state-waiting { color: #6d4c00; background: #ffecb3; border-color: #ffb300; font-weight: 700; }
.state-badge.state-failed { color: var(--bad); background: #fdecea; }
.state-badge.state-achieved, .state-badge.state-done { color: var(--ok); background: #e8f5e9; }
.state-badge.state-stopped { color: var(--muted); background: #eee; }
.state-badge.state-queued { color: #4a148c; background: #f3e5f5; }
table.fleet { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); border-radius: 6px; margin: 8px 0 4px; }
table.fleet th, table.fleet td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
table.fleet th { color: var(--muted); font-weight: normal; font-size: 12px; }
table.fleet td.task .task-request { color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
table.fleet td.task-state .state-detail { overflow-wrap: anywhere; }
table.fleet td.spend, table.fleet td.wakes { text-align: right; white-space: nowrap; }
table.fleet .task-id, table.fleet td.branch code { white-space: nowrap; }
@keyframes flower-pulse { 0%, 100% { opacity: .25; } 50% { opacity: 1; } }
@media (prefers-reduced-motion: reduce) { .state-badge.state-running::before { animation: none; } }
section.run.state-waiting { border-left: 4px solid #ffb300; }
section.run.state-running { border-left: 4px solid #90caf9; }
section.run.state-achieved { border-left: 4px solid var(--ok); }
details.run-card > summary { list-style-position: outside; margin-left: 14px; }
details.run-card > summary h2.request { font-size: 15px; margin: 2px 0; overflow-wrap: anywhere; white-space: pre-wrap; }
.no-request { color: var(--muted); }
.run-head { margin: 2px 0; display: flex; flex-wrap: wrap; gap: 6px; align-items: baseline; }
.run-head .run-id { font-size: 12px; color: var(--muted); }
.run-meta { margin: 2px 0; }
.waiting-for-you { background: #fff8e1; border: 1px solid #ffe082; border-radius: 6px; padding: 6px 10px; margin: 6px 0; }
.waiting-for-you .waiting-question { font-size: 15px; white-space: pre-wrap; margin: 4px 0; }
ol.waiting-options { margin: 2px 0; }
.run-failure { color: var(--bad); margin: 6px 0; overflow-wrap: anywhere; }
tr.step.running .status { color: #1565c0; }
tr.step.waiting .status { color: #6d4c00; font-weight: 700; }
tr.step.stopped .status { color: var(--muted); }
.md h5 { font-size: 13px; margin: 6px 0 2px; }
.md p, .md ul, .md ol { margin: 2px 0 6px; }
details.brief h4, details.goal h4 { margin: 8px 0 2px; font-size: 13px; }
header { flex-wrap: wrap; }
header .heading, .summary code { overflow-wrap: anywhere; }
@media (max-width: 640px) {
  main, #ask-slot { padding-left: 8px; padding-right: 8px; }
  form.inbox { display: block; }
  form.inbox input[type=text] { min-width: 0; width: 100%; margin-bottom: 4px; }
  table.overview td.started, table.overview th:nth-child(7), table.overview td.spark, table.overview th:nth-child(8), table.overview td.wake, table.overview th:nth-child(2) { display: none; }
  table.overview td.request { min-width: 9em; }
  section.run { padding: 6px 8px; }
}
`;

export const CSS = `
:root { --fg:#1d1d1f; --muted:#666; --ok:#2e7d32; --bad:#b00020; --line:#e3e3e3; --bg:#fafafa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", sans-serif; color: var(--fg); background: var(--bg); margin: 0; }
header { background: #20303f; color: #fff; padding: 8px 16px; display: flex; gap: 12px; align-items: baseline; }
header a { color: #90caf9; }
header a.home { color: #ffd54f; font-weight: 700; text-decoration: none; }
header .live { margin-left: auto; font-size: 12px; color: #a5d6a7; }
header .live.offline { color: #ef9a9a; }
main { padding: 12px 16px 40px; max-width: 1100px; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; }
.banner { background: #fdecea; border-left: 4px solid var(--bad); padding: 8px 16px; margin: 0; }
.summary { color: var(--muted); }
section.run { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; margin: 12px 0; }
section.run.failed { border-left: 4px solid var(--bad); }
section.run h2 { font-size: 16px; margin: 4px 0; }
.run-id { font-family: ui-monospace, monospace; }
.wake, .run-meta { color: var(--muted); font-weight: normal; font-size: 13px; }
table.steps { border-collapse: collapse; width: 100%; }
table.steps th, table.steps td { text-align: left; padding: 3px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
tr.step.failed .status { color: var(--bad); font-weight: 600; }
tr.step.ok .status { color: var(--ok); }
tr.detail td { padding-left: 18px; }
.kind { background: #fdecea; color: var(--bad); border-radius: 3px; padding: 0 4px; font-size: 12px; }
.failure { color: var(--bad); margin: 2px 0; }
.said, .reason { color: var(--muted); margin: 2px 0; white-space: pre-wrap; }
.outcome { font-weight: 700; }
.outcome.achieved { color: var(--ok); }
.outcome.not_yet, .outcome.unreachable, .outcome.unclear { color: var(--bad); }
ul.checks { margin: 2px 0; padding-left: 18px; list-style: none; }
ul.checks li.pass .mark { color: var(--ok); }
ul.checks li.fail .mark { color: var(--bad); }
.evidence { color: var(--muted); }
svg.curve { max-width: 100%; height: auto; background: #fff; }
pre { white-space: pre-wrap; word-break: break-word; background: #f4f4f4; padding: 6px 8px; border-radius: 4px; margin: 4px 0; max-height: 40em; overflow: auto; }
details > summary { cursor: pointer; color: #20303f; }
table.figures th { text-align: left; padding-right: 12px; color: var(--muted); font-weight: normal; }
.note, .omitted { color: var(--muted); font-size: 12px; }
ol.transcript { padding-left: 48px; }
li.entry { margin: 6px 0; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
li.entry .role { font-weight: 600; margin-right: 6px; }
li.entry.other { color: var(--muted); font-size: 12px; }
li.entry .usage { color: var(--muted); font-size: 12px; }
.tool-result.error summary { color: var(--bad); }
nav.pager { margin: 8px 0; display: flex; gap: 12px; }
section.notes { margin-top: 20px; }
#ask-slot { padding: 8px 16px 0; max-width: 1100px; }
section.ask { background: #fff8e1; border: 1px solid #ffe082; border-left: 4px solid #ffb300; border-radius: 6px; padding: 8px 12px; }
section.ask.idle { background: none; border: none; padding: 0; }
section.ask h2 { font-size: 16px; margin: 2px 0; }
section.ask .since { color: var(--muted); font-weight: normal; font-size: 12px; }
section.ask .question { white-space: pre-wrap; font-size: 15px; }
ol.options { padding-left: 0; list-style: none; display: flex; flex-wrap: wrap; gap: 8px; }
ol.options button { font: inherit; padding: 4px 10px; cursor: pointer; }
form.inbox { margin: 6px 0; display: inline-block; }
form.inbox input[type=text] { min-width: 24em; padding: 3px 6px; font: inherit; }
section.tell { margin: 6px 0; }
.inbox-result.ok { color: var(--ok); }
.inbox-result.bad { color: var(--bad); }
/* ---- session trace (src/ui/entries.ts, timeline.ts, trace-view.ts, diff.ts) ---- */
section.step-of { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 6px 12px; margin: 8px 0; }
section.step-of h2, section.tree h2, section.changes h2, section.timeline h2, section.search-results h2, h2.transcript-head { font-size: 15px; margin: 6px 0; }
.step-meta { color: var(--muted); margin: 2px 0; }
ol.attempts { margin: 2px 0; padding-left: 20px; }
li.attempt.failed .kind { background: #fdecea; color: var(--bad); }
li.attempt.ok { color: var(--ok); }
li.attempt .why { color: var(--muted); }
ul.tree { list-style: none; padding-left: 0; margin: 4px 0; }
ul.tree ul { list-style: none; padding-left: 18px; border-left: 2px solid var(--line); margin: 2px 0 2px 6px; }
li.subagent { margin: 2px 0; }
li.subagent.current .task { font-weight: 700; }
li.subagent .agent-id, .sub-figures { color: var(--muted); font-size: 12px; }
ul.changed { margin: 4px 0; padding-left: 18px; }
div.change, details.change { margin: 8px 0; }
.change.failed { opacity: .7; }
.change-head { margin: 2px 0; }
pre.diff { white-space: pre; overflow-x: auto; max-height: 30em; }
pre.diff del, pre.diff ins, pre.diff span { display: block; text-decoration: none; }
pre.diff .d-del { background: #fdecea; color: #8a1020; }
pre.diff .d-add { background: #e6f4ea; color: #1b5e20; }
pre.diff .d-ctx { color: #444; }
pre.diff .d-skip { color: var(--muted); font-style: italic; }
.d-removed { color: var(--bad); } .d-added { color: var(--ok); }
table.timeline { border-collapse: collapse; width: 100%; font-size: 12px; }
table.timeline td { padding: 1px 6px; border-bottom: 1px solid #f0f0f0; vertical-align: middle; }
table.timeline td.what { max-width: 28em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
table.timeline td.at, table.timeline td.dur { font-variant-numeric: tabular-nums; white-space: nowrap; }
table.timeline td.bar { width: 35%; }
table.timeline td.bar svg { width: 100%; height: 10px; display: block; }
tr.tl.model rect { fill: #90caf9; } tr.tl.tool rect { fill: #b0bec5; }
tr.tl.long rect { fill: #ef6c00; } tr.tl.long td.dur { font-weight: 700; color: #e65100; }
tr.tl.error rect { fill: var(--bad); } tr.tl.error td.what { color: var(--bad); }
li.entry time { color: var(--muted); font-size: 12px; margin-right: 6px; }
li.entry.api-error { border-left: 4px solid var(--bad); padding-left: 6px; background: #fdecea; }
li.entry.api-error .role, li.entry.denial .role { color: var(--bad); }
.tool-result.denied { border-left: 4px solid #ff8f00; padding-left: 6px; }
.tool-result .label { font-size: 12px; color: var(--muted); }
.tool-result.denied .label, .tool-result.error .label { color: var(--bad); font-weight: 600; }
.tool-use .tool { font-weight: 600; color: #20303f; }
.tool-use pre.command { background: #263238; color: #eceff1; }
form.search { margin: 6px 0; padding: 0 16px; max-width: 1100px; }
form.search input[type=search] { min-width: 18em; padding: 3px 6px; font: inherit; }
ol.hits .snippet { color: var(--muted); font-size: 12px; word-break: break-all; }
ol.hits mark { background: #fff59d; }
@media (max-width: 600px) { table.timeline td.what { max-width: 10em; } table.timeline td.lane { display: none; } }
/* ---- end session trace ---- */
@media print { header .live, nav.pager { display: none; } pre { max-height: none; } }
${LANDING_CSS}`;

/**
 * Live updates by polling: the server's fingerprint (stat of the run dir's files) is cheap; when it
 * changes, the page re-fetches itself and swaps the live region in place, keeping open sections open.
 * The fingerprint the page was rendered with is in the page, so a change that lands before the first
 * poll is not missed.
 */
export const JS = `(() => {
  'use strict';
  const here = new URL(location.href).searchParams;
  const token = here.get('token') || '';
  // a fleet task's page asks about its task (src/ui/fleet.ts)
  const qs = 'token=' + encodeURIComponent(token) + (here.get('project') ? '&project=' + encodeURIComponent(here.get('project')) : '');
  const live = document.getElementById('live');
  const state = document.getElementById('live-state');
  let fp = live ? live.getAttribute('data-fp') : null;
  let busy = false;
  const keys = (sel) => new Set(Array.from(document.querySelectorAll(sel)).map((d) => d.getAttribute('data-key')));
  async function refresh() {
    const r = await fetch(location.href, { cache: 'no-store' });
    if (!r.ok) throw new Error('HTTP ' + r.status);
    const doc = new DOMParser().parseFromString(await r.text(), 'text/html');
    const open = keys('details[data-key][open]');
    const shut = keys('details[data-key]:not([open])');
    for (const id of ['banners', 'live']) {
      const next = doc.getElementById(id);
      const cur = document.getElementById(id);
      if (!next || !cur) continue;
      cur.replaceChildren(...Array.from(next.childNodes).map((n) => document.importNode(n, true)));
      if (id === 'live') cur.setAttribute('data-fp', next.getAttribute('data-fp') || '');
    }
    for (const d of document.querySelectorAll('details[data-key]')) {
      const k = d.getAttribute('data-key');
      if (open.has(k)) d.open = true; else if (shut.has(k)) d.open = false;
    }
    return doc.getElementById('live')?.getAttribute('data-fp') || null;
  }
  async function tick() {
    if (busy) return;
    busy = true;
    try {
      const r = await fetch('/api/fingerprint?' + qs, { cache: 'no-store' });
      if (!r.ok) throw new Error('HTTP ' + r.status);
      const now = await r.text();
      if (now !== fp) fp = (await refresh()) || now;
      if (state) { state.textContent = 'live'; state.className = 'live'; }
    } catch (e) {
      if (state) { state.textContent = 'offline'; state.className = 'live offline'; }
    } finally {
      busy = false;
    }
  }
  setInterval(tick, 1000);

  // the inbox: the waiting question on top is swapped when another one waits (never while typing
  // into the same one); answers, remarks and stops are POSTed as JSON with the page's token
  const slot = () => document.getElementById('ask-slot');
  async function askTick() {
    const cur = document.getElementById('ask');
    if (!cur) return;
    try {
      const r = await fetch('/api/waiting?' + qs, { cache: 'no-store' });
      if (!r.ok) return;
      const j = await r.json();
      const id = j.waiting ? j.waiting.id : '';
      if (id === (cur.getAttribute('data-qid') || '')) return;
      const page = await fetch(location.href, { cache: 'no-store' });
      const next = new DOMParser().parseFromString(await page.text(), 'text/html').getElementById('ask');
      if (next) cur.replaceWith(document.importNode(next, true));
    } catch (e) {
      /* offline: the live line says so */
    }
  }
  if (slot()) setInterval(askTick, 1000);
  document.addEventListener('submit', async (ev) => {
    const f = ev.target;
    if (!(f instanceof HTMLFormElement) || !f.classList.contains('inbox')) return;
    ev.preventDefault();
    const input = f.querySelector('input[name=text]');
    const pick = ev.submitter && ev.submitter.name === 'pick' ? ev.submitter.value : '';
    const body = { kind: f.getAttribute('data-kind'), text: pick || (input ? input.value : ''), id: f.getAttribute('data-id') || undefined, owner: f.getAttribute('data-owner') || undefined };
    const out = document.getElementById('inbox-result');
    try {
      const r = await fetch('/api/inbox?' + qs, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      const j = await r.json().catch(() => ({ message: 'HTTP ' + r.status }));
      if (out) { out.textContent = j.message || ''; out.className = 'inbox-result ' + (r.ok ? 'ok' : 'bad'); }
      if (r.ok && input) input.value = '';
      if (r.ok) askTick();
    } catch (e) {
      if (out) { out.textContent = 'could not reach flower ui'; out.className = 'inbox-result bad'; }
    }
  });

  // ---- the landing page's overview: a run's link opens its card (src/ui/landing.ts) ----
  document.addEventListener('click', (ev) => {
    const a = ev.target instanceof Element ? ev.target.closest('table.overview a[href^="#run-"]') : null;
    const card = a ? document.getElementById(a.getAttribute('href').slice(1)) : null;
    const d = card ? card.querySelector('details.run-card') : null;
    if (d) d.open = true;
  });
})();
`;

export const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><g fill="#f48fb1"><circle cx="16" cy="8" r="6"/><circle cx="24" cy="16" r="6"/><circle cx="16" cy="24" r="6"/><circle cx="8" cy="16" r="6"/></g><circle cx="16" cy="16" r="5" fill="#ffd54f"/></svg>`;
