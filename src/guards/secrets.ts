/**
 * Secrets, recognised by name AND by value. Pure: no I/O.
 *
 * Why by value: an audit on binary 2.1.332 found `DATABASE_URL=postgres://app:PW@…`, `REDIS_URL` with a
 * password and `MYSQL_PWD` reaching every command — the name list knew `*_KEY` and `*TOKEN*` only. A
 * connection string with `user:pass@`, a known token format (`ghp_…`, `sk-ant-…`, `AKIA…`, a JWT, a PEM
 * private key), or a copy of a credential flower already knows is a secret whatever it is called.
 *
 * Nothing here decides what the `claude` binary itself receives: runtime/floor.ts does, from these answers.
 */

/** Names that are not secrets although a rule would say so: the endpoint, model names, the working directory. */
const NOT_SECRET = new Set([
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_MODEL',
  'ANTHROPIC_DEFAULT_OPUS_MODEL',
  'ANTHROPIC_DEFAULT_SONNET_MODEL',
  'ANTHROPIC_DEFAULT_HAIKU_MODEL',
  'ANTHROPIC_SMALL_FAST_MODEL',
  'CLAUDE_CODE_SUBAGENT_MODEL',
  'PWD',
  'OLDPWD',
]);

/**
 * Names secret by what they are, not by their words: where flower's notifications go. A webhook's URL
 * is its key (Slack, an ntfy topic) and a notify command often holds one; an agent that read either
 * could post as flower, or learn where the person is reached.
 */
const SECRET_NAMES = new Set(['FLOWER_NOTIFY', 'FLOWER_NOTIFY_CMD']);

/** Words that make a name secret wherever they appear in it. */
const SECRET_WORDS = ['SECRET', 'PASSWORD', 'PASSWD', 'PRIVATE', 'CREDENTIAL', 'WEBHOOK'];
/** Words that make a name secret as a whole `_`-separated segment (`GITHUB_TOKEN`, `MYSQL_PWD`, `SENTRY_DSN`). */
const SECRET_SEGMENTS = new Set(['KEY', 'APIKEY', 'TOKEN', 'PWD', 'PASS', 'DSN', 'AUTH', 'PAT', 'COOKIE', 'SIGNATURE', 'SALT', 'OTP']);

/**
 * Is this variable name one that holds a secret? `*SECRET*`, `*PASSWORD*`, `*PRIVATE*`, `*CREDENTIAL*`
 * anywhere; `KEY`, `TOKEN`, `PWD`, `DSN`, `PASS`, `AUTH`, … as a whole segment (`AWS_ACCESS_KEY_ID`,
 * `NODE_AUTH_TOKEN`, `SSH_AUTH_SOCK` — the agent socket signs as the person); also `*_KEY`-style endings
 * glued to a word (`APIKEY`, `GHTOKEN`). Not `PWD` itself, the endpoint or the model names.
 * @example isSecretName('MYSQL_PWD') // true
 * @example isSecretName('TOKENIZERS_PARALLELISM') // false
 */
export function isSecretName(name: string): boolean {
  const n = name.toUpperCase();
  // git's configuration by environment (the sandbox hands its proxy settings to git that way): names, not keys
  if (NOT_SECRET.has(n) || /^GIT_CONFIG_(KEY|VALUE)_\d+$/.test(n)) return false;
  if (SECRET_NAMES.has(n)) return true;
  if (SECRET_WORDS.some((w) => n.includes(w))) return true;
  const parts = n.split('_').filter(Boolean);
  if (parts.some((p) => SECRET_SEGMENTS.has(p))) return true;
  const last = parts[parts.length - 1] ?? '';
  return /(APIKEY|TOKEN|SECRETKEY|ACCESSKEY)$/.test(last);
}

/** `scheme://user:password@host` (an empty user too: `redis://:pw@host`). Linear: no class can cross `:`, `/` or `@`. */
const URL_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:[^\s/@]+@/i;

