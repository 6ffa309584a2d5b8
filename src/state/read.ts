/**
 * Versioned readers: JSON → version → schema. Each failure is a `StateCorrupt` carrying the path and
 * where the original was kept; a file from a NEWER flower is never touched (not kept aside, not
 * overwritten): the reader refuses with `state-future-version` and so does every writer.
 */
import fs from 'node:fs';
import * as v from 'valibot';
import { StateCorrupt } from './errors.js';
import { keepAside, parseJsonStrict } from './files.js';
import { issuesText } from './schemas.js';

export type VersionedRead<T> = { state: 'missing' } | { state: 'ok'; value: T; version: number };

/** `{ version: N }` → N; anything else (an array, an object without `version`) → 0. */
export function versionOf(v: unknown): number | 'bad' {
  if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.hasOwn(v, 'version')) return 0;
  const n = (v as { version: unknown }).version;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : 'bad';
}

export function futureVersion(file: string, version: number, newest: number): StateCorrupt {
  return new StateCorrupt(
    'state-future-version',
    `${file} is version ${version}, written by a newer flower (this one reads up to version ${newest}); ` +
      'not reading or overwriting it. Upgrade flower, or use another --run-dir.',
    { path: file },
  );
}

/**
 * Read `file` and parse it with the schema of its version. Damaged (not JSON, a `__proto__` key, a bad
 * version, wrong types) → the file is kept aside (`<file>.corrupt-<stamp>`) and a StateCorrupt says where;
 * `keep: false` leaves it in place (read-only callers such as `flower status`).
 */
export function readVersioned<T>(file: string, schemas: Readonly<Record<number, v.GenericSchema<unknown, T>>>, o: { keep?: boolean } = {}): VersionedRead<T> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { state: 'missing' };
    if (code === 'EISDIR') throw new StateCorrupt('state-unreadable', `cannot read ${file}: a folder is where the file should be`, { path: file, cause: e });
    throw new StateCorrupt('state-unreadable', `cannot read ${file}: ${(e as Error).message}`, { path: file, cause: e });
  }
  const newest = Math.max(...Object.keys(schemas).map(Number));
  let reason: string;
  let cause: unknown;
  try {
    const raw = parseJsonStrict(text);
    const version = versionOf(raw);
    if (version !== 'bad' && version > newest) throw futureVersion(file, version, newest);
    const schema = version === 'bad' ? undefined : schemas[version];
    if (!schema) {
      reason = `has an unknown version ${JSON.stringify((raw as { version?: unknown }).version)}`;
    } else {
      const r = v.safeParse(schema, raw);
      if (r.success) return { state: 'ok', value: r.output, version: version as number };
      reason = `does not have the expected shape (${issuesText(r.issues)})`;
    }
  } catch (e) {
    if (e instanceof StateCorrupt) throw e;
    reason = `is not valid JSON (${(e as Error).message})`;
    cause = e;
  }
  const keptAt = o.keep === false ? undefined : keepAside(file, 'corrupt');
  throw new StateCorrupt('state-corrupt', `${file} ${reason}${keptAt ? `; kept it as ${keptAt}` : ''}`, {
    path: file,
    ...(keptAt ? { keptAt } : {}),
    ...(cause !== undefined ? { cause } : {}),
  });
}
