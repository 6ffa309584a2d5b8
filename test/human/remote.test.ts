/**
 * The running flower's side of the durable inbox (src/human/remote.ts) over the files backend, in
 * process: what is asked is published, what is posted is applied once — an answer exactly as if typed,
 * a remark as a typed remark, a stop handed on — and the terminal and the inbox race safely.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { HumanChannel, InboxWatcher } from '../../src/human/index.js';
import { FileInbox, type InboxItemBody, type ItemState } from '../../src/state/index.js';
import { connect, tmpDir } from './helpers.js';

const at = () => new Date().toISOString();
const answer = (text: string, to: { owner: string; id: string } | null): InboxItemBody => ({
  version: 1,
  kind: 'answer',
  to,
  text,
  posted_at: at(),
  from: 't',
});

function setup(o: { stop?: () => void } = {}) {
  const dir = tmpDir('remote');
  const inbox = new FileInbox(path.join(dir, 'runs', 'inbox'));
  const channel = new HumanChannel({ timeoutS: 600, logPath: path.join(dir, 'qa.md'), amendPath: path.join(dir, 'brief.md'), lang: 'en' });
  const notices: string[] = [];
  const watcher = new InboxWatcher({ inbox, channel, onNotice: (t) => notices.push(t), pollMs: 20, ...(o.stop ? { onStop: o.stop } : {}) });
  return { dir, inbox, channel, watcher, notices };
}

async function done(inbox: FileInbox, id: string): Promise<Extract<ItemState, { state: 'done' }>> {
  for (;;) {
    const s = await inbox.state(id);
    if (s.state === 'done') return s;
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function waitingIds(inbox: FileInbox, want: string[]): Promise<void> {
  for (;;) {
    const w = await inbox.readWaiting();
    if (JSON.stringify(w?.questions.map((q) => q.id) ?? []) === JSON.stringify(want)) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('a posted answer resolves the pending ask: the model gets the option text, the log has it once', async () => {
  const s = setup();
  await s.watcher.start();
  const mcp = await connect(s.channel);
  const reply = mcp.call('ask', { question: 'Where to?', options: ['stdout', 'a file'] });
  await waitingIds(s.inbox, ['q1']);
  const w = (await s.inbox.readWaiting())!;
  assert.equal(w.questions[0]!.question, 'Where to?');
  assert.deepEqual(w.questions[0]!.options, ['stdout', 'a file']);
  assert.equal(w.questions[0]!.timeout_s, 600);
  const id = await s.inbox.post(answer('2', { owner: w.owner, id: 'q1' }));
  assert.equal((await reply).text, 'a file');
  const d = await done(s.inbox, id);
  assert.equal(d.outcome.state, 'applied');
  assert.equal(d.outcome.answer, 'a file');
  await waitingIds(s.inbox, []);
  const log = fs.readFileSync(path.join(s.dir, 'qa.md'), 'utf8');
  assert.equal(log.match(/\*\*A\*\*\[answered\] a file/g)?.length, 1, log);
  assert.equal(s.channel.history()[0]!.via, 'inbox');
  await s.watcher.close();
  assert.equal(await s.inbox.readWaiting(), null, 'cleared at the end');
  await mcp.close();
});

test('the first answer wins: an inbox answer after the terminal answered is too late, and nothing changes', async () => {
  const s = setup();
  await s.watcher.start();
  const asked = s.channel.ask('Which?', ['a', 'b']);
  await waitingIds(s.inbox, ['q1']);
  const owner = (await s.inbox.readWaiting())!.owner;
  assert.equal(s.channel.answer('q1', '1'), true);
  const id = await s.inbox.post(answer('2', { owner, id: 'q1' }));
  assert.equal((await asked).answer, 'a');
  const d = await done(s.inbox, id);
  assert.equal(d.outcome.state, 'too-late');
  assert.match(d.outcome.detail ?? '', /q1 is no longer waiting/);
  // and the other way round: the terminal is told false when the inbox won
  const second = s.channel.ask('Again?', ['x', 'y']);
  await waitingIds(s.inbox, ['q2']);
  await done(s.inbox, await s.inbox.post(answer('y', { owner, id: 'q2' })));
  assert.equal(s.channel.answer('q2', 'x'), false);
  assert.equal((await second).answer, 'y');
  await s.watcher.close();
});

test('an answer posted before the start goes to the first question asked; one aimed at a gone run is too late', async () => {
  const s = setup();
  const early = await s.inbox.post(answer('stdout', null));
  const stale = await s.inbox.post(answer('1', { owner: 'a-run-that-ended', id: 'q1' }));
  await s.watcher.start();
  assert.equal((await done(s.inbox, stale)).outcome.state, 'too-late');
  assert.equal((await s.inbox.state(early)).state, 'pending', 'kept for a question');
  const r = await s.channel.ask('Where to?', ['stdout', 'a file']);
  assert.equal(r.answer, 'stdout');
  assert.equal(r.optionIndex, 0);
  assert.equal((await done(s.inbox, early)).outcome.state, 'applied');
  await s.watcher.close();
});

test('mail reaches the inbox tool and the brief; a stop is handed on; each once', async () => {
  let stops = 0;
  const s = setup({ stop: () => stops++ });
  await s.watcher.start();
  const mcp = await connect(s.channel);
  const m = await s.inbox.post({ version: 1, kind: 'mail', text: 'also support code blocks', posted_at: at(), from: 't' });
  const st = await s.inbox.post({ version: 1, kind: 'stop-after-step', posted_at: at(), from: 't' });
  await done(s.inbox, m);
  await done(s.inbox, st);
  assert.equal(stops, 1);
  assert.match((await mcp.call('inbox')).text, /also support code blocks/);
  assert.match(fs.readFileSync(path.join(s.dir, 'brief.md'), 'utf8'), /also support code blocks/);
  await s.watcher.scan();
  assert.equal(stops, 1, 'applied once');
  assert.equal(s.channel.mail().length, 1);
  await s.watcher.close();
  await mcp.close();
});

test('a damaged item is kept aside and reported; the run goes on', async () => {
  const s = setup();
  const pending = path.join(s.inbox.dir, 'pending');
  fs.mkdirSync(pending, { recursive: true });
  fs.writeFileSync(path.join(pending, 'README'), 'not an item');
  await s.watcher.start();
  assert.equal(s.notices.length, 1);
  assert.match(s.notices[0]!, /not an inbox item flower wrote; kept it as .*kept\/README/);
  assert.equal(fs.readFileSync(path.join(s.inbox.dir, 'kept', 'README'), 'utf8'), 'not an item');
  await s.watcher.close();
});
