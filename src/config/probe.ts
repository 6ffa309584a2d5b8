/**
 * The credential probe: one tiny Messages API call (max_tokens PROBE_MAX_TOKENS) against the endpoint flower will use,
 * sorted into outcomes a person can act on — ok, limited (a 429: the key was accepted, the account is rate
 * limited right now — setup goes through with a note), authentication (the key or token is refused),
 * configuration (the endpoint answers, but not as the Messages API for this model: wrong URL or model),
 * unavailable (the service answered 408 or 5xx: up, but could not check the key now), network (no HTTP answer at
 * all: refused, unreachable, timed out). Only a connection failure is `network`.
 * A Messages call rather than a models listing: gateways often serve no /v1/models, and the call also
 * proves the model name. `classifyProbe` is pure and table-tested; `probeCredentials` does the I/O.
 */

export type ProbeKind = 'ok' | 'limited' | 'auth' | 'config' | 'unavailable' | 'network';

export interface ProbeResult {
  kind: ProbeKind;
  /** the HTTP status, when one came back */
  status?: number;
  /** the endpoint's own words (its error message), or the connection error's code */
  detail: string;
  endpoint: string;
  model: string;
}

/** The model the probe asks for when none is configured: the harness default family. */
export const PROBE_DEFAULT_MODEL = 'claude-sonnet-4-5';
export const OFFICIAL_ENDPOINT = 'https://api.anthropic.com';
/**
 * The probe's max_tokens: 16, as measured (spec surface-config §3.3) — with 1, a model that always thinks
 * took 30 s instead of 3.6 s. No `thinking` field is sent: a model that forces thinking may refuse
 * `disabled`, and an enabled budget needs max_tokens above 1024 (a costly ping).
 */
export const PROBE_MAX_TOKENS = 16;

/** What came back, as plain data: an HTTP answer, or a connection failure. */
export type ProbeAnswer = { status: number; body: string } | { error: string };

function errorMessage(body: string): string {
  try {
    const j = JSON.parse(body) as { error?: { message?: unknown; type?: unknown }; type?: unknown };
    if (j.error && typeof j.error.message === 'string') return `${typeof j.error.type === 'string' ? `${j.error.type}: ` : ''}${j.error.message}`;
  } catch {
    /* not JSON */
  }
  return body.replace(/\s+/g, ' ').trim().slice(0, 160);
}

/** Sort one answer into an outcome. Pure. */
export function classifyProbe(a: ProbeAnswer): { kind: ProbeKind; status?: number; detail: string } {
  if ('error' in a) return { kind: 'network', detail: a.error };
  const { status, body } = a;
  const detail = errorMessage(body);
  if (status >= 200 && status < 300) {
    try {
      const j = JSON.parse(body) as { type?: unknown };
      if (j.type === 'message') return { kind: 'ok', status, detail: '' };
    } catch {
      /* an HTML page or a proxy's banner */
    }
    return { kind: 'config', status, detail: `a ${status} answer that is not a Messages API response${detail ? ` (${detail.slice(0, 80)})` : ''}` };
  }
  if (status === 401 || status === 403) return { kind: 'auth', status, detail };
  // a rate limit is answered after the key was checked: the key works
  if (status === 429) return { kind: 'limited', status, detail };
  if (status === 408 || status >= 500) return { kind: 'unavailable', status, detail };
  return { kind: 'config', status, detail };
}

/** A `config` answer that says the model is unknown (a 404, or a 400 naming the model). Pure. */
export function modelNotFound(r: { kind: ProbeKind; status?: number; detail: string; model?: string }): boolean {
  if (r.kind !== 'config' || (r.status !== 404 && r.status !== 400)) return false;
  return /\bmodel\b/i.test(r.detail) || (!!r.model && r.detail.includes(r.model));
}

export interface ProbeInput {
  /** blank = the official API */
  baseUrl?: string;
  /** an `sk-ant-…` key goes in x-api-key, anything else as a bearer token — the same rule as setup */
  token: string;
  model?: string;
  timeoutMs?: number;
}

/** One Messages call; never throws. */
export async function probeCredentials(i: ProbeInput): Promise<ProbeResult> {
  const endpoint = (i.baseUrl ?? '').trim().replace(/\/+$/, '').replace(/\/v1$/, '') || OFFICIAL_ENDPOINT;
  const model = (i.model ?? '').trim() || PROBE_DEFAULT_MODEL;
  const token = i.token.trim();
  const headers: Record<string, string> = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };
  if (token.startsWith('sk-ant-')) headers['x-api-key'] = token;
  else headers.authorization = `Bearer ${token}`;
  let answer: ProbeAnswer;
  try {
    const res = await fetch(`${endpoint}/v1/messages`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model, max_tokens: PROBE_MAX_TOKENS, messages: [{ role: 'user', content: 'ping' }] }),
      signal: AbortSignal.timeout(i.timeoutMs ?? 20_000),
    });
    answer = { status: res.status, body: await res.text() };
  } catch (e) {
    const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string } };
    const what =
      err.name === 'TimeoutError'
        ? `no answer within ${Math.round((i.timeoutMs ?? 20_000) / 1000)} s`
        : (err.cause?.code ?? err.cause?.message ?? err.message ?? String(e));
    answer = { error: what };
  }
  return { ...classifyProbe(answer), endpoint, model };
}
