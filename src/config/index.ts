export { parseDotenv, configHome, envFiles, resolveEnv, requireCredentials, hasCredentials, maskSecret, CREDENTIAL_KEYS } from './dotenv.js';
export type { EnvMap, ResolvedEnv } from './dotenv.js';
export { detectLang } from './lang.js';
export type { Lang } from './lang.js';
export { baseUrlProblem, credentialValues, credentialsFile, storedCredential, writeCredentials } from './setup.js';
export { classifyProbe, probeCredentials, OFFICIAL_ENDPOINT, PROBE_DEFAULT_MODEL } from './probe.js';
export type { ProbeAnswer, ProbeInput, ProbeKind, ProbeResult } from './probe.js';
export type { SetupAnswers } from './setup.js';
