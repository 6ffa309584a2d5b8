/** How a task reads (src/fleet/present.ts), and the ui's list of them (src/ui/fleet.ts), as tables. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fleetCount, hasFleetTasks, spendText, stateDetail, stateText, taskRow, type TaskStatus } from '../../src/fleet/index.js';
import { fleetSection, taskHeading } from '../../src/ui/index.js';

const task = (o: Partial<TaskStatus> = {}): TaskStatus => ({
  id: 't-0123456789',
  name: null,
  state: 'queued',
  reason: null,
  host: null,
  since: null,
  wakes: 0,
  cost_usd: 0,
  branch: 'flower/t-0123456789',
  repo: '/r.git',
  request: 'fix it',
  retries: 0,
  retry_limit: 5,
  job: 'j',
  added_at: '2026-01-01T00:00:00.000Z',
  ...o,
});

test('stateText and stateDetail: the state as `flower fleet status` says it, and what goes with it', () => {
  const since = '2026-01-02T03:04:05.000Z';
  const rows: Array<[Partial<TaskStatus>, string, string | null]> = [
    [{}, 'queued', null],
    [{ reason: 'handed back: stopped' }, 'queued: handed back: stopped', 'handed back: stopped'],
    [{ state: 'running', host: 'host-a', since }, `running on host-a since ${since}`, `on host-a since ${since}`],
    [{ state: 'running', host: 'host-a' }, 'running on host-a', 'on host-a'],
    [{ state: 'running', since }, `running since ${since}`, `since ${since}`],
    [{ state: 'running' }, 'running', null],
    [{ state: 'waiting', host: 'h', since, reason: 'ignored while it runs' }, `waiting on h since ${since}`, `on h since ${since}`],
    [{ state: 'achieved', reason: '3/3' }, 'achieved: 3/3', '3/3'],
    [{ state: 'achieved' }, 'achieved', null],
    [{ state: 'stopped', reason: 'budget' }, 'stopped: budget', 'budget'],
    [{ state: 'failed', reason: 'cannot clone /x: gone' }, 'failed: cannot clone /x: gone', 'cannot clone /x: gone'],
  ];
  for (const [given, text, detail] of rows) {
    assert.equal(stateText(task(given)), text, JSON.stringify(given));
    assert.equal(stateDetail(task(given)), detail, JSON.stringify(given));
  }
});

test('spendText, taskRow, fleetCount, hasFleetTasks', () => {
  const spends: Array<[number, string]> = [
    [0, '$0.0000'],
    [0.12345, '$0.1235'],
    [12, '$12.0000'],
    [Number.NaN, '$0.0000'],
  ];
  for (const [usd, text] of spends) assert.equal(spendText(usd), text, String(usd));
  assert.deepEqual(taskRow(task({ name: 'n', state: 'achieved', reason: '1/1', cost_usd: 0.5, wakes: 2 })), {
    id: 't-0123456789',
    name: 'n',
    state: 'achieved',
    stateText: 'achieved: 1/1',
    detail: '1/1',
    spend: '$0.5000',
    wakes: 2,
    branch: 'flower/t-0123456789',
    request: 'fix it',
  });
  const counts: Array<[TaskStatus['state'][], string]> = [
    [[], '0 tasks'],
    [['queued'], '1 task: 1 queued'],
    [['failed', 'achieved', 'queued', 'achieved', 'running'], '5 tasks: 1 running, 1 queued, 2 achieved, 1 failed'],
  ];
  for (const [states, text] of counts) assert.equal(fleetCount(states.map((state) => ({ state }))), text, states.join());
  const has: Array<[TaskStatus[] | null | undefined, boolean]> = [
    [null, false],
    [undefined, false],
    [[], false],
    [[task()], true],
  ];
  for (const [tasks, want] of has) assert.equal(hasFleetTasks(tasks), want, JSON.stringify(tasks));
});

test("fleetSection: nothing without tasks; every user's or tool's text escaped; each task links to its runs with the token", () => {
  const ctx = { token: 'tok' };
  assert.equal(fleetSection(ctx, null), '');
  assert.equal(fleetSection(ctx, []), '');
  const html = fleetSection(ctx, [
    task({ name: '<script>x</script>', request: 'a "quoted" <b>req</b>', state: 'failed', reason: "cannot clone '/x' <y>\u001b[31m" }),
  ]);
  assert.ok(!html.includes('<script>') && !html.includes('<b>') && !html.includes('\u001b'), html);
  assert.ok(html.includes('&lt;script&gt;x&lt;/script&gt;'));
  assert.ok(html.includes('a &quot;quoted&quot; &lt;b&gt;req&lt;/b&gt;'));
  assert.ok(html.includes('cannot clone &#39;/x&#39; &lt;y&gt;'));
  assert.ok(html.includes('href="/?project=t-0123456789&amp;token=tok"'), html);
  assert.match(html, /<span class="state-badge state-failed">failed<\/span>/);
  assert.match(html, /1 task: 1 failed/);
  const head = taskHeading({ token: 'tok', project: 't-0123456789' }, { id: 't-0123456789', name: '<i>n</i>' });
  assert.ok(head.includes('&lt;i&gt;n&lt;/i&gt;') && head.includes('href="/?token=tok"'), head);
});
