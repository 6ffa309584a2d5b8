// Helpers for the sim tests: raw HTTP exchanges with a hard timeout, and an SSE parser.
import http from 'node:http';

export interface Outcome {
  status?: number | undefined;
  headers?: http.IncomingHttpHeaders;
  /** Everything received before the end, the error or the timeout. */
  text: string;
  /** The response completed normally. */
  ended: boolean;
  /** Error code of the connection (ECONNRESET, ECONNREFUSED, …) if it failed. */
  error?: string;
  /** Nothing more arrived within the timeout; the request was then aborted. */
  timedOut: boolean;
}

/**
 * One HTTP exchange with its own connection (no pooling, so a test sees exactly what the sim did
 * to this request). Always settles within `timeoutMs`.
 */
export function exchange(url: string, opts: { method?: string; path?: string; body?: unknown; timeoutMs?: number } = {}): Promise<Outcome> {
  const { method = 'POST', path = '/v1/messages?beta=true', body, timeoutMs = 2000 } = opts;
  return new Promise((resolve) => {
    const out: Outcome = { text: '', ended: false, timedOut: false };
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(out);
    };
    const req = http.request(url + path, { method, agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      out.status = res.statusCode;
      out.headers = res.headers;
      res.setEncoding('utf8');
      res.on('data', (c: string) => (out.text += c));
      res.on('end', () => {
        out.ended = true;
        finish();
      });
      res.on('error', (e: NodeJS.ErrnoException) => {
        out.error = e.code ?? e.message;
        finish();
      });
      res.on('aborted', () => {
        out.error ??= 'ECONNRESET';
      });
      res.on('close', () => {
        if (!out.ended) out.error ??= 'ECONNRESET';
        finish();
      });
    });
    const timer = setTimeout(() => {
      out.timedOut = true;
      req.destroy();
      finish();
    }, timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) => {
      out.error ??= e.code ?? e.message;
      finish();
    });
    if (body !== undefined) req.write(typeof body === 'string' ? body : JSON.stringify(body));
    req.end();
  });
}

export interface ParsedEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Parse an SSE stream; throws when a frame is malformed (that is what the tests check). */
export function parseSse(text: string): ParsedEvent[] {
  return text
    .split('\n\n')
    .filter((f) => f.trim() !== '')
    .map((frame) => {
      const lines = frame.split('\n');
      const ev = lines.find((l) => l.startsWith('event: '));
      const data = lines.find((l) => l.startsWith('data: '));
      if (!ev || !data || lines.length !== 2) throw new Error(`malformed SSE frame: ${JSON.stringify(frame)}`);
      return { event: ev.slice(7), data: JSON.parse(data.slice(6)) as Record<string, unknown> };
    });
}

/** A minimal Messages request like the harness's. */
export function messagesBody(
  opts: { user?: string | unknown[]; system?: unknown; tools?: string[]; stream?: boolean; messages?: unknown[] } = {},
): Record<string, unknown> {
  return {
    model: 'claude-test-model',
    max_tokens: 1000,
    stream: opts.stream ?? true,
    system: opts.system ?? [{ type: 'text', text: 'You are a test agent.' }],
    tools: (opts.tools ?? ['Bash', 'Write']).map((name) => ({ name, input_schema: { type: 'object' } })),
    messages: opts.messages ?? [{ role: 'user', content: opts.user ?? 'hello' }],
  };
}
