/**
 * bench/compare.ts, the pure half: which rows got slower between two saved bench reports, by how much,
 * and what the reader sees. No timing here (speed stays out of the tests): the reports are written by hand.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareReports, parseArgs, parseReport, renderComparison, type Verdict } from '../../bench/compare.js';
import { REPORT_VERSION, reportOf, type BenchReport, type ReportRow } from '../../bench/report.js';

const MACHINE = { node: 'v20', platform: 'linux', arch: 'x64', cpus: 2, cpu_model: 'x', load_start: [1, 1, 1], load_end: [1, 1, 1] };

function row(name: string, f: Partial<ReportRow> = {}): ReportRow {
  return { name, baseline_text: '', flower_text: '', ratio_text: '', goal: '', met: null, unit: 'ms', baseline: 100, flower: 100, ratio: 1, ...f };
}

const report = (...rows: ReportRow[]): BenchReport => ({ version: REPORT_VERSION, at: '2026-12-02T00:00:00.000Z', machine: MACHINE, rows });

const CASES: Array<{ what: string; before: Partial<ReportRow>; after: Partial<ReportRow>; verdict: Verdict; pct: number | null }> = [
  { what: 'a ratio up by 20% is slower', before: { ratio: 1.0 }, after: { ratio: 1.2 }, verdict: 'slower', pct: 20 },
  { what: 'a ratio up by 5% is noise', before: { ratio: 1.0 }, after: { ratio: 1.05 }, verdict: 'same', pct: 5 },
  { what: 'a ratio down by 50% is faster', before: { ratio: 2.0 }, after: { ratio: 1.0 }, verdict: 'faster', pct: -50 },
  {
    what: 'the ratio decides even when the time moved the other way',
    before: { ratio: 1.0, flower: 100 },
    after: { ratio: 1.3, flower: 50 },
    verdict: 'slower',
    pct: 30,
  },
  {
    what: 'without a ratio, a time up by 50% is slower',
    before: { ratio: null, flower: 100 },
    after: { ratio: null, flower: 150 },
    verdict: 'slower',
    pct: 50,
  },
  {
    what: 'a rate down by 20% is slower (higher is better)',
    before: { ratio: null, unit: 'per_s', flower: 50_000 },
    after: { ratio: null, unit: 'per_s', flower: 40_000 },
    verdict: 'slower',
    pct: -20,
  },
  {
    what: 'a rate up by 20% is faster',
    before: { ratio: null, unit: 'per_s', flower: 50_000 },
    after: { ratio: null, unit: 'per_s', flower: 60_000 },
    verdict: 'faster',
    pct: 20,
  },
  { what: 'a row without figures is not judged', before: { ratio: null, unit: null, flower: null }, after: { ratio: 1 }, verdict: 'no figures', pct: null },
  { what: 'a time against a ratio is not judged', before: { ratio: null, flower: 100 }, after: { ratio: 1 }, verdict: 'no figures', pct: null },
  { what: 'a zero before is not divided by', before: { ratio: 0 }, after: { ratio: 1 }, verdict: 'no figures', pct: null },
];

for (const c of CASES) {
  test(`compare: ${c.what}`, () => {
    const [got] = compareReports(report(row('r', c.before)), report(row('r', c.after)), 10);
    assert.equal(got!.verdict, c.verdict);
    if (c.pct === null) assert.equal(got!.change_pct, null);
    else assert.ok(Math.abs(got!.change_pct! - c.pct) < 1e-9, `change ${got!.change_pct} ≠ ${c.pct}`);
  });
}

test('compare: the threshold is the caller’s', () => {
  const a = report(row('r', { ratio: 1 }));
  const b = report(row('r', { ratio: 1.08 }));
  assert.equal(compareReports(a, b, 10)[0]!.verdict, 'same');
  assert.equal(compareReports(a, b, 5)[0]!.verdict, 'slower');
});

test('compare: rows in the order of the later run, new ones marked, gone ones last', () => {
  const got = compareReports(report(row('a'), row('gone')), report(row('new'), row('a')));
  assert.deepEqual(
    got.map((c) => [c.name, c.verdict]),
    [
      ['new', 'new'],
      ['a', 'same'],
      ['gone', 'gone'],
    ],
  );
});

test('compare: a new or gone row is shown in its own unit, as the others are', () => {
  const got = compareReports(report(row('gone', { ratio: null, unit: 'per_s', flower: 30_337.4 })), report(row('new', { ratio: 1.9098124161022494 })));
  const table = renderComparison(got);
  assert.match(table, /^new +— +1\.91x +— +new$/m);
  assert.match(table, /^gone +30337\/s +— +— +gone$/m);
});

test('compare: rows match on their key, so a reworded measure still compares; without a key the name stands in', () => {
  const before = report(row('20-call session, Runtime.run()', { key: 'once.runtime', ratio: 1.2 }), row('store append', { ratio: 1 }));
  const after = report(
    row('20-call session, Runtime.run() (sandbox on both sides)', { key: 'once.runtime', ratio: 1.5 }),
    row('store append', { key: 'store append', ratio: 1 }),
  );
  const got = compareReports(before, after);
  assert.deepEqual(
    got.map((c) => [c.name, c.before, c.after, c.verdict]),
    [
      ['20-call session, Runtime.run() (sandbox on both sides)', 1.2, 1.5, 'slower'],
      ['store append', 1, 1, 'same'],
    ],
  );
  // a row whose key changed is a different measure: one new, one gone, never compared with each other
  const renamed = compareReports(before, report(row('20-call session, Runtime.run()', { key: 'once.runtime.vs-bare-floor', ratio: 1.0 })));
  assert.deepEqual(
    renamed.map((c) => c.verdict),
    ['new', 'gone', 'gone'],
  );
});

test('compare: the table shows before → after, the change and the mark, then a summary', () => {
  const changes = compareReports(
    report(row('flower --version, whole process', { ratio: 2 }), row('store append', { ratio: null, unit: 'per_s', flower: 50_000 })),
    report(row('flower --version, whole process', { ratio: 3 }), row('store append', { ratio: null, unit: 'per_s', flower: 49_000 })),
  );
  assert.equal(
    renderComparison(changes),
    [
      'measure                          before   after    change',
      '-------------------------------  -------  -------  ------  ------',
      'flower --version, whole process  2.00x    3.00x    +50.0%  SLOWER',
      'store append                     50000/s  49000/s  -2.0%',
      '',
      '1 row slower by more than 10%',
    ].join('\n'),
  );
  assert.match(renderComparison(changes.slice(1)), /no row slower by more than 10%$/);
});

test('a saved report keeps the table’s texts and the figures as numbers', () => {
  const r = reportOf(
    [
      {
        key: 'm.key',
        measure: 'm',
        baseline: '10 ms',
        flower: '12 ms',
        ratio: '1.20x',
        goal: '≤ 1.05x',
        met: false,
        figures: { unit: 'ms', baseline: 10, flower: 12, ratio: 1.2 },
      },
      { measure: 'plain', baseline: '—', flower: '1/s', ratio: '—', goal: '(info)', met: null },
    ],
    MACHINE,
    new Date('2026-12-02T00:00:00Z'),
  );
  assert.deepEqual(r, {
    version: 1,
    at: '2026-12-02T00:00:00.000Z',
    machine: MACHINE,
    rows: [
      {
        key: 'm.key',
        name: 'm',
        baseline_text: '10 ms',
        flower_text: '12 ms',
        ratio_text: '1.20x',
        goal: '≤ 1.05x',
        met: false,
        unit: 'ms',
        baseline: 10,
        flower: 12,
        ratio: 1.2,
      },
      {
        key: 'plain',
        name: 'plain',
        baseline_text: '—',
        flower_text: '1/s',
        ratio_text: '—',
        goal: '(info)',
        met: null,
        unit: null,
        baseline: null,
        flower: null,
        ratio: null,
      },
    ],
  });
  const back = parseReport(JSON.stringify(r));
  assert.ok(back.ok);
  assert.deepEqual(back.report, r);
});

test('a file that is not a report of this version is refused, naming why', () => {
  const cases: Array<[string, RegExp]> = [
    ['{', /^is not JSON/],
    ['[]', /no rows/],
    [JSON.stringify({ version: 2, rows: [] }), /has version 2; this compare reads version 1/],
    [JSON.stringify({ version: 1, rows: [{}] }), /row 1 has no name/],
    [JSON.stringify({ version: 1, rows: [{ name: 'a', key: 3 }] }), /row 1 has no name \(or a key that is not text\)/],
  ];
  for (const [text, problem] of cases) {
    const r = parseReport(text);
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.problem, problem);
  }
});

test('arguments: two files and an optional threshold', () => {
  assert.deepEqual(parseArgs(['a.json', 'b.json']), { files: ['a.json', 'b.json'], threshold: 10 });
  assert.deepEqual(parseArgs(['--threshold', '5', 'a.json', 'b.json']), { files: ['a.json', 'b.json'], threshold: 5 });
  assert.ok('problem' in parseArgs(['a.json']));
  assert.ok('problem' in parseArgs(['a.json', 'b.json', '--threshold', 'x']));
});
