// The cleaned views really resume: each fixture's view is served by a store's load() to the real
// `claude` binary, which talks to a tiny SSE server on 127.0.0.1 that answers like the Messages API,
// including its 400 for a tool_use without a tool_result. One claude process per fixture, sequential.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { query, InMemorySessionStore, type SessionKey, type SessionStoreEntry, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { views, spillFileName, INTERRUPT_NOTE, ORPHAN_NOTE, STALE_PREFIX, type Entry, type ViewOptions } from '../../src/store/views/index.js';

type Msg = { role: string; content: string | Array<{ type: string; id?: string; tool_use_id?: string; content?: unknown; text?: string; is_error?: boolean }> };
type Body = { messages: Msg[] };

/** Where the Messages API would answer 400, or undefined when the tool calls pair up. */
function pairingError(messages: Msg[]): string | undefined {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== 'assistant' || typeof m.content === 'string') continue;
    const ids = m.content.filter((b) => b.type === 'tool_use').map((b) => b.id);
    if (ids.length === 0) continue;
    const next = messages[i + 1];
    const answered = new Set(next && typeof next.content !== 'string' ? next.content.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id) : []);
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length) return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}`;
  }
  return undefined;
}

function sse(text: string): string {
  const ev = (type: string, data: object): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  return (
    ev('message_start', {
      message: {
        id: 'msg_e2e',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    }) +
    ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
    ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }) +
    ev('content_block_stop', { index: 0 }) +
    ev('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 3 } }) +
    ev('message_stop', {})
  );
}

let server: Server;
let url = '';
const requests: Body[] = [];

before(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url?.startsWith('/v1/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":10}');
        return;
      }
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"type":"error","error":{"type":"not_found_error","message":"no"}}');
        return;
      }
      const body = JSON.parse(raw) as Body;
      requests.push(body);
      const bad = pairingError(body.messages);
      if (bad) {
        res
          .writeHead(400, { 'content-type': 'application/json', 'x-should-retry': 'false' })
          .end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: bad } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(sse('resumed fine'));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

interface Resumed {
  request: Body;
  requestCount: number;
  result: SDKMessage & { type: 'result' };
  view: Entry[];
  appended: SessionStoreEntry[];
  ws: string;
}

/** Serves views(fixture) from load() and resumes it with the real binary; everything under one tmp dir. */
async function resume(fixture: string, opts: (ws: string) => ViewOptions): Promise<Resumed> {
  const base = mkdtempSync(join(tmpdir(), 'flower-views-e2e-'));
  const home = join(base, 'home');
  const ws = join(base, 'ws');
  mkdirSync(home, { recursive: true });
  mkdirSync(ws, { recursive: true });
  try {
    const text = readFileSync(new URL(`../fixtures/transcripts/${fixture}.jsonl`, import.meta.url), 'utf8')
      .split('/tmp/FIXTURE')
      .join(base);
    const stored = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Entry);
    const sessionId = stored.find((e) => typeof e.sessionId === 'string')!.sessionId as string;
    const view = views(stored, opts(ws)).entries;
    const appended: SessionStoreEntry[] = [];
    class ViewStore extends InMemorySessionStore {
      override async append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
        if (!key.subpath) appended.push(...entries);
        return super.append(key, entries);
      }
      override async load(key: SessionKey): Promise<SessionStoreEntry[] | null> {
        return key.subpath ? null : view;
      }
      override async listSubkeys(): Promise<string[]> {
        return [];
      }
    }
    const store = new ViewStore();
    // the SDK parent maps transcript frames to store keys with ITS config dir (docs/sdk-facts.md §0)
    process.env.CLAUDE_CONFIG_DIR = join(home, '.claude');
    const before = requests.length;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), 90_000);
    let result: (SDKMessage & { type: 'result' }) | undefined;
    try {
      const q = query({
        prompt: 'continue',
        options: {
          cwd: ws,
          resume: sessionId,
          settingSources: [],
          sessionStore: store,
          abortController: abort,
          env: {
            PATH: process.env.PATH,
            HOME: home,
            CLAUDE_CONFIG_DIR: join(home, '.claude'),
            ANTHROPIC_BASE_URL: url,
            ANTHROPIC_API_KEY: 'sk-test',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            CLAUDE_CODE_MAX_RETRIES: '0',
          },
        },
      });
      for await (const m of q) if (m.type === 'result') result = m;
    } catch (e) {
      if (!result) throw e;
    } finally {
      clearTimeout(timer);
    }
    assert.ok(result, 'the binary produced a result');
    assert.ok(requests.length > before, 'the binary called the model');
    return { request: requests[requests.length - 1]!, requestCount: requests.length - before, result, view, appended, ws };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

const flat = (body: Body) => body.messages.flatMap((m) => (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content));
const toolResult = (body: Body, id: string) => flat(body).find((b) => b.type === 'tool_result' && b.tool_use_id === id);
const contentText = (c: unknown): string => (typeof c === 'string' ? c : JSON.stringify(c));

function assertClean(r: Resumed): void {
  assert.equal(r.result.is_error, false, `result: ${JSON.stringify(r.result).slice(0, 400)}`);
  assert.equal((r.result as { result?: string }).result, 'resumed fine');
  assert.equal(r.requestCount, 1, 'one request: no 400 and no retries');
  assert.equal(pairingError(r.request.messages), undefined);
  assert.ok(!JSON.stringify(r.request).includes('API Error'), 'no API Error text reaches the model');
  // the new turn hangs off the view's leaf: the chain the binary walked is the one we built. The binary
  // may first close a turn that ended on a tool result with its own synthetic assistant.
  const prompt = r.appended.find((e) => e.type === 'user' && JSON.stringify(e.message).includes('continue'));
  assert.ok(prompt, 'the new prompt was stored');
  const leaf = [...r.view].reverse().find((e) => typeof e.uuid === 'string')!.uuid;
  const mine = new Map(r.appended.filter((e) => typeof e.uuid === 'string').map((e) => [e.uuid, e]));
  let p = prompt.parentUuid;
  for (let hops = 0; mine.has(p as string) && hops < 20; hops++) p = mine.get(p as string)!.parentUuid;
  assert.equal(p, leaf, 'the new prompt continues from the view leaf');
}

test('a resumed denial session shows the model only the last denial', { timeout: 120_000 }, async () => {
  const r = await resume('denials', () => ({}));
  assertClean(r);
  const wire = JSON.stringify(r.request.messages);
  assert.ok(!wire.includes('toolu_deny_01') && !wire.includes('toolu_deny_02'), 'older denials are gone, tool_use and tool_result alike');
  assert.match(contentText(toolResult(r.request, 'toolu_deny_03')?.content), /Denied by policy/);
  assert.equal(wire.split('Denied by policy').length - 1, 1);
  assert.ok(toolResult(r.request, 'toolu_ok_01'), 'the allowed call is still there');
  assert.match(wire, /Tidy the workspace/, 'the history reaches the first prompt');
});

test('a session that ended in API errors resumes without them', { timeout: 120_000 }, async () => {
  const r = await resume('api-errors', () => ({}));
  assertClean(r);
  assert.ok(toolResult(r.request, 'toolu_ls_01'), 'the tool turn before the outage is kept');
  assert.match(JSON.stringify(r.request.messages), /List the workspace/);
});

test('an interrupted tool call resumes with the neutral note, not "STOP and wait"', { timeout: 120_000 }, async () => {
  const r = await resume('interrupted', () => ({}));
  assertClean(r);
  const b = toolResult(r.request, 'toolu_sleep_01');
  assert.ok(b);
  assert.ok(contentText(b.content).startsWith(INTERRUPT_NOTE.slice(0, 60)), contentText(b.content));
  assert.ok(!JSON.stringify(r.request).includes('STOP what you are doing'));
  assert.notEqual(b.is_error, true);
});

test('a session with a lost tool result resumes with the call healed, old glances expired and big results archived', { timeout: 120_000 }, async () => {
  let spilled = '';
  const r = await resume('orphan-middle', (ws) => ({
    trim: {
      keepRecent: 1,
      spill: (t) => {
        const rel = `.flower/spill/${spillFileName(t)}`;
        mkdirSync(join(ws, '.flower/spill'), { recursive: true });
        writeFileSync(join(ws, rel), t);
        spilled = join(ws, rel);
        return rel;
      },
    },
  }));
  assertClean(r);
  assert.ok(spilled && !existsSync(spilled), 'the spill file was written inside the (now removed) workspace');
  assert.equal(contentText(toolResult(r.request, 'toolu_g05')?.content), ORPHAN_NOTE);
  assert.ok(contentText(toolResult(r.request, 'toolu_g01')?.content).startsWith(STALE_PREFIX));
  assert.match(contentText(toolResult(r.request, 'toolu_big1')?.content), /^\[archived 4679 chars; full text at \.flower\/spill\/[0-9a-f]{16}\.txt/);
  assert.match(contentText(toolResult(r.request, 'toolu_read1')?.content), /line 0089/, 'the newest large result is kept whole');
});
