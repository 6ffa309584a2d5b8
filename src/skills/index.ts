// Skills and plugins: where they come from, which role gets which, and the plugin flower builds.
export { SKILL_FILE, NAME_RE, MAX_DESCRIPTION, parseSkill, badSkillName, skillTemplate } from './skill.js';
export type { SkillHead, HeadResult } from './skill.js';
export { BUNDLE_PLUGIN, discover, skillsIn, pluginName, folderHash, pluginDirsFromEnv } from './discover.js';
export type { SkillInfo, PluginInfo, SkillSource, SkillSources, Discovery } from './discover.js';
export { buildBundle, shadowPlugin } from './bundle.js';
export { selectFor, skillAllowed, sessionPlugins, skillsBriefing, qualified, pluginServerTool } from './select.js';
export type { SkillSelection, RoleSkillsInput, RoleSkills } from './select.js';
export { SKILLS, withSkills, skillsOf } from './mark.js';
