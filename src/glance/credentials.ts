// biome-ignore-all format: option and path tables, one tool or rule per line; the layout is the table
/**
 * Where credentials live: the one list every wall reads — the glance classifier (names in a command),
 * the Read/Grep/Glob wall (paths), and the OS sandbox (folders and files its commands cannot read).
 * Pure data and predicates, no I/O. docs/security.md documents it; `--deny-read PATH` extends it for a
 * run and `--allow-read PATH` opens one entry on purpose.
 *
 * Why a list of places and not only of names: an audit on binary 2.1.332 had a worker's `cat` return
 * `~/.ssh/id_*`, `~/.aws/credentials`, `~/.config/gh/hosts.yml`, `~/.netrc`, `~/.docker/config.json`,
 * `~/.kube/config` and shell history, all of which then sat in sessions.db and went to the model.
 */

/**
 * Folders and files under the person's home that hold credentials (relative to HOME). A folder covers
 * everything below it. Cloud CLIs, package registries, git and container tools, shells' histories, and
 * the `claude` binary's own folders (its login lives there; flower never reads them either).
 */
export const HOME_CREDENTIALS: readonly string[] = Object.freeze([
  // ssh, gpg, password stores and desktop keyrings
  '.ssh', '.gnupg', '.password-store', '.local/share/keyrings', '.Xauthority', '.ICEauthority',
  // cloud CLIs
  '.aws', '.azure', '.config/gcloud', '.oci', '.config/doctl', '.config/hcloud', '.config/linode-cli',
  '.boto', '.s3cfg', '.config/rclone', '.terraform.d/credentials.tfrc.json', '.terraformrc', '.vault-token',
  '.fly', '.config/heroku', '.netlify', '.vercel', '.config/vercel', '.wrangler', '.config/.wrangler',
  // git hosts and git itself
  '.config/gh', '.config/hub', '.config/glab-cli', '.git-credentials', '.config/git/credentials', '.netrc', '_netrc',
  // containers and clusters
  '.docker/config.json', '.dockercfg', '.kube', '.config/containers/auth.json', '.minikube',
  // package registries and build tools
  '.npmrc', '.yarnrc.yml', '.pypirc', '.config/pip/pip.conf', '.gem/credentials', '.cargo/credentials',
  '.cargo/credentials.toml', '.m2/settings.xml', '.m2/settings-security.xml', '.gradle/gradle.properties',
  '.nuget/NuGet/NuGet.Config', '.composer/auth.json', '.config/composer/auth.json',
  // databases
  '.pgpass', '.my.cnf', '.mylogin.cnf', '.config/redis',
  // password managers' and secret tools' CLIs, helm's repository logins, yarn 1's tokens
  '.config/op', '.op', '.config/Bitwarden CLI', '.config/sops', '.config/helm', '.yarnrc',
  // the claude binary's own folders (a login, an API key helper), and flower's own (its API key)
  '.claude', '.claude.json', '.config/claude', '.config/flower',
  // shells' and REPLs' histories: a pasted key stays there for years
  '.bash_history', '.zsh_history', '.sh_history', '.history', '.local/share/fish/fish_history',
  '.python_history', '.node_repl_history', '.psql_history', '.mysql_history', '.sqlite_history',
  '.rediscli_history', '.irb_history', '.lesshst', '.wget-hsts',
]);

/** System files that hold credentials, readable by root (CI runs as root). */
export const SYSTEM_CREDENTIALS: readonly string[] = Object.freeze([
  '/etc/shadow', '/etc/gshadow', '/etc/shadow-', '/etc/gshadow-', '/etc/sudoers', '/etc/sudoers.d',
  '/etc/ssh/ssh_host_rsa_key', '/etc/ssh/ssh_host_ecdsa_key', '/etc/ssh/ssh_host_ed25519_key', '/etc/ssh/ssh_host_dsa_key',
  '/root/.ssh', '/root/.aws', '/root/.docker/config.json', '/root/.kube', '/root/.netrc', '/root/.git-credentials',
  '/root/.npmrc', '/root/.pgpass', '/root/.bash_history', '/root/.zsh_history', '/root/.claude', '/root/.claude.json',
  // secrets mounted by container runtimes (Docker secrets, a Kubernetes service account token)
  '/run/secrets', '/var/run/secrets',
]);

/** Shell start-up files, by name: the binary's tool shell sources them before each command. */
export const SHELL_STARTUP_FILES: readonly string[] = Object.freeze([
  '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.zshrc', '.zshenv', '.zprofile',
  '.zlogin', '.zlogout', '.kshrc', '.cshrc', '.tcshrc', '.login', '.logout', '.inputrc',
]);

/** Lower-case extensions of files that are keys or key stores whatever they are called. */
export const KEY_FILE_EXTENSIONS: readonly string[] = Object.freeze(['pem', 'key', 'p12', 'pfx', 'jks', 'keystore', 'ppk', 'asc', 'gpg', 'kdbx', 'tfstate']);
const KEY_EXTENSIONS = new Set(KEY_FILE_EXTENSIONS);

/** Base names that are credential files wherever they are. */
export const CREDENTIAL_FILE_NAMES: readonly string[] = Object.freeze([
  '.netrc', '_netrc', '.git-credentials', '.credentials.json', 'credentials', 'credentials.json', 'credentials.toml',
  '.npmrc', '.pypirc', '.pgpass', '.my.cnf', '.mylogin.cnf', '.boto', '.s3cfg', '.dockercfg', '.vault-token',
  '.htpasswd', '.Xauthority', 'environ', 'id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519', 'id_ecdsa_sk', 'id_ed25519_sk',
  'secrets.json', 'secrets.yml', 'secrets.yaml', 'secrets.toml', 'terraform.tfvars', '.claude.json',
]);
const CREDENTIAL_BASENAMES = new Set(CREDENTIAL_FILE_NAMES);

/**
 * Is `name` (one path component) the name of a `.env` file — `.env`, `.env.local`, `.env.previous`,
 * `.envrc`, `.env~`, `prod.env`? These hold secrets wherever they are: no tool writes one, and no role
 * reads one (the workspace's own app settings included: a model never needs the values).
 */
export function isEnvFileName(name: string): boolean {
  return name.startsWith('.env') || (name.endsWith('.env') && name.length > 4);
}

/**
 * Is `name` (one path component) the name of a credential file: a `.env` file, a key or key store by
 * extension, an ssh key (`id_*` but not its `.pub`), or one of the well-known credential files?
 */
export function isCredentialName(name: string): boolean {
  if (isEnvFileName(name) || CREDENTIAL_BASENAMES.has(name)) return true;
  if (/^id_[a-z0-9]+(_sk)?$/.test(name)) return true;
  if (/_history$/.test(name)) return true;
  const dot = name.lastIndexOf('.');
  return dot > 0 && KEY_EXTENSIONS.has(name.slice(dot + 1).toLowerCase());
}

/** Home-relative credential places as absolute paths under `home`. */
export function homeCredentialPaths(home: string): string[] {
  const h = home.endsWith('/') ? home.slice(0, -1) : home;
  return HOME_CREDENTIALS.map((p) => `${h}/${p}`);
}
