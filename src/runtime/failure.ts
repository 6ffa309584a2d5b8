/**
 * Typed failures: what went wrong with a step, decided ONCE where it happened (the attempt sees the
 * binary's structured `error` kind, the HTTP status, the result subtype, a thrown error, the watchdog,
 * a handoff cut, a human interrupt; the runtime sees a store that cannot be written, a signal).
 * Everything downstream — the retry loop, the manifest row, the CLI's exit line — reads `kind` and
 * `retryable`, never the text. The text stays, readable, in `message`.
 *
 * Pure: no I/O. The binary's kinds (sdk.d.ts `SDKAssistantMessageError`, docs/sdk-facts.md §3.1):
 * authentication_failed, oauth_org_not_allowed, account_on_hold, verification_required, billing_error,
 * rate_limit, overloaded, invalid_request, model_not_found, server_error, unknown, max_output_tokens,
 * cloud_credential_error.
 */
import { ConfigError, StoreError, errorText } from '../errors.js';
import { FAILURE_KINDS, type FailureKind } from '../state/kinds.js';
import { classify, isOverflow } from './resilience.js';

// the kinds are a saved format (manifest rows): declared once, in the state layer
export { FAILURE_KINDS, type FailureKind };

interface FailureOf<K extends FailureKind> {
  kind: K;
  /** another attempt of the same step may succeed (the loop still bounds attempts) */
  retryable: boolean;
  /** readable, for people: the binary's own text or ours */
  message: string;
  /** the HTTP status when the API answered with one */
  status?: number;
}
/** A discriminated union on `kind`. */
export type StepFailure = { [K in FailureKind]: FailureOf<K> }[FailureKind];

/**
 * Whether a kind is worth another attempt. `quota` depends on the instance (a 429 passes, an empty
 * balance does not) and `unknown` on the policy (retryUnknown); both are decided at the origin.
 */
const RETRYABLE: Readonly<Record<FailureKind, boolean>> = Object.freeze({
  auth: false,
  config: false,
  quota: true,
  overloaded: true,
  network: true,
  timeout: true,
  // context-full is not retried as such: the handoff route takes it (a fresh session, not a retry)
  'context-full': false,
  'guard-denied': false,
  interrupted: false,
  killed: false,
  store: false,
  budget: false,
  deadline: false,
  internal: false,
  unknown: true,
  // the workflow already gave the model its one chance to fix the answer: another attempt of the same would repeat it
  model: false,
  // the workflow decides another round itself (the judge's feedback); the step's own loop never retries it
  rejected: false,
});

export function failure(kind: FailureKind, message: string, o: { retryable?: boolean; status?: number | null } = {}): StepFailure {
  const f = { kind, retryable: o.retryable ?? RETRYABLE[kind], message: message.trim() || kind } as StepFailure;
  if (typeof o.status === 'number' && Number.isFinite(o.status)) f.status = o.status;
  return f;
}

export const isFailureKind = (v: unknown): v is FailureKind => typeof v === 'string' && (FAILURE_KINDS as readonly string[]).includes(v);

/** What the binary said about an API failure, as it said it (synthetic assistant / api_retry / result fields). */
export interface ApiErrorSignal {
  /** SDKAssistantMessageError */
  error?: string | null;
  status?: number | null;
  /** `api_error: "connection_failed"` on the synthetic assistant: no HTTP response at all */
  connection?: boolean;
  text: string;
}

/** From the HTTP status alone (the binary's kind was "unknown" or absent). */
function fromStatus(status: number, text: string): StepFailure | null {
  if (status === 401 || status === 403) return failure('auth', text, { status });
  if (status === 413 || (status === 400 && isOverflow(text))) return failure('context-full', text, { status });
  if (status === 400 || status === 404 || status === 422) return failure('config', text, { status });
  if (status === 402) return failure('quota', text, { status, retryable: false });
  if (status === 429) return failure('quota', text, { status, retryable: true });
  if (status === 408) return failure('timeout', text, { status });
  if (status >= 500 && status <= 599) return failure('overloaded', text, { status });
  return null;
}

/** An API failure, from the binary's own kind first, then the status, then (last) its text. */
export function fromApiError(s: ApiErrorSignal): StepFailure {
  const text = s.text;
  const status = typeof s.status === 'number' ? s.status : null;
  // a refusal (stop_reason "refusal"; the binary: "… safeguards flagged this message") is the model's
  // answer, not the configuration's: the same prompt again would be refused again
  if (/safeguards flagged/i.test(text)) return failure('model', text, { status });
  switch (s.error) {
    case 'authentication_failed':
    case 'oauth_org_not_allowed':
    case 'account_on_hold':
    case 'verification_required':
    case 'cloud_credential_error':
      return failure('auth', text, { status });
    case 'billing_error':
      return failure('quota', text, { status, retryable: false });
    case 'rate_limit':
      return failure('quota', text, { status, retryable: true });
    case 'overloaded':
      return failure('overloaded', text, { status });
    case 'model_not_found':
      return failure('config', text, { status });
    case 'invalid_request':
      return isOverflow(text) ? failure('context-full', text, { status }) : failure('config', text, { status });
    case 'max_output_tokens':
      return failure('budget', text, { status });
    case 'server_error':
      // the binary says server_error for a refused connection too, with api_error "connection_failed"
      if (s.connection && status === null) return failure('network', text);
      break;
    default:
      break;
  }
  if (status !== null) {
    const f = fromStatus(status, text);
    if (f) return f;
  }
  if (s.connection) return failure('network', text);
  return fromText(text);
}

