/**
 * The hand-over block for the next tool (the bequest): at the end of a run flower leaves a short
 * block in the workspace's `CLAUDE.md` and `AGENTS.md`, so whoever opens the folder next (Claude Code,
 * Codex, a person) knows what flower did, where its notes are and how to go on. Pure: text in, text
 * out; the files are read and written by src/cli/bequest.ts.
 *
 * The fixed point is the pair of marker lines: a line containing `flower:begin` opens the block, a
 * line containing `flower:end` closes it. Invariants:
 * - outside the block, the person's text stays byte for byte (one exception, on appending: a missing
 *   last newline is added, so the block starts on a line of its own);
 * - there is never more than one block: a later run replaces it where it stands;
 * - a text whose markers are not exactly one begin line followed by one end line is `damaged` and is
 *   neither changed nor "repaired" — whatever lies between stray markers may be the person's;
 * - the block is written with the file's own line ending (CRLF stays CRLF);
 * - no line of the block's body contains a marker, so the block flower writes always reads back as one.
 * Nothing in the file is read but the markers' places: its text never steers flower.
 */
import type { Lang } from '../config/lang.js';

export const BEQUEST_BEGIN = 'flower:begin';
export const BEQUEST_END = 'flower:end';

export type BlockDamage = 'two-begins' | 'two-ends' | 'begin-without-end' | 'end-without-begin' | 'end-before-begin';

export type BlockScan =
  | { kind: 'none' }
  /** `[start, end)` covers the begin line through the end line and its line ending ('' at the end of the text) */
  | { kind: 'one'; start: number; end: number; ending: string }
  | { kind: 'damaged'; damage: BlockDamage; lines: number[] };

interface Line {
  start: number;
  /** the line without its ending */
  text: string;
  /** '\n', '\r\n', or '' for a last line without one */
  ending: string;
}

function linesOf(text: string): Line[] {
  const out: Line[] = [];
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    const stop = nl < 0 ? text.length : nl;
    const cr = stop > start && text[stop - 1] === '\r' && nl >= 0;
    out.push({ start, text: text.slice(start, cr ? stop - 1 : stop), ending: nl < 0 ? '' : cr ? '\r\n' : '\n' });
    start = nl < 0 ? text.length : nl + 1;
  }
  return out;
}

/** The file's own line ending: CRLF when most of its lines end so, else LF. */
export function lineEnding(text: string): '\n' | '\r\n' {
  let crlf = 0;
  let lf = 0;
  for (const l of linesOf(text)) {
    if (l.ending === '\r\n') crlf++;
    else if (l.ending === '\n') lf++;
  }
  return crlf > lf ? '\r\n' : '\n';
}

/** Where flower's block is in `text`: nowhere, exactly one, or markers flower cannot pair safely. */
export function scanBlock(text: string): BlockScan {
  const lines = linesOf(text);
  const begins = lines.flatMap((l, i) => (l.text.includes(BEQUEST_BEGIN) ? [i] : []));
  const ends = lines.flatMap((l, i) => (l.text.includes(BEQUEST_END) ? [i] : []));
  const at = (is: number[]) => is.map((i) => i + 1);
  if (begins.length === 0 && ends.length === 0) return { kind: 'none' };
  if (begins.length > 1) return { kind: 'damaged', damage: 'two-begins', lines: at(begins) };
  if (ends.length > 1) return { kind: 'damaged', damage: 'two-ends', lines: at(ends) };
  if (ends.length === 0) return { kind: 'damaged', damage: 'begin-without-end', lines: at(begins) };
  if (begins.length === 0) return { kind: 'damaged', damage: 'end-without-begin', lines: at(ends) };
  const b = begins[0]!;
  const e = ends[0]!;
  if (e <= b) return { kind: 'damaged', damage: 'end-before-begin', lines: at([b, e]) };
  const last = lines[e]!;
  return { kind: 'one', start: lines[b]!.start, end: last.start + last.text.length + last.ending.length, ending: last.ending };
}

export type Placed = { ok: true; text: string; changed: boolean } | { ok: false; damage: BlockDamage; lines: number[] };

/**
 * `previous` (null: no file) with `block` (its lines, markers included) in it: the block replaced where
 * it stands, else appended after one blank line; a damaged text is refused.
 */
