/** The page frame shared by every page: head, banner strip, the live region, and links that carry the token. */
import { esc } from './sanitize.js';
import type { Problem } from './source.js';

export interface PageContext {
  token: string;
  /** the fleet task whose runs the page shows (src/ui/fleet.ts): every link on the page stays in it */
  project?: string;
}

/** A link inside the UI: every request needs the token, static files included; a task's page keeps its task. */
export function href(ctx: PageContext, pathname: string, params: Record<string, string | number | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  if (ctx.project) q.set('project', ctx.project);
  q.set('token', ctx.token);
  return `${pathname}?${q.toString()}`;
}

export function banners(problems: readonly Problem[]): string {
  if (problems.length === 0) return '';
  return problems
    .map((p) => `<div class="banner" role="alert"><strong>Cannot read <code class="file">${esc(p.file)}</code></strong>: ${esc(p.message)}</div>`)
    .join('');
}

export function page(ctx: PageContext, o: { title: string; heading: string; problems?: readonly Problem[]; body: string; live?: boolean }): string {
  // the frame's links (home, styles, script) are the whole ui's, not a task's
  const top: PageContext = { token: ctx.token };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(o.title)}</title>
<link rel="icon" href="${esc(href(top, '/favicon.svg'))}" type="image/svg+xml">
<link rel="stylesheet" href="${esc(href(top, '/static/ui.css'))}">
</head>
<body>
<header><a class="home" href="${esc(href(top, '/'))}">flower</a> <span class="heading">${o.heading}</span>${o.live ? ' <span id="live-state" class="live" aria-live="polite">live</span>' : ''}</header>
<div id="banners">${banners(o.problems ?? [])}</div>
<main id="live">${o.body}</main>
${o.live ? `<script src="${esc(href(top, '/static/ui.js'))}" defer></script>` : ''}
</body>
</html>
`;
}

export function notFound(ctx: PageContext, what: string): string {
  return page(ctx, {
    title: 'not found — flower ui',
    heading: 'not found',
    body: `<section class="notfound"><h1>404 — not found</h1><p>${esc(what)}</p><p><a href="${esc(href(ctx, '/'))}">back to the runs</a></p></section>`,
  });
}
