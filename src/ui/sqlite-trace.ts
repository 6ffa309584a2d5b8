/**
 * The SQLite side of the trace (./trace.ts) and of search: the few fields a trace row needs are pulled
 * out in SQL (json_extract, json_each), so a 100k-entry transcript's big texts never become JS strings;
 * search is a LIKE over the stored payloads with its wildcards escaped.
 */
import type Database from 'better-sqlite3';
import type { TraceBlock, TraceRow } from './trace.js';

const FIELDS = [
  '$.type',
  '$.timestamp',
  '$.message.id',
  '$.message.model',
  '$.isApiErrorMessage',
  '$.message.usage',
  '$.toolUseResult.agentId',
  '$.description',
  '$.toolUseId',
  '$.toolUseResult.originalFile',
  '$.toolUseResult.file.filePath',
  '$.toolUseResult.file.content',
  '$.toolUseResult.file.startLine',
  '$.toolUseResult.file.numLines',
  '$.toolUseResult.file.totalLines',
]
  .map((p) => `'${p}'`)
  .join(', ');

// tool inputs are kept whole only for the tools the trace reads them from (Write content, Edit strings)
const BLOCKS = `SELECT json_group_array(json_array(json_extract(j.value, '$.type'), json_extract(j.value, '$.id'), json_extract(j.value, '$.name'),
  json_extract(j.value, '$.tool_use_id'), json_extract(j.value, '$.is_error'),
  CASE WHEN json_extract(j.value, '$.type') = 'tool_use' THEN
    CASE WHEN json_extract(j.value, '$.name') IN ('Write', 'Edit', 'MultiEdit', 'Agent', 'Task') THEN json_extract(j.value, '$.input')
    ELSE json_object('file_path', json_extract(j.value, '$.input.file_path'), 'command', substr(json_extract(j.value, '$.input.command'), 1, 200),
      'description', json_extract(j.value, '$.input.description'), 'pattern', json_extract(j.value, '$.input.pattern')) END END))
  FROM json_each(e.payload, '$.message.content') j WHERE json_type(e.payload, '$.message.content') = 'array'`;

// the block list is built only for entries that hold tool blocks (json_each re-reads every block)
const TRACE_SQL = `SELECT e.seq AS seq, json_extract(e.payload, ${FIELDS}) AS f,
  CASE WHEN e.payload LIKE '%"tool_use%' THEN (${BLOCKS}) END AS b
  FROM entries e WHERE e.store_key = ? AND e.seq >= ? ORDER BY e.seq`;

/**
 * Entries a trace reads at most, the newest ones: a longer transcript's trace covers its last
 * TRACE_WINDOW entries (the page says so), which keeps a 100k-entry session page under 2 s (bench/ui.ts).
 */
export const TRACE_WINDOW = 10_000;

const s = (v: unknown): string => (typeof v === 'string' ? v : '');

function parse(text: string | null): unknown[] {
  if (!text) return [];
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}

export function traceRows(db: Database.Database, key: string, fromSeq = 0): TraceRow[] {
  const out: TraceRow[] = [];
  for (const r of db.prepare<[string, number], { seq: number; f: string; b: string | null }>(TRACE_SQL).iterate(key, fromSeq)) {
    const f = parse(r.f);
    const synthetic = f[3] === '<synthetic>';
    const blocks: TraceBlock[] = parse(r.b).map((x) => {
      const a = Array.isArray(x) ? x : [];
      const input = typeof a[5] === 'string' ? parse(`[${a[5]}]`)[0] : a[5] && typeof a[5] === 'object' ? a[5] : undefined;
      return { type: s(a[0]), id: s(a[1]), name: s(a[2]), toolUseId: s(a[3]), isError: a[4] === 1 || a[4] === true, ...(input !== undefined ? { input } : {}) };
    });
    const complete = typeof f[11] === 'string' && Number(f[12] ?? 1) <= 1 && Number(f[13] ?? 0) >= Number(f[14] ?? 0);
    out.push({
      seq: r.seq,
      type: s(f[0]),
      ts: s(f[1]),
      mid: synthetic ? '' : s(f[2]),
      apiError: f[4] === 1 || f[4] === true,
      usage: !synthetic && f[5] && typeof f[5] === 'object' ? (f[5] as Record<string, unknown>) : null,
      blocks,
      agentId: s(f[6]),
      description: s(f[7]),
      toolUseId: s(f[8]),
      originalFile: typeof f[9] === 'string' ? f[9] : null,
      readPath: complete ? s(f[10]) : '',
      readContent: complete ? (f[11] as string) : null,
    });
  }
  return out;
}

/** `q` as a LIKE pattern that matches it literally (\ escapes the wildcards). */
export function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function searchRows(db: Database.Database, key: string, q: string, limit: number): Array<{ seq: number; payload: string }> {
  return db
    .prepare<[string, string, number], { seq: number; payload: string }>(
      `SELECT seq, payload FROM entries WHERE store_key = ? AND payload LIKE ? ESCAPE '\\' ORDER BY seq LIMIT ?`,
    )
    .all(key, likePattern(q), limit);
}
