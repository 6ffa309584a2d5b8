/**
 * The fleet on `flower ui --store URL` (docs/fleet.md): when the store's queue holds tasks, the landing
 * page lists them — name, id, state as `flower fleet status` says it, spend, wakes, branch — each linking
 * to its task's runs. A task's project name on every host is its id, so its runs are a PgSource for that
 * project, opened when first asked for (`?project=<id>`, kept by every link of its pages).
 *
 * Only the fleet's own task ids open a page (anything else is a 404): the id comes from the URL, and the
 * ui shows no project the fleet did not name. The tasks are read without starting the queue engine (a
 * store no fleet ever used has no queue tables: no fleet section, no error, nothing created), by a
 * background poll like PgSource's, so the page's fingerprint stays cheap.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import { fleetCount, hasFleetTasks, readFleet, taskRow, type TaskStatus } from '../fleet/index.js';
import type { RunInbox } from '../state/index.js';
import { acquirePool, redactUrl, releasePool, withClient, type SharedPool } from '../store/postgres/index.js';
import { href, type PageContext } from './layout.js';
import { PgSource, POLL_MS } from './pg.js';
import { cut, esc } from './sanitize.js';
import type { Problem } from './source.js';

export interface UiFleetOptions {
  url: string;
  /** the local run dir (a task's PgSource reads nothing there) */
  runDir: string;
  pollMs?: number;
  /** task pages kept open at once (the least recently used is closed) */
  maxOpen?: number;
}

/** A task's runs: the PgSource of its project and that project's inbox. */
export interface TaskScope {
  id: string;
  name: string | null;
  source: PgSource;
  inbox: RunInbox;
}

export class UiFleet {
  private last: { tasks: TaskStatus[] | null; unreadable: number; digest: string } = { tasks: null, unreadable: 0, digest: '' };
  private problem: Problem | null = null;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private readonly open = new Map<string, Promise<PgSource>>();
  private readonly shared: SharedPool;
  private closed = false;
  /** the store, its password left out (the page's heading and banners) */
  readonly where: string;

  private constructor(readonly o: UiFleetOptions) {
    this.shared = acquirePool(o.url);
    this.where = redactUrl(o.url);
  }

  /** The first read done (a failure is the page's problem, never the ui's end), then polling. */
  static async open(o: UiFleetOptions): Promise<UiFleet> {
    const f = new UiFleet(o);
    await f.poll();
    f.timer = setInterval(() => {
      void f.poll();
    }, o.pollMs ?? POLL_MS);
    f.timer.unref();
    return f;
  }

  poll(): Promise<void> {
    this.polling ??= (async () => {
      try {
        const r = await readFleet(this.o.url);
        const digest = crypto.createHash('sha1').update(JSON.stringify(r)).digest('hex').slice(0, 16);
        this.last = { tasks: r?.tasks ?? null, unreadable: r?.unreadable ?? 0, digest };
        this.problem = null;
      } catch (e) {
        if (!this.closed) this.problem = { file: this.where, message: `the fleet's tasks cannot be read (${(e as Error).message})` };
      } finally {
        this.polling = undefined;
      }
    })();
    return this.polling;
  }

  /** The tasks of the last read; null: the store has no fleet. */
  tasks(): readonly TaskStatus[] | null {
    return this.last.tasks;
  }

  fingerprint(): string {
    return `${this.last.digest}|${this.problem ? 'down' : 'up'}`;
  }

  problems(): Problem[] {
    const out = this.problem ? [this.problem] : [];
    if (this.last.unreadable > 0) {
      const n = this.last.unreadable;
      out.push({
        file: this.where,
        message: `${n} job${n === 1 ? '' : 's'} of the fleet's queue ${n === 1 ? 'is' : 'are'} not a task flower wrote (not shown)`,
      });
    }
    return out;
  }

  /** The runs of task `id`; null when the fleet has no such task. */
  async scope(id: string): Promise<TaskScope | null> {
    const task = this.last.tasks?.find((t) => t.id === id);
    if (!task) return null;
    let opening = this.open.get(id);
    if (!opening) {
      opening = this.sourceOf(id);
      this.open.set(id, opening);
      opening.catch(() => this.open.delete(id));
      this.evict();
    } else {
      // the most recently used stays open longest
      this.open.delete(id);
      this.open.set(id, opening);
    }
    const source = await opening;
    return { id, name: task.name, source, inbox: source.inbox };
  }

  private async sourceOf(id: string): Promise<PgSource> {
    // the notes are files in the workspace of the task's last wake: shown when this host has them
    const r = await withClient(this.shared, (c) => c.query<{ workspace: string }>('SELECT workspace FROM flower.wakes WHERE project = $1', [id]));
    const workspace = r.rows[0]?.workspace ?? path.join(this.o.runDir, '.fleet-task-not-started');
    return PgSource.open({ url: this.o.url, project: id, workspace, runDir: this.o.runDir });
  }

  private evict(): void {
    const max = this.o.maxOpen ?? 16;
    while (this.open.size > max) {
      const [oldest, p] = this.open.entries().next().value as [string, Promise<PgSource>];
      this.open.delete(oldest);
      void p.then((s) => s.close()).catch(() => {});
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    for (const p of this.open.values()) void p.then((s) => s.close()).catch(() => {});
    this.open.clear();
    void releasePool(this.shared);
  }
}

/** The fleet's list on the landing page; '' when the store holds no task. */
export function fleetSection(ctx: PageContext, tasks: readonly TaskStatus[] | null): string {
  if (!hasFleetTasks(tasks)) return '';
  const rows = tasks.map((t) => {
    const r = taskRow(t);
    const link = esc(href({ ...ctx, project: r.id }, '/'));
    const name = r.name ? `<a class="task-name" href="${link}">${esc(cut(r.name, 200).text)}</a> ` : '';
    return `<tr class="task state-${r.state}" data-task="${esc(r.id)}">
<td class="task">${name}<a class="task-id" href="${link}"><code>${esc(r.id)}</code></a><div class="task-request">${esc(cut(r.request, 300).text)}</div></td>
<td class="task-state"><span class="state-badge state-${r.state}">${esc(r.state)}</span>${r.detail ? ` <span class="state-detail">${esc(cut(r.detail, 400).text)}</span>` : ''}</td>
<td class="spend">${esc(r.spend)}</td><td class="wakes">${r.wakes}</td><td class="branch"><code>${esc(r.branch)}</code></td></tr>`;
  });
  return `<section class="fleet"><h2>The fleet</h2><p class="summary fleet-count">${esc(fleetCount(tasks))}</p>
<div class="table-scroll"><table class="fleet"><thead><tr><th>task</th><th>state</th><th>spend</th><th>wakes</th><th>branch</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table></div></section>`;
}

/** The heading of a task's page: its name and id, and the way back to the fleet. */
export function taskHeading(ctx: PageContext, t: { id: string; name: string | null }): string {
  const name = t.name ? ` ${esc(cut(t.name, 200).text)}` : '';
  return `task${name} <code>${esc(t.id)}</code> · <a class="fleet-home" href="${esc(href({ token: ctx.token }, '/'))}">all tasks</a>`;
}
