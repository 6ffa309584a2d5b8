/**
 * The HTTP side of `flower ui`: node:http, GET only but for POST /api/inbox (./inbox.ts), every request (static files and the favicon too)
 * carries the access token as `?token=` — 401 without it, 403 with a wrong one. Routing is a plain
 * function from (method, URL) to a response, so the handlers are tested in-process.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CSS, FAVICON, JS } from './assets.js';
import type { UiSource } from './source.js';
import { href, notFound, page, type PageContext } from './layout.js';
import { esc } from './sanitize.js';
import { runsBody } from './landing.js';
import { groupRuns, isJudge, isWork } from './runs.js';
import { PAGE_SIZE, sessionBody } from './session.js';
import { rowsOfSession, SEARCH_MAX, searchForm } from './trace-view.js';
import { runSearch } from './search.js';
import type { ModelCall, VerdictCall } from './transcript.js';
import type { RunInbox } from '../state/index.js';
import { inboxPanel, postInbox, type InboxRequest } from './inbox.js';
import { fleetSection, taskHeading, type UiFleet } from './fleet.js';

export interface UiApp {
  source: UiSource;
  token: string;
  window: number;
  threshold: number;
  /** the run's durable inbox: the page shows what is asked and posts answers, remarks and stops into it */
  inbox?: RunInbox;
  /** the store's fleet (`flower ui --store URL`): its tasks on the landing page, each task's runs on its own pages */
  fleet?: UiFleet;
  /** the fleet task this app shows the runs of (`?project=<id>`) */
  task?: { id: string; name: string | null };
}

export interface UiResponse {
  status: number;
  type: string;
  body: string;
}

const HTML = 'text/html; charset=utf-8';

export function newToken(): string {
  return crypto.randomBytes(24).toString('base64url');
}

