/**
 * `flower answer [N|TEXT]`, `flower say TEXT`, `flower stop --after-step` — reaching a flower that runs
 * in this folder from another terminal, over ssh, or before it starts: each posts one item into the
 * run's durable inbox (the run dir's files, or PostgreSQL with --store / FLOWER_STORE) and, when a
 * flower runs, waits to hear what became of it. Exit 0 when posted or applied, 1 when too late (the
 * question was answered elsewhere first) or not waiting, 2 on a usage error.
 */
import os from 'node:os';
import path from 'node:path';
import { detectLang, resolveEnv, type Lang } from '../config/index.js';
import { RunLayout, type InboxItemBody, type ItemState, type RunInbox, type WaitingQuestion, type WaitingSet } from '../state/index.js';
import { openStore } from '../store/index.js';
import { isPostgresUrl } from '../store/postgres/index.js';
import { CliExit, EXIT, type CliIO } from './io.js';
import type { GlobalOptions } from './globals.js';
import { locate } from './locate.js';
import { sanitize } from './term.js';
import { usageTexts } from './usage.js';

/** One field from the records, safe to print: no escapes, no control bytes, no line breaks. */
const one = (v: unknown): string => sanitize(String(v ?? ''), { keepColour: false }).replace(/[\r\n]+/g, ' ');

/** How long a command waits for the running flower to apply what it posted (it looks at least every second). */
export const APPLY_WAIT_MS = 30_000;

const T = {
  en: {
    nothing: 'nothing is waiting here: no question is open',
    header: (n: number) => `${n} question${n === 1 ? '' : 's'} waiting:`,
    since: (at: string, t: number | null) => `since ${at}${t === null ? '' : `, waits ${t} s in all`}`,
    notWaiting: (id: string, ids: string) => `${id} is not waiting here${ids ? ` (waiting: ${ids})` : ''}`,
    badPick: (n: number, id: string, k: number) => `${id} has ${k} option${k === 1 ? '' : 's'}; ${n} is not one of them`,
    kept: 'nothing is waiting now; the answer is kept and goes to the next question flower asks here',
    answered: (id: string, a: string) => `+ ${id} answered: ${a}`,
    tooLate: (why: string) => `x too late: ${why}`,
    unheard: 'posted; the running flower has not taken it yet — it will when it next looks',
    mailGiven: '+ given to the running flower: its agents get it at their next look at the inbox, and it is in the brief',
    mailKept: '+ kept: the next flower started here gets it (and adds it to the brief)',
    stopGiven: '+ the running flower stops after the step in progress',
    stopKept: '+ kept: the next flower started here stops after its first step',
    empty: 'say what: the text must not be empty',
  },
  zh: {
    nothing: '这里没有在等的问题',
    header: (n: number) => `有 ${n} 个问题在等回答:`,
    since: (at: string, t: number | null) => `从 ${at} 开始等${t === null ? '' : `,最多等 ${t} 秒`}`,
    notWaiting: (id: string, ids: string) => `${id} 不在等回答${ids ? `(在等的:${ids})` : ''}`,
    badPick: (n: number, id: string, k: number) => `${id} 只有 ${k} 个选项,没有第 ${n} 项`,
    kept: '现在没有在等的问题;这个回答先存着,交给 flower 在这里问的下一个问题',
    answered: (id: string, a: string) => `+ ${id} 已回答:${a}`,
    tooLate: (why: string) => `x 晚了一步:${why}`,
    unheard: '已投递;正在运行的 flower 还没取走——它下次查看时会取',
    mailGiven: '+ 已交给正在运行的 flower:agent 下次看收件箱时就能看到,也记进了需求',
    mailKept: '+ 先存着:下次在这里启动的 flower 会收到(并记进需求)',
    stopGiven: '+ 正在运行的 flower 会在当前这一步做完后停下',
    stopKept: '+ 先存着:下次在这里启动的 flower 做完第一步就停下',
    empty: '要说点什么:内容不能为空',
  },
} as const;

type Texts = (typeof T)[Lang];

interface Opened {
  inbox: RunInbox;
  t: Texts;
  close(): void;
}

/**
 * The inbox of the project found from here (like `flower status`), in the store the settings name — or,
 * with `--task ID`, of that fleet task (its project is its id, in the PostgreSQL store; docs/fleet.md).
 */
async function openInbox(g: GlobalOptions, io: CliIO, task?: string): Promise<Opened> {
  const cwd = io.cwd ?? process.cwd();
  const lang = detectLang(io.env);
  const env = { ...resolveEnv(io.env, cwd).env };
  if (task !== undefined) {
    if (!isPostgresUrl(env.FLOWER_STORE))
      throw new CliExit(EXIT.usage, `x --task needs the fleet's PostgreSQL store: set FLOWER_STORE=postgres://… or give --store`);
    env.FLOWER_PROJECT = task;
  }
  const at = task !== undefined ? { workspace: cwd, runDir: path.join(cwd, g.runDir) } : locate({ ...g, cwd, noSuchFolder: usageTexts(lang).noSuchFolder });
  const s = openStore(env, RunLayout.of({ cwd, workspace: at.workspace, runDir: at.runDir }), { sessions: false });
  try {
    await s.ready();
  } catch (e) {
    s.close();
    throw e;
  }
  return { inbox: s.records.inbox, t: T[lang], close: () => s.close() };
}

