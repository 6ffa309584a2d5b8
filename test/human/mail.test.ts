/**
 * Remarks the person sends while agents work: queued for the inbox tool, appended to the brief.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Brief } from '../../src/docs/index.js';
import { AMEND_HEADER, HumanChannel } from '../../src/human/index.js';
import type { FlowerEvent } from '../../src/runtime/index.js';
import { connect, states, tmpDir } from './helpers.js';

const fullBrief = () =>
  new Brief({
    goal: 'A script that turns Markdown into HTML.',
    acceptance: '- run md2html a.md, get a.html',
    boundaries: '- no PDF',
    unknowns: '- assumed CommonMark',
  });

function setup(o: { amend?: boolean; brief?: boolean } = {}) {
  const dir = tmpDir('mail');
  const amendPath = path.join(dir, 'notes', '需求.md');
  if (o.brief) fullBrief().write(amendPath);
  const events: FlowerEvent[] = [];
  const ch = new HumanChannel({
    lang: 'en',
    onEvent: (e) => {
      events.push(e);
    },
    ...(o.amend === false ? {} : { amendPath }),
  });
  return { ch, events, amendPath };
}

test('empty sends are ignored: no mail, no event, no file', () => {
  const { ch, events, amendPath } = setup();
  for (const t of ['', '   ', '\n\t']) assert.equal(ch.send(t), null);
  assert.deepEqual(events, []);
  assert.deepEqual(ch.mail(), []);
  assert.equal(fs.existsSync(amendPath), false);
});

test('two remarks are appended to the brief under 运行中补充, the original kept above them', () => {
  const { ch, events, amendPath } = setup({ brief: true });
  const a = ch.send('Also support tables.')!;
  const b = ch.send('Output goes to ./out, not next to the input.')!;
  assert.equal(a.id, 'm1');
  assert.equal(b.id, 'm2');
  assert.equal(a.state, 'queued');
  assert.equal(a.amended, true);
  const loaded = Brief.load(amendPath)!;
  assert.equal(loaded.goal, 'A script that turns Markdown into HTML.');
  assert.equal(loaded.complete(), true);
  assert.deepEqual(
    loaded.amendments.map((x) => [x.label, x.text]),
    [
      ['运行中补充', 'Also support tables.'],
      ['运行中补充', 'Output goes to ./out, not next to the input.'],
    ],
  );
  assert.ok(fs.readFileSync(amendPath, 'utf8').startsWith('# 需求确认书'));
  assert.deepEqual(states(events, 'mail'), ['queued:m1', 'queued:m2']);
  assert.equal(events[0]!.payload.amended, true);
  assert.equal(events[0]!.payload.kind, 'mail');
});

test('the inbox tool delivers both, numbered and saved, then says nothing new without waiting', async () => {
  const { ch, events, amendPath } = setup({ brief: true });
  const mcp = await connect(ch);
  ch.send('Also support tables.');
  ch.send('Output goes to ./out.');
  const first = await mcp.call('inbox');
  assert.match(first.text, /2 new messages/);
  assert.match(first.text, /^1\. Also support tables\.$/m);
  assert.match(first.text, /^2\. Output goes to \.\/out\.$/m);
  assert.ok(first.text.includes(amendPath), 'says where they were saved');
  const started = Date.now();
  const second = await mcp.call('inbox');
  assert.ok(Date.now() - started < 100);
  assert.equal(second.text, 'Nothing new.');
  assert.deepEqual(states(events, 'mail'), ['queued:m1', 'queued:m2', 'delivered:m1', 'delivered:m2']);
  assert.ok(ch.mail().every((m) => m.state === 'delivered' && m.delivered_at));
  await mcp.close();
});

test('without an amend path the inbox says the remarks were not saved', async () => {
  const { ch } = setup({ amend: false });
  const mcp = await connect(ch);
  assert.equal(ch.send('Use port 8080.')!.amended, false);
  const r = await mcp.call('inbox');
  assert.match(r.text, /Use port 8080\./);
  assert.match(r.text, /not saved/);
  await mcp.close();
});

test('a remark to a brief that does not exist yet starts the file, and the freeze keeps it', () => {
  const { ch, amendPath } = setup();
  ch.send('Must run on Node 20.');
  assert.ok(fs.readFileSync(amendPath, 'utf8').startsWith(`${AMEND_HEADER}\n`));
  assert.equal(Brief.load(amendPath)!.complete(), false, 'an amendment alone is not a brief');
  fullBrief().write(amendPath);
  const frozen = Brief.load(amendPath)!;
  assert.equal(frozen.complete(), true);
  assert.deepEqual(
    frozen.amendments.map((x) => x.text),
    ['Must run on Node 20.'],
  );
});

test('a damaged brief is not appended to: the remark is still delivered and the failure reported', async () => {
  const { ch, events, amendPath } = setup();
  fs.mkdirSync(path.dirname(amendPath), { recursive: true });
  fs.writeFileSync(amendPath, Buffer.from([0x23, 0x20, 0x00, 0xff, 0x0a]));
  const before = fs.readFileSync(amendPath);
  const m = ch.send('Keep it offline.')!;
  assert.equal(m.amended, false);
  assert.equal(events[0]!.payload.amended, false);
  assert.deepEqual(fs.readFileSync(amendPath), before, 'the damaged file is untouched');
  assert.equal(ch.ioErrors.length, 1);
  assert.match(ch.ioErrors[0]!, /m1/);
  const mcp = await connect(ch);
  const r = await mcp.call('inbox');
  assert.match(r.text, /Keep it offline\./);
  assert.match(r.text, /could not be saved/);
  await mcp.close();
});

test('mail and question ids come from one counter', async () => {
  const { ch } = setup({ amend: false });
  const p = ch.ask('First?');
  const m = ch.send('by the way');
  ch.answer('q1', 'ok');
  await p;
  assert.equal(m!.id, 'm2');
  const q = await new HumanChannel({ timeoutS: 0 }).ask('x');
  assert.equal(q.id, 'q1');
  ch.close();
});