/**
 * The last resort, used only at the origin when the binary gave no structured kind (a thrown error,
 * a startup failure): one set of rules, the same the public `classify` uses.
 */
export function fromText(text: string): StepFailure {
  const t = text.trim();
  if (!t) return failure('unknown', 'the agent ended without a result');
  if (isOverflow(t)) return failure('context-full', t);
  // a resume of a session the binary cannot find: fatal, never retried (issue 11: 6 retries, 2 min)
  if (/no conversation found/i.test(t)) return failure('config', t);
  if (/max_turns|error_max_turns/i.test(t)) return failure('budget', t);
  if (/budget/i.test(t)) return failure('budget', t);
  if (/credit balance|billing|quota exceeded/i.test(t)) return failure('quota', t, { retryable: false });
  if (/authenticat|invalid.?api.?key|unauthori[sz]ed|\b401\b|\b403\b|organization (?:has been )?disabled/i.test(t)) return failure('auth', t);
  if (/CLINotFound|claude code (?:executable|native binary) not found|spawn .* ENOENT/i.test(t)) return failure('config', t);
  if (/process aborted by user|killed by signal|SIGKILL|SIGTERM|SIGHUP/i.test(t)) return failure('killed', t);
  const c = classify(t);
  if (c === 'fatal') return failure('config', t);
  if (c === 'transient') {
    if (/rate.?limit|too many requests|(?<![.:\d])\b429\b/i.test(t)) return failure('quota', t, { retryable: true });
    if (/timeout|timed out|no data arrived/i.test(t)) return failure('timeout', t);
    if (/(?<![.:\d])\b(?:5\d\d)\b(?![.:]\d)|overloaded|server-side|internal server error|unavailable/i.test(t)) return failure('overloaded', t);
    return failure('network', t);
  }
  return failure('unknown', t);
}

/**
 * An error thrown inside a step (out of the runtime's own code, not the binary's report): a store that
 * failed — any backend, SQLite, its keys or PostgreSQL: every one is a StoreError — is a `store`
 * failure; a configuration the step cannot run with is `config`; anything else is our bug.
 */
export function fromThrown(e: unknown): StepFailure {
  if (StoreError.is(e)) return failure('store', errorText(e));
  if (ConfigError.is(e)) return failure('config', errorText(e));
  return failure('internal', errorText(e));
}

/** The result subtypes that name a limit the person set. */
export function fromResultSubtype(subtype: string, text: string): StepFailure | null {
  if (subtype === 'error_max_turns') return failure('budget', `max turns reached${text ? `: ${text}` : ''}`);
  if (subtype === 'error_max_budget_usd') return failure('budget', `budget cap reached${text ? `: ${text}` : ''}`);
  if (subtype === 'error_max_structured_output_retries') return failure('internal', `structured output retries exhausted${text ? `: ${text}` : ''}`);
  return null;
}

/** What each flower-made cut means. */
export function fromInterrupt(cause: 'watchdog' | 'human' | 'handoff' | 'loop' | 'deadline', message: string): StepFailure {
  if (cause === 'human') return failure('interrupted', message);
  if (cause === 'deadline') return failure('deadline', message);
  // a model stuck on one call after being told its result will not change: another attempt would repeat it
  if (cause === 'loop') return failure('model', message);
  if (cause === 'handoff') return failure('context-full', message);
  return failure('timeout', message);
}

/**
 * The endpoint does not serve the model: a `config` failure with a 404, or the binary's own words for
 * model_not_found ("There's an issue with the selected model …"). Decided on the kind and status first.
 */
export function isModelNotFound(f: Pick<StepFailure, 'kind' | 'status' | 'message'>): boolean {
  if (f.kind !== 'config') return false;
  return f.status === 404 || /issue with the selected model|model[^.]{0,60}not (?:found|exist)|not_found_error[^.]{0,20}model/i.test(f.message);
}

/**
 * The line that says what to fix, per kind (the readable `error` of a step that stopped on it).
 * `model`: the model the step asked for, named when the endpoint does not serve it.
 */
export function fatalLine(f: StepFailure, model?: string): string {
  const m = f.message.trim();
  switch (f.kind) {
    case 'auth':
      return `authentication failed: ${m} — check ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN and ANTHROPIC_BASE_URL`;
    case 'config':
      if (/no conversation found/i.test(m)) return `${m} — \`flower log\` lists the sessions this run dir holds`;
      if (isModelNotFound(f))
        // what to do first: a narrow screen clips a long reason at its end (src/cli/ending.ts), and the API's text can be long
        return `the endpoint does not serve the model${model ? ` '${model}'` : ''}: run \`flower setup\` to pick one it serves (or check ANTHROPIC_MODEL, and ANTHROPIC_BASE_URL: the gateway root, without /v1) — ${m}`;
      return /not.?found/i.test(m) ? `${m} — check ANTHROPIC_BASE_URL (the gateway root, without /v1) and the model name (ANTHROPIC_MODEL)` : m;
    case 'budget':
      // the run's own cap (limits.ts) already says what was spent and how to go on
      if (m.startsWith("the run's budget")) return m;
      return /turn/i.test(m) ? `${m} — raise the spec's maxTurns if the step needs more turns` : `${m} — the budget cap was reached`;
    case 'quota':
      return f.retryable ? m : `${m} — the account's credit or quota is exhausted`;
    case 'store':
      return `the session store could not be written: ${m}`;
    default:
      return m;
  }
}
