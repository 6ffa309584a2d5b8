/**
 * The store contract: ONE suite, run against every backend (SQLite in runs/, PostgreSQL). Whatever
 * flower and the SDK rely on — idempotent appends, load order, mtimes and summaries, listing and
 * cascading deletes, hasSession and lastContext — must hold identically on both.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { foldSessionSummary } from '@anthropic-ai/claude-agent-sdk';
import type { SessionKey, SessionStore, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';
import { SqliteSessionStore, StoreKeyError } from '../../src/store/index.js';
import { PostgresSessionStore } from '../../src/store/postgres/index.js';
import { PG_SKIP, dropDatabases, freshDatabase } from '../helpers/pg.js';

/** What the suite needs of a store: the SDK contract plus flower's extras (sync or async). */
type Store = Required<SessionStore> & {
  listSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]>;
  hasSession(sessionId: string, projectKey?: string): boolean | Promise<boolean>;
  lastContext(sessionId: string, o?: { projectKey?: string; scan?: number }): number | Promise<number>;
  projects(): string[] | Promise<string[]>;
  close(): void;
};

interface Backend<S extends Store = Store> {
  name: string;
  skip: false | string;
  /** an empty store at a new location */
  fresh(): Promise<S>;
  /** where `s` keeps its data, to open it again */
  location(s: S): string;
  open(location: string): Promise<S>;
  /** append without buffering; how many entries were new */
  added(s: S, key: SessionKey, entries: SessionStoreEntry[]): Promise<number>;
}

const root = mkdtempSync(join(tmpdir(), 'flower-contract-'));
after(async () => {
  rmSync(root, { recursive: true, force: true });
  await dropDatabases();
});
let n = 0;

const sqlite: Backend<SqliteSessionStore> = {
  name: 'SQLite',
  skip: false,
  fresh: async () => new SqliteSessionStore(join(root, `d${n++}`, 'sessions.db')),
  location: (s) => s.path,
  open: async (path) => new SqliteSessionStore(path),
  added: async (s, key, entries) => s.appendSync(key, entries),
};

const postgres: Backend<PostgresSessionStore> = {
  name: 'PostgreSQL',
  skip: PG_SKIP,
  fresh: async () => new PostgresSessionStore(await freshDatabase('contract')).open(),
  location: (s) => s.url,
  open: async (url) => new PostgresSessionStore(url).open(),
  added: (s, key, entries) => s.appendNow(key, entries),
};

const BACKENDS = [sqlite, postgres] as Backend[];

const P = '-home-me-proj';
const main = (sessionId = 's1', projectKey = P): SessionKey => ({ projectKey, sessionId });
const sub = (agent: string, sessionId = 's1', projectKey = P): SessionKey => ({ projectKey, sessionId, subpath: `subagents/agent-${agent}` });
const u = (uuid: string, extra: Record<string, unknown> = {}): SessionStoreEntry => ({ type: 'user', uuid, ...extra });
const meta = (tag: string): SessionStoreEntry => ({ type: 'queue-operation', operation: 'enqueue', tag });
const tags = (es: SessionStoreEntry[] | null) => es?.map((e) => e.uuid ?? `~${String(e.tag)}`) ?? null;

