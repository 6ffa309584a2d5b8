// A node:test reporter for people: a progress line every half minute, one line per failure the moment
// it happens, then at the end the failures again with the first lines of each error, then one line of
// counts. The whole TAP stream goes to test-artifacts/tests.tap beside it (scripts/test.mjs).
// Why: the default reporter printed ~12,000 lines, and a failure on a loaded CI box was found by scrolling.
import path from 'node:path';

const ERROR_LINES = 12;
const PROGRESS_MS = 30_000;
const cwd = process.cwd();
const rel = (f) => (f ? path.relative(cwd, f.startsWith('file://') ? new URL(f).pathname : f) : '?');

function errorText(details) {
  const e = details?.error;
  if (!e) return '';
  const cause = e.failureType === 'testCodeFailure' || !e.cause ? e : e.cause;
  const inner = cause.cause instanceof Error ? cause.cause : cause;
  const text = inner instanceof Error || inner?.message ? `${inner.name ?? 'Error'}: ${inner.message}` : String(inner);
  return text
    .split('\n')
    .slice(0, ERROR_LINES)
    .map((l) => `      ${l}`)
    .join('\n');
}

export default async function* summary(source) {
  const started = Date.now();
  let last = started;
  const files = new Set();
  const failures = [];
  const loud = new Set();
  let pass = 0;
  let fail = 0;
  let skip = 0;
  let todo = 0;
  for await (const { type, data } of source) {
    if (type === 'test:stderr' || type === 'test:stdout') {
      // a test's own loud line (a skipped half, a missing server) is kept for the end
      for (const line of String(data.message ?? '').split('\n')) if (line.startsWith('!!!')) loud.add(line);
      continue;
    }
    if (type !== 'test:pass' && type !== 'test:fail') continue;
    if (data.details?.type === 'suite' && type === 'test:pass') continue;
    if (data.file) files.add(rel(data.file));
    if (type === 'test:pass') {
      if (data.skip) skip++;
      else if (data.todo) todo++;
      else pass++;
    } else if (data.details?.type !== 'suite' || !failures.some((f) => f.file === rel(data.file))) {
      // a suite fails with its failing test: count the test; a suite that failed alone (a hook, a load error) counts once
      fail++;
      const x = { file: rel(data.file), name: data.name, error: errorText(data.details) };
      failures.push(x);
      yield `x ${x.file} › ${x.name}\n`;
    }
    if (Date.now() - last >= PROGRESS_MS) {
      last = Date.now();
      yield `… ${pass} passed, ${fail} failed, ${skip} skipped (${Math.round((last - started) / 1000)} s)\n`;
    }
  }
  const secs = Math.round((Date.now() - started) / 1000);
  let out = '\n';
  if (failures.length) {
    out += `FAILED (${failures.length}):\n`;
    for (const x of failures) out += `  x ${x.file} › ${x.name}\n${x.error ? `${x.error}\n` : ''}`;
    out += '\n';
  }
  for (const l of loud) out += `${l}\n`;
  out += `${fail ? 'FAIL' : 'ok'}: ${pass} passed, ${fail} failed, ${skip} skipped${todo ? `, ${todo} todo` : ''} in ${files.size} files, ${secs} s`;
  out += ' (every line: test-artifacts/tests.tap)\n';
  yield out;
}
