/**
 * The durable inbox contract (issue 21) as ONE suite run against the files in a run dir and against
 * PostgreSQL: items posted are read back oldest first, each is claimed by exactly one claimer — also by
 * two processes racing — what cannot be read is set aside and reported, never overwritten, and the
 * waiting set of a flower that is gone reads as nothing waiting.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileRunRecords, RunLayout, processStartTime, type InboxItemBody, type RunRecords, type WaitingSet } from '../../src/state/index.js';
import { PostgresRunRecords } from '../../src/store/postgres/index.js';
import { PG_SKIP, adminSql, dropDatabases, freshDatabase } from '../helpers/pg.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-inbox-'));
after(async () => {
  fs.rmSync(root, { recursive: true, force: true });
  await dropDatabases();
});
let n = 0;

interface Backend {
  name: string;
  skip: false | string;
  fresh(): Promise<{ records: RunRecords; again(): RunRecords; env: Record<string, string>; close(): void; damage(): Promise<string> }>;
}

const BACKENDS: Backend[] = [
  {
    name: 'files',
    skip: false,
    fresh: async () => {
      const layout = RunLayout.of({ workspace: path.join(root, `ws${n}`), runDir: path.join(root, `runs${n++}`) });
      return {
        records: new FileRunRecords(layout),
        again: () => new FileRunRecords(layout),
        env: { INBOX_RUN_DIR: layout.runDir },
        close: () => {},
        damage: async () => {
          fs.mkdirSync(path.join(layout.inbox, 'pending'), { recursive: true });
          fs.writeFileSync(path.join(layout.inbox, 'pending', '20260101T000000000001Z-00000000.json'), '{"version":1,"kind":"answer"');
          fs.writeFileSync(path.join(layout.inbox, 'pending', 'notes.txt'), 'mine');
          return 'kept';
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    skip: PG_SKIP,
    fresh: async () => {
      const url = await freshDatabase('inbox');
      const opened: PostgresRunRecords[] = [];
      const make = () => {
        const r = new PostgresRunRecords(url, 'proj');
        opened.push(r);
        return r;
      };
      return {
        records: await make().open(),
        again: make,
        env: { INBOX_PG_URL: url },
        close: () => {
          for (const r of opened) r.close();
        },
        damage: async () => {
          await adminSql(
            `INSERT INTO flower.inbox(project, body) VALUES('proj', '{"version":1,"kind":"answer"'), ('proj', '{"version":9,"kind":"mail"}')`,
            [],
            new URL(url).pathname.slice(1),
          );
          return 'kept';
        },
      };
    },
  },
];

const mail = (text: string): InboxItemBody => ({ version: 1, kind: 'mail', text, posted_at: new Date().toISOString(), from: 'test' });
const waitingOf = (pid: number, questions: WaitingSet['questions'] = []): WaitingSet => ({
  version: 1,
  owner: 'owner-1',
  pid,
  host: os.hostname(),
  started_at: processStartTime(pid),
  updated_at: new Date().toISOString(),
  questions,
});

for (const b of BACKENDS) {
  describe(`inbox: ${b.name}`, { skip: b.skip }, () => {
    test('items posted are read back whole, oldest first, until claimed', async () => {
      const r = await b.fresh();
      try {
        const ids = [await r.records.inbox.post(mail('one')), await r.records.inbox.post(mail('two'))];
        const seen = await r.again().inbox.pending();
        assert.deepEqual(
          seen.map((x) => x.id),
          ids,
        );
        assert.deepEqual(
          seen.map((x) => (x.body.kind === 'mail' ? x.body.text : '')),
          ['one', 'two'],
        );
        assert.equal(await r.records.inbox.claim(ids[0]!, 'me'), true);
        assert.deepEqual(
          (await r.records.inbox.pending()).map((x) => x.id),
          [ids[1]],
        );
        assert.deepEqual(await r.records.inbox.state(ids[0]!), { state: 'claimed' });
        await r.records.inbox.finish(ids[0]!, { version: 1, state: 'applied', at: '2026-01-01T00:00:00.000Z' });
        assert.deepEqual(await r.again().inbox.state(ids[0]!), { state: 'done', outcome: { version: 1, state: 'applied', at: '2026-01-01T00:00:00.000Z' } });
        assert.deepEqual(await r.records.inbox.state(ids[1]!), { state: 'pending' });
      } finally {
        r.close();
      }
    });

    test('an item is claimed exactly once, however many claimers in this process try', async () => {
      const r = await b.fresh();
      try {
        const id = await r.records.inbox.post(mail('once'));
        const claimers = Array.from({ length: 8 }, () => r.again());
        const got = await Promise.all(claimers.map((c, i) => c.inbox.claim(id, `c${i}`)));
        assert.equal(got.filter(Boolean).length, 1);
      } finally {
        r.close();
      }
    });

    test('two processes racing for 40 items each take a disjoint share, and every item is taken', async () => {
      const r = await b.fresh();
      try {
        const ids: string[] = [];
        for (let i = 0; i < 40; i++) ids.push(await r.records.inbox.post(mail(`m${i}`)));
        const script = path.join(import.meta.dirname, 'inbox-claimer.ts');
        const run = () =>
          new Promise<string[]>((resolve, reject) => {
            const c = spawn(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, ...r.env }, stdio: ['ignore', 'pipe', 'inherit'] });
            let out = '';
            c.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
            c.on('close', (code) => (code === 0 ? resolve(out.split('\n').filter(Boolean)) : reject(new Error(`claimer exited ${code}`))));
          });
        const [a, c] = await Promise.all([run(), run()]);
        assert.equal(a!.filter((x) => c!.includes(x)).length, 0, 'no item taken by both');
        assert.deepEqual([...a!, ...c!].sort(), [...ids].sort(), 'every item taken once');
      } finally {
        r.close();
      }
    });

    test('an item flower cannot read is set aside, reported once, and never applied', async () => {
      const r = await b.fresh();
      try {
        await r.damage();
        const good = await r.records.inbox.post(mail('fine'));
        const notices: string[] = [];
        const seen = await r.records.inbox.pending({ onNotice: (x) => notices.push(`${x.path} -> ${x.keptAt}: ${x.reason}`) });
        assert.deepEqual(
          seen.map((x) => x.id),
          [good],
        );
        assert.equal(notices.length, 2, notices.join('\n'));
        const again: string[] = [];
        await r.records.inbox.pending({ onNotice: (x) => again.push(x.path) });
        assert.deepEqual(again, [], 'reported once');
        for (const note of notices) {
          const kept = /-> (.*?): /.exec(note)?.[1] ?? '';
          if (b.name === 'files') assert.ok(fs.existsSync(kept), `kept as ${kept}`);
        }
      } finally {
        r.close();
      }
    });

    test('the waiting set is read while its flower runs and is nothing once it is gone', async () => {
      const r = await b.fresh();
      try {
        assert.equal(await r.records.inbox.readWaiting(), null);
        const q = { id: 'q1', question: '输出到哪里?', options: ['标准输出', '文件'], asked_at: '2026-01-01T00:00:00.000Z', timeout_s: 600 };
        // PostgreSQL believes the set while its writer holds the run lock
        const lock = await r.records.acquireRunLock();
        assert.ok('release' in lock);
        await r.records.inbox.publishWaiting(waitingOf(process.pid, [q]));
        assert.deepEqual((await r.again().inbox.readWaiting())?.questions, [q]);
        await r.records.inbox.clearWaiting('someone-else');
        assert.ok(await r.records.inbox.readWaiting(), 'another owner does not clear it');
        await r.records.inbox.clearWaiting('owner-1');
        assert.equal(await r.records.inbox.readWaiting(), null);
        await r.records.inbox.publishWaiting(waitingOf(process.pid, [q]));
        await lock.release();
        if (b.name === 'PostgreSQL') assert.equal(await r.again().inbox.readWaiting(), null, 'no run lock: stale');
        else {
          // files: the writer's process is the proof of life
          const dead = spawn(process.execPath, ['-e', '0']);
          await new Promise((res) => dead.on('close', res));
          await r.records.inbox.publishWaiting(waitingOf(dead.pid!, [q]));
          assert.equal(await r.again().inbox.readWaiting(), null, 'its process is gone: stale');
        }
      } finally {
        r.close();
      }
    });
  });
}

test('a version-1 PostgreSQL database gets the inbox tables in place, its rows untouched', { skip: PG_SKIP }, async () => {
  const url = await freshDatabase('v1');
  const db = new URL(url).pathname.slice(1);
  const first = await new PostgresRunRecords(url, 'p').open();
  await first.upsertRows('r', []);
  first.close();
  // what a flower of schema version 1 left: no inbox, no waiting
  await adminSql(`DROP TABLE flower.inbox; DROP TABLE flower.waiting; UPDATE flower.meta SET value = '1' WHERE key = 'schema_version'`, [], db);
  await adminSql(`INSERT INTO flower.wakes(project, woke, workspace) VALUES('p', 3, '/w')`, [], db);
  const later = await new PostgresRunRecords(url, 'p').open();
  try {
    const id = await later.inbox.post(mail('after the upgrade'));
    assert.deepEqual(
      (await later.inbox.pending()).map((x) => x.id),
      [id],
    );
    assert.equal((await later.readLineage('/w'))?.woke, 3);
    assert.deepEqual((await adminSql(`SELECT value FROM flower.meta WHERE key = 'schema_version'`, [], db)).rows, [{ value: '2' }]);
  } finally {
    later.close();
  }
});
