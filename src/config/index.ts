export { parseDotenv, configHome, envFiles, resolveEnv, requireCredentials, maskSecret, CREDENTIAL_KEYS } from './dotenv.js';
export type { EnvMap, ResolvedEnv } from './dotenv.js';
export { detectLang } from './lang.js';
export type { Lang } from './lang.js';
export { credentialValues, credentialsFile, writeCredentials } from './setup.js';
export type { SetupAnswers } from './setup.js';