export function placeBlock(previous: string | null, block: readonly string[]): Placed {
  const prev = previous ?? '';
  const eol = lineEnding(prev);
  const body = block.join(eol);
  const scan = scanBlock(prev);
  if (scan.kind === 'damaged') return { ok: false, damage: scan.damage, lines: scan.lines };
  let text: string;
  if (scan.kind === 'one') text = prev.slice(0, scan.start) + body + scan.ending + prev.slice(scan.end);
  else if (prev === '') text = body + eol;
  else {
    const closed = prev.endsWith('\n') ? prev : prev + eol;
    // one blank line between the person's text and the block (none after a text of blank lines only)
    text = closed + (prev.trim() === '' ? '' : eol) + body + eol;
  }
  return { ok: true, text, changed: text !== previous };
}

export type Removed =
  /** `text` null: the file held only the block (delete it) */
  { ok: true; text: string | null; changed: boolean } | { ok: false; damage: BlockDamage; lines: number[] };

/**
 * `text` without flower's block. The blank line placeBlock put before a block at the end (or after a
 * block at the start) goes with it, so a block added and then removed leaves the text as it was.
 */
export function removeBlock(text: string): Removed {
  const scan = scanBlock(text);
  if (scan.kind === 'damaged') return { ok: false, damage: scan.damage, lines: scan.lines };
  if (scan.kind === 'none') return { ok: true, text, changed: false };
  let before = text.slice(0, scan.start);
  let after = text.slice(scan.end);
  const eol = lineEnding(text);
  if (after === '' && before.endsWith(eol + eol)) before = before.slice(0, -eol.length);
  else if (before === '' && after.startsWith(eol)) after = after.slice(eol.length);
  const rest = before + after;
  return { ok: true, text: rest === '' ? null : rest, changed: true };
}

// ---- what the block says ----

/** What the block says, ready to show: the CLI gathers it (src/cli/bequest.ts). */
export interface BequestFacts {
  lang: Lang;
  /** the person's own request (never a model's text), or null when none is known */
  request: string | null;
  /** `flower run FILE`: the workflow as it is run again from the workspace; null for the default flow */
  workflow: string | null;
  /** when the last run ended, local time (`bequestWhen`) */
  at: string;
  /** what the last run spent, e.g. `$0.0123` */
  cost: string;
  /** the newest verdict (outcome and pass count over the goal's checks), or null when no judge ran */
  verdict: { outcome: string; passed: number; total: number } | null;
  /** the step the last run stopped at (failed, a limit, or asked to stop), or null when it ended */
  stoppedAt: string | null;
  /** the notes folder as shown (relative to the workspace when inside it), and which notes it holds */
  notes: string;
  present: { brief: boolean; goal: boolean; qa: boolean; handoffs: boolean };
  /** the notes' file names (NAMES in src/state/layout.ts) */
  names: { brief: string; goal: string; qa: string; handoffPrefix: string };
  /** flags every command needs from the workspace (` -r ~/proj/runs` when the run dir is not `./runs`), else '' */
  flags: string;
}