function from(): string {
  try {
    return `${os.userInfo().username}@${os.hostname()}`;
  } catch {
    return os.hostname();
  }
}

/** Wait until the running flower has applied `id`; null when it did not within the wait. */
async function outcomeOf(inbox: RunInbox, id: string, waitMs = APPLY_WAIT_MS): Promise<ItemState | null> {
  const end = Date.now() + waitMs;
  for (;;) {
    const s = await inbox.state(id);
    if (s.state === 'done') return s;
    if (Date.now() > end) return null;
    await new Promise((r) => setTimeout(r, 50));
  }
}

function listing(w: WaitingSet | null, t: Texts): string[] {
  if (!w || w.questions.length === 0) return [t.nothing];
  const out = [t.header(w.questions.length)];
  for (const q of w.questions) {
    out.push(`  ${one(q.id)}  ${one(q.question)}  (${t.since(one(q.asked_at), q.timeout_s)})`);
    for (const [i, o] of q.options.entries()) out.push(`      ${i + 1}. ${one(o)}`);
  }
  return out;
}

function target(w: WaitingSet | null, id: string | undefined, t: Texts): WaitingQuestion | null {
  const qs = w?.questions ?? [];
  if (id === undefined) return qs[0] ?? null;
  const q = qs.find((x) => x.id === id);
  if (!q) throw new CliExit(EXIT.failure, `x ${t.notWaiting(one(id), qs.map((x) => x.id).join(', '))}`);
  return q;
}

export async function answer(words: string[], o: { id?: string; task?: string }, g: GlobalOptions, io: CliIO): Promise<number> {
  const text = words.join(' ').trim();
  const b = await openInbox(g, io, o.task);
  const { t, inbox } = b;
  try {
    const w = await inbox.readWaiting();
    if (!text) {
      if (o.id !== undefined) throw new CliExit(EXIT.usage, `x ${t.empty}`);
      if (g.json) io.stdout.write(`${JSON.stringify({ waiting: w?.questions ?? [] })}\n`);
      else io.stdout.write(`${listing(w, t).join('\n')}\n`);
      return EXIT.ok;
    }
    const q = target(w, o.id, t);
    const n = /^\d+$/.test(text) ? Number(text) : null;
    if (q && n !== null && q.options.length > 0 && (n < 1 || n > q.options.length)) {
      throw new CliExit(EXIT.usage, `x ${t.badPick(n, one(q.id), q.options.length)}`);
    }
    const body: InboxItemBody = {
      version: 1,
      kind: 'answer',
      to: q && w ? { owner: w.owner, id: q.id } : null,
      text,
      posted_at: new Date().toISOString(),
      from: from(),
    };
    const id = await inbox.post(body);
    if (!q) {
      io.stdout.write(`${t.kept}\n`);
      return EXIT.ok;
    }
    return report(await outcomeOf(inbox, id), io, t, (s) => t.answered(one(s.outcome.question ?? q.id), one(s.outcome.answer ?? text)));
  } finally {
    b.close();
  }
}

function report(s: ItemState | null, io: CliIO, t: Texts, ok: (s: Extract<ItemState, { state: 'done' }>) => string): number {
  if (s?.state !== 'done') {
    io.stdout.write(`${t.unheard}\n`);
    return EXIT.ok;
  }
  if (s.outcome.state === 'too-late') {
    io.stderr.write(`${t.tooLate(one(s.outcome.detail ?? ''))}\n`);
    return EXIT.failure;
  }
  io.stdout.write(`${ok(s)}\n`);
  return EXIT.ok;
}

/** Post a remark or a stop; wait for the running flower to take it when one runs. */
async function post(body: InboxItemBody, given: (t: Texts) => string, kept: (t: Texts) => string, g: GlobalOptions, io: CliIO): Promise<number> {
  const b = await openInbox(g, io);
  try {
    const running = (await b.inbox.readWaiting()) !== null;
    const id = await b.inbox.post(body);
    if (!running) {
      io.stdout.write(`${kept(b.t)}\n`);
      return EXIT.ok;
    }
    return report(await outcomeOf(b.inbox, id), io, b.t, () => given(b.t));
  } finally {
    b.close();
  }
}

export async function say(words: string[], g: GlobalOptions, io: CliIO): Promise<number> {
  const text = words.join(' ').trim();
  if (!text) throw new CliExit(EXIT.usage, `x ${T[detectLang(io.env)].empty}`);
  const body: InboxItemBody = { version: 1, kind: 'mail', text, posted_at: new Date().toISOString(), from: from() };
  return post(
    body,
    (t) => t.mailGiven,
    (t) => t.mailKept,
    g,
    io,
  );
}

export async function stop(o: { afterStep?: boolean }, g: GlobalOptions, io: CliIO): Promise<number> {
  if (!o.afterStep) throw new CliExit(EXIT.usage, `x ${usageTexts(detectLang(io.env)).stopNeedsAfterStep}`);
  const body: InboxItemBody = { version: 1, kind: 'stop-after-step', posted_at: new Date().toISOString(), from: from() };
  return post(
    body,
    (t) => t.stopGiven,
    (t) => t.stopKept,
    g,
    io,
  );
}