function tokenOk(given: string, want: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(want);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

const plain = (status: number, text: string): UiResponse => ({ status, type: 'text/plain; charset=utf-8', body: `${text}\n` });

/**
 * A short stable digest of the source's fingerprint and the question waiting now (a question starting or
 * ending changes the run's state on the page, not any file the source stats): the page embeds it, the
 * script polls it.
 */
async function digest(app: UiApp): Promise<string> {
  const w = await app.inbox?.readWaiting().catch(() => null);
  const asked = (w?.questions ?? []).map((q) => q.id).join(',');
  return crypto
    .createHash('sha1')
    .update(`${app.source.fingerprint()}|${w?.owner ?? ''}:${asked}|${app.fleet?.fingerprint() ?? ''}`)
    .digest('hex')
    .slice(0, 16);
}

async function landing(app: UiApp, ctx: PageContext): Promise<UiResponse> {
  const fp = await digest(app);
  const snap = await app.source.snapshot();
  const calls = new Map<string, ModelCall[]>();
  const verdicts = new Map<string, VerdictCall | null>();
  for (const r of snap.rows) {
    if (!r.session_id) continue;
    if (isWork(r.step)) {
      for (const s of [...(r.retired ?? []), r.session_id]) if (!calls.has(s)) calls.set(s, await app.source.sessions.calls(s));
    } else if (isJudge(r.step) && !verdicts.has(r.session_id)) {
      verdicts.set(r.session_id, await app.source.sessions.verdict(r.session_id));
    }
  }
  const problems = [...snap.problems, ...(app.fleet?.problems() ?? [])];
  const sp = app.source.storeProblem();
  if (sp) problems.push(sp);
  const waiting = (await app.inbox?.readWaiting().catch(() => null)) ?? null;
  // with a fleet, the tasks come first; this folder's own runs (and its inbox) follow when it has any
  const fleet = fleetSection(ctx, app.fleet?.tasks() ?? null);
  const fleetOnly = !!fleet && snap.rows.length === 0 && !waiting?.questions.length;
  const runs = fleetOnly ? '' : runsBody(ctx, { snap, calls, verdicts, window: app.window, threshold: app.threshold, waiting });
  const body = fleet + runs;
  // the question goes on top, outside the live region: a refresh must not wipe an answer being typed
  const panel = fleetOnly ? '' : inboxPanel(waiting, app.inbox);
  const heading = app.task
    ? taskHeading(ctx, app.task)
    : fleetOnly && app.fleet
      ? `the fleet in <code>${esc(app.fleet.where)}</code>`
      : `runs in <code>${esc(snap.runDir)}</code>`;
  const title = app.task ? `task ${app.task.name ?? app.task.id} — flower ui` : `flower ui — ${snap.runDir}`;
  return {
    status: 200,
    type: HTML,
    body: page(ctx, { title, heading, problems, body, live: true }).replace('<main id="live">', `${panel}<main id="live" data-fp="${fp}">`),
  };
}

async function session(app: UiApp, ctx: PageContext, sid: string, q0: URLSearchParams): Promise<UiResponse> {
  const fp = await digest(app);
  const s = app.source.sessions;
  const sub = q0.get('sub') ?? undefined;
  const from = Math.max(0, Number.parseInt(q0.get('from') ?? '0', 10) || 0);
  const pg = await s.page(sid, sub, from, PAGE_SIZE);
  if (!pg) {
    const sp = app.source.storeProblem();
    return { status: 404, type: HTML, body: notFound(ctx, sp ? `${sp.file} ${sp.message}` : `No session ${sid}${sub ? ` (${sub})` : ''} in this run dir.`) };
  }
  const q = (q0.get('q') ?? '').slice(0, 200);
  const [calls, figures, trace, snap, hits] = await Promise.all([
    s.calls(sid),
    s.figures(sid),
    s.trace(sid),
    app.source.snapshot(),
    q ? s.search(sid, q, SEARCH_MAX) : null,
  ]);
  const rows = rowsOfSession(snap.rows, sid);
  const harness = q0.get('harness') === '1';
  const body = sessionBody(ctx, { sid, sub, calls, figures, page: pg, from, window: app.window, threshold: app.threshold, rows, trace, harness, q, hits });
  return {
    status: 200,
    type: HTML,
    // the search box goes outside the live region: a refresh must not wipe what is being typed
    body: page(ctx, {
      title: `session ${sid} — flower ui`,
      heading: `session <code>${esc(sid.slice(0, 8))}</code>${rows[0] ? ` · ${esc(rows[0].step)} · run <code>${esc(rows[0].run)}</code>` : ''} · <a href="${esc(href(ctx, '/'))}">all runs</a>`,
      body,
      live: true,
    }).replace('<main id="live">', `${searchForm(ctx, `/session/${encodeURIComponent(sid)}`, q, sub ? { sub } : {})}<main id="live" data-fp="${fp}">`),
  };
}

async function runsJson(app: UiApp): Promise<UiResponse> {
  const snap = await app.source.snapshot();
  const runs = groupRuns(snap.rows).map((g) => ({
    run: g.run,
    wake: g.wake,
    started_at: g.started,
    ended_at: g.ended,
    cost_usd: g.cost,
    ok: g.ok,
    steps: g.rows,
  }));
  return { status: 200, type: 'application/json; charset=utf-8', body: JSON.stringify({ runDir: snap.runDir, runs, problems: snap.problems }) };
}

/** One request. Never throws: a failure becomes a 500 page without a stack trace. */
export async function handle(app: UiApp, method: string, rawUrl: string, req: InboxRequest = { headers: {}, body: '' }): Promise<UiResponse> {
  let url: URL;
  try {
    url = new URL(rawUrl, 'http://ui.invalid');
  } catch {
    return plain(400, 'bad request');
  }
  const given = url.searchParams.get('token');
  if (given === null || given === '') return plain(401, 'flower ui: this page needs the access token printed when `flower ui` started (?token=…).');
  if (!tokenOk(given, app.token)) return plain(403, 'flower ui: wrong access token; use the URL `flower ui` printed.');
  const p = url.pathname;
  const top: PageContext = { token: app.token };
  if (method === 'GET' || method === 'HEAD') {
    if (p === '/static/ui.css') return { status: 200, type: 'text/css; charset=utf-8', body: CSS };
    if (p === '/static/ui.js') return { status: 200, type: 'text/javascript; charset=utf-8', body: JS };
    if (p === '/favicon.svg' || p === '/favicon.ico') return { status: 200, type: 'image/svg+xml', body: FAVICON };
  }
  const scoped = await scopeOf(app, url.searchParams.get('project'));
  if (scoped === null) return { status: 404, type: HTML, body: notFound(top, 'No such task in this fleet (the fleet lists its tasks on the first page).') };
  if (scoped === 'broken') return plain(500, "flower ui: that task's runs cannot be read now.");
  return route(scoped, method, url, req);
}

/**
 * The app a request is for: the whole ui's, or, with `?project=<id>`, the runs of that fleet task —
 * only an id the fleet lists (null: no such task); 'broken' when the store cannot be read.
 */
async function scopeOf(app: UiApp, project: string | null): Promise<UiApp | null | 'broken'> {
  if (project === null) return app;
  let s;
  try {
    s = await app.fleet?.scope(project);
  } catch {
    return 'broken';
  }
  if (!s) return null;
  const { fleet: _fleet, ...rest } = app;
  return { ...rest, source: s.source, inbox: s.inbox, task: { id: s.id, name: s.name } };
}

async function route(app: UiApp, method: string, url: URL, req: InboxRequest): Promise<UiResponse> {
  const p = url.pathname;
  if (method === 'POST' && p === '/api/inbox') return postInbox(app.inbox, req).catch(() => plain(500, 'flower ui: the inbox could not be written.'));
  if (method !== 'GET' && method !== 'HEAD') return plain(405, 'flower ui is read-only but for the inbox: GET, or POST /api/inbox.');
  const ctx: PageContext = app.task ? { token: app.token, project: app.task.id } : { token: app.token };
  try {
    if (p === '/api/waiting')
      return {
        status: 200,
        type: 'application/json; charset=utf-8',
        body: JSON.stringify({ waiting: (await app.inbox?.readWaiting())?.questions[0] ?? null }),
      };
    if (p === '/' || p === '/index.html') return await landing(app, ctx);
    if (p === '/api/fingerprint') return { status: 200, type: 'text/plain; charset=utf-8', body: await digest(app) };
    if (p === '/api/runs') return await runsJson(app);
    if (p === '/search')
      return {
        status: 200,
        type: HTML,
        body: await runSearch(app.source, ctx, url.searchParams.get('run') ?? '', (url.searchParams.get('q') ?? '').slice(0, 200)),
      };
    const m = /^\/session\/([^/]+)$/.exec(p);
    if (m) {
      let sid: string;
      try {
        sid = decodeURIComponent(m[1]!);
      } catch {
        return { status: 404, type: HTML, body: notFound(ctx, 'No such session.') };
      }
      return await session(app, ctx, sid, url.searchParams);
    }
    return { status: 404, type: HTML, body: notFound(ctx, `Nothing at ${p}.`) };
  } catch (e) {
    return {
      status: 500,
      type: HTML,
      body: page(ctx, {
        title: 'error — flower ui',
        heading: 'error',
        body: `<section class="error"><h1>Something could not be read</h1><p>${esc((e as Error)?.message ?? String(e))}</p></section>`,
      }),
    };
  }
}

const HEADERS = {
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
};

const MAX_BODY = 64 * 1024;

export interface UiServer {
  url: string;
  port: number;
  server: http.Server;
  close(): Promise<void>;
}

export async function serveUi(app: UiApp, o: { host?: string; port?: number } = {}): Promise<UiServer> {
  const server = http.createServer((req, res) => {
    const send = (r: UiResponse) => {
      res.writeHead(r.status, { ...HEADERS, 'Content-Type': r.type, 'Content-Length': Buffer.byteLength(r.body) });
      res.end(req.method === 'HEAD' ? undefined : r.body);
    };
    if (req.method !== 'POST') {
      void handle(app, req.method ?? 'GET', req.url ?? '/').then(send);
      return;
    }
    // a POST body is small (an answer, a remark): anything bigger is refused, not buffered
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => {
      if (size > MAX_BODY) return send(plain(413, 'flower ui: that is too big.'));
      void handle(app, 'POST', req.url ?? '/', { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }).then(send);
    });
  });
  const host = o.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    url: `http://${shown}:${port}/?token=${app.token}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
