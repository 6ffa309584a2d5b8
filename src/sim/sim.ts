/**
 * `startSim()`: a scripted Anthropic Messages API on 127.0.0.1 that the real `claude` binary can
 * be pointed at (ANTHROPIC_BASE_URL). Each `POST /v1/messages` is answered by the first queued
 * item that matches it; every request is recorded for assertions.
 */
import { appendFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SimError } from './errors.js';
import {
  DEFAULT_ITEM,
  type OnUnexpected,
  type Scenario,
  type SimCall,
  type SimItem,
  type SimItemFn,
  type SimMessageRecord,
  type SimPending,
  type SimRequestRecord,
  type SimScriptItem,
  type SimSource,
} from './items.js';
import { summarizeItem, toSimCall } from './match.js';
import { respond, sendError, sendJson } from './respond.js';
import { parseItem, parseItems, parseScenario } from './scenario.js';
import { Script } from './script.js';
import { SimServer } from './server.js';
import { estimateInputTokens } from './sse.js';

export interface SimOptions {
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** Items to queue at start, or a whole scenario (its default/onUnexpected apply unless given here). */
  script?: readonly SimScriptItem[] | Scenario;
  /** Answer when no queued item matches (default: text "pong"). */
  defaultItem?: SimItem | SimItemFn;
  /** `error`: an unmatched model call gets HTTP 500 + `x-should-retry: false` and is recorded as unexpected. */
  onUnexpected?: OnUnexpected;
  /** Append every request as one JSON line to this file. */
  logFile?: string;
  /** One line per request on stderr. */
  verbose?: boolean;
  /** Serve the `/__sim/*` control endpoints (default false; `serveScenario` turns them on). */
  control?: boolean;
}