/** Token formats that are credentials by their shape (anchored prefixes: no backtracking over the value). */
const TOKEN_SHAPES: readonly RegExp[] = [
  /^sk-[A-Za-z0-9_-]{16,}/, // Anthropic (sk-ant-…), OpenAI
  /^(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/,
  /^github_pat_[A-Za-z0-9_]{20,}/,
  /^glpat-[A-Za-z0-9_-]{16,}/,
  /^xox[abposr]-[A-Za-z0-9-]{10,}/,
  /^xapp-[A-Za-z0-9-]{10,}/,
  /^(AKIA|ASIA)[A-Z0-9]{16}$/,
  /^AIza[A-Za-z0-9_-]{30,}/,
  /^ya29\.[A-Za-z0-9_-]{20,}/,
  /^npm_[A-Za-z0-9]{30,}/,
  /^pypi-[A-Za-z0-9_-]{30,}/,
  /^hf_[A-Za-z0-9]{30,}/,
  /^dop_v1_[a-f0-9]{40,}/,
  /^(sk|rk)_(live|test)_[A-Za-z0-9]{16,}/,
  /^SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/,
  /^shp(at|ss|ca)_[a-fA-F0-9]{32}/,
  /^eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/, // a JWT
];

/** The shortest known credential worth matching inside another value (shorter ones match too much text). */
export const MIN_SECRET_CHARS = 8;

/**
 * Does this value hold a secret: a password in a URL, a private key, a token of a known shape, or a
 * credential flower already knows (the API key, the store's password) anywhere inside it?
 * @example isSecretValue('postgres://app:hunter2@db/app') // true
 * @example isSecretValue('postgres://db/app') // false
 */
/** A password inside a connection string or a query (`Password=…;`, `?password=…`, `&access_token=…`). Linear: one class per side. */
const PARAM_PASSWORD = /(?:^|[;?&\s])(?:password|passwd|pwd|secret|token|api_?key|access_token|auth_token)=[^;&\s]+/i;

export function isSecretValue(value: string, known: readonly string[] = []): boolean {
  if (!value) return false;
  if (URL_PASSWORD.test(value) || PARAM_PASSWORD.test(value)) return true;
  if (value.includes('-----BEGIN') && value.includes('PRIVATE KEY')) return true;
  const v = value.trim().replace(/^(Bearer|Basic|token)\s+/i, '');
  if (TOKEN_SHAPES.some((re) => re.test(v))) return true;
  return known.some((k) => k.length >= MIN_SECRET_CHARS && value.includes(k));
}

/** The password of a `scheme://user:pass@host` URL, or undefined. */
export function urlPassword(value: string): string | undefined {
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:([^\s/@]+)@/i.exec(value.trim());
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return m[1]!;
  }
}

export interface SecretsFound {
  /** variables that hold a secret, sorted */
  readonly names: string[];
  /** the secret values themselves (whole values, and a URL's password alone), longest first: for redaction */
  readonly values: string[];
}

/**
 * The secret-bearing variables of an environment and their values. `pass` names variables the person
 * passes on purpose (`--pass-env NAME`): never counted. `known` are credentials known from elsewhere
 * (the API key): a variable that copies one is a secret too.
 */
export function secretsIn(env: Readonly<Record<string, string | undefined>>, o: { pass?: readonly string[]; known?: readonly string[] } = {}): SecretsFound {
  const pass = new Set(o.pass ?? []);
  const known = (o.known ?? []).filter((k) => k.length >= MIN_SECRET_CHARS);
  const names: string[] = [];
  const values = new Set<string>();
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || pass.has(k)) continue;
    if (!(isSecretName(k) || isSecretValue(v, known))) continue;
    names.push(k);
    if (v.length >= MIN_SECRET_CHARS) values.add(v);
    const pw = urlPassword(v);
    if (pw && pw.length >= MIN_SECRET_CHARS) values.add(pw);
  }
  for (const k of known) values.add(k);
  return { names: names.sort(), values: [...values].sort((a, b) => b.length - a.length) };
}

/**
 * The script the binary's tool shell runs before every command (it is handed over as CLAUDE_ENV_FILE,
 * which the binary sources AFTER the user's rc file — measured on 2.1.332: with `export
 * ANTHROPIC_API_KEY=…` in ~/.bashrc the key came back into every sandboxed command; with this script it
 * did not). It unsets the names flower knows, then any exported name or value the rc may have added
 * that looks secret, except the ones passed on purpose. POSIX sh, bash and zsh alike.
 */
export function scrubScript(names: readonly string[], pass: readonly string[] = []): string {
  const valid = (n: string): boolean => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n);
  const fixed = [...new Set(names)].filter((n) => valid(n) && !pass.includes(n));
  const keep = pass.filter(valid);
  const keepCase = keep.length ? `    ${keep.join('|')}) ;;\n` : '';
  return [
    '# written by flower: no secret reaches a command, even when a shell rc exports one again',
    ...(fixed.length ? [`unset ${fixed.join(' ')} 2>/dev/null`] : []),
    "for __flower_n in $(env | sed -n 's/^\\([A-Za-z_][A-Za-z0-9_]*\\)=.*/\\1/p'); do",
    '  case "$__flower_n" in',
    `${keepCase}    PWD|OLDPWD|ANTHROPIC_BASE_URL|ANTHROPIC_MODEL|ANTHROPIC_*_MODEL|ANTHROPIC_SMALL_FAST_MODEL|GIT_CONFIG_KEY_*|GIT_CONFIG_VALUE_*|GIT_CONFIG_COUNT) ;;`,
    '    *[Ss][Ee][Cc][Rr][Ee][Tt]*|*[Pp][Aa][Ss][Ss][Ww][Oo][Rr][Dd]*|*[Pp][Aa][Ss][Ss][Ww][Dd]*|*[Pp][Rr][Ii][Vv][Aa][Tt][Ee]*|*[Cc][Rr][Ee][Dd][Ee][Nn][Tt][Ii][Aa][Ll]*) unset "$__flower_n" ;;',
    '    KEY|*_KEY|KEY_*|*_KEY_*|TOKEN|*_TOKEN|TOKEN_*|*_TOKEN_*|*_PWD|*_PWD_*|*_PASS|*_PASS_*|*_DSN|*_DSN_*|*_AUTH|*_AUTH_*|AUTH_*|*_PAT|*_PAT_*|*APIKEY|*TOKEN|*_COOKIE|*_COOKIE_*|*_SALT|*_SALT_*|*_OTP|*_SIGNATURE) unset "$__flower_n" ;;',
    '    *) eval "__flower_v=\\${$__flower_n}"',
    '       case "$__flower_v" in *://*:*@*|*"PRIVATE KEY"*) unset "$__flower_n" ;; esac ;;',
    '  esac',
    'done',
    'unset __flower_n __flower_v',
    '',
  ].join('\n');
}