/** `YYYY-MM-DD HH:MM`, local time. */
export function bequestWhen(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** The most of a request the block quotes: pointers, not content (the next tool loads the file every session). */
export const REQUEST_CHARS = 300;

/** One line of text: no control characters, whitespace collapsed, cut at `max` characters. */
export function oneLine(text: string, max = REQUEST_CHARS): string {
  const s = text
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = [...s];
  return chars.length > max ? `${chars.slice(0, max).join('').trimEnd()}…` : s;
}

/** A body line that could be read as a marker is spelled apart (`flower: end`): the block stays one block. */
const unmarked = (line: string): string => line.replace(/(flower):(begin|end)/gi, '$1: $2');

const TEXT = {
  en: {
    begin: `<!-- ${BEQUEST_BEGIN} · written by flower at the end of each run and rewritten by the next; write your own notes outside this block -->`,
    title: '## Handed over by flower',
    intro: 'flower (a long-horizon agent runner) worked in this folder. You have none of its memory; this is where to look.',
    asked: (r: string) => `- **Asked:** ${r}`,
    ran: (w: string) => `- **Ran:** the workflow \`${w}\``,
    noRequest: (brief: string) => `- **Asked:** see \`${brief}\``,
    last: (at: string, cost: string, stop: string, verdict: string) => `- **Last run:** ${at} · ${cost}${stop} · ${verdict}`,
    stopped: (step: string) => ` · stopped at step \`${step}\``,
    verdict: (v: string | null) => (v ? `verdict ${v}` : 'no verdict'),
    outcomes: { achieved: 'achieved', not_yet: 'not yet', unreachable: 'unreachable' } as Record<string, string>,
    notes: (where: string, items: string[]) => `- **Notes** in \`${where}\`: ${items.join(', ')}`,
    brief: (f: string) => `\`${f}\` (the brief)`,
    goal: (f: string) => `\`${f}\` (the goal and its checks)`,
    qa: (f: string) => `\`${f}\` (questions and answers)`,
    handoffs: (f: string) => `\`${f}*.md\` (handoff notes)`,
    records: (log: string, status: string) => `- **Records:** every step, its cost and verdict: \`${log}\`; what flower remembers: \`${status}\``,
    cont: (cmd: string, remark: string | null) => `- **To continue:** \`${cmd}\` in this folder${remark ? ` (\`${remark}\` adds a remark)` : ''}`,
    remove: '- **This block:** `flower bequest --remove` takes it out; `--no-bequest` (or FLOWER_NO_BEQUEST=1) keeps flower from writing it',
  },
  zh: {
    begin: `<!-- ${BEQUEST_BEGIN} · 这一块由 flower 在每次运行结束时写、下次运行会重写;你自己的内容请写在块外 -->`,
    title: '## flower 留下的交接',
    intro: 'flower(长程智能体框架)在这个目录里干过活。你没有它的记忆;该看哪里,都在下面。',
    asked: (r: string) => `- **需求:** ${r}`,
    ran: (w: string) => `- **运行:** 流程 \`${w}\``,
    noRequest: (brief: string) => `- **需求:** 见 \`${brief}\``,
    last: (at: string, cost: string, stop: string, verdict: string) => `- **上次运行:** ${at} · ${cost}${stop} · ${verdict}`,
    stopped: (step: string) => ` · 停在步骤 \`${step}\``,
    verdict: (v: string | null) => (v ? `判定 ${v}` : '没有判定'),
    outcomes: { achieved: '达成', not_yet: '未达成', unreachable: '无法达成' } as Record<string, string>,
    notes: (where: string, items: string[]) => `- **笔记** 在 \`${where}\`:${items.join('、')}`,
    brief: (f: string) => `\`${f}\`(需求确认书)`,
    goal: (f: string) => `\`${f}\`(目标和判定清单)`,
    qa: (f: string) => `\`${f}\`(问答记录)`,
    handoffs: (f: string) => `\`${f}*.md\`(交接)`,
    records: (log: string, status: string) => `- **记录:** 每一步、花费和判定:\`${log}\`;flower 记得什么:\`${status}\``,
    cont: (cmd: string, remark: string | null) => `- **接着做:** 在这个目录运行 \`${cmd}\`${remark ? `(\`${remark}\` 追加一句补充)` : ''}`,
    remove: '- **这一块:** `flower bequest --remove` 删掉它;`--no-bequest`(或 FLOWER_NO_BEQUEST=1)让 flower 不再写',
  },
} as const;

/** `achieved 3/3` (`达成 3/3`): the outcome as people read it, with the pass count. */
function verdictWords(v: BequestFacts['verdict'], lang: Lang): string | null {
  if (!v) return null;
  const word = TEXT[lang].outcomes[v.outcome] ?? oneLine(v.outcome, 20);
  return `${word}${v.total ? ` ${v.passed}/${v.total}` : ''}`;
}

/** The block's lines, markers included: a handful of pointers in the run's language. */
export function renderBequest(f: BequestFacts): string[] {
  const t = TEXT[f.lang];
  const request = f.request ? oneLine(f.request) : '';
  const cont = f.workflow ? `flower run ${f.workflow}${f.flags}` : `flower${f.flags}`;
  const what: string[] = [];
  if (f.workflow) what.push(t.ran(oneLine(f.workflow)));
  if (request) what.push(t.asked(request));
  else if (!f.workflow) what.push(t.noRequest(`${f.notes}${f.names.brief}`));
  const notes = [
    f.present.brief ? t.brief(f.names.brief) : '',
    f.present.goal ? t.goal(f.names.goal) : '',
    f.present.qa ? t.qa(f.names.qa) : '',
    f.present.handoffs ? t.handoffs(f.names.handoffPrefix) : '',
  ].filter(Boolean);
  const body = [
    t.title,
    '',
    t.intro,
    '',
    ...what,
    t.last(f.at, f.cost, f.stoppedAt ? t.stopped(oneLine(f.stoppedAt, 80)) : '', t.verdict(verdictWords(f.verdict, f.lang))),
    ...(notes.length ? [t.notes(f.notes, notes)] : []),
    t.records(`flower log${f.flags}`, `flower status${f.flags}`),
    t.cont(cont, f.workflow ? null : 'flower "…"'),
    t.remove,
  ];
  return [t.begin, ...body.map(unmarked), `<!-- ${BEQUEST_END} -->`];
}