export interface Sim {
  /** `http://127.0.0.1:<port>`: the value for ANTHROPIC_BASE_URL. */
  readonly url: string;
  readonly port: number;
  readonly listening: boolean;
  /** Every request received since start or the last reset, in arrival order (live). */
  readonly requests: readonly SimRequestRecord[];
  /** Queue items (validated; a bad field throws SimError sim-scenario-invalid). */
  enqueue(...items: Array<SimScriptItem | readonly SimScriptItem[]>): Sim;
  /** `POST /v1/messages` calls only (not count_tokens or control calls). */
  messageRequests(): SimMessageRecord[];
  /** Model calls no queued item matched while `onUnexpected` was `error`, or whose script function threw. */
  unexpected(): SimMessageRecord[];
  /** Scripted items not used up (a sticky item counts until served once). */
  pending(): SimPending[];
  /** Throw SimError sim-unconsumed listing every pending item. */
  assertConsumed(): void;
  /** Throw SimError sim-unexpected-call listing every unexpected call. */
  assertNoUnexpected(): void;
  /** Empty the queue and the request log (request numbers restart at 1). */
  reset(): void;
  /** Stop listening and destroy every connection. */
  close(): Promise<void>;
  /** Listen again on the same port after a `shutdown` item or `close()`: an outage that ends. */
  restart(): Promise<void>;
  /**
   * Resolves when `close()` has completed, including through `POST /__sim/close` (a `shutdown`
   * item does not count). After `restart()` it is a new promise for the next close.
   */
  readonly closed: Promise<void>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
const clip = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
const pathOf = (url: string): string => url.split('?')[0] ?? url;

function parseBody(raw: string): unknown {
  if (raw === '') return null;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/** The served item as recorded: JSON-safe, without its matcher. */
function servedCopy(item: SimItem): SimItem {
  const { match: _match, ...rest } = item;
  return rest as SimItem;
}

class ScriptedSim implements Sim {
  readonly #server: SimServer;
  readonly #script = new Script();
  readonly #requests: SimRequestRecord[] = [];
  readonly #defaultItem: SimItem | SimItemFn;
  readonly #onUnexpected: OnUnexpected;
  readonly #logFile: string | undefined;
  readonly #verbose: boolean;
  readonly #control: boolean;
  #n = 0;
  #abort = new AbortController();
  #closed!: Promise<void>;
  #markClosed!: () => void;
  #isClosed = false;

  constructor(options: SimOptions, scenario: Scenario) {
    this.#defaultItem = options.defaultItem ?? scenario.default ?? DEFAULT_ITEM;
    this.#onUnexpected = options.onUnexpected ?? scenario.onUnexpected ?? 'default';
    this.#logFile = options.logFile;
    this.#verbose = options.verbose ?? false;
    this.#control = options.control ?? false;
    this.#script.push(scenario.items);
    this.#armClosed();
    this.#server = new SimServer(
      (req, res, raw) => this.#handle(req, res, raw),
      (err) => this.#say(`handler error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
    );
  }

  async listen(port: number): Promise<void> {
    await this.#server.listen(port);
  }

  get url(): string {
    return `http://127.0.0.1:${this.#server.port}`;
  }
  get port(): number {
    return this.#server.port;
  }
  get listening(): boolean {
    return this.#server.listening;
  }
  get requests(): readonly SimRequestRecord[] {
    return this.#requests;
  }

  enqueue(...items: Array<SimScriptItem | readonly SimScriptItem[]>): Sim {
    this.#script.push(parseItems(items.flat(), { source: 'sim.enqueue()', allowFunctions: true }));
    return this;
  }

  messageRequests(): SimMessageRecord[] {
    return this.#requests.filter((r): r is SimMessageRecord => r.method === 'POST' && pathOf(r.url) === '/v1/messages' && isRecord(r.body));
  }

  unexpected(): SimMessageRecord[] {
    return this.messageRequests().filter((r) => r.source === 'unexpected');
  }

  pending(): SimPending[] {
    return this.#script.pending();
  }

  assertConsumed(): void {
    const left = this.pending();
    if (left.length === 0) return;
    const lines = left.map((p) => `  #${p.seq} ${p.summary} (served ${p.served} of ${p.times === Infinity ? 'sticky' : p.times})`);
    throw new SimError(
      'sim-unconsumed',
      `flower sim: ${left.length} scripted item(s) never consumed after ${this.messageRequests().length} model call(s):\n${lines.join('\n')}`,
    );
  }

  assertNoUnexpected(): void {
    const calls = this.unexpected();
    if (calls.length === 0) return;
    const lines = calls.map((r) => `  #${r.n}: ${r.error ?? 'no item matched'}`);
    throw new SimError('sim-unexpected-call', `flower sim: ${calls.length} unexpected model call(s):\n${lines.join('\n')}`);
  }

  reset(): void {
    this.#script.clear();
    this.#requests.length = 0;
    this.#n = 0;
  }

  get closed(): Promise<void> {
    return this.#closed;
  }

  #armClosed(): void {
    this.#isClosed = false;
    this.#closed = new Promise((resolve) => {
      this.#markClosed = resolve;
    });
  }

  async close(): Promise<void> {
    this.#abort.abort();
    await this.#server.stop();
    this.#isClosed = true;
    this.#markClosed();
  }

  async restart(): Promise<void> {
    if (this.#abort.signal.aborted) this.#abort = new AbortController();
    await this.#server.listen(this.#server.port);
    if (this.#isClosed) this.#armClosed();
  }

  #say(line: string): void {
    if (this.#verbose) process.stderr.write(`[sim] ${line}\n`);
  }

  #record(rec: SimRequestRecord): void {
    if (this.#logFile === undefined) return;
    try {
      appendFileSync(this.#logFile, JSON.stringify(rec) + '\n');
    } catch (err) {
      this.#say(`cannot append to ${this.#logFile}: ${(err as Error).message}`);
    }
  }

  async #handle(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const path = pathOf(url);
    if (this.#control && path.startsWith('/__sim/')) return this.#handleControl(req, res, raw, `${method} ${path}`);
    const rec: SimRequestRecord = { n: ++this.#n, t: Date.now(), method, url, headers: req.headers, body: parseBody(raw) };
    this.#requests.push(rec);
    if (method === 'POST' && path === '/v1/messages') return this.#handleMessages(req, res, raw, rec);
    this.#record(rec);
    if (method === 'POST' && path === '/v1/messages/count_tokens') {
      this.#say(`#${rec.n} count_tokens`);
      sendJson(res, 200, { input_tokens: estimateInputTokens(rec.body) });
      return;
    }
    this.#say(`#${rec.n} unhandled ${method} ${url}`);
    sendError(res, 404, 'not_found_error', `flower sim: no route for ${method} ${path}; it serves POST /v1/messages and /v1/messages/count_tokens`);
  }

  async #handleMessages(req: IncomingMessage, res: ServerResponse, raw: string, rec: SimRequestRecord): Promise<void> {
    if (!isRecord(rec.body)) {
      this.#record(rec);
      sendError(res, 400, 'invalid_request_error', 'flower sim: the request body must be a JSON object');
      return;
    }
    const call = toSimCall(rec.n, rec.body, raw, req.headers);
    let chosen: { item: SimItem; source: SimSource; from: string } | undefined;
    try {
      chosen = this.#choose(call);
    } catch (err) {
      rec.error = `a script function threw: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (chosen === undefined) {
      rec.source = 'unexpected';
      rec.error ??= this.#unexpectedMessage(call);
      this.#record(rec);
      this.#say(`#${rec.n} UNEXPECTED: ${rec.error}`);
      // x-should-retry: false makes the harness fail at once instead of retrying for minutes.
      sendError(res, 500, 'api_error', `flower sim: ${rec.error}`, { 'x-should-retry': 'false' });
      return;
    }
    rec.served = servedCopy(chosen.item);
    rec.source = chosen.source;
    this.#record(rec);
    this.#say(`#${rec.n} ${call.stream ? 'stream' : 'non-stream'} msgs=${call.body.messages?.length ?? 0} → ${summarizeItem(chosen.item)} (${chosen.from})`);
    await respond(chosen.item, {
      req,
      res,
      body: rec.body,
      signal: this.#abort.signal,
      shutdown: () => void this.#server.stop(),
    });
  }

  /** The item for `call`, or undefined when the call is unexpected. Script functions may throw. */
  #choose(call: SimCall): { item: SimItem; source: SimSource; from: string } | undefined {
    const taken = this.#script.take(call);
    if (taken) return { item: this.#checkComputed(taken.item), source: 'script', from: `script #${taken.seq}` };
    if (this.#onUnexpected === 'error') return undefined;
    const d = this.#defaultItem;
    return { item: typeof d === 'function' ? this.#checkComputed(d(call)) : d, source: 'default', from: 'default' };
  }

  #checkComputed(item: SimItem): SimItem {
    const checked = parseItem(item, 0, { source: 'computed item', allowFunctions: true });
    if (typeof checked === 'function') throw new SimError('sim-scenario-invalid', 'a computed item returned a function instead of an item');
    return checked;
  }

  #unexpectedMessage(call: SimCall): string {
    const queued = this.#script.pending();
    const q = queued.length === 0 ? 'the queue is empty' : `queued: ${queued.map((p) => `#${p.seq} ${p.summary}`).join('; ')}`;
    return `unexpected model call #${call.n}: no queued item matches it and onUnexpected is "error" (${q}). Last user text: ${JSON.stringify(clip(call.lastUser, 160))}`;
  }

  #handleControl(req: IncomingMessage, res: ServerResponse, raw: string, route: string): void {
    if (!LOOPBACK.has(req.socket.remoteAddress ?? '')) {
      sendError(res, 403, 'permission_error', 'flower sim: control endpoints answer loopback clients only');
      return;
    }
    switch (route) {
      case 'POST /__sim/enqueue':
        try {
          this.#script.push(parseItems(raw.trim() === '' ? [] : JSON.parse(raw), { source: 'POST /__sim/enqueue' }));
        } catch (err) {
          sendError(res, 400, 'invalid_request_error', err instanceof Error ? err.message : String(err));
          return;
        }
        sendJson(res, 200, { queued: this.#script.size });
        return;
      case 'GET /__sim/requests':
        sendJson(res, 200, this.#requests);
        return;
      case 'GET /__sim/pending':
        sendJson(res, 200, this.pending());
        return;
      case 'POST /__sim/reset':
        this.reset();
        sendJson(res, 200, {});
        return;
      case 'POST /__sim/close':
        sendJson(res, 200, {});
        res.on('finish', () => void this.close());
        return;
      default:
        sendError(
          res,
          404,
          'not_found_error',
          `flower sim: unknown control route ${route}; use POST /__sim/enqueue, GET /__sim/requests, GET /__sim/pending, POST /__sim/reset, POST /__sim/close`,
        );
    }
  }
}

/**
 * Start a scripted model server.
 *
 * @example
 * const sim = await startSim({ onUnexpected: 'error' });
 * sim.enqueue({ type: 'tool_use', name: 'Write', input: { file_path: 'a.txt', content: 'hi' } },
 *             { type: 'text', text: 'done' });
 * // query({ prompt, options: { env: { ...simEnv(sim.url), PATH, HOME, CLAUDE_CONFIG_DIR } } })
 * sim.assertConsumed();
 * await sim.close();
 */
export async function startSim(options: SimOptions = {}): Promise<Sim> {
  const script = options.script ?? [];
  const scenario = Array.isArray(script)
    ? { items: parseItems(script, { source: 'startSim script', allowFunctions: true }) }
    : parseScenario(script, { source: 'startSim script', allowFunctions: true });
  if (options.defaultItem !== undefined && typeof options.defaultItem !== 'function') {
    parseItem(options.defaultItem, 0, { source: 'startSim defaultItem' });
  }
  if (options.logFile !== undefined) {
    try {
      appendFileSync(options.logFile, '');
    } catch (err) {
      throw new SimError('sim-log-file', `flower sim: cannot write the request log ${options.logFile}: ${(err as Error).message}`, {
        file: options.logFile,
        cause: err,
      });
    }
  }
  const sim = new ScriptedSim(options, scenario);
  await sim.listen(options.port ?? 0);
  return sim;
}