for (const be of BACKENDS) {
  describe(`store contract on ${be.name}`, { skip: be.skip }, () => {
    const fresh = () => be.fresh();

    describe('append is idempotent by uuid', () => {
      const cases: Array<[string, SessionStoreEntry[][], string[]]> = [
        [
          'the same uuid in two batches is stored once',
          [
            [u('a'), u('b')],
            [u('b'), u('c')],
          ],
          ['a', 'b', 'c'],
        ],
        ['a uuid repeated inside one batch keeps the first copy', [[u('a', { v: 1 }), u('a', { v: 2 }), u('b')]], ['a', 'b']],
        ['uuid-less entries are always appended', [[meta('x'), meta('x')], [meta('x')]], ['~x', '~x', '~x']],
        [
          'a replay mixed with new entries appends only the new ones, in order',
          [
            [u('a'), meta('m1'), u('b')],
            [u('a'), u('c'), meta('m1'), u('b'), u('d')],
          ],
          ['a', '~m1', 'b', 'c', '~m1', 'd'],
        ],
        [
          'an entry whose uuid is not a string is kept without dedup',
          [[{ type: 'x', uuid: 7 as unknown as string }], [{ type: 'x', uuid: 7 as unknown as string }]],
          ['7', '7'],
        ],
      ];
      for (const [behaviour, batches, want] of cases) {
        test(behaviour, async () => {
          const s = await fresh();
          for (const b of batches) await s.append(main(), b);
          assert.deepEqual(tags(await s.load(main()))?.map(String), want);
          s.close();
        });
      }

      test('the first copy of a duplicated uuid is the one kept', async () => {
        const s = await fresh();
        await s.append(main(), [u('a', { v: 1 }), u('a', { v: 2 })]);
        await s.append(main(), [u('a', { v: 3 })]);
        assert.deepEqual(await s.load(main()), [u('a', { v: 1 })]);
        s.close();
      });

      test('the same uuid under another key (subagent, other session) is stored there too', async () => {
        const s = await fresh();
        await s.append(main(), [u('a')]);
        await s.append(sub('x'), [u('a')]);
        await s.append(main('s2'), [u('a')]);
        for (const k of [main(), sub('x'), main('s2')]) assert.deepEqual(tags(await s.load(k)), ['a']);
        s.close();
      });

      test('a direct append reports how many entries were new', async () => {
        const s = await fresh();
        assert.equal(await be.added(s, main(), [u('a'), u('b'), meta('m')]), 3);
        assert.equal(await be.added(s, main(), [u('a'), u('b')]), 0);
        assert.equal(await be.added(s, main(), [u('b'), u('c'), meta('m')]), 2);
        s.close();
      });

      test('an all-replay batch changes nothing, not even mtime or the summary', async () => {
        const s = await fresh();
        await s.append(main(), [u('a', { timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w' }), u('b')]);
        const before = { sessions: await s.listSessions(P), sums: await s.listSessionSummaries(P) };
        await new Promise((r) => setTimeout(r, 5));
        await s.append(main(), [u('b'), u('a')]);
        await s.append(main(), []);
        assert.deepEqual({ sessions: await s.listSessions(P), sums: await s.listSessionSummaries(P) }, before);
        assert.deepEqual(tags(await s.load(main())), ['a', 'b']);
        s.close();
      });

      test('a failing batch is rolled back whole', async () => {
        const s = await fresh();
        await s.append(main(), [u('a')]);
        const bad = { type: 'user', uuid: 'c', big: 10n } as unknown as SessionStoreEntry;
        await assert.rejects(s.append(main(), [u('b'), bad]), /BigInt/);
        assert.deepEqual(tags(await s.load(main())), ['a']);
        await s.append(main(), [u('b')]);
        assert.deepEqual(tags(await s.load(main())), ['a', 'b']);
        s.close();
      });
    });

    describe('load', () => {
      test('an unknown key, an unknown subkey and an empty batch all load as null', async () => {
        const s = await fresh();
        assert.equal(await s.load(main()), null);
        await s.append(main('s2'), []);
        assert.equal(await s.load(main('s2')), null);
        await s.append(main(), [u('a')]);
        assert.equal(await s.load(sub('nope')), null);
        s.close();
      });

      test('entries come back deep-equal and in append order', async () => {
        const s = await fresh();
        const entries: SessionStoreEntry[] = [
          { type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: [{ type: 'text', text: 'héllo 😀 "q" \\ \n' }] } },
          { type: 'assistant', uuid: 'u2', message: { usage: { input_tokens: 1.5, output_tokens: 0 } }, isSidechain: false },
          { type: 'last-prompt', lastPrompt: 'x', leafUuid: 'u2' },
        ];
        for (const e of entries) await s.append(main(), [e]);
        assert.deepEqual(await s.load(main()), entries);
        s.close();
      });

      test('a store reopened on the same location sees everything written before', async () => {
        const a = await fresh();
        const where = be.location(a);
        await a.append(main(), [u('a')]);
        await a.append(sub('x'), [u('b')]);
        a.close();
        const b = await be.open(where);
        assert.deepEqual(tags(await b.load(main())), ['a']);
        assert.deepEqual(await b.listSubkeys(main()), ['subagents/agent-x']);
        await b.append(main(), [u('a'), u('c')]);
        assert.deepEqual(tags(await b.load(main())), ['a', 'c']);
        b.close();
      });
    });

    describe('mtime and summaries', () => {
      test('mtime is integer milliseconds and strictly increasing per key, even within one millisecond', async () => {
        const s = await fresh();
        const t0 = Date.now();
        const seen: number[] = [];
        for (let i = 0; i < 50; i++) {
          await s.append(main(), [meta(String(i))]);
          seen.push((await s.listSessions(P))[0]!.mtime);
        }
        for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! > seen[i - 1]!, `mtime ${seen[i]} after ${seen[i - 1]}`);
        assert.ok(seen.every(Number.isInteger));
        assert.ok(seen[0]! >= t0 && seen[0]! <= Date.now());
        s.close();
      });

      test('the summary is the SDK fold of every new main-transcript entry, with the same mtime as listSessions', async () => {
        const s = await fresh();
        const b1 = [
          { type: 'user', uuid: 'a', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w', isSidechain: false, message: { role: 'user', content: 'first prompt' } },
          { type: 'assistant', uuid: 'b', timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'assistant', content: [] } },
        ];
        const b2 = [
          b1[1]!,
          { type: 'user', uuid: 'c', timestamp: '2026-01-01T00:00:02.000Z', gitBranch: 'dev', message: { role: 'user', content: 'second' } },
          { type: 'last-prompt', lastPrompt: 'second' },
        ];
        await s.append(main(), b1);
        await s.append(sub('x'), [{ type: 'user', uuid: 'z', isSidechain: true, cwd: '/elsewhere', message: { role: 'user', content: 'sub prompt' } }]);
        await s.append(main(), b2);
        const [listed] = await s.listSessions(P);
        const [sum] = await s.listSessionSummaries(P);
        const m1 = 1; // the mtime passed to the first fold is overwritten by the second fold
        const want = foldSessionSummary(foldSessionSummary(undefined, main(), b1, { mtime: m1 }), main(), b2.slice(1), { mtime: listed!.mtime });
        assert.deepEqual(sum, want);
        assert.equal(sum!.data.cwd, '/w');
        assert.equal(sum!.mtime, listed!.mtime);
        s.close();
      });

      test('subagent transcripts get no summary and are not listed as sessions', async () => {
        const s = await fresh();
        await s.append(sub('x'), [u('a')]);
        assert.deepEqual(await s.listSessionSummaries(P), []);
        assert.deepEqual(await s.listSessions(P), []);
        assert.equal(await s.hasSession('s1'), false);
        s.close();
      });
    });

    describe('listing and deleting', () => {
      // Neighbours whose keys sort right before/after `P/s1/`: a range query that is off by one
      // character would list or delete them.
      async function populated() {
        const s = await fresh();
        await s.append(main(), [u('m')]);
        await s.append(sub('abc'), [u('x')]);
        await s.append(sub('def'), [u('y')]);
        await s.append({ ...main(), subpath: 'subagents/agent-def/nested' }, [u('z')]);
        await s.append(main('s1-x'), [u('n1')]);
        await s.append(main('s10'), [u('n2')]);
        await s.append(sub('abc', 's10'), [u('n3')]);
        await s.append(main('s1', `${P}-other`), [u('o')]);
        return s;
      }

      test('listSubkeys lists every subpath of one session and nothing of its neighbours', async () => {
        const s = await populated();
        assert.deepEqual(await s.listSubkeys(main()), ['subagents/agent-abc', 'subagents/agent-def', 'subagents/agent-def/nested']);
        assert.deepEqual(await s.listSubkeys(main('s10')), ['subagents/agent-abc']);
        assert.deepEqual(await s.listSubkeys(main('unknown')), []);
        s.close();
      });

      test('listSessions lists main transcripts of one project only', async () => {
        const s = await populated();
        const ids = (await s.listSessions(P)).map((x) => x.sessionId).sort();
        assert.deepEqual(ids, ['s1', 's1-x', 's10']);
        assert.deepEqual(
          (await s.listSessions(`${P}-other`)).map((x) => x.sessionId),
          ['s1'],
        );
        assert.deepEqual(await s.projects(), [P, `${P}-other`]);
        s.close();
      });

      test('deleting a subkey deletes only that subkey', async () => {
        const s = await populated();
        await s.delete(sub('abc'));
        assert.equal(await s.load(sub('abc')), null);
        assert.deepEqual(await s.listSubkeys(main()), ['subagents/agent-def', 'subagents/agent-def/nested']);
        assert.deepEqual(tags(await s.load(main())), ['m']);
        assert.equal((await s.listSessionSummaries(P)).length, 3);
        s.close();
      });

      test('deleting a main transcript cascades to its subkeys and summary, and spares neighbours', async () => {
        const s = await populated();
        await s.delete(main());
        assert.equal(await s.load(main()), null);
        assert.deepEqual(await s.listSubkeys(main()), []);
        assert.equal(await s.load(sub('def')), null);
        assert.equal(await s.hasSession('s1', P), false);
        assert.deepEqual((await s.listSessionSummaries(P)).map((x) => x.sessionId).sort(), ['s1-x', 's10']);
        assert.deepEqual(tags(await s.load(main('s1-x'))), ['n1']);
        assert.deepEqual(tags(await s.load(sub('abc', 's10'))), ['n3']);
        assert.deepEqual(tags(await s.load(main('s1', `${P}-other`))), ['o']);
        // the uuids are free again: a re-import after delete is stored
        await s.append(main(), [u('m')]);
        assert.deepEqual(tags(await s.load(main())), ['m']);
        s.close();
      });

      test('hasSession reads main transcripts, in one project or in any', async () => {
        const s = await populated();
        await s.append(sub('q', 'only-sub'), [u('q')]);
        const cases: Array<[string, string | undefined, boolean]> = [
          ['s1', undefined, true],
          ['s1', P, true],
          ['s1', `${P}-other`, true],
          ['s1', 'nope', false],
          ['s10', undefined, true],
          ['s1-', undefined, false],
          ['only-sub', undefined, false],
          ['agent-abc', undefined, false],
          ['nested', undefined, false],
          ['never', undefined, false],
        ];
        for (const [sid, pk, want] of cases) assert.equal(await s.hasSession(sid, pk), want, `hasSession(${sid}, ${pk})`);
        s.close();
      });

      test('keys that would be ambiguous are refused', async () => {
        const s = await fresh();
        await assert.rejects(s.append({ projectKey: 'a/b', sessionId: 's' }, [u('a')]), StoreKeyError);
        await assert.rejects(s.append({ projectKey: 'a', sessionId: 's/t' }, [u('a')]), StoreKeyError);
        await assert.rejects(s.append({ projectKey: 'a', sessionId: 's', subpath: '' }, [u('a')]), StoreKeyError);
        await assert.rejects(s.load({ projectKey: '', sessionId: 's' }), StoreKeyError);
        s.close();
      });
    });

    describe('lastContext', () => {
      const asst = (uuid: string, usage: Record<string, number>, extra: Record<string, unknown> = {}, model = 'claude-sonnet-4-5'): SessionStoreEntry => ({
        type: 'assistant',
        uuid,
        isSidechain: false,
        message: { role: 'assistant', model, usage },
        ...extra,
      });
      const full = { input_tokens: 7, cache_creation_input_tokens: 300, cache_read_input_tokens: 21000, output_tokens: 25 };
      const cases: Array<[string, SessionStoreEntry[], number, number?]> = [
        [
          'sums input, cache creation and cache read of the last assistant entry',
          [asst('a', { input_tokens: 11, cache_creation_input_tokens: 1000, cache_read_input_tokens: 20000 }), u('u'), asst('b', full)],
          21307,
        ],
        ['skips trailing non-assistant entries', [asst('b', full), u('u'), meta('m'), { type: 'last-prompt' }], 21307],
        [
          'skips a synthetic API-error entry after the real one',
          [asst('b', full), asst('syn', { input_tokens: 0 }, { isApiErrorMessage: true }, '<synthetic>')],
          21307,
        ],
        ['skips a <synthetic> model entry even without the error flag', [asst('b', full), asst('syn', { input_tokens: 5 }, {}, '<synthetic>')], 21307],
        ['skips sidechain entries', [asst('b', full), asst('side', { input_tokens: 99999 }, { isSidechain: true })], 21307],
        ['missing usage fields count as 0', [asst('b', { input_tokens: 40 })], 40],
        ['0 when no assistant entry exists', [u('u'), meta('m')], 0],
        ['0 when the last assistant entry is outside the scan window', [asst('b', full), u('1'), u('2'), u('3')], 0, 3],
        ['finds it at the edge of the scan window', [asst('b', full), u('1'), u('2')], 21307, 3],
      ];
      for (const [behaviour, entries, want, scan] of cases) {
        test(behaviour, async () => {
          const s = await fresh();
          await s.append(main(), entries);
          assert.equal(await s.lastContext('s1', scan === undefined ? {} : { scan }), want);
          s.close();
        });
      }

      test('0 for an unknown session; the projectKey option picks the project', async () => {
        const s = await fresh();
        assert.equal(await s.lastContext('s1'), 0);
        await s.append(main('s1', 'pa'), [asst('a', { input_tokens: 1 })]);
        await new Promise((r) => setTimeout(r, 3)); // mtimes are per key: make "latest" unambiguous
        await s.append(main('s1', 'pb'), [asst('b', { input_tokens: 2 })]);
        assert.equal(await s.lastContext('s1', { projectKey: 'pa' }), 1);
        assert.equal(await s.lastContext('s1', { projectKey: 'pb' }), 2);
        assert.equal(await s.lastContext('s1'), 2, 'without a project: the most recently written one');
        assert.equal(await s.lastContext('s1', { projectKey: 'pc' }), 0);
        s.close();
      });
    });
  });
}
