/**
 * Acting out one item on an HTTP exchange: answer, fail, cut, stall, hang or go away.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SimItem, SimSseItem } from './items.js';
import { buildReply, errorBody, errorTypeFor, frameEvent, randomId, replyEvents, replyMessage } from './sse.js';

export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** Parsed request body. */
  body: unknown;
  /** Aborted when the sim closes: every wait ends with it. */
  signal: AbortSignal;
  /** Stop listening and drop every connection (the `shutdown` item). */
  shutdown: () => void;
}

const headerRecord = (h: Record<string, string | number> | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(h ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));

/** Resolves false when the sim closed during the wait. */
async function wait(ms: number | undefined, signal: AbortSignal): Promise<boolean> {
  if (!ms || ms <= 0) return !signal.aborted;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

const gone = (ex: Exchange): boolean => ex.signal.aborted || ex.res.destroyed || ex.req.socket.destroyed;

/**
 * Write and wait until the chunk is handed to the socket, so a cut that follows cannot eat it.
 * A connection closing meanwhile ends the wait too.
 */
const writeFlushed = (res: ServerResponse, chunk: string): Promise<void> =>
  new Promise((resolve) => {
    const done = (): void => {
      res.off('close', done);
      resolve();
    };
    res.once('close', done);
    res.write(chunk, done);
  });

export function sendError(res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': randomId('req_'), ...headers });
  res.end(errorBody(type, message));
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

const isStreaming = (body: unknown): boolean => typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;

/** The `sse` item: its events verbatim, each after its own (bounded) wait, then an end or a cut. */
async function respondSse(item: SimSseItem, ex: Exchange): Promise<void> {
  const { req, res } = ex;
  if (!isStreaming(ex.body)) {
    if (item.message === undefined) {
      req.socket.destroy();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': randomId('req_') });
    res.end(JSON.stringify(item.message));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': randomId('req_') });
  res.flushHeaders();
  for (let i = 0; i < item.events.length; i++) {
    const e = item.events[i]!;
    if (!(await wait(e.delayMs ?? (i > 0 ? item.chunkDelayMs : 0), ex.signal)) || gone(ex)) return;
    await writeFlushed(res, frameEvent(e));
  }
  if (item.end === 'drop') req.socket.destroy();
  else res.end();
}

/** Answer a `POST /v1/messages` with `item`. Resolves once the item has been acted out. */
export async function respond(item: SimItem, ex: Exchange): Promise<void> {
  const { req, res } = ex;
  if (!(await wait(item.delayMs, ex.signal)) || gone(ex)) return;
  if (item.holdStart && (!(await held(item.holdStart, ex.signal)) || gone(ex))) return;
  switch (item.type) {
    case 'drop':
      req.socket.destroy();
      return;
    case 'hang':
      return;
    case 'shutdown':
      ex.shutdown();
      return;
    case 'error': {
      const status = item.status ?? 500;
      const type = item.errorType ?? errorTypeFor(status);
      sendError(res, status, type, item.message ?? `flower sim: scripted ${status} ${type}`, headerRecord(item.headers));
      return;
    }
    case 'raw': {
      const headers = headerRecord(item.headers);
      const text = typeof item.body === 'string' ? item.body : item.body === undefined ? '' : JSON.stringify(item.body);
      if (typeof item.body !== 'string' && item.body !== undefined && !('content-type' in headers)) headers['content-type'] = 'application/json';
      res.writeHead(item.status ?? 200, headers);
      res.end(text);
      return;
    }
    case 'sse':
      return respondSse(item, ex);
  }
  const reply = buildReply(item, ex.body);
  if (!isStreaming(ex.body)) {
    // The harness falls back to stream:false after repeated mid-stream failures; a drop_mid
    // item fails that fallback too unless told otherwise, so the whole failure path is scriptable.
    if (item.type === 'drop_mid' && item.dropNonStreaming !== false) {
      req.socket.destroy();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': randomId('req_') });
    res.end(JSON.stringify(replyMessage(reply)));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': randomId('req_') });
  // Headers go out now, so `drop_mid` with afterEvents 0 is "200 then nothing", not a hang.
  res.flushHeaders();
  const events = replyEvents(reply, item.chunks ?? 1);
  const limit = item.type === 'drop_mid' ? (item.afterEvents ?? 2) : events.length;
  for (let i = 0; i < Math.min(limit, events.length); i++) {
    if (i > 0 && !(await wait(item.chunkDelayMs, ex.signal))) return;
    if (i === events.length - 1 && item.holdEnd && !(await held(item.holdEnd, ex.signal))) return;
    if (gone(ex)) return;
    await writeFlushed(res, frameEvent(events[i]!));
  }
  if (item.type !== 'drop_mid') {
    res.end();
    return;
  }
  // drop_mid: a stall leaves the socket open and silent until the client or close() ends it.
  if (!item.stall) req.socket.destroy();
}

/** Wait for a test's own event before the stream's last event; false when the exchange was aborted first. */
async function held(until: () => Promise<unknown>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<false>((resolve) => {
    onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([
      Promise.resolve()
        .then(until)
        .then(
          () => true,
          () => true,
        ),
      aborted,
    ]);
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
}
