/**
 * Where the bundled `claude` binary is: found once per process, as the SDK would find it.
 *
 * Why: without `pathToClaudeCodeExecutable`, the SDK's query() looks for the binary on every call, and on
 * Linux that look begins with `process.report.getReport()` (a whole diagnostic report, to prefer the musl
 * build on a musl libc): 10–20 ms of the parent's CPU per session in `node --cpu-prof` of bench/once.ts
 * (SDK 0.3.332; docs/sdk-facts.md, "Loading the SDK"). flower resolves the same package names from the
 * SDK's own folder, and names the binary only when exactly one of them is installed — npm installs the one
 * whose libc matches, so that is the SDK's own choice. With both or neither, the SDK decides, as before.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';

const SDK = '@anthropic-ai/claude-agent-sdk';

/** The packages that may hold the binary here, in the SDK's order (glibc first on Linux). */
export function binaryPackages(platform: string = process.platform, arch: string = process.arch): string[] {
  if (platform === 'android') return [`${SDK}-linux-${arch}-android`];
  if (platform === 'linux') return [`${SDK}-linux-${arch}`, `${SDK}-linux-${arch}-musl`];
  return [`${SDK}-${platform}-${arch}`];
}

/** The one installed binary among `packages`, else undefined (none, or two and the libc must decide). */
export function pickBinary(packages: readonly string[], resolve: (id: string) => string, exists: (p: string) => boolean, exe = ''): string | undefined {
  const found: string[] = [];
  for (const pkg of packages) {
    try {
      const p = resolve(`${pkg}/claude${exe}`);
      if (exists(p)) found.push(p);
    } catch {
      /* not installed */
    }
  }
  return found.length === 1 ? found[0] : undefined;
}

let cached: { path: string | undefined } | undefined;

/** The bundled binary's path, or undefined when the SDK should look for itself. Resolved once per process. */
export function bundledBinary(): string | undefined {
  if (cached) return cached.path;
  let path: string | undefined;
  try {
    // from the SDK's own folder, as the SDK resolves it (a hoisted install or a nested one)
    const fromSdk = createRequire(createRequire(import.meta.url).resolve(SDK));
    path = pickBinary(binaryPackages(), (id) => fromSdk.resolve(id), fs.existsSync, process.platform === 'win32' ? '.exe' : '');
  } catch {
    path = undefined;
  }
  cached = { path };
  return path;
}