/**
 * Tokens recognisable in running text by their shape (each alternative starts with a literal prefix
 * and ends with one character class: linear on any input). Narrower than TOKEN_SHAPES: in an output a
 * short `sk-…` or a JWT is too often a fixture.
 */
const TOKEN_IN_TEXT =
  /\b(?:sk-ant-[A-Za-z0-9_-]{20,}|sk-proj-[A-Za-z0-9_-]{20,}|(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}|glpat-[A-Za-z0-9_-]{20,}|xox[abposr]-[A-Za-z0-9-]{20,}|AKIA[A-Z0-9]{16}\b|AIza[A-Za-z0-9_-]{35}|npm_[A-Za-z0-9]{36}|hf_[A-Za-z0-9]{34,}|(?:sk|rk)_live_[A-Za-z0-9]{20,})/g;

/** Private key blocks (`-----BEGIN … PRIVATE KEY-----` to its END line), found with indexOf: linear. */
function redactKeyBlocks(text: string): { text: string; hits: number } {
  let out = '';
  let at = 0;
  let hits = 0;
  for (;;) {
    const begin = text.indexOf('-----BEGIN ', at);
    if (begin < 0) break;
    const lineEnd = text.indexOf('-----', begin + 11);
    if (lineEnd < 0 || !text.slice(begin, lineEnd).endsWith('PRIVATE KEY')) {
      out += text.slice(at, begin + 11);
      at = begin + 11;
      continue;
    }
    const end = text.indexOf('-----END ', lineEnd + 5);
    const close = end < 0 ? text.length : text.indexOf('-----', end + 9);
    const stop = close < 0 ? text.length : close + 5;
    out += `${text.slice(at, begin)}[secret: private key]`;
    at = stop;
    hits++;
  }
  return hits ? { text: out + text.slice(at), hits } : { text, hits: 0 };
}

/**
 * The text with every known secret value replaced by `[secret]` (longest first, so a password inside a
 * URL goes too), then every token of a known shape and every private key block.
 */
export function redact(text: string, values: readonly string[]): { text: string; hits: number } {
  let out = text;
  let hits = 0;
  for (const v of values) {
    if (v.length < MIN_SECRET_CHARS || !out.includes(v)) continue;
    const parts = out.split(v);
    hits += parts.length - 1;
    out = parts.join('[secret]');
  }
  out = out.replace(TOKEN_IN_TEXT, () => {
    hits++;
    return '[secret]';
  });
  const keys = redactKeyBlocks(out);
  return { text: keys.text, hits: hits + keys.hits };
}

/**
 * Does a shell start-up file's text hold a secret: a known value, or an assignment to a secret-looking
 * name (`export GITHUB_TOKEN=…`, `MYSQL_PWD=…`)? Such a file is kept from every command (the sandbox
 * denies reading it), so neither the tool shell's own sourcing nor a model's `source ~/.bashrc` can
 * bring the secret back.
 */
export function startupFileHoldsSecret(text: string, values: readonly string[]): boolean {
  if (values.some((v) => v.length >= MIN_SECRET_CHARS && text.includes(v))) return true;
  for (const line of text.split('\n')) {
    const m = /^\s*(?:export\s+|declare\s+-x\s+|typeset\s+-x\s+|setenv\s+)?([A-Za-z_][A-Za-z0-9_]*)[=\s]/.exec(line);
    if (!m) continue;
    const rest = line.slice(m[0].length);
    if (isSecretName(m[1]!) && /\S/.test(rest)) return true;
    if (isSecretValue(rest.trim().replace(/^["']|["']$/g, ''))) return true;
  }
  return false;
}
