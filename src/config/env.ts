/** The environment as flower reads it: process.env, or a test's or a child's own map. */
export type EnvMap = Record<string, string | undefined>;
