// Built-in reviewer presets (docs/review-pass-protocol.md#default-profile default profile, docs/review-pass-protocol.md#reviewer-invocation headless commands), turned
// into argv arrays with the prompt NEVER in argv (docs/review-pass.md#review-protocols): the seed's `gemini -p "{prompt}"`,
// `opencode run "{prompt}"` and `codex exec "{prompt}"` forms are replaced by stdin delivery, which
// each of those CLIs supports in headless mode:
//   claude   `claude -p` reads the prompt from stdin (the seed's own form);
//   gemini   headless when stdin is not a TTY; the piped text is the prompt;
//   codex    `codex exec -` reads the prompt from stdin;
//   opencode `opencode run` reads piped stdin to EOF and joins it to the message; the message here is
//            a fixed sentence that carries nothing from the review.
// Hosted-model CLIs need the network (`network: true`, the documented egress path) and their API
// key, which is passed through by NAME only (`env_passthrough`); the value never enters argv or a
// log. The real-tool presets run governed's own devDependencies (tsc, ESLint) found on the sandbox
// PATH under /opt/governed/node_modules/.bin (runner/repo-sandbox.ts).
import type { ToolEntryInput } from './config-schema.js';

export const PRESET_NAMES = ['claude', 'gemini', 'codex', 'opencode', 'tsc', 'eslint'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

export const PRESETS: Readonly<Record<PresetName, Required<Omit<ToolEntryInput, 'preset' | 'timeout' | 'egress'>>>> = {
  claude: {
    command: ['claude', '-p', '--output-format', 'text', '--allowedTools', 'Read,Glob,Grep', '--max-turns', '5'],
    prompt: 'stdin',
    parse: 'json',
    retries: 1,
    network: true,
    ok_exit_codes: [0],
    env: {},
    env_passthrough: ['ANTHROPIC_API_KEY'],
    max_output: '1MiB',
  },
  gemini: {
    command: ['gemini', '-m', 'gemini-2.5-flash'],
    prompt: 'stdin',
    parse: 'text_fallback',
    retries: 1,
    network: true,
    ok_exit_codes: [0],
    env: {},
    env_passthrough: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
    max_output: '1MiB',
  },
  codex: {
    command: ['codex', 'exec', '--sandbox', 'read-only', '--skip-git-repo-check', '-'],
    prompt: 'stdin',
    parse: 'text_fallback',
    retries: 1,
    network: true,
    ok_exit_codes: [0],
    env: {},
    env_passthrough: ['OPENAI_API_KEY'],
    max_output: '1MiB',
  },
  opencode: {
    command: ['opencode', 'run', '--dir', '{repo}', 'Follow the review instructions given on standard input.'],
    prompt: 'stdin',
    parse: 'text_fallback',
    retries: 1,
    network: true,
    ok_exit_codes: [0],
    env: {},
    env_passthrough: [],
    max_output: '1MiB',
  },
  tsc: {
    command: ['tsc', '--noEmit', '--pretty', 'false', '--listFiles', '-p', '{repo}'],
    prompt: 'none',
    parse: 'tsc',
    retries: 0,
    network: false,
    // tsc exits 1 or 2 when it reports diagnostics; the diagnostics are the review.
    ok_exit_codes: [0, 1, 2],
    env: {},
    env_passthrough: [],
    max_output: '8MiB',
  },
  eslint: {
    command: ['eslint', '--format', 'json', '.'],
    prompt: 'none',
    parse: 'eslint',
    retries: 0,
    network: false,
    // ESLint exits 1 when it reports lint errors; 2 is a configuration or crash error.
    ok_exit_codes: [0, 1],
    env: {},
    env_passthrough: [],
    max_output: '16MiB',
  },
};
