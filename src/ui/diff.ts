/**
 * A line diff for the session page: what a Write changed in a file it overwrote, what an Edit replaced.
 * The longest common subsequence of the lines between a common head and tail (the usual shape of an
 * edit: one changed region), on a bounded table; past the bound the middle is shown as all removed then
 * all added, which is still true, only less tight. No dependency: node_modules has no diff library.
 */
import { esc } from './sanitize.js';

export type DiffOp = { op: ' ' | '-' | '+'; line: string };

/** cells of the LCS table allowed (lines before × lines after, head and tail taken off) */
const MAX_CELLS = 4_000_000;

const linesOf = (s: string): string[] => {
  if (s === '') return [];
  const l = s.split('\n');
  if (l.at(-1) === '') l.pop();
  return l;
};

export function diffLines(before: string, after: string): DiffOp[] {
  const a = linesOf(before);
  const b = linesOf(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const out: DiffOp[] = a.slice(0, head).map((line) => ({ op: ' ', line }));
  if (x.length * y.length > MAX_CELLS) {
    for (const line of x) out.push({ op: '-', line });
    for (const line of y) out.push({ op: '+', line });
  } else {
    // lcs[i][j]: length of the LCS of x[i..] and y[j..], one flat array
    const w = y.length + 1;
    const lcs = new Uint32Array((x.length + 1) * w);
    for (let i = x.length - 1; i >= 0; i--)
      for (let j = y.length - 1; j >= 0; j--)
        lcs[i * w + j] = x[i] === y[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    let i = 0;
    let j = 0;
    while (i < x.length || j < y.length) {
      if (i < x.length && j < y.length && x[i] === y[j]) {
        out.push({ op: ' ', line: x[i]! });
        i++;
        j++;
      } else if (i < x.length && (j === y.length || lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) out.push({ op: '-', line: x[i++]! });
      else out.push({ op: '+', line: y[j++]! });
    }
  }
  for (const line of a.slice(a.length - tail)) out.push({ op: ' ', line });
  return out;
}

/** Counts of removed and added lines. */
export function diffStat(ops: readonly DiffOp[]): { removed: number; added: number } {
  let removed = 0;
  let added = 0;
  for (const o of ops)
    if (o.op === '-') removed++;
    else if (o.op === '+') added++;
  return { removed, added };
}

/** Unchanged lines kept around each change; longer unchanged runs fold into one "… N unchanged lines" row. */
const CONTEXT = 3;
const MAX_ROWS = 400;

export function diffHtml(ops: readonly DiffOp[]): string {
  const keep = new Array<boolean>(ops.length).fill(false);
  ops.forEach((o, i) => {
    if (o.op === ' ') return;
    for (let k = Math.max(0, i - CONTEXT); k <= Math.min(ops.length - 1, i + CONTEXT); k++) keep[k] = true;
  });
  const rows: string[] = [];
  let skipped = 0;
  const flush = () => {
    if (skipped) rows.push(`<span class="d-skip">… ${skipped} unchanged line${skipped === 1 ? '' : 's'}</span>`);
    skipped = 0;
  };
  let shown = 0;
  for (let i = 0; i < ops.length; i++) {
    const o = ops[i]!;
    if (!keep[i]) {
      skipped++;
      continue;
    }
    flush();
    if (shown++ >= MAX_ROWS) {
      rows.push(`<span class="d-skip">… ${ops.length - i} more lines not shown</span>`);
      break;
    }
    const cls = o.op === '-' ? 'd-del' : o.op === '+' ? 'd-add' : 'd-ctx';
    const tag = o.op === '-' ? 'del' : o.op === '+' ? 'ins' : 'span';
    rows.push(`<${tag} class="${cls}">${o.op} ${esc(o.line)}</${tag}>`);
  }
  flush();
  // each row is a block: no newlines between them (white-space: pre would show them as blank lines)
  return `<pre class="diff">${rows.join('')}</pre>`;
}
